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
    holds the head and the tail with a marker saying how many bytes were elided.
    """

    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool = False
    duration_s: float = 0.0
    truncated: bool = False

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
    ) -> ExecResult:
        """Run `cmd` with bash in `workdir`. With `kill_leftovers`, every process the command
        started is killed when it ends (the grader: nothing may rewrite the report after)."""
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
