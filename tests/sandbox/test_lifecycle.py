"""Nothing leaks: a run killed by a signal closes its containers, whichever thread made them,
and `reap` (`codegym sandbox gc`) treats a zombie owner as dead."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from codegym.sandbox.lifecycle import LABEL, is_orphan, reap

# A run as `codegym train` makes one: the pool creates its sandboxes on worker threads, and a
# worker thread keeps using them (acquire, exec, release: resets in flight) until the signal.
RUN = textwrap.dedent("""
    import faulthandler, signal, sys, threading, time
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # the stacks, should it hang
    from codegym.sandbox import SandboxConfig, SandboxPool
    from codegym.sandbox.lifecycle import RUN_ID

    ready = threading.Event()

    def rollouts():
        pool = SandboxPool(SandboxConfig(image=sys.argv[1]), size=3, backend="docker")
        pool.warm()
        ready.set()
        while True:
            sb = pool.acquire()
            sb.exec("echo step > note.txt")
            pool.release(sb)

    threading.Thread(target=rollouts, daemon=True).start()
    ready.wait(120)
    print(RUN_ID, flush=True)
    time.sleep(600)
""")


def _default_signals() -> None:
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, signal.SIG_DFL)


def _containers_of(client, run_id: str) -> list[str]:
    return [row["Id"] for row in client.api.containers(all=True, filters={"label": f"{LABEL}={run_id}"})]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=lambda s: s.name)
def test_a_signal_closes_every_container_made_on_worker_threads(sig, docker_client, python_image, tmp_path):
    stderr = (tmp_path / "stderr.txt").open("w+")
    # a run started the usual way: default signal dispositions (a suite run under `nohup` or as a
    # background job inherits SIGHUP / SIGINT ignored, which the sandbox layer rightly keeps)
    proc = subprocess.Popen([sys.executable, "-c", RUN, python_image], stdout=subprocess.PIPE, stderr=stderr,
                            text=True, preexec_fn=_default_signals)
    run_id = proc.stdout.readline().strip()
    try:
        assert run_id and len(_containers_of(docker_client, run_id)) >= 3
        time.sleep(0.5)  # in the middle of the worker's episodes
        proc.send_signal(sig)
        try:
            assert proc.wait(timeout=90) != 0  # it stops, and says it was stopped
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGUSR1)
            time.sleep(1)
            stderr.seek(0)
            pytest.fail(f"the run did not stop after {sig.name}; its threads:\n{stderr.read()[-8000:]}")
        assert _containers_of(docker_client, run_id) == []
    finally:
        proc.kill()
        proc.wait()
        for cid in _containers_of(docker_client, run_id or "-"):
            docker_client.api.remove_container(cid, force=True)


@pytest.fixture
def zombie():
    """A child that has exited and was not reaped: still in the process table, state 'Z'."""
    pid = os.posix_spawn("/bin/true", ["true"], dict(os.environ))
    deadline = time.monotonic() + 10
    while _state(pid) != "Z":
        assert time.monotonic() < deadline, f"pid {pid} never became a zombie"
        time.sleep(0.01)
    os.kill(pid, 0)  # what made gc think the owner was alive: a zombie still takes signals
    yield pid
    os.waitpid(pid, 0)


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def test_gc_treats_a_zombie_owner_as_dead(zombie, docker_client, python_image):
    labels = {LABEL: "zombie-run", "codegym.owner_pid": str(zombie), "codegym.owner_host": os.uname().nodename,
              "codegym.created_at": "0"}
    assert is_orphan(labels)
    assert not is_orphan({**labels, "codegym.owner_pid": str(os.getppid())})  # a live owner's: kept
    c = docker_client.containers.run(python_image, ["sleep", "600"], detach=True, network_mode="none",
                                     labels=labels)
    try:
        assert c.name in reap(docker_client)
    finally:
        try:
            c.remove(force=True)
        except Exception:
            pass




# Makes two containers no sandbox tracks (as a daemon thread killed mid-creation would leave):
# one labelled as this process's, one as another's; prints their ids, then exits.
UNTRACKED = textwrap.dedent("""
    import sys, docker
    from codegym.sandbox.lifecycle import owner_labels
    client = docker.from_env()
    mine = client.containers.run(sys.argv[1], ["sleep", "60"], detach=True, labels=owner_labels())
    other = client.containers.run(sys.argv[1], ["sleep", "60"], detach=True,
                                  labels={**owner_labels(), "codegym.owner_pid": "1"})
    print(mine.id, other.id, flush=True)
""")


def test_exit_removes_a_container_whose_creation_no_sandbox_saw_finish(docker_client, python_image):
    """The exit hook removes the containers this process made that no sandbox tracks, and only
    those (not another process's). Run in a child: in this process it would remove the session's."""
    out = subprocess.run([sys.executable, "-c", UNTRACKED, python_image], capture_output=True, text=True,
                         timeout=120)
    mine, other = out.stdout.split()
    try:
        ids = {row["Id"] for row in docker_client.api.containers(all=True)}
        assert mine not in ids and other in ids, out.stderr
    finally:
        for cid in (mine, other):
            try:
                docker_client.api.remove_container(cid, force=True)
            except Exception:
                pass
