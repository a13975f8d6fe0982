"""`DockerSandbox`: a hardened container with a persistent executor inside.

    from codegym.sandbox import DockerSandbox
    with DockerSandbox.create() as sb:
        print(sb.exec("python3 --version").stdout)

Hardening (all defaults): no network, every capability dropped, `no-new-privileges`, a pids
limit, memory limit equal to memory+swap, a CPU quota, an init process, a non-root user,
`/workspace` as the working directory, and never the Docker socket inside. The container's
main process is a keeper running as `nobody` (see `lifecycle.py`); the agent's commands run
in an executor (see `executor.py`) attached over `docker exec`, as the `agent` user.
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
            )
        except Exception as exc:
            raise SandboxError(
                f"Could not start a container from image {image!r}: {exc}. "
                "Build the images with `codegym images build`."
            ) from exc
        try:
            return cls(container, client, config)
        except BaseException:
            _remove_quietly(container)
            raise

    # ---- executor ----------------------------------------------------------------------

    def _start_executor(self) -> None:
        api = self.client.api
        cfg = self.config
        env = {"HOME": cfg.home, "USER": cfg.user, "CODEGYM_WORKDIR": cfg.workdir, **cfg.env}
        try:
            exec_id = api.exec_create(
                self.container.id,
                ["python3", "-u", "-c", EXECUTOR_SOURCE, "codegym-executor"],
                stdin=True, stdout=True, stderr=True, tty=False,
                user=cfg.user, workdir=cfg.workdir, environment=env,
            )["Id"]
            sock = api.exec_start(exec_id, socket=True, tty=False)
            self._executor = ExecutorClient(DockerAttachStream(sock))
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
            if not self.is_alive():
                raise SandboxError(
                    f"Container {self.container.short_id} is gone ({why}). "
                    "Create a new sandbox (a pool replaces it for you)."
                )
            self._start_executor()

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
        if self._executor is not None:
            self._executor.close()
            self._executor = None
        _remove_quietly(self.container)

    def __repr__(self) -> str:
        return f"DockerSandbox({self.container.short_id}, image={self.container.attrs['Config']['Image']!r})"


def _tmpfs_mounts(config: SandboxConfig) -> dict[str, str]:
    if not config.tmpfs_workdir:
        return {}
    opts = f"rw,exec,nosuid,nodev,size={config.tmpfs_size},uid=1000,gid=1000,mode=0755"
    return {config.workdir: opts, "/tmp": opts.replace("0755", "1777")}


def _remove_quietly(container) -> None:
    try:
        container.remove(force=True)
    except Exception:
        pass
