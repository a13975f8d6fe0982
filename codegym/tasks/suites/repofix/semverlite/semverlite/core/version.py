"""MAJOR.MINOR.PATCH versions."""

import re

_VERSION = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)$")


def parse(text):
    """"v1.2.3" -> ("1", "2", "3")."""
    match = _VERSION.match(text.strip())
    if not match:
        raise ValueError(f"not a version: {text!r}")
    return match.groups()


def compare(a, b):
    """-1, 0 or 1 as version `a` is older than, equal to or newer than `b`."""
    left, right = parse(a), parse(b)
    return (left > right) - (left < right)


def newest(versions):
    best = None
    for version in versions:
        if best is None or compare(version, best) > 0:
            best = version
    return best
