"""State keys: which steps share an anchor state, for GiGPO's step-level groups.

- `workspace` (default): a content hash of the repository's files — git's tree id of the
  working tree (tracked and untracked, `.gitignore`d files and bytecode excluded), taken
  with a private index so the agent's own index is untouched;
- `observation`: a hash of the last tool output;
- `both`: the two together;
- a callable `(env) -> str` of your own.
"""

from __future__ import annotations

import hashlib
import shlex
from collections.abc import Callable
from typing import Any

StateKeyFn = Callable[[Any], str]

_TREE = ("export GIT_INDEX_FILE=/tmp/.codegym-state-index; rm -f $GIT_INDEX_FILE; "
         "git -c core.hooksPath=/dev/null -c core.fsmonitor=false add -A -- . "
         "':(exclude,glob)**/__pycache__/**' ':(exclude,glob)**/*.py[co]' >/dev/null 2>&1 && "
         "git write-tree; rm -f $GIT_INDEX_FILE")


def workspace_key(env: Any) -> str:
    r = env.sandbox.exec(_TREE, timeout=60, workdir=env.task.workdir)
    tree = r.stdout.strip()
    if r.exit_code != 0 or not tree:
        # No usable git repository (the agent removed it): hash the file listing and contents.
        r = env.sandbox.exec(f"cd {shlex.quote(env.task.workdir)} && find . -type f -not -path './.git/*' "
                             "-print0 | sort -z | xargs -0 -r sha1sum | sha1sum", timeout=60)
        tree = "files:" + r.stdout.split()[0] if r.stdout else "unknown"
    return "ws:" + tree


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
