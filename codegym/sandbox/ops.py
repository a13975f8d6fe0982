"""File, archive and snapshot operations that every executor-backed sandbox shares.

A backend supplies `_start_executor()`, `_recover(why)` (restart the executor or raise
`SandboxError`), `config`, and the `_executor`/`_closed` attributes; this mixin turns the
executor's ops into the `Sandbox` protocol's methods.
"""

from __future__ import annotations

import io
import os
import tarfile
import time

from .base import ExecResult, SandboxError
from .client import ExecutorClient, ExecutorGone

_MAPPED_ERRORS = {
    "FileNotFoundError": FileNotFoundError,
    "IsADirectoryError": IsADirectoryError,
    "NotADirectoryError": NotADirectoryError,
    "PermissionError": PermissionError,
}


class ExecutorOps:
    _executor: ExecutorClient | None
    _closed: bool

    def _client(self) -> ExecutorClient:
        if self._closed:
            raise SandboxError("This sandbox is closed; acquire or create a new one.")
        if self._executor is None:
            self._recover("the executor is not running")
        return self._executor

    def _client_for(self, user: str | None) -> ExecutorClient:
        """The executor that runs commands as `user`. A backend with one executor (bubblewrap maps
        a single uid) runs every user's commands as its own: weaker, and documented so."""
        return self._client()

    def _drop_client(self, user: str | None) -> None:
        self._recover("the executor stopped")

    def exec(self, cmd: str, timeout: float = 60.0, workdir: str | None = None,
             env: dict[str, str] | None = None, kill_leftovers: bool = False, *,
             user: str | None = None, stdin: bytes = b"", output_limit: int | None = None) -> ExecResult:
        started = time.monotonic()
        client = self._client_for(user)
        limit = self.config.output_limit if output_limit is None else output_limit
        try:
            return client.exec(cmd, timeout, workdir, env, limit, self.config.max_background(),
                               kill_leftovers=kill_leftovers, stdin=stdin)
        except ExecutorGone as exc:
            # The command killed the executor (`kill -9 -1`) or the sandbox died: recover or raise.
            if user is not None and user != self.config.user:
                self._drop_client(user)
            else:
                self._recover(str(exc))
            return ExecResult(
                exit_code=137, stdout="",
                stderr="codegym: the command killed the sandbox's command runner; the sandbox "
                "was recovered and every background process is gone.\n",
                duration_s=time.monotonic() - started,
            )
    def _op(self, header: dict, payload: bytes = b"", timeout: float = 120.0) -> bytes:
        try:
            reply, out = self._client().call(header, payload, timeout=timeout)
        except ExecutorGone as exc:
            self._recover(str(exc))
            raise SandboxError(
                f"The sandbox's executor stopped during {header['op']!r} ({exc}); it was "
                "restarted, retry the operation."
            ) from exc
        if not reply.get("ok"):
            error = reply.get("error", "unknown error")
            exc_type = _MAPPED_ERRORS.get(reply.get("kind", ""))
            if exc_type is not None:
                raise exc_type(error)
            raise SandboxError(f"{header['op']} failed inside the sandbox: {error}")
        return out

    def _abs(self, path: str) -> str:
        return path if path.startswith("/") else os.path.join(self.workdir, path)

    def read_file(self, path: str) -> bytes:
        return self._op({"op": "read", "path": self._abs(path)})

    def write_file(self, path: str, data: bytes | str, mode: int = 0o644) -> None:
        if isinstance(data, str):
            data = data.encode()
        self._op({"op": "write", "path": self._abs(path), "mode": mode}, data)

    def upload(self, src: bytes | str | os.PathLike, dest: str | None = None, clean: bool = False) -> None:
        """Extract a tar archive (bytes) or copy a host directory into `dest` (default workdir).

        With `clean`, `dest` is emptied first.
        """
        if not isinstance(src, (bytes, bytearray)):
            src = tar_directory(src)
        self._op({"op": "upload", "dest": self._abs(dest or self.workdir), "clean": clean}, bytes(src))

    def download(self, path: str) -> bytes:
        return self._op({"op": "download", "path": self._abs(path)})

    def snapshot(self, paths: list[str] | None = None) -> bytes:
        """A tar of `paths` (default: the workdir); `restore` empties them and unpacks it."""
        return self._op({"op": "snapshot", "paths": [self._abs(p) for p in (paths or [self.workdir])]})

    def restore(self, snapshot: bytes) -> None:
        self._op({"op": "restore"}, snapshot)

    def tree_hash(self, path: str | None = None) -> str:
        """A content hash of the files under `path` (default: the workdir), skipping `.git`,
        `__pycache__` and bytecode; one round trip, cached per file by stat inside the sandbox."""
        try:
            reply, _ = self._client().call({"op": "tree_hash", "path": self._abs(path or self.workdir)}, timeout=120)
        except ExecutorGone as exc:
            self._recover(str(exc))
            raise SandboxError(f"The sandbox's executor stopped during tree_hash ({exc})") from exc
        if not reply.get("ok"):
            raise SandboxError(f"tree_hash failed inside the sandbox: {reply.get('error')}")
        return reply["hash"]

    def reset(self, wipe: list[str] | tuple[str, ...] | None = None) -> None:
        """Kill every process the agent left behind and empty the scratch directories."""
        dirs = list(self.config.scratch_dirs if wipe is None else wipe)
        self._op({"op": "reset", "wipe": dirs})

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def tar_directory(path: str | os.PathLike) -> bytes:
    """A tar of a host directory's contents (names relative to it)."""
    path = os.fspath(path)
    if not os.path.isdir(path):
        raise SandboxError(f"upload: {path!r} is not a directory or a tar archive")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name in sorted(os.listdir(path)):
            tar.add(os.path.join(path, name), arcname=name)
    return buf.getvalue()
