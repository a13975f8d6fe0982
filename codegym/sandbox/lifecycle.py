"""Who owns a container, and how leftovers of dead runs are found and removed.

Every container codegym starts carries labels: `codegym.run` (this process's run id),
`codegym.owner_pid`, `codegym.owner_host` and `codegym.created_at`. Its main process is a
keeper that exits (and so removes the container, started with auto-remove) once no executor
has been attached for `ttl_s` seconds: when the host process dies, its executors see their
stdin close and exit, and the container dies on its own. `reap()` removes what is left
right away; `codegym sandbox gc` and pool start-up call it.

A process's own sandboxes are closed when it exits, and on SIGTERM and SIGHUP (and SIGINT
where Python would otherwise die of it), whichever thread created them: the handlers are set
from the main thread when this module is imported (see `install_signal_handlers`).
"""

from __future__ import annotations

import atexit
import os
import signal
import socket
import threading
import time
import uuid
from pathlib import Path

from .base import SandboxError

RUN_ID = uuid.uuid4().hex[:12]
LABEL = "codegym.run"

# Runs as PID 2 under the container's init, as an unprivileged user the agent cannot signal.
KEEPER_SOURCE = r"""
import os, sys, time
ttl = float(sys.argv[1]); idle_since = time.time()
while True:
    time.sleep(min(2.0, ttl / 4))
    busy = False
    for pid in os.listdir('/proc'):
        if pid.isdigit():
            try:
                with open('/proc/%s/cmdline' % pid, 'rb') as f:
                    busy = busy or b'codegym-' b'executor' in f.read()  # split: not our own argv
            except OSError:
                pass
    if busy:
        idle_since = time.time()
    elif time.time() - idle_since > ttl:
        sys.exit(0)
"""


_MADE_CONTAINERS = threading.Event()  # this process asked the engine for a container


def owner_labels(extra: dict[str, str] | None = None) -> dict[str, str]:
    _MADE_CONTAINERS.set()
    labels = {
        LABEL: RUN_ID,
        "codegym.owner_pid": str(os.getpid()),
        "codegym.owner_host": socket.gethostname(),
        "codegym.created_at": f"{time.time():.3f}",
    }
    labels.update(extra or {})
    return labels


def _pid_alive(pid: int) -> bool:
    """Whether `pid` runs. A zombie (exited, not yet reaped by its parent) does not: it still
    answers `kill(pid, 0)`, but it will never close its containers."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return _process_state(pid) not in ("Z", "X")


def _process_state(pid: int) -> str | None:
    """The state letter of /proc/PID/stat ('R', 'S', 'Z' for a zombie, ...); None if unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (OSError, ValueError):
        return None
    fields = stat[stat.rfind(")") + 2 :].split()  # the command name may hold spaces and parentheses
    return fields[0] if fields else None


def is_orphan(labels: dict[str, str]) -> bool:
    """A container is an orphan when its owner process on this host is gone."""
    if labels.get(LABEL) == RUN_ID:
        return False
    if labels.get("codegym.owner_host") != socket.gethostname():
        return False  # another machine's: we cannot tell, leave it to its TTL
    try:
        return not _pid_alive(int(labels.get("codegym.owner_pid", "0")))
    except ValueError:
        return True


def reap(client, everything: bool = False, own: bool = False) -> list[str]:
    """Remove leftover codegym containers; with `everything`, also live runs' on this host; with
    `own`, this process's own (at exit: one whose creation a dying thread never saw finish).

    Uses the raw container list (one API call, labels included): containers come and go while
    we look (auto-removed ones vanish), so nothing here may assume one still exists.
    """
    removed = []
    for row in client.api.containers(all=True, filters={"label": LABEL}):
        labels = row.get("Labels") or {}
        mine = labels.get(LABEL) == RUN_ID and labels.get("codegym.owner_pid") == str(os.getpid())
        if everything or (own and mine) or is_orphan(labels):
            try:
                client.api.remove_container(row["Id"], force=True)
            except Exception:  # already gone (auto-remove raced us)
                continue
            removed.append((row.get("Names") or [row["Id"][:12]])[0].lstrip("/"))
    return removed


# ---- clean-up of this process's own sandboxes ---------------------------------------------

# Strong references: a sandbox dropped without close() still has a container, closed at exit.
_LIVE: set = set()
_LIVE_LOCK = threading.Lock()
_CLOSING = threading.Event()  # set once the process shuts down: no new sandbox from then on
_SHUTDOWN_LOCK = threading.Lock()
_SIGNAL_CLOSE_WAIT_S = 60.0  # a signal handler waits this long for the sandboxes to close


def track(closeable) -> None:
    """Close `closeable` when this process exits or gets SIGTERM/SIGHUP.

    Once that clean-up has begun, a sandbox created meanwhile (a pool's worker finishing a
    creation) is closed at once and `SandboxError` raised, so it cannot outlive the process.
    """
    install_signal_handlers()  # no-op off the main thread: the import set them already
    with _LIVE_LOCK:
        if not _CLOSING.is_set():
            _LIVE.add(closeable)
            return
    closeable.close()
    raise SandboxError("codegym is shutting down (a signal or interpreter exit): no new sandboxes")


def untrack(closeable) -> None:
    with _LIVE_LOCK:
        _LIVE.discard(closeable)


def shutting_down() -> bool:
    """True once this process has begun closing its sandboxes for good."""
    return _CLOSING.is_set()


def close_all(timeout_s: float = 120.0) -> None:
    """Close every live sandbox of this process, in parallel (a signal's grace period is short).

    Waits at most `timeout_s`: exit must not hang on an engine that stopped answering (what is
    left then dies on its own once its TTL passes)."""
    with _LIVE_LOCK:
        live = list(_LIVE)
    threads = []
    for obj in live:
        thread = threading.Thread(target=_close_quietly, args=(obj,), name="codegym-close", daemon=True)
        try:
            thread.start()
            threads.append(thread)
        except RuntimeError:  # no new threads this late in interpreter shutdown
            _close_quietly(obj)
    deadline = time.monotonic() + timeout_s
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))


def _close_quietly(obj) -> None:
    try:
        obj.close()
    except Exception:
        pass


def _shutdown() -> None:
    """Close everything, and refuse new sandboxes from now on (at exit, or on a signal)."""
    with _SHUTDOWN_LOCK:  # a second caller waits for the first to finish
        with _LIVE_LOCK:
            _CLOSING.set()
        close_all()
        _reap_own()


def _reap_own() -> None:
    """Remove any container this process made that is still there: a creation in flight on a
    thread that dies with the process (a daemon thread at exit) is tracked by no sandbox."""
    if not _MADE_CONTAINERS.is_set():
        return
    try:
        import docker

        reap(docker.from_env(timeout=10), own=True)
    except Exception:  # no engine to ask: the containers' TTL keepers remove them
        pass


# Python's own SIGINT handler raises KeyboardInterrupt: the program unwinds and the exit hook
# closes everything, and an interactive session that catches it keeps its sandboxes. Only a
# signal that would kill the process outright gets a handler.
_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def install_signal_handlers() -> bool:
    """Close every live sandbox, then exit with 128 + the signal number, on SIGTERM, SIGHUP (and
    SIGINT when it has no handler). Only the main thread may set signal handlers, while pools
    create sandboxes on worker threads; so this runs when codegym's sandbox layer is imported,
    and from the `codegym` command. A handler the program set itself is kept. Returns whether
    it ran (False off the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return False
    for sig in _SIGNALS:
        if signal.getsignal(sig) in (signal.SIG_DFL, None):
            signal.signal(sig, _close_and_exit)
    return True


def _close_and_exit(signum, _frame):
    # Closing runs on its own thread: the main thread may hold a lock that closing needs, and
    # unwinding it (SystemExit) releases that lock; the exit hook then waits for the rest.
    if not _CLOSING.is_set():
        closer = threading.Thread(target=_shutdown, name="codegym-shutdown", daemon=True)
        closer.start()
        closer.join(_SIGNAL_CLOSE_WAIT_S)
    raise SystemExit(128 + signum)


def _forget_parents_sandboxes() -> None:
    """In a forked child: the parent's sandboxes are not the child's to close."""
    global _LIVE, _LIVE_LOCK, _SHUTDOWN_LOCK
    _LIVE, _LIVE_LOCK, _SHUTDOWN_LOCK = set(), threading.Lock(), threading.Lock()
    _MADE_CONTAINERS.clear()


os.register_at_fork(after_in_child=_forget_parents_sandboxes)
atexit.register(_shutdown)
install_signal_handlers()
