"""State keys: which steps share an anchor state, for GiGPO's step-level groups.

- `workspace` (default): a content hash of the repository's files (names, modes, contents;
  `.git`, `__pycache__` and bytecode excluded), computed by the sandbox's executor;
- `observation`: a hash of the last tool output;
- `both`: the two together;
- a callable `(env) -> str` of your own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

StateKeyFn = Callable[[Any], str]

def workspace_key(env: Any) -> str:
    """A content hash of the repository's files (`.git`, `__pycache__` and bytecode excluded),
    computed inside the sandbox in one round trip with per-file caching."""
    return "ws:" + env.sandbox.tree_hash(env.task.workdir)[:32]


def observation_key(env: Any) -> str:
    return "obs:" + hashlib.sha256(env.last_tool_output.encode("utf-8", "replace")).hexdigest()[:20]


def both_key(env: Any) -> str:
    return workspace_key(env) + "|" + observation_key(env)


STATE_KEYS: dict[str, StateKeyFn] = {"workspace": workspace_key, "observation": observation_key, "both": both_key}


def get_state_key_fn(kind: str | StateKeyFn) -> StateKeyFn:
    if callable(kind):
        return kind
    try:
        return STATE_KEYS[kind]
    except KeyError:
        raise ValueError(f"unknown state_key {kind!r}; use one of {', '.join(STATE_KEYS)} or a callable") from None
