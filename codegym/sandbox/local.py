"""`LocalSandbox`: the same executor in bubblewrap namespaces, for machines without Docker.

    from codegym.sandbox import LocalSandbox
    with LocalSandbox.create() as sb:
        sb.exec("echo hi")

Isolation: new user, pid, network, IPC, UTS and mount namespaces (`bwrap --unshare-all`), no
network, only the host's system directories (`/usr`, `/etc`, `/lib`...) mounted read-only,
a read-only root whose only writable places are private `/workspace`, home, `/tmp`,
`/var/tmp`, `/dev/shm` and `/dev/mqueue` (all reset by the pool), and rlimits (processes,
address space). It maps a single uid, so graded code runs as the same user as the grader's
executor (Docker runs it as a second user).
Weaker than a container (no cgroup memory accounting, the host's tools instead of an image):
use Docker for untrusted policies.
When started as root, the sandbox first drops to a dedicated unprivileged host uid.
"""

from __future__ import annotations

import itertools
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import threading

from .base import SandboxError
from .client import EXECUTOR_SOURCE, ExecutorClient, ExecutorGone, PipeStream
from .config import SandboxConfig
from .lifecycle import track, untrack
from .ops import ExecutorOps

_HOST_UIDS = itertools.count()
_HOST_UID_BASE = 61000  # dedicated unprivileged uids, one per sandbox, so rlimits do not mix
_PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"


_SYSTEM_DIRS = ("usr", "etc", "bin", "sbin", "lib", "lib32", "lib64", "libx32")


def _system_mounts() -> list[str]:
    """Read-only binds of the host's system directories only: no /root, /home, /work or /tmp."""
    args = []
    for name in _SYSTEM_DIRS:
        path = "/" + name
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


class LocalSandbox(ExecutorOps):
    backend = "local"

    def __init__(self, config: SandboxConfig):
        if bwrap_path() is None:
            raise SandboxError("bubblewrap is missing: `apt-get install -y bubblewrap` (or use Docker).")
        self.config = config
        self.workdir = config.workdir
        self._root = tempfile.mkdtemp(prefix="codegym-local-")
        os.chmod(self._root, 0o755)
        self._host_uid = _HOST_UID_BASE + next(_HOST_UIDS) % 4000 if os.getuid() == 0 else os.getuid()
        self._mounts = {config.workdir: "workspace", config.home: "home", "/tmp": "tmp", "/var/tmp": "vartmp"}
        for sub in self._mounts.values():
            path = os.path.join(self._root, sub)
            os.makedirs(path)
            if os.getuid() == 0:
                os.chown(path, self._host_uid, self._host_uid)
        self._proc: subprocess.Popen | None = None
        self._executor: ExecutorClient | None = None
        self._closed = False
        self._lock = threading.Lock()
        self._start_executor()
        track(self)

    @classmethod
    def create(cls, config: SandboxConfig | None = None, **_ignored) -> LocalSandbox:
        return cls(config or SandboxConfig())

    def _argv(self) -> list[str]:
        cfg = self.config
        argv = [bwrap_path(), "--unshare-all", "--die-with-parent", "--new-session"]
        argv += _system_mounts()
        argv += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/dev/shm", "--mqueue", "/dev/mqueue"]
        for inside, sub in self._mounts.items():
            argv += ["--bind", os.path.join(self._root, sub), inside]
        # Read-only everywhere else (bubblewrap's root and /dev are writable tmpfs otherwise): the
        # writable places are exactly the mounts above, which the pool resets between uses.
        argv += ["--remount-ro", "/dev", "--remount-ro", "/"]
        argv += ["--uid", "1000", "--gid", "1000", "--hostname", "codegym", "--chdir", cfg.workdir,
                 "--clearenv", "--setenv", "HOME", cfg.home, "--setenv", "USER", cfg.user,
                 "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "CODEGYM_WORKDIR", cfg.workdir]
        for key, value in cfg.env.items():
            argv += ["--setenv", key, value]
        argv += ["--setenv", "CODEGYM_ENV_KEYS", ",".join(cfg.env)]
        return argv + [_PYTHON, "-u", "-c", EXECUTOR_SOURCE, "codegym-executor"]

    def _preexec(self) -> None:
        cfg = self.config
        resource.setrlimit(resource.RLIMIT_NPROC, (cfg.pids_limit, cfg.pids_limit))
        mem = cfg.memory_bytes()
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if os.getuid() == 0:
            os.setgroups([])
            os.setgid(self._host_uid)
            os.setuid(self._host_uid)

    def _start_executor(self) -> None:
        try:
            self._proc = subprocess.Popen(self._argv(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL, preexec_fn=self._preexec,
                                          start_new_session=True)
            self._executor = ExecutorClient(PipeStream(self._proc), startup_timeout=20)
        except (OSError, ExecutorGone) as exc:
            raise SandboxError(
                f"bubblewrap sandbox did not start ({exc}). Check that unprivileged user "
                "namespaces work (`unshare -Ur true`) and that /usr/bin/python3 exists."
            ) from exc

    def _recover(self, why: str) -> None:
        with self._lock:
            self._stop_process()
            self._start_executor()

    def is_alive(self) -> bool:
        return not self._closed and self._proc is not None and self._proc.poll() is None

    def _stop_process(self) -> None:
        if self._executor is not None:
            self._executor.close()
            self._executor = None
        if self._proc is not None:
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self._proc.wait()
            self._proc = None

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        untrack(self)
        self._stop_process()
        shutil.rmtree(self._root, ignore_errors=True)

    def __repr__(self) -> str:
        return f"LocalSandbox({self._root})"
