"""Process-wide sandbox pools shared by every env of an image and backend.

Many envs (threads, a batched runner) share warm sandboxes and grading sandboxes instead of
each starting its own containers. Closed at interpreter exit.
"""

from __future__ import annotations

import atexit
import dataclasses
import threading

from codegym.sandbox import SandboxConfig, SandboxPool

_POOLS: dict[tuple, SandboxPool] = {}
_LOCK = threading.Lock()


def shared_pool(image: str | None = None, backend: str = "auto", config: SandboxConfig | None = None,
                size: int = 2, purpose: str = "agent") -> SandboxPool:
    """The process-wide pool of `purpose` ("agent" or "grade") for an image and backend.

    Agents and graders draw from separate pools: an env holds its agent sandbox while its
    submission is graded, so with one shared cap a full batch of envs submitting at once (a
    lockstep rollout) would leave no room for any grading sandbox until an acquire timed out.
    """
    config = config or SandboxConfig()
    if image is not None:
        config = dataclasses.replace(config, image=image)
    key = (config, backend, purpose)
    with _LOCK:
        pool = _POOLS.get(key)
        if pool is None:
            pool = _POOLS[key] = SandboxPool(config, size=size, backend=backend)
        return pool


def close_shared_pools() -> None:
    with _LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
    for pool in pools:
        pool.close()


atexit.register(close_shared_pools)
