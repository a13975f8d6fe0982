"""Resource limits and hardening settings shared by every sandbox backend."""

from __future__ import annotations

from dataclasses import dataclass, field

from .base import DEFAULT_OUTPUT_LIMIT, DEFAULT_WORKDIR


@dataclass(frozen=True)
class SandboxConfig:
    """How a sandbox is built. The defaults are the hardened ones.

    Attributes:
        image: the Docker image; None means codegym's default Python task image.
        workdir: the working directory of every command, owned by `user`.
        user: who runs the agent's commands (never root by default).
        memory: memory limit; swap is disabled (memory+swap equals it).
        cpus: CPU quota in cores.
        pids_limit: most processes alive at once (contains fork bombs).
        network: False gives `network_mode=none`.
        output_limit: bytes of stdout and of stderr kept per command (head + tail).
        ttl_s: an unattached container removes itself after this many idle seconds.
        scratch_dirs: directories emptied when a pooled sandbox is reset (the workdir and home
            are restored from a snapshot instead). With the read-only root filesystem these
            and the workdir and home are every place a sandbox user can write
            (`writable_dirs`); a test checks that nothing else is writable.
        env: extra environment variables for every command.
        tmpfs_workdir: mount the workdir and /tmp as tmpfs (owned by uid 1000): file
            operations, resets and workspace restores are several times faster than on the
            image's overlay filesystem. Turn off for images that ship the repo in the workdir
            (SWE-bench's `/testbed`). Counted against the memory limit.
        tmpfs_size: size cap of each tmpfs mount.
        grader_user: the user graded code runs as (Docker): another uid than the executor
            that prepares the grading tree and holds its inputs, so the graded code can read
            neither. The bubblewrap backend maps a single uid and runs it as `user`.
    """

    image: str | None = None
    workdir: str = DEFAULT_WORKDIR
    user: str = "agent"
    memory: str = "1g"
    cpus: float = 1.0
    pids_limit: int = 256
    network: bool = False
    output_limit: int = DEFAULT_OUTPUT_LIMIT
    ttl_s: float = 600.0
    scratch_dirs: tuple[str, ...] = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue")
    home: str = "/home/agent"
    env: dict[str, str] = field(default_factory=dict, hash=False)
    tmpfs_workdir: bool = True
    tmpfs_size: str = "1g"
    grader_user: str = "tester"

    @property
    def writable_dirs(self) -> tuple[str, ...]:
        """Every directory a sandbox user may write to; the pool resets all of them."""
        return (self.workdir, self.home, *self.scratch_dirs)

    def max_background(self) -> int:
        """Background processes left alive before the next command clears them (runaway guard)."""
        return max(8, self.pids_limit // 2)

    def memory_bytes(self) -> int:
        units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
        text = self.memory.strip().lower().rstrip("b")
        if text and text[-1] in units:
            return int(float(text[:-1]) * units[text[-1]])
        return int(text)
