"""`SandboxPool`: warm sandboxes handed out pristine, so an episode starts in milliseconds.

    pool = SandboxPool()                         # default Python task image, Docker if reachable
    sb = pool.acquire(workspace=tar_bytes)       # pristine, with this workspace unpacked
    ...
    pool.release(sb)                             # reset in the background, then reused

A released sandbox is reset off the caller's thread: every process the agent left is killed,
the scratch directories are emptied, and the workdir and home are restored from the snapshot
taken when the sandbox was created. A sandbox that fails its reset is replaced. A token
bucket limits how fast containers are created, `max_live` caps how many exist, and start-up
reaps leftovers of dead runs.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from .base import Sandbox, SandboxError
from .config import SandboxConfig
from .lifecycle import reap, shutting_down


class RateLimiter:
    """A token bucket: at most `rate` acquisitions per second, bursts of `burst`."""

    def __init__(self, rate: float, burst: int = 2):
        self.rate, self.burst = rate, burst
        self._tokens = float(burst)
        self._stamp = time.monotonic()
        self._lock = threading.Lock()

    def wait(self) -> None:
        while True:
            with self._lock:
                now = time.monotonic()
                self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
                self._stamp = now
                if self._tokens >= 1:
                    self._tokens -= 1
                    return
                delay = (1 - self._tokens) / self.rate
            time.sleep(delay)


def docker_reachable() -> bool:
    try:
        from .docker_sandbox import docker_client

        docker_client(timeout=5)
        return True
    except SandboxError:
        return False


_warned_local = False
_ACQUIRE_TRIES = 3  # sandboxes `acquire` tries before a dead one's error reaches the caller

#: the sandbox backends `resolve_backend` (and so `make_sandbox`, `SandboxPool`, `CodingEnv`) accept.
BACKENDS = ("auto", "docker", "local")


def resolve_backend(backend: str = "auto") -> str:
    """The backend to use: 'docker' or 'local' as given; for 'auto', 'docker' when an engine
    answers, else 'local' (with a one-line warning). Any other name is a `ValueError`: a typo must
    not quietly run the weaker bubblewrap sandbox."""
    global _warned_local
    if backend not in BACKENDS:
        hint = (" (podman: point DOCKER_HOST at its Docker-compatible socket and use 'docker')"
                if str(backend).lower() == "podman" else "")
        raise ValueError(f"unknown sandbox backend {backend!r}; use one of "
                         f"{', '.join(map(repr, BACKENDS))}{hint}")
    if backend != "auto":
        return backend
    if docker_reachable():
        return "docker"
    if not _warned_local:
        _warned_local = True
        print("codegym: no Docker engine reachable, using the bubblewrap sandbox "
              "(install Docker: `apt-get install -y docker.io && dockerd &`).", file=sys.stderr)
    return "local"


def make_sandbox(config: SandboxConfig | None = None, backend: str = "auto", client=None,
                 labels: dict[str, str] | None = None) -> Sandbox:
    """One new sandbox of the given backend ('docker', 'local' or 'auto')."""
    config = config or SandboxConfig()
    if resolve_backend(backend) == "docker":
        from .docker_sandbox import DockerSandbox

        return DockerSandbox.create(config, client=client, labels=labels)
    from .local import LocalSandbox

    return LocalSandbox.create(config)


@dataclass
class _Slot:
    sandbox: Sandbox
    baseline: bytes  # snapshot of workdir and home right after creation
    workspace: bytes | None = None  # the workspace last unpacked into it (restored on reset)
    uses: int = 0


@dataclass
class PoolStats:
    created: int = 0
    replaced: int = 0
    reset_failures: int = 0
    acquired: int = 0
    reaped: int = 0
    create_s: list[float] = field(default_factory=list)


class SandboxPool:
    """Warm sandboxes of one configuration (image, limits).

    Args:
        config: what each sandbox looks like (default: the Python task image).
        size: sandboxes kept warm and idle, ready for `acquire`.
        max_live: most sandboxes alive at once, leased and idle together.
        create_rate: most container creations per second.
        backend: 'docker', 'local' (bubblewrap) or 'auto'.
        max_uses: replace a sandbox after this many episodes (None: never).
    """

    def __init__(self, config: SandboxConfig | None = None, *, size: int = 2, max_live: int = 32,
                 create_rate: float = 4.0, backend: str = "auto", client=None,
                 max_uses: int | None = None, reap_leftovers: bool = True):
        self.config = config or SandboxConfig()
        self.size, self.max_live, self.max_uses = size, max_live, max_uses
        self.backend = resolve_backend(backend)
        self.stats = PoolStats()
        self._client = client
        if self.backend == "docker":
            from .docker_sandbox import docker_client

            self._client = client or docker_client()
            if self.config.image is None:
                from .images import default_image

                self.config = _with_image(self.config, default_image(self._client))
            if reap_leftovers:
                self.stats.reaped = len(reap(self._client))
        self._limiter = RateLimiter(create_rate, burst=max(2, size))
        self._idle: deque[_Slot] = deque()
        self._leased: dict[int, _Slot] = {}
        self._pending = 0  # creations and resets in flight
        self._preparing = 0  # taken by `acquire`, not yet leased (unpacking its workspace)
        self._cond = threading.Condition()
        self._workers = ThreadPoolExecutor(max_workers=4, thread_name_prefix="codegym-pool")
        self._closed = False
        self._refill()

    # ---- public API ----------------------------------------------------------------------

    def acquire(self, workspace: bytes | None = None, timeout: float = 300.0) -> Sandbox:
        """A pristine sandbox; with `workspace` (a tar), it is unpacked into the workdir."""
        deadline = time.monotonic() + timeout
        for attempt in range(_ACQUIRE_TRIES):
            slot = self._take(deadline, workspace)
            try:
                if workspace != slot.workspace:
                    if workspace is None:
                        slot.sandbox.restore(slot.baseline)
                    else:
                        slot.sandbox.upload(workspace, self.config.workdir, clean=True)
                    slot.workspace = workspace
                else:  # nothing to unpack: make sure it still runs (killed or OOM while idle)
                    slot.sandbox.exec("true", timeout=30)
                break
            except SandboxError:
                # An idle sandbox can die (`docker kill`, the OOM killer, its engine): take another.
                self._discard(slot)
                if attempt == _ACQUIRE_TRIES - 1 or time.monotonic() >= deadline:
                    raise
            except Exception:
                self._discard(slot)
                raise
        slot.uses += 1
        with self._cond:
            self._preparing -= 1
            closed = self._closed
            if not closed:
                self._leased[id(slot.sandbox)] = slot
                self.stats.acquired += 1
        if closed:  # the pool closed while this sandbox was being made: it must not outlive it
            slot.sandbox.close()
            raise SandboxError("the pool is closed")
        self._refill()
        return slot.sandbox

    def release(self, sandbox: Sandbox) -> None:
        """Give a sandbox back; it is reset in the background before anyone gets it again."""
        with self._cond:
            slot = self._leased.pop(id(sandbox), None)
            if slot is None:
                raise SandboxError("release() of a sandbox this pool did not hand out")
            self._pending += 1
        self._workers.submit(self._reset_and_return, slot)

    @contextlib.contextmanager
    def sandbox(self, workspace: bytes | None = None):
        sb = self.acquire(workspace)
        try:
            yield sb
        finally:
            self.release(sb)

    def warm(self, timeout: float = 300.0) -> None:
        """Block until `size` sandboxes are idle and ready."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self._idle) < self.size:
                if not self._cond.wait(timeout=max(0.0, deadline - time.monotonic())):
                    raise SandboxError(f"the pool did not warm {self.size} sandboxes in {timeout:.0f} s")

    @property
    def live(self) -> int:
        with self._cond:
            return len(self._idle) + len(self._leased) + self._pending + self._preparing

    def close(self) -> None:
        """Close every sandbox of the pool: idle, leased, and those being reset or created."""
        with self._cond:
            self._closed = True
            slots = list(self._idle) + list(self._leased.values())
            self._idle.clear()
            self._leased.clear()
            self._cond.notify_all()
        # Queued tasks are not cancelled: a queued reset holds a sandbox only it can close. Each
        # task sees `_closed` now, and closes its sandbox (a reset) or creates none (a refill).
        self._workers.shutdown(wait=True)
        for slot in slots:
            slot.sandbox.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- internals ------------------------------------------------------------------------

    def _take(self, deadline: float, workspace: bytes | None) -> _Slot:
        while True:
            with self._cond:
                if self._closed:
                    raise SandboxError("the pool is closed")
                if self._idle:
                    # Prefer a sandbox that already holds this workspace (group rollouts).
                    match = next((s for s in self._idle if s.workspace == workspace), self._idle[0])
                    self._idle.remove(match)
                    self._preparing += 1  # still counted against max_live until it is leased
                    return match
                total = len(self._leased) + self._pending + self._preparing
                if total < self.max_live and self._pending == 0:
                    self._pending += 1
                    create_here = True
                else:
                    create_here = False
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        raise SandboxError(
                            f"no sandbox free within the timeout ({len(self._leased)} leased, "
                            f"max_live={self.max_live}); release sandboxes or raise max_live"
                        )
                    self._cond.wait(timeout=min(remaining, 1.0))
            if create_here:
                slot = None
                try:
                    slot = self._create()
                    return slot
                finally:
                    with self._cond:
                        self._pending -= 1
                        self._preparing += slot is not None
                        self._cond.notify_all()

    def _create(self) -> _Slot:
        self._limiter.wait()
        t0 = time.monotonic()
        sb = make_sandbox(self.config, self.backend, client=self._client, labels={"codegym.pool": "1"})
        try:
            baseline = sb.snapshot([self.config.workdir, self.config.home])
        except Exception:
            sb.close()
            raise
        self.stats.created += 1
        self.stats.create_s.append(time.monotonic() - t0)
        return _Slot(sb, baseline)

    def _refill(self) -> None:
        with self._cond:
            if self._closed:
                return
            want = self.size - len(self._idle) - self._pending
            room = self.max_live - len(self._idle) - len(self._leased) - self._pending - self._preparing
            n = max(0, min(want, room))
            self._pending += n
        for _ in range(n):
            self._workers.submit(self._create_idle)

    def _create_idle(self) -> None:
        slot = None
        try:
            if not self._closed and not shutting_down():  # else nothing to warm any more
                slot = self._create()
        except Exception as exc:  # surfaced on the next acquire if it persists
            if not self._closed and not shutting_down():
                print(f"codegym: warming a sandbox failed: {exc}", file=sys.stderr)
        with self._cond:
            self._pending -= 1
            if slot is not None:
                if self._closed:
                    slot.sandbox.close()
                else:
                    self._idle.append(slot)
            self._cond.notify_all()

    def _reset_and_return(self, slot: _Slot) -> None:
        ok = False
        if not self._closed and not shutting_down() and (self.max_uses is None or slot.uses < self.max_uses):
            try:
                slot.sandbox.reset()
                slot.sandbox.restore(slot.baseline)
                if slot.workspace is not None:
                    slot.sandbox.upload(slot.workspace, self.config.workdir, clean=True)
                ok = True
            except Exception:
                self.stats.reset_failures += 1
        with self._cond:
            self._pending -= 1
            keep = ok and not self._closed  # decided under the lock that close() takes
            if keep:
                self._idle.append(slot)
            self._cond.notify_all()
        if not keep:  # a failed reset, its last use, or the pool closed while it was reset
            slot.sandbox.close()
            if not self._closed:
                self.stats.replaced += 1
                self._refill()

    def _discard(self, slot: _Slot) -> None:
        """Close a slot `acquire` took (`_take`) but could not prepare."""
        with self._cond:
            self._preparing -= 1
            self._cond.notify_all()
        slot.sandbox.close()
        self.stats.replaced += 1


def _with_image(config: SandboxConfig, image: str) -> SandboxConfig:
    from dataclasses import replace

    return replace(config, image=image)
