"""The executor: a small server that runs inside every sandbox and answers over stdin/stdout.

Starting a process per command through the Docker exec API costs about 45 ms; this executor
is started once per sandbox and answers a trivial command in about a millisecond. The host
talks to it over the attached stdin/stdout stream (sandboxes have no network).

Wire format, both directions: ``!I`` header length, JSON header, ``!Q`` payload length,
payload bytes. Requests carry ``op`` plus arguments; replies carry ``ok`` and either results
or ``error``. Output of commands travels in the payload (stdout then stderr).

This file is shipped into the sandbox as source (``python3 -c``) and uses only the standard
library of Python 3.7+, so it runs in any image that has ``python3``. It must not import
codegym.
"""

import io
import json
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import tarfile
import time

MARKER = "codegym-executor"
SNAPSHOT_META = ".codegym-snapshot.json"
_STDIN = sys.stdin.buffer
_STDOUT = sys.stdout.buffer
_SELF = os.getpid()
_SHELL = "/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh"


def _read_exact(n):
    chunks = []
    while n:
        chunk = _STDIN.read(n)
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def read_message():
    raw = _read_exact(4)
    if raw is None:
        return None, None
    header = json.loads(_read_exact(struct.unpack("!I", raw)[0]).decode())
    size = struct.unpack("!Q", _read_exact(8))[0]
    payload = _read_exact(size) if size else b""
    return header, payload


def write_message(header, payload=b""):
    body = json.dumps(header).encode()
    _STDOUT.write(struct.pack("!I", len(body)) + body + struct.pack("!Q", len(payload)))
    if payload:
        _STDOUT.write(payload)
    _STDOUT.flush()


class Capture:
    """Keeps the first and last `limit/2` bytes of a stream and counts the rest."""

    def __init__(self, limit):
        self.half = max(limit // 2, 1)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, data):
        self.total += len(data)
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > 2 * self.half:
                del self.tail[: len(self.tail) - self.half]

    def result(self):
        tail = bytes(self.tail[-self.half :]) if self.tail else b""
        elided = self.total - len(self.head) - len(tail)
        if elided <= 0:
            return bytes(self.head) + bytes(self.tail), False
        # The same marker as codegym.sandbox.output.marker (the host parses it): keep in step.
        marker = "\n[... {:,} bytes of output; {:,} bytes ({}) elided ...]\n".format(
            self.total, elided, human_size(elided))
        return bytes(self.head) + marker.encode() + tail, True


def human_size(n):
    """`1536` -> '1.5 KiB' (as codegym.sandbox.output.human_size)."""
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return "%d B" % n if unit == "B" else ("%.1f" % size).replace(".0", "") + " " + unit
        size /= 1024


# ---- out-of-memory kills ----------------------------------------------------------------

# The sandbox's memory cgroup: cgroup v2, then v1. The kernel counts its OOM kills there.
_OOM_EVENTS = ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control")
_MEMORY_LIMIT = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")


def oom_kills():
    """How many processes the kernel has killed in this sandbox for lack of memory (None: unknown)."""
    for path in _OOM_EVENTS:
        try:
            with open(path) as f:
                for line in f:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            continue
    return None


def memory_limit():
    """The sandbox's memory limit as text ('256.0 MiB'), or None when there is none."""
    for path in _MEMORY_LIMIT:
        try:
            with open(path) as f:
                text = f.read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 1 << 60:
            return human_size(int(text))
        return None
    return None


_OOM_SEEN = [oom_kills()]  # the count when the last command ended (here: at start-up)


def oom_notice(exit_code):
    """A line saying a process was killed for lack of memory since the last command, else b''."""
    now = oom_kills()
    before, _OOM_SEEN[0] = _OOM_SEEN[0], now
    if now is None or before is None or now <= before:
        return b""
    limit = memory_limit()
    where = "limit %s" % limit if limit else "no limit set"
    if exit_code in (-9, 137):
        return ("codegym: killed: out of memory (%s); use less memory.\n" % where).encode()
    return ("codegym: a process was killed: out of memory (%s).\n" % where).encode()


# ---- processes -------------------------------------------------------------------------


def _proc_table():
    """pid -> (ppid, state) for every process this user can see."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                stat = f.read().decode("latin-1")
        except OSError:
            continue
        rest = stat[stat.rfind(")") + 2 :].split()
        table[int(name)] = (int(rest[1]), rest[0])
    return table


def descendants(root=_SELF):
    table = _proc_table()
    children = {}
    for pid, (ppid, _state) in table.items():
        children.setdefault(ppid, []).append(pid)
    out, stack = set(), [root]
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in out:
                out.add(child)
                stack.append(child)
    return out, table


def reap_zombies(keep=()):
    _, table = descendants()
    for pid, (ppid, state) in table.items():
        if ppid == _SELF and state == "Z" and pid not in keep:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass


def kill_descendants(spare=()):
    """SIGKILL every descendant not in `spare` and reap them, until none is left.

    Loops because a fork bomb re-spawns between the scan and the kill, and because zombies
    still count against the process limit until they are reaped.
    """
    for _ in range(500):
        pids, table = descendants()
        live = [p for p in pids if p not in spare and table[p][1] != "Z"]
        zombies = [p for p in pids if table[p][1] == "Z" and table[p][0] == _SELF]
        if not live and not zombies:
            return
        for pid in live:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        reap_zombies()
        time.sleep(0.001)


def kill_everything_else():
    """Kill every process of this user except the executor (the pristine-reset path)."""
    for _ in range(50):
        try:
            os.kill(-1, signal.SIGKILL)  # every process we may signal, except ourselves
        except ProcessLookupError:
            pass
        reap_zombies()
        others = [p for p, (_pp, st) in _proc_table().items() if p != _SELF and st != "Z" and _ours(p)]
        if not others:
            return
        time.sleep(0.005)


def _ours(pid):
    try:
        return os.stat("/proc/%d" % pid).st_uid == os.getuid()
    except OSError:
        return False


def _become_subreaper():
    # Orphans of a command (daemons, `&` jobs) re-parent to us, so timeouts can find them.
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except Exception:
        pass


def _make_nondumpable():
    # PR_SET_DUMPABLE 0: processes of the same uid can neither ptrace us nor open
    # /proc/<our pid>/{mem,fd,environ}. The grader's executor runs as the graded code's user
    # and relays its results: the graded code must not reach into it.
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE
    except Exception:
        pass


def _prefer_commands_for_oom():
    # Raise our own OOM score to the maximum (unprivileged processes may only raise it); the
    # commands inherit it, and a memory hog outweighs this small process, so the hog dies.
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass


# ---- operations ------------------------------------------------------------------------


def op_exec(req, payload):
    """Run `cmd`; the request's payload, if any, is the command's stdin (then closed)."""
    limit = int(req.get("limit", 65536))
    timeout = float(req.get("timeout", 60))
    env = dict(BASE_ENV)
    env.update(req.get("env") or {})
    cwd = req.get("cwd") or WORKDIR
    before, _ = descendants()
    notice = b""
    if len(before) >= int(req.get("max_background", 1 << 30)):
        # Runaway background processes (a fork bomb) would starve this command: clear them.
        kill_descendants()
        before = set()
        notice = b"codegym: too many background processes; all of them were killed.\n"
    start = time.monotonic()
    try:
        proc = _spawn(req["cmd"], cwd, env, bool(payload))
    except BlockingIOError:
        # The process limit is exhausted: clear it and retry once.
        kill_descendants()
        before = set()
        notice = b"codegym: the process limit was reached; every background process was killed.\n"
        try:
            proc = _spawn(req["cmd"], cwd, env, bool(payload))
        except OSError as exc:
            return _not_started(exc)
    except OSError as exc:
        return _not_started(exc)
    out, err = Capture(limit), Capture(limit)
    streams = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
    feed = _StdinFeed(proc, payload)
    deadline = start + timeout
    timed_out = False
    exited_at = None
    while streams:
        now = time.monotonic()
        if now >= deadline:
            timed_out = proc.poll() is None
            break
        if exited_at is None and proc.poll() is not None:
            exited_at = now
        if exited_at is not None and now - exited_at > 0.05:
            break  # a background job still holds the pipe: do not wait for it
        wait = min(deadline - now, 0.05 if exited_at is not None else 0.5)
        ready, writable, _ = select.select(list(streams), feed.fds(), [], wait)
        if writable:
            feed.write()
        for fd in ready:
            data = os.read(fd, 1 << 16)
            if data:
                streams[fd].add(data)
            else:
                del streams[fd]
    if timed_out or req.get("kill_leftovers"):
        kill_descendants(spare=before)
    feed.close()
    proc.stdout.close()
    proc.stderr.close()
    code = proc.wait()
    reap_zombies()
    duration = time.monotonic() - start
    stdout, t1 = out.result()
    stderr, t2 = err.result()
    if timed_out:
        code = -9
    oom = oom_notice(None if timed_out else code)
    return {"ok": True, "exit_code": code, "timed_out": timed_out, "duration_s": duration,
            "truncated": t1 or t2, "n_out": len(stdout), "stdout_bytes": out.total,
            "stderr_bytes": err.total, "oom_killed": bool(oom)}, stdout + notice + oom + stderr


def _spawn(cmd, cwd, env, with_stdin=False):
    # No preexec_fn: it would force a slow fork path (twice the start-up cost).
    stdin = subprocess.PIPE if with_stdin else subprocess.DEVNULL
    return subprocess.Popen([_SHELL, "-c", cmd], cwd=cwd, env=env, stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


class _StdinFeed:
    """Writes a command's stdin without blocking (a command that reads nothing must not hang us)."""

    def __init__(self, proc, data):
        self.pipe = proc.stdin
        self.data = memoryview(data or b"")
        if self.pipe is not None:
            os.set_blocking(self.pipe.fileno(), False)
            if not self.data:
                self.close()

    def fds(self):
        return [self.pipe.fileno()] if self.pipe is not None else []

    def write(self):
        try:
            n = os.write(self.pipe.fileno(), self.data[: 1 << 16])
        except BlockingIOError:
            return
        except OSError:  # the command closed its stdin
            n = len(self.data)
        self.data = self.data[n:]
        if not self.data:
            self.close()

    def close(self):
        if self.pipe is not None:
            try:
                self.pipe.close()
            except OSError:
                pass
            self.pipe = None


def _not_started(exc):
    msg = ("codegym: cannot start command: %s\n" % exc).encode()
    return {"ok": True, "exit_code": 126, "timed_out": False, "duration_s": 0.0,
            "truncated": False, "n_out": 0}, msg


def op_read(req, _payload):
    with open(req["path"], "rb") as f:
        return {"ok": True}, f.read()


def op_write(req, payload):
    path = req["path"]
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    with open(path, "wb") as f:
        f.write(payload)
    os.chmod(path, int(req.get("mode", 0o644)))
    return {"ok": True}, b""


def _tar_of(paths):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        meta = json.dumps({"roots": paths}).encode()
        info = tarfile.TarInfo(SNAPSHOT_META)
        info.size = len(meta)
        tar.addfile(info, io.BytesIO(meta))
        for path in paths:
            if os.path.lexists(path):
                tar.add(path, arcname=path.lstrip("/") or ".")
    return buf.getvalue()


def op_snapshot(req, _payload):
    return {"ok": True}, _tar_of(req["paths"])


def op_download(req, _payload):
    path = req["path"]
    if not os.path.lexists(path):
        raise FileNotFoundError(path)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        tar.add(path, arcname=os.path.basename(path.rstrip("/")) or ".")
    return {"ok": True}, buf.getvalue()


def _unlock_tree(path):
    """Give the owner rwx on every directory under `path` (the agent may have chmod-ed them)."""
    try:
        os.chmod(path, 0o700)
    except OSError:
        pass
    for root, dirs, _files in os.walk(path):
        for d in dirs:
            full = os.path.join(root, d)
            if not os.path.islink(full):
                try:
                    os.chmod(full, 0o700)
                except OSError:
                    pass


def wipe(path):
    """Remove everything inside `path` (the directory itself stays, with its mode: a sticky
    `/tmp` must stay 1777)."""
    if not os.path.isdir(path) or os.path.islink(path):
        return
    mode = os.stat(path).st_mode & 0o7777
    try:
        _wipe_entries(path)
    finally:
        try:
            os.chmod(path, mode)
        except OSError:
            pass


def _wipe_entries(path):
    _unlock_tree(path)
    for name in os.listdir(path):
        full = os.path.join(path, name)
        if os.path.isdir(full) and not os.path.islink(full):
            shutil.rmtree(full, ignore_errors=True)
        else:
            try:
                os.unlink(full)
            except FileNotFoundError:
                pass


def _extract(payload, dest):
    with tarfile.open(fileobj=io.BytesIO(payload), mode="r") as tar:
        members = [m for m in tar.getmembers() if m.name != SNAPSHOT_META]
        for m in members:
            if m.name.startswith("/") or ".." in m.name.split("/"):
                raise ValueError("unsafe path in archive: %r" % m.name)
            m.uid = m.gid = -1  # keep ownership as the executing user
            m.uname = m.gname = ""
            if m.isdev():
                raise ValueError("device file in archive: %r" % m.name)
        tar.extractall(dest, members=members, numeric_owner=False)
        dirs = [m for m in members if m.isdir()]
        for m in dirs:  # directory modes last, after their content was written
            os.chmod(os.path.join(dest, m.name), m.mode)


def op_upload(req, payload):
    dest = req["dest"]
    os.makedirs(dest, exist_ok=True)
    if req.get("clean"):
        wipe(dest)
    _extract(payload, dest)
    return {"ok": True}, b""


def op_restore(req, payload):
    with tarfile.open(fileobj=io.BytesIO(payload), mode="r") as tar:
        meta = json.loads(tar.extractfile(SNAPSHOT_META).read().decode())
    for root in meta["roots"]:
        wipe(root)
    _extract(payload, "/")
    return {"ok": True}, b""


def op_reset(req, _payload):
    """Kill every process the agent left, remove its System V IPC objects (they outlive
    processes) and empty the scratch directories."""
    kill_everything_else()
    _remove_ipc_objects()
    for path in req.get("wipe", []):
        wipe(path)
    _OOM_SEEN[0] = oom_kills()  # an OOM of this lease is not reported to the next one
    return {"ok": True}, b""


def _remove_ipc_objects():
    ipcrm = shutil.which("ipcrm")
    if ipcrm:
        subprocess.run([ipcrm, "--all"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


_HASH_CACHE = {}


def op_tree_hash(req, _payload):
    """A content hash of every file under `path` (names, modes, contents), skipping `.git`,
    `__pycache__` and bytecode. File digests are cached by (mtime, size, inode), so a step
    that changed nothing costs a directory walk."""
    import hashlib

    root = req["path"]
    skip_dirs = set(req.get("skip_dirs", [".git", "__pycache__"]))
    total = hashlib.sha1()
    seen = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in skip_dirs)
        rel_dir = os.path.relpath(dirpath, root)
        for name in sorted(filenames):
            if name.endswith((".pyc", ".pyo")):
                continue
            full = os.path.join(dirpath, name)
            try:
                st = os.lstat(full)
            except OSError:
                continue
            key = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_mode)
            cached = _HASH_CACHE.get(full)
            if cached is None or cached[0] != key:
                if os.path.islink(full):
                    digest = hashlib.sha1(os.readlink(full).encode()).hexdigest()
                else:
                    h = hashlib.sha1()
                    try:
                        with open(full, "rb") as f:
                            for chunk in iter(lambda: f.read(1 << 20), b""):
                                h.update(chunk)
                    except OSError:
                        continue
                    digest = h.hexdigest()
                cached = (key, digest)
                _HASH_CACHE[full] = cached
            total.update(("%s/%s\0%o\0%s\n" % (rel_dir, name, st.st_mode & 0o777, cached[1])).encode())
            seen += 1
    return {"ok": True, "hash": total.hexdigest(), "files": seen}, b""


def op_ping(_req, _payload):
    return {"ok": True, "pid": _SELF, "uid": os.getuid()}, b""


OPS = {"exec": op_exec, "read": op_read, "write": op_write, "snapshot": op_snapshot,
       "download": op_download, "upload": op_upload, "restore": op_restore,
       "reset": op_reset, "ping": op_ping, "tree_hash": op_tree_hash}

WORKDIR = "/workspace"
BASE_ENV = {}


def main():
    global WORKDIR, BASE_ENV
    WORKDIR = os.environ.get("CODEGYM_WORKDIR", WORKDIR)
    home = os.environ.get("HOME", "/tmp")
    BASE_ENV = {
        "PATH": os.environ.get("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"),
        "HOME": home, "USER": os.environ.get("USER", "agent"), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
        "TERM": "dumb", "PAGER": "cat", "GIT_PAGER": "cat", "PYTHONUNBUFFERED": "1",
        "PIP_NO_INPUT": "1", "DEBIAN_FRONTEND": "noninteractive",
    }
    # SandboxConfig.env: the host names the variables it set for every command.
    for key in filter(None, os.environ.get("CODEGYM_ENV_KEYS", "").split(",")):
        if key in os.environ:
            BASE_ENV[key] = os.environ[key]
    _become_subreaper()
    _prefer_commands_for_oom()
    if "--nondumpable" in sys.argv:
        _make_nondumpable()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    write_message({"ok": True, "ready": True, "pid": _SELF, "uid": os.getuid()})
    while True:
        req, payload = read_message()
        if req is None:
            break  # the host went away: leave nothing running behind us
        handler = OPS.get(req.get("op"))
        try:
            if handler is None:
                raise ValueError("unknown op %r" % req.get("op"))
            header, out = handler(req, payload)
        except Exception as exc:  # reported to the host, never fatal to the executor
            header, out = {"ok": False, "error": "%s: %s" % (type(exc).__name__, exc),
                           "kind": type(exc).__name__}, b""
        write_message(header, out)
    kill_descendants()


if __name__ == "__main__":
    main()
