"""`DockerSandbox`: a hardened container with a persistent executor inside.

    from codegym.sandbox import DockerSandbox
    with DockerSandbox.create() as sb:
        print(sb.exec("python3 --version").stdout)

Hardening (all defaults): no network, every capability dropped, `no-new-privileges`, a pids
limit, memory limit equal to memory+swap, a CPU quota, an init process, a non-root user,
`/workspace` as the working directory, and never the Docker socket inside. The root
filesystem is read-only: the only writable places are explicit mounts (the workdir, home,
`/tmp`, `/var/tmp`, `/dev/shm`, `/dev/mqueue`; `SandboxConfig.writable_dirs`), and a pooled
sandbox resets every one of them, so nothing one episode writes reaches the next. The
container's main process is a keeper running as `nobody` (see `lifecycle.py`); the agent's
commands run in an executor (see `executor.py`) attached over `docker exec`, as the `agent`
user. `exec(..., user=config.grader_user)` runs in a second, non-dumpable executor of that
user (started on first use), for graded code.
"""

from __future__ import annotations

import threading

from .base import SandboxError
from .client import EXECUTOR_SOURCE, DockerAttachStream, ExecutorClient, ExecutorGone
from .config import SandboxConfig
from .lifecycle import KEEPER_SOURCE, owner_labels, track, untrack
from .ops import ExecutorOps

KEEPER_USER = "65534:65534"  # nobody: the agent (uid 1000) cannot signal it


def docker_client(timeout: float = 60.0):
    """A Docker SDK client, or a `SandboxError` that says how to get an engine."""
    try:
        import docker

        client = docker.from_env(timeout=timeout)
        client.ping()
        return client
    except Exception as exc:
        raise SandboxError(
            f"Cannot reach the Docker engine ({type(exc).__name__}: {exc}). Start it with "
            "`dockerd &` (install it with `apt-get install -y docker.io`), or point DOCKER_HOST "
            "at a running engine; `codegym doctor` checks every piece."
        ) from exc


class DockerSandbox(ExecutorOps):
    """One container, one executor. Thread-safe: calls are serialized."""

    backend = "docker"

    def __init__(self, container, client, config: SandboxConfig):
        self.container = container
        self.client = client
        self.config = config
        self.workdir = config.workdir
        self._executor: ExecutorClient | None = None
        self._graded: ExecutorClient | None = None  # the grader user's executor, on first use
        self._closed = False
        self._restart_lock = threading.Lock()
        self._start_executor()
        track(self)

    # ---- creation ----------------------------------------------------------------------

    @classmethod
    def create(cls, config: SandboxConfig | None = None, *, client=None,
               labels: dict[str, str] | None = None, name: str | None = None) -> DockerSandbox:
        """Start a container from `config.image` (default: the Python task image)."""
        config = config or SandboxConfig()
        client = client or docker_client()
        image = config.image
        if image is None:
            from .images import default_image

            image = default_image(client)
        mem = config.memory_bytes()
        try:
            container = client.containers.run(
                image,
                command=["python3", "-c", KEEPER_SOURCE, str(config.ttl_s)],
                name=name,
                detach=True,
                user=KEEPER_USER,
                network_mode="bridge" if config.network else "none",
                read_only=True,
                cap_drop=["ALL"],
                security_opt=["no-new-privileges"],
                pids_limit=config.pids_limit,
                mem_limit=mem,
                memswap_limit=mem,
                nano_cpus=int(config.cpus * 1e9),
                init=True,
                working_dir=config.workdir,
                labels=owner_labels(labels),
                auto_remove=True,
                tmpfs=_tmpfs_mounts(config),
                mounts=_volume_mounts(config),
            )
        except Exception as exc:
            raise SandboxError(
                f"Could not start a container from image {image!r}: {exc}. "
                "Build the images with `codegym images build`."
            ) from exc
        try:
            sandbox = cls(container, client, config)
            # home is a fresh tmpfs: give it the image's skeleton files, as useradd did
            sandbox.exec('cp -a /etc/skel/. "$HOME" 2>/dev/null; chmod 0700 "$HOME"', timeout=30)
            return sandbox
        except BaseException:
            _remove_quietly(container)
            raise

    # ---- executor ----------------------------------------------------------------------

    def _start_executor(self) -> None:
        self._executor = self._attach_executor(self.config.user, self.config.home)

    def _attach_executor(self, user: str, home: str, *flags: str) -> ExecutorClient:
        api = self.client.api
        cfg = self.config
        env = {"HOME": home, "USER": user, "CODEGYM_WORKDIR": cfg.workdir, **cfg.env,
               "CODEGYM_ENV_KEYS": ",".join(cfg.env)}
        try:
            exec_id = api.exec_create(
                self.container.id,
                ["python3", "-u", "-c", EXECUTOR_SOURCE, "codegym-executor", *flags],
                stdin=True, stdout=True, stderr=True, tty=False,
                user=user, workdir=cfg.workdir, environment=env,
            )["Id"]
            sock = api.exec_start(exec_id, socket=True, tty=False)
            return ExecutorClient(DockerAttachStream(sock))
        except ExecutorGone as exc:
            raise SandboxError(f"The executor in container {self.container.short_id} did not start: {exc}") from exc
        except Exception as exc:
            raise SandboxError(
                f"Could not start the executor in container {self.container.short_id}: {exc}. "
                "Is the container running and does the image have python3 and the user "
                f"{cfg.user!r}?"
            ) from exc

    def _recover(self, why: str) -> None:
        """Restart the executor if the container still runs, else raise `SandboxError`."""
        with self._restart_lock:
            if self._executor is not None:
                self._executor.close()
                self._executor = None
            gone = SandboxError(f"Container {self.container.short_id} is gone ({why}). "
                                "Create a new sandbox (a pool replaces it for you).")
            if not self.is_alive():
                raise gone
            try:
                self._start_executor()
            except SandboxError:
                # A container being killed still reads as running for a moment: name the real cause.
                if not self.is_alive():
                    raise gone from None
                raise

    # ---- the grader user's executor ----------------------------------------------------

    def _client_for(self, user: str | None) -> ExecutorClient:
        if user is None or user == self.config.user:
            return self._client()
        if user != self.config.grader_user:
            raise SandboxError(f"exec as {user!r}: this sandbox runs commands as {self.config.user!r} "
                               f"or {self.config.grader_user!r} only")
        if self._closed:
            raise SandboxError("This sandbox is closed; acquire or create a new one.")
        if self._graded is None:
            self._graded = self._attach_executor(user, "/tmp", "--nondumpable")
        return self._graded

    def _drop_client(self, user: str | None) -> None:
        """The grader user's executor died (graded code may kill it): the next use starts anew."""
        if self._graded is not None:
            self._graded.close()
            self._graded = None

    def reset(self, wipe=None) -> None:
        """Also clears what the grader user left (its processes, files, IPC objects) first:
        the agent's executor cannot remove files another uid owns in sticky `/tmp`."""
        if self._graded is not None:
            dirs = list(self.config.scratch_dirs if wipe is None else wipe)
            try:
                reply, _ = self._graded.call({"op": "reset", "wipe": dirs}, timeout=60)
                ok = reply.get("ok")
            except ExecutorGone:
                ok = False
            if not ok:  # the graded code killed its executor: start a fresh one and clear again
                self._graded.close()
                self._graded = None
                self._client_for(self.config.grader_user).call({"op": "reset", "wipe": dirs}, timeout=60)
        super().reset(wipe)

    def is_alive(self) -> bool:
        if self._closed:
            return False
        try:
            self.container.reload()
        except Exception:
            return False
        return self.container.status == "running"

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        untrack(self)
        for client in (self._executor, self._graded):
            if client is not None:
                client.close()
        self._executor = self._graded = None
        _remove_quietly(self.container)

    def __repr__(self) -> str:
        return f"DockerSandbox({self.container.short_id}, image={self.container.attrs['Config']['Image']!r})"


def _tmpfs_mounts(config: SandboxConfig) -> dict[str, str]:
    """The writable places of the read-only root filesystem (`/dev/shm` and `/dev/mqueue` are
    Docker's own mounts). Owned by the agent (uid 1000); the shared scratch dirs are sticky."""
    opts = f"rw,exec,nosuid,nodev,size={config.tmpfs_size},uid=1000,gid=1000,mode=0755"
    mounts = {config.home: opts.replace("0755", "0700"), "/tmp": opts.replace("0755", "1777"),
              "/var/tmp": opts.replace("0755", "1777"),
              "/run": "rw,noexec,nosuid,nodev,size=1m,mode=0755"}  # root's: nobody writes there
    if config.tmpfs_workdir:
        mounts[config.workdir] = opts
    return mounts


def _volume_mounts(config: SandboxConfig) -> list:
    """An image that ships the repository in its workdir (`tmpfs_workdir=False`, SWE-bench's
    `/testbed`) gets an anonymous volume there: Docker fills it from the image, it stays
    writable under the read-only root, and it goes with the container."""
    if config.tmpfs_workdir:
        return []
    from docker.types import Mount

    return [Mount(target=config.workdir, source=None, type="volume")]


def _remove_quietly(container) -> None:
    try:
        container.remove(force=True, v=True)
    except Exception:
        pass
