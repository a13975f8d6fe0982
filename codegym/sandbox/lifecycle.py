"""Who owns a container, and how leftovers of dead runs are found and removed.

Every container codegym starts carries labels: `codegym.run` (this process's run id),
`codegym.owner_pid`, `codegym.owner_host` and `codegym.created_at`. Its main process is a
keeper that exits (and so removes the container, started with auto-remove) once no executor
has been attached for `ttl_s` seconds: when the host process dies, its executors see their
stdin close and exit, and the container dies on its own. `reap()` removes what is left
right away; `codegym sandbox gc` and pool start-up call it.
"""

from __future__ import annotations

import atexit
import os
import signal
import socket
import threading
import time
import uuid
import weakref

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


def owner_labels(extra: dict[str, str] | None = None) -> dict[str, str]:
    labels = {
        LABEL: RUN_ID,
        "codegym.owner_pid": str(os.getpid()),
        "codegym.owner_host": socket.gethostname(),
        "codegym.created_at": f"{time.time():.3f}",
    }
    labels.update(extra or {})
    return labels


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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


def reap(client, everything: bool = False) -> list[str]:
    """Remove leftover codegym containers; with `everything`, also live runs' on this host.

    Uses the raw container list (one API call, labels included): containers come and go while
    we look (auto-removed ones vanish), so nothing here may assume one still exists.
    """
    removed = []
    for row in client.api.containers(all=True, filters={"label": LABEL}):
        labels = row.get("Labels") or {}
        if everything or is_orphan(labels):
            try:
                client.api.remove_container(row["Id"], force=True)
            except Exception:  # already gone (auto-remove raced us)
                continue
            removed.append((row.get("Names") or [row["Id"][:12]])[0].lstrip("/"))
    return removed


# ---- clean-up of this process's own sandboxes ---------------------------------------------

_LIVE: weakref.WeakSet = weakref.WeakSet()
_HOOKED = threading.Event()


def track(closeable) -> None:
    """Close `closeable` at interpreter exit or on SIGTERM/SIGHUP."""
    _LIVE.add(closeable)
    if not _HOOKED.is_set():
        _HOOKED.set()
        atexit.register(close_all)
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGHUP):
                if signal.getsignal(sig) in (signal.SIG_DFL, None):
                    signal.signal(sig, _exit_on_signal)


def untrack(closeable) -> None:
    _LIVE.discard(closeable)


def close_all() -> None:
    for obj in list(_LIVE):
        try:
            obj.close()
        except Exception:
            pass


def _exit_on_signal(signum, _frame):
    raise SystemExit(128 + signum)
