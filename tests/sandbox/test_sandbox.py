"""The `Sandbox` protocol, run against both backends: Docker and bubblewrap."""

from __future__ import annotations

import io
import tarfile
import time

import pytest

from codegym.sandbox import DockerSandbox, LocalSandbox, Sandbox, SandboxConfig
from codegym.sandbox.output import represented_bytes

BACKENDS = ["docker", "local"]


@pytest.fixture(params=BACKENDS)
def make(request):
    """A factory of sandboxes of the parametrized backend; all closed after the test."""
    made = []

    def factory(**overrides) -> Sandbox:
        if request.param == "docker":
            image = request.getfixturevalue("python_image")
            sb = DockerSandbox.create(SandboxConfig(image=image, **overrides),
                                      client=request.getfixturevalue("docker_client"))
        else:
            sb = LocalSandbox.create(SandboxConfig(**overrides))
        made.append(sb)
        return sb

    yield factory
    for sb in made:
        sb.close()


@pytest.fixture
def sb(make):
    return make()


def test_it_implements_the_protocol(sb):
    assert isinstance(sb, Sandbox)
    assert sb.is_alive()


def test_exec_returns_output_and_exit_code_without_raising(sb):
    r = sb.exec("echo out; echo err >&2; exit 3")
    assert (r.exit_code, r.stdout, r.stderr, r.timed_out, r.truncated) == (3, "out\n", "err\n", False, False)
    assert r.duration_s > 0
    assert sb.exec("definitely-not-a-command").exit_code == 127


def test_exec_runs_in_workspace_as_non_root_with_env(sb):
    r = sb.exec("pwd; id -u; echo $FOO", env={"FOO": "bar"})
    assert r.stdout.split() == ["/workspace", "1000", "bar"]
    assert sb.exec("pwd", workdir="/tmp").stdout.strip() == "/tmp"


def test_files_round_trip(sb):
    sb.write_file("pkg/mod.py", "x = 1\n")
    sb.write_file("/tmp/blob.bin", bytes(range(256)) * 10)
    assert sb.read_file("pkg/mod.py") == b"x = 1\n"
    assert sb.read_file("/tmp/blob.bin") == bytes(range(256)) * 10
    assert sb.exec("cat pkg/mod.py").stdout == "x = 1\n"
    with pytest.raises(FileNotFoundError):
        sb.read_file("missing.txt")


def test_upload_tar_and_directory_then_download(sb, tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.txt").write_text("A")
    sb.upload(str(tmp_path), "/workspace/up")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        data = b"print('hi')\n"
        info = tarfile.TarInfo("t/hello.py")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    sb.upload(buf.getvalue())
    assert sb.exec("cat up/d/a.txt; python3 t/hello.py").stdout == "Ahi\n"
    with tarfile.open(fileobj=io.BytesIO(sb.download("up")), mode="r") as tar:
        assert tar.extractfile("up/d/a.txt").read() == b"A"


def test_snapshot_restore_is_exact(sb):
    sb.exec("mkdir -p src && echo one > src/a.txt && echo two > b.txt && chmod 600 b.txt")
    snap = sb.snapshot()
    sb.exec("rm -rf src && echo changed > b.txt && echo new > c.txt && mkdir locked && chmod 000 locked")
    sb.restore(snap)
    r = sb.exec("find . | sort; cat src/a.txt b.txt; stat -c %a b.txt")
    assert r.stdout.split() == [".", "./b.txt", "./src", "./src/a.txt", "one", "two", "600"]


def test_timeout_returns_promptly_and_kills_the_process_tree(sb):
    t0 = time.monotonic()
    r = sb.exec("sleep 100", timeout=1)
    assert r.timed_out and time.monotonic() - t0 < 2.0
    # a tree: a subshell, a background job and a daemonized grandchild
    r = sb.exec("(sleep 101 &) ; setsid sleep 102 & sleep 103", timeout=1)
    assert r.timed_out
    ps = sb.exec("ps -eo args | grep -c '[s]leep 10'")
    assert ps.stdout.strip() == "0", sb.exec("ps -eo pid,ppid,args").stdout


def test_background_job_does_not_block_a_command(sb):
    t0 = time.monotonic()
    r = sb.exec("sleep 30 & echo started")
    assert r.stdout == "started\n" and time.monotonic() - t0 < 2.0


def test_kill_leftovers_ends_what_the_command_started(sb):
    sb.exec("sleep 61 >/dev/null 2>&1 &")  # started before: not this command's
    r = sb.exec("sleep 62 >/dev/null 2>&1 & setsid sleep 63 >/dev/null 2>&1 & echo started", kill_leftovers=True)
    assert r.stdout == "started\n"
    ps = sb.exec("ps -eo args").stdout
    assert "sleep 61" in ps and "sleep 62" not in ps and "sleep 63" not in ps, ps


def test_output_is_capped_with_head_tail_and_marker(make):
    sb = make(output_limit=10_000)
    r = sb.exec("echo BEGIN; head -c 50000000 /dev/zero | tr '\\0' x; echo; echo END")
    assert r.truncated
    assert r.stdout.startswith("BEGIN\n") and r.stdout.endswith("END\n")
    assert len(r.stdout) < 11_000
    total = len("BEGIN\n") + 50_000_000 + len("\nEND\n")
    # the marker states the stream's true size and exactly how much of it is not shown
    assert f"[... {total:,} bytes of output; {total - 10_000:,} bytes (47.7 MiB) elided ...]" in r.stdout
    assert (r.stdout_bytes, r.stderr_bytes) == (total, 0)
    assert represented_bytes(r.stdout) == total


def test_exec_reports_the_true_size_of_each_stream(sb):
    r = sb.exec("printf 'abc'; printf 'de' >&2")
    assert (r.stdout_bytes, r.stderr_bytes, r.output_bytes, r.truncated) == (3, 2, 5, False)


def test_fork_bomb_is_contained_and_sandbox_stays_usable(make):
    sb = make(pids_limit=64)
    r = sb.exec("bomb() { bomb | bomb & }; bomb", timeout=3)
    assert r.timed_out or "Resource temporarily unavailable" in r.stderr  # the limit bites
    time.sleep(1.0)  # the bomb keeps running in the background, at the limit
    after = sb.exec("echo still here; ps -e --no-headers | wc -l", timeout=10)
    lines = after.stdout.split()
    assert lines[:2] == ["still", "here"], after
    assert int(lines[2]) < 10, sb.exec("ps -ef").stdout


def test_memory_hog_is_killed_and_sandbox_stays_usable(make):
    sb = make(memory="256m")
    r = sb.exec("python3 -c \"b = bytearray(2 << 30); print('survived')\"", timeout=30)
    assert r.exit_code != 0 and "survived" not in r.stdout
    assert sb.exec("echo ok").stdout == "ok\n"


def test_an_out_of_memory_kill_is_named_with_the_limit(docker_client, python_image):
    # Docker: the kernel's OOM killer ends the hog (exit -9); the result says why, once.
    with DockerSandbox.create(SandboxConfig(image=python_image, memory="256m"), client=docker_client) as sb:
        hog = "python3 -c \"b = bytearray(600 << 20); print('survived')\""
        r = sb.exec(hog, timeout=30)
        assert r.exit_code in (-9, 137) and r.oom_killed, r
        assert "killed: out of memory (limit 256 MiB)" in r.stderr
        after = sb.exec("echo ok")
        assert after.stderr == "" and not after.oom_killed
        # a hog in the background: the next command ends fine, but says what happened
        r = sb.exec(f"({hog}) & wait; echo done")
        assert r.stdout == "done\n" and "a process was killed: out of memory (limit 256 MiB)" in r.stderr


def test_no_network(sb):
    code = ("import socket\ntry:\n    socket.create_connection(('1.1.1.1', 53), timeout=3)\n"
            "    print('connected')\nexcept OSError as e:\n    print('blocked', e)\n")
    sb.write_file("/tmp/net.py", code)
    assert sb.exec("python3 /tmp/net.py").stdout.startswith("blocked")
    assert sb.exec("python3 -c \"import socket; print(socket.gethostbyname('deb.debian.org'))\"").exit_code != 0


def test_kill_everything_recovers(sb):
    sb.write_file("keep.txt", "kept")
    r = sb.exec("kill -9 -1; sleep 5")
    assert r.exit_code != 0
    assert sb.exec("cat keep.txt").stdout == "kept"
    assert sb.is_alive()


def test_closed_sandbox_raises_sandbox_error(make):
    from codegym.sandbox import SandboxError

    sb = make()
    sb.close()
    assert not sb.is_alive()
    with pytest.raises(SandboxError, match="closed"):
        sb.exec("true")


def test_tree_hash_tracks_content_not_bytecode_or_git(sb):
    sb.exec("mkdir -p pkg .git __pycache__ && echo a > pkg/a.py && echo b > b.txt")
    h0 = sb.tree_hash()
    sb.exec("echo junk > .git/x; echo junk > __pycache__/m.pyc; touch b.txt")
    assert sb.tree_hash() == h0
    sb.exec("echo changed > b.txt")
    h1 = sb.tree_hash()
    assert h1 != h0
    sb.exec("echo b > b.txt")
    assert sb.tree_hash() == h0
    sb.exec("chmod +x b.txt")
    assert sb.tree_hash() != h0
