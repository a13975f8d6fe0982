"""`SandboxPool`: pristine sandboxes per episode, replacement, limits, and reaping leftovers."""

from __future__ import annotations

import io
import os
import tarfile
import threading
import time

import pytest

from codegym.sandbox import SandboxConfig, SandboxError, SandboxPool
from codegym.sandbox.lifecycle import LABEL, reap
from codegym.sandbox.pool import RateLimiter


def _workspace(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _container_ids(client) -> set[str]:
    # The raw list: the high-level one inspects each container and fails on one auto-removed meanwhile.
    return {row["Id"] for row in client.api.containers(all=True)}


def test_a_file_written_in_one_episode_is_gone_in_the_next(pool):
    ws = _workspace({"app.py": "print('v1')\n"})
    sb = pool.acquire(ws)
    sb.exec("echo leak > secret.txt; echo leak > /tmp/t.txt; echo leak > ~/h.txt; echo hacked > app.py; sleep 300 &")
    pool.release(sb)
    seen = []
    for _ in range(pool.size + 1):  # whichever sandbox comes next, it is pristine
        sb = pool.acquire(ws)
        seen.append(sb)
        r = sb.exec("ls -A; cat app.py; ls -A /tmp; ls -A ~; pgrep -c sleep || true")
        assert r.stdout.split() == ["app.py", "print('v1')", ".bash_logout", ".bashrc", ".profile", "0"], r
    for sb in seen:
        pool.release(sb)


def test_acquire_with_another_workspace_replaces_the_files(pool):
    sb = pool.acquire(_workspace({"a.txt": "A"}))
    pool.release(sb)
    sb = pool.acquire(_workspace({"b.txt": "B"}))
    assert sb.exec("ls").stdout.split() == ["b.txt"]
    pool.release(sb)
    sb = pool.acquire()
    assert sb.exec("ls -A").stdout == ""
    pool.release(sb)


def test_kill_everything_in_one_episode_leaves_the_next_unaffected(pool):
    ws = _workspace({"x.txt": "x"})
    sb = pool.acquire(ws)
    sb.exec("kill -9 -1")
    pool.release(sb)
    for _ in range(pool.size + 1):
        sb = pool.acquire(ws)
        assert sb.exec("cat x.txt").stdout == "x"
        pool.release(sb)


def test_a_dead_container_is_replaced(docker_client, python_image):
    with SandboxPool(SandboxConfig(image=python_image), size=1, backend="docker", client=docker_client) as p:
        sb = p.acquire()
        sb.container.kill()
        p.release(sb)  # the reset fails: the pool replaces it
        sb2 = p.acquire()
        assert sb2 is not sb and sb2.exec("echo ok").stdout == "ok\n"
        p.release(sb2)
        assert p.stats.replaced >= 1


@pytest.mark.parametrize("same_workspace", [True, False], ids=["same-workspace", "new-workspace"])
def test_a_container_killed_while_idle_is_never_handed_out(same_workspace, docker_client, python_image):
    # Found by benchmarks/soak.py: `docker kill` (or the OOM killer) of an idle pooled container made
    # the next acquire, and so `env.reset()`, raise; with the same workspace it handed out a dead one.
    ws = _workspace({"a.txt": "a"})
    with SandboxPool(SandboxConfig(image=python_image), size=1, backend="docker", client=docker_client) as p:
        sb = p.acquire(ws)
        p.release(sb)
        p.warm()
        victim = p._idle[0].sandbox
        docker_client.api.kill(victim.container.id)
        sb2 = p.acquire(ws if same_workspace else _workspace({"b.txt": "b"}))
        assert sb2 is not victim and sb2.exec("ls").stdout.strip() == ("a.txt" if same_workspace else "b.txt")
        p.release(sb2)
        assert p.stats.replaced >= 1


def test_concurrent_acquires_never_exceed_max_live(docker_client, python_image):
    # Found by benchmarks/soak.py: a sandbox `acquire` had taken but not yet leased (its workspace
    # being unpacked) was counted nowhere, so refills ran past max_live (16 live of max_live=10).
    with SandboxPool(SandboxConfig(image=python_image), size=4, max_live=5, backend="docker",
                     client=docker_client, reap_leftovers=False) as p:
        p.warm()
        most = []

        def episodes(i):
            for k in range(4):
                sb = p.acquire(_workspace({f"f{i}-{k}.txt": "x"}))
                most.append(p.live)
                p.release(sb)

        threads = [threading.Thread(target=episodes, args=(i,)) for i in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert p.stats.created - p.stats.replaced <= 5 and max(most) <= 5


def test_max_live_blocks_then_times_out(docker_client, python_image):
    with SandboxPool(SandboxConfig(image=python_image), size=0, max_live=1, backend="docker",
                     client=docker_client) as p:
        sb = p.acquire()
        with pytest.raises(SandboxError, match="max_live"):
            p.acquire(timeout=0.5)
        threading.Timer(0.3, p.release, args=(sb,)).start()
        sb2 = p.acquire(timeout=30)
        assert sb2.exec("true").exit_code == 0
        p.release(sb2)


def test_close_with_resets_in_flight_leaves_no_container(docker_client, python_image):
    # `codegym demo` releases a sandbox and closes the pool at once: a slot whose reset was still
    # running (or queued) was dropped without being closed, and its container lived on.
    p = SandboxPool(SandboxConfig(image=python_image), size=0, max_live=8, backend="docker",
                    client=docker_client)
    leased = [p.acquire() for _ in range(6)]
    ids = {sb.container.id for sb in leased}
    for sb in leased:
        sb.exec("head -c 20000000 /dev/urandom > big.bin; sleep 300 &")  # a reset with work to do
    for sb in leased:
        p.release(sb)
    p.close()
    assert not ids & _container_ids(docker_client)
    with pytest.raises(SandboxError, match="closed"):
        p.acquire()


def test_release_of_a_foreign_sandbox_is_an_error(pool):
    from codegym.sandbox import LocalSandbox

    with LocalSandbox.create() as other, pytest.raises(SandboxError, match="did not hand out"):
        pool.release(other)


def test_rate_limiter_spaces_creations():
    rl = RateLimiter(rate=20.0, burst=1)
    t0 = time.monotonic()
    for _ in range(5):
        rl.wait()
    assert time.monotonic() - t0 >= 4 / 20.0 * 0.9


def test_containers_are_labelled_and_leftovers_are_reaped(docker_client, python_image, tmp_path):
    # A leftover of a dead run: labelled as owned by a process that no longer exists.
    import subprocess

    dead = subprocess.Popen(["true"])
    dead.wait()
    c = docker_client.containers.run(
        python_image, ["sleep", "600"], detach=True, network_mode="none",
        labels={LABEL: "deadrun", "codegym.owner_pid": str(dead.pid),
                "codegym.owner_host": os.uname().nodename, "codegym.created_at": "0"})
    try:
        # pool start-up reaps it; a live run's container is never touched
        with SandboxPool(SandboxConfig(image=python_image), size=0, backend="docker", client=docker_client) as p:
            assert p.stats.reaped >= 1
            assert c.id not in _container_ids(docker_client)
            sb = p.acquire()
            assert sb.container.labels[LABEL] and sb.container.labels["codegym.owner_pid"] == str(os.getpid())
            assert sb.container.name not in reap(docker_client)
            assert sb.exec("true").exit_code == 0
            p.release(sb)
    finally:
        try:
            c.remove(force=True)
        except Exception:
            pass


def test_codegym_sandbox_gc_command_removes_a_leftover(docker_client, python_image):
    from typer.testing import CliRunner

    from codegym.cli import app

    c = docker_client.containers.run(python_image, ["sleep", "600"], detach=True, network_mode="none",
                                     labels={LABEL: "deadrun", "codegym.owner_pid": "999999999",
                                             "codegym.owner_host": os.uname().nodename})
    result = CliRunner().invoke(app, ["sandbox", "gc"])
    assert result.exit_code == 0, result.output
    assert c.name in result.output
    assert c.id not in _container_ids(docker_client)


def test_orphaned_container_dies_on_its_own_after_ttl(docker_client, python_image):
    from codegym.sandbox import DockerSandbox

    sb = DockerSandbox.create(SandboxConfig(image=python_image, ttl_s=1.0), client=docker_client)
    cid = sb.container.id
    sb._executor.close()  # the host side goes away without cleaning up
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if cid not in _container_ids(docker_client):
            break
        time.sleep(0.5)
    else:
        pytest.fail("the orphaned container outlived its TTL")


def test_dead_daemon_gives_a_clear_sandbox_error(monkeypatch, tmp_path):
    from codegym.sandbox import DockerSandbox, docker_client

    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-such-docker.sock")
    with pytest.raises(SandboxError, match="Cannot reach the Docker engine.*dockerd"):
        docker_client()
    with pytest.raises(SandboxError, match="Cannot reach the Docker engine"):
        DockerSandbox.create()


def test_pool_works_on_the_bubblewrap_backend():
    with SandboxPool(size=1, backend="local") as p:
        sb = p.acquire(_workspace({"f.txt": "F"}))
        sb.exec("echo junk > g.txt")
        p.release(sb)
        sb = p.acquire(_workspace({"f.txt": "F"}))
        assert sb.exec("ls").stdout.split() == ["f.txt"]
        p.release(sb)
