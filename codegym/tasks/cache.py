"""Where codegym keeps generated suites and prepared workspaces.

The root is `$CODEGYM_CACHE` when set, else `~/.cache/codegym`. Everything under it can be
deleted at any time: it is rebuilt on the next use.
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV_VAR = "CODEGYM_CACHE"


def cache_dir() -> Path:
    """The cache root (not created here)."""
    root = os.environ.get(CACHE_ENV_VAR)
    if root:
        return Path(root).expanduser()
    return Path("~/.cache/codegym").expanduser()


def cache_subdir(name: str) -> Path:
    """`<cache root>/<name>`, created if missing."""
    path = cache_dir() / name
    path.mkdir(parents=True, exist_ok=True)
    return path
