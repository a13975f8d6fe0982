"""Count words in text."""

import re
from collections import Counter

WORD = re.compile(r"[A-Za-z']+")


def words(text):
    """The words of `text`, case-folded: "The cat" -> ["the", "cat"]."""
    return WORD.findall(text)


def top_words(text, n=10):
    """The `n` most common words as (word, count), most common first, ties alphabetical."""
    counts = Counter(words(text))
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:n]
