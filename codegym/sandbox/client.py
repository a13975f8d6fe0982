"""The host side of the executor protocol (see `executor.py`), over any byte stream.

`ExecutorClient` sends one request at a time and waits for its reply. Streams are small
adapters: a Docker attach socket (frames multiplexed as stdout/stderr) or a pair of pipes
(the bubblewrap backend). A stream that closes or stalls raises `ExecutorGone`, which the
backends turn into a restart or a `SandboxError`.
"""

from __future__ import annotations

import json
import os
import select
import socket
import struct
import threading
import time
from pathlib import Path

from .base import ExecResult

EXECUTOR_SOURCE = (Path(__file__).with_name("executor.py")).read_text()
_GRACE_S = 15.0  # how long past a command's own timeout the executor may take to answer
# A reader waits in slices this long: a stream closed by another thread (a sandbox closed on
# SIGTERM while a pool worker waits for its reset) must not keep the reader until its deadline,
# and a closed descriptor's number may already belong to another socket.
_POLL_S = 0.5


class ExecutorGone(RuntimeError):
    """The executor stopped answering: killed, crashed, or its container died."""


class DockerAttachStream:
    """The raw socket of a `docker exec` started with stdin attached and no TTY.

    Docker multiplexes the process's stdout and stderr into frames of
    ``[stream:1][0:3][size:4 big-endian]`` + data; stdin is written raw.
    """

    def __init__(self, sock):
        self.sock = getattr(sock, "_sock", sock)
        self.sock.setblocking(True)
        self.closed = False
        self._frames = bytearray()
        self._stdout = bytearray()
        self.stderr = bytearray()

    def send(self, data: bytes) -> None:
        try:
            self.sock.sendall(data)
        except OSError as exc:
            raise ExecutorGone(f"cannot write to the executor: {exc}") from exc

    def read(self, n: int, deadline: float) -> bytes:
        while len(self._stdout) < n:
            self._pump(deadline)
        out = bytes(self._stdout[:n])
        del self._stdout[:n]
        return out

    def _pump(self, deadline: float) -> None:
        _wait_readable(self, self.sock, deadline)
        try:
            chunk = self.sock.recv(1 << 20)
        except OSError as exc:
            raise ExecutorGone(f"connection to the executor broke: {exc}") from exc
        if not chunk:
            raise ExecutorGone("the executor's stream closed")
        self._frames += chunk
        while len(self._frames) >= 8:
            kind = self._frames[0]
            size = struct.unpack(">I", self._frames[4:8])[0]
            if len(self._frames) < 8 + size:
                break
            data = self._frames[8 : 8 + size]
            (self._stdout if kind == 1 else self.stderr).extend(data)
            del self._frames[: 8 + size]

    def close(self) -> None:
        self.closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class PipeStream:
    """A child process's stdin/stdout pipes (used by the bubblewrap backend)."""

    def __init__(self, proc):
        self.proc = proc
        self.closed = False
        self._buf = bytearray()
        self.stderr = bytearray()

    def send(self, data: bytes) -> None:
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (OSError, ValueError) as exc:
            raise ExecutorGone(f"cannot write to the executor: {exc}") from exc

    def read(self, n: int, deadline: float) -> bytes:
        if self.closed:
            raise ExecutorGone("the executor's stream was closed")
        fd = self.proc.stdout.fileno()
        while len(self._buf) < n:
            _wait_readable(self, fd, deadline)
            try:
                chunk = os.read(fd, 1 << 20)
            except OSError as exc:
                raise ExecutorGone(f"connection to the executor broke: {exc}") from exc
            if not chunk:
                raise ExecutorGone("the executor's stream closed")
            self._buf += chunk
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out

    def close(self) -> None:
        self.closed = True
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass


def _wait_readable(stream, fd, deadline: float) -> None:
    """Until `fd` has data, or `ExecutorGone` at the deadline or once `stream` is closed."""
    while True:
        if stream.closed:
            raise ExecutorGone("the executor's stream was closed")
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ExecutorGone("the executor did not answer in time")
        try:
            ready, _, _ = select.select([fd], [], [], min(remaining, _POLL_S))
        except (OSError, ValueError) as exc:  # closed meanwhile
            raise ExecutorGone(f"connection to the executor broke: {exc}") from exc
        if ready and not stream.closed:
            return


class ExecutorClient:
    """Request/reply over a stream, one request at a time (thread-safe)."""

    def __init__(self, stream, startup_timeout: float = 30.0):
        self.stream = stream
        self._lock = threading.Lock()
        hello, _ = self._recv(time.monotonic() + startup_timeout)
        if not hello.get("ready"):
            raise ExecutorGone(f"unexpected greeting from the executor: {hello}")
        self.pid = hello.get("pid")
        self.uid = hello.get("uid")

    def call(self, header: dict, payload: bytes = b"", timeout: float = 60.0) -> tuple[dict, bytes]:
        body = json.dumps(header).encode()
        frame = struct.pack("!I", len(body)) + body + struct.pack("!Q", len(payload)) + payload
        with self._lock:
            self.stream.send(frame)
            return self._recv(time.monotonic() + timeout + _GRACE_S)

    def _recv(self, deadline: float) -> tuple[dict, bytes]:
        size = struct.unpack("!I", self.stream.read(4, deadline))[0]
        header = json.loads(self.stream.read(size, deadline).decode())
        n = struct.unpack("!Q", self.stream.read(8, deadline))[0]
        payload = self.stream.read(n, deadline) if n else b""
        return header, payload

    def exec(self, cmd: str, timeout: float, cwd: str | None, env: dict | None, limit: int,
             max_background: int = 1 << 30, kill_leftovers: bool = False, stdin: bytes = b"") -> ExecResult:
        req = {"op": "exec", "cmd": cmd, "timeout": timeout, "cwd": cwd, "env": env or {}, "limit": limit,
               "max_background": max_background, "kill_leftovers": kill_leftovers}
        header, payload = self.call(req, stdin, timeout=timeout)
        if not header.get("ok"):
            raise RuntimeError(header.get("error", "exec failed"))
        n_out = header["n_out"]
        return ExecResult(
            exit_code=header["exit_code"],
            stdout=payload[:n_out].decode("utf-8", errors="replace"),
            stderr=payload[n_out:].decode("utf-8", errors="replace"),
            timed_out=header["timed_out"],
            duration_s=header["duration_s"],
            truncated=header["truncated"],
            stdout_bytes=header.get("stdout_bytes"),  # absent: the command never started
            stderr_bytes=header.get("stderr_bytes"),
            oom_killed=bool(header.get("oom_killed")),
        )

    def close(self) -> None:
        self.stream.close()
