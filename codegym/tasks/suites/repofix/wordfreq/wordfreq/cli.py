"""`wordfreq FILE [-n N]`: print the most common words."""

import argparse
from pathlib import Path

from .counting import top_words


def main(argv=None):
    parser = argparse.ArgumentParser(prog="wordfreq")
    parser.add_argument("file")
    parser.add_argument("-n", type=int, default=10)
    args = parser.parse_args(argv)
    for word, count in top_words(Path(args.file).read_text(encoding="utf-8"), args.n):
        print(f"{word} {count}")
    return 0
