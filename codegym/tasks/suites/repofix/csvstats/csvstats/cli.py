"""`csvstats FILE COLUMN`: print count, min, max and mean of a column."""

import argparse
import sys

from .summary import read_rows, summarize


def main(argv=None):
    parser = argparse.ArgumentParser(prog="csvstats")
    parser.add_argument("file")
    parser.add_argument("column")
    args = parser.parse_args(argv)
    try:
        stats = summarize(read_rows(args.file), args.column)
    except KeyError as e:
        print(f"error: {e.args[0]}", file=sys.stderr)
        return 2
    for key in ("count", "min", "max", "mean"):
        print(f"{key}: {stats[key]}")
    return 0
