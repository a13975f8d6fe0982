"""The `Sandbox` protocol: where every command of an episode runs.

A sandbox runs shell commands and moves files in and out. A failing command never
raises: its exit code, output and `timed_out` flag come back in an `ExecResult`. Only an
infrastructure failure (the engine is gone, the container died, the executor stopped
answering) raises `SandboxError`, whose message says what happened and what to do.

    with DockerSandbox.create() as sb:
        r = sb.exec("echo hi", timeout=5)
        assert r.stdout == "hi\\n" and r.exit_code == 0
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

DEFAULT_WORKDIR = "/workspace"
DEFAULT_OUTPUT_LIMIT = 64 * 1024  # bytes kept per stream (head and tail halves)


class SandboxError(RuntimeError):
    """An infrastructure failure: the sandbox itself, not the command, went wrong."""


@dataclass(frozen=True)
class ExecResult:
    """What one command did.

    `truncated` is true when stdout or stderr exceeded the output limit; the kept text then
    holds the head and the tail with a marker stating the stream's true size and how many
    bytes were elided (`codegym.sandbox.output`). `stdout_bytes` and `stderr_bytes` are the
    true sizes of what the command wrote (default: the sizes of `stdout` and `stderr`).
    `oom_killed` is true when the kernel killed a process of the sandbox for lack of memory
    while the command ran; the output then says so.
    """

    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool = False
    duration_s: float = 0.0
    truncated: bool = False
    stdout_bytes: int | None = None
    stderr_bytes: int | None = None
    oom_killed: bool = False

    def __post_init__(self) -> None:
        for name, text in (("stdout_bytes", self.stdout), ("stderr_bytes", self.stderr)):
            if getattr(self, name) is None:
                object.__setattr__(self, name, len(text.encode("utf-8", "replace")))

    @property
    def output_bytes(self) -> int:
        """The true size of stdout and stderr together."""
        return self.stdout_bytes + self.stderr_bytes

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    @property
    def output(self) -> str:
        """stdout and stderr joined, the way a terminal would show them."""
        if self.stdout and self.stderr:
            sep = "" if self.stdout.endswith("\n") else "\n"
            return self.stdout + sep + self.stderr
        return self.stdout or self.stderr


@runtime_checkable
class Sandbox(Protocol):
    """Every backend (Docker, bubblewrap) implements this."""

    workdir: str

    def exec(
        self,
        cmd: str,
        timeout: float = 60.0,
        workdir: str | None = None,
        env: dict[str, str] | None = None,
        kill_leftovers: bool = False,
        *,
        user: str | None = None,
        stdin: bytes = b"",
        output_limit: int | None = None,
    ) -> ExecResult:
        """Run `cmd` with bash in `workdir`. With `kill_leftovers`, every process the command
        started is killed when it ends. `user` = `config.grader_user` runs it as the grader user
        (Docker; graded code), `stdin` is fed to the command, `output_limit` overrides the bytes
        kept per stream."""
        ...

    def read_file(self, path: str) -> bytes: ...

    def write_file(self, path: str, data: bytes | str, mode: int = 0o644) -> None: ...

    def upload(self, src: bytes | str, dest: str | None = None) -> None:
        """Extract a tar archive (bytes) or copy a host directory (path) into `dest`."""

    def download(self, path: str) -> bytes:
        """A tar archive of `path` (file or directory) inside the sandbox."""

    def snapshot(self, paths: list[str] | None = None) -> bytes:
        """A tar archive of `paths` (default: the workdir) that `restore` brings back exactly."""

    def restore(self, snapshot: bytes) -> None: ...

    def close(self) -> None: ...

    def is_alive(self) -> bool: ...
