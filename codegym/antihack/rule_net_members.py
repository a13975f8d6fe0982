"""Workspace members: the packages a repository publishes besides its main one, and their released copies.

A context's paths name them (``crates/globset/src/glob.rs`` -> ``globset``); a cache path or URL that
names one at a version (``globset-0.4.15``, ``crates/globset/0.4.15/download``) is a released copy of
the repository's own code, as much the answer as the main package's (`judge_net` NET-READ,
`judge_upstream` UP-NET).
"""

from __future__ import annotations

import re

_MEMBER_DIR = re.compile(
    r"(?:^|/)(?:crates|packages|libs|modules|components|sdk|src)/([a-z][\w.-]{3,})/(?:src|lib|tests?)/", re.I
)


def member_forms(
    test_paths: tuple[str, ...] | list[str], protected: tuple[str, ...] | list[str] = ()
) -> tuple[str, ...]:
    """The workspace members a context's paths name (``crates/globset/src/glob.rs`` -> ``globset``),
    lower-cased: the repository publishes them as packages of their own.

    >>> member_forms(["crates/globset/src/glob.rs", "tests/util.rs"])
    ('globset',)
    """
    out: list[str] = []
    for t in (*test_paths, *protected):
        m = _MEMBER_DIR.search(t)
        if m and m.group(1).lower() not in out:
            out.append(m.group(1).lower())
    return tuple(out)


def names_member_release(text: str, members: tuple[str, ...]) -> str | None:
    """The first workspace member that `text` names at a version (``globset-0.4.15``, ``globset/0.4.15``,
    ``name@v1.2.0``): a released copy of the repository's own code, or None.

    >>> names_member_release("/root/.cargo/registry/src/x/globset-0.4.15/src/glob.rs", ("globset",))
    'globset'
    >>> names_member_release("/root/.cargo/registry/src/x/regex-syntax-0.8.2/src/lib.rs", ("globset",)) is None
    True
    """
    low = text.lower()
    for m in members:
        if m in low and re.search(rf"(?<![a-z0-9_-]){re.escape(m)}[-@/_]v?\d+\.\d", low):
            return m
    return None
