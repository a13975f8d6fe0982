"""Pristine means pristine: nothing one use of a pooled sandbox writes reaches the next.

The root filesystem is read-only; every writable place is an explicit mount the pool resets.
These tests find the writable places from inside (as the agent and as the grader user), spray
markers into every one of them plus System V IPC objects and message queues, release the
sandbox, and check that the next lease of the same sandbox sees none of it.
"""

from __future__ import annotations

import uuid

import pytest

from codegym.sandbox import SandboxConfig, SandboxPool

# Every directory on every mount that the running user can write to (character devices such as
# /dev/null and the pty multiplexer hold nothing).
FIND_WRITABLE = r"""
for m in $(awk '{print $2}' /proc/mounts | sort -u); do
  case "$m" in /proc|/proc/*|/sys|/sys/*) continue;; esac
  find "$m" -xdev -type d -writable 2>/dev/null
done | sort -u
"""
SPRAY = r"""
for d in $(cat); do echo leaked > "$d/marker-$MARK" 2>/dev/null; done
ipcmk -M 4096 >/dev/null 2>&1; ipcmk -Q >/dev/null 2>&1; ipcmk -S 1 >/dev/null 2>&1
python3 -c "import os; os.close(os.open('/dev/mqueue/q-$MARK', os.O_CREAT | os.O_WRONLY, 0o644))" 2>/dev/null
true
"""
LOOK = r"""
for m in $(awk '{print $2}' /proc/mounts | sort -u); do
  case "$m" in /proc|/proc/*|/sys|/sys/*) continue;; esac
  find "$m" -xdev -name "*-$MARK*" 2>/dev/null
done
ipcs -m -q -s | awk 'NR>0 && $1 ~ /^0x/ {print "ipc", $0}'
"""
ALLOWED_EXTRA = {"/dev/pts"}  # devpts: ptys only, no files can be made there


def _writable(sb, user=None):
    return set(sb.exec(FIND_WRITABLE, user=user).stdout.split())


def _leases(backend):
    with SandboxPool(SandboxConfig(), size=1, max_live=1, backend=backend) as pool:
        first = pool.acquire()
        yield first
        pool.release(first)
        second = pool.acquire()
        assert second is first, "the pool handed out another sandbox: the test would prove nothing"
        yield second
        pool.release(second)


@pytest.mark.parametrize("backend", ["docker", "local"])
def test_only_the_reset_mounts_are_writable(backend):
    sb_iter = _leases(backend)
    sb = next(sb_iter)
    users = [None] + (["tester"] if backend == "docker" else [])
    for user in users:
        writable = _writable(sb, user)
        roots = sb.config.writable_dirs
        outside = {d for d in writable if not any(d == r or d.startswith(r + "/") for r in roots)} - ALLOWED_EXTRA
        assert not outside, f"writable places the pool does not reset (user {user or 'agent'}): {sorted(outside)}"
        assert {"/tmp", sb.config.workdir} <= writable or user == "tester"
    sb_iter.close()


@pytest.mark.parametrize("backend", ["docker", "local"])
def test_markers_sprayed_everywhere_are_gone_in_the_next_lease(backend):
    mark = {"MARK": f"codegym-leak-{uuid.uuid4().hex[:10]}"}
    leases = _leases(backend)
    sb = next(leases)
    users = [None] + (["tester"] if backend == "docker" else [])
    for user in users:
        dirs = _writable(sb, user)
        assert dirs
        r = sb.exec(SPRAY, user=user, env=mark, stdin="\n".join(sorted(dirs)).encode())
        assert r.exit_code == 0, r.output
        assert sb.exec(LOOK, user=user, env=mark).stdout.strip(), "the spray wrote nothing"
    sb = next(leases)
    for user in users:
        seen = sb.exec(LOOK, user=user, env=mark).stdout.strip()
        assert seen == "", f"left over from the previous lease (seen as {user or 'agent'}):\n{seen}"
    leases.close()


def test_a_sticky_tmp_stays_sticky_after_a_reset(pool):
    sb = pool.acquire()
    try:
        sb.reset()
        assert sb.exec("stat -c %a /tmp /var/tmp").stdout.split() == ["1777", "1777"]
    finally:
        pool.release(sb)


def test_the_grader_user_cannot_reach_into_its_executor(pool):
    """Graded code runs as the grader user; the executor relaying its results is non-dumpable:
    no ptrace, no /proc/<pid>/{mem,fd,environ} for the same uid."""
    sb = pool.acquire()
    try:
        r = sb.exec("for p in $(pgrep -u tester -f codegym-executor); do cat /proc/$p/environ; ls /proc/$p/fd; done",
                    user="tester")
        assert "Permission denied" in r.output and "CODEGYM_WORKDIR" not in r.output, r.output
        home = sb.config.home
        sb.exec(f"mkdir -p {home}/private && echo secret > {home}/private/plan.json")
        r = sb.exec(f"cat {home}/private/plan.json", user="tester")
        assert r.exit_code != 0 and "secret" not in r.output
    finally:
        pool.release(sb)


_PLACES = '("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/run", "/home/agent", "/workspace")'
COPY = rf"""
import glob as _g, os as _o, shutil as _sh, sys as _s
_copied = 0
for _d in {_PLACES}:
    for _f in _g.glob("tests/*.py"):
        try:
            _sh.copy(_f, _o.path.join(_d, "leak-" + _o.path.basename(_f))); _copied += 1
        except OSError:
            pass
_s.stderr.write("COPIED %d\n" % _copied)
"""
# Looks only where an earlier episode could have left a copy, never at the tests themselves.
READ = rf"""
import glob as _g
_plain = add
def add(a, b):
    for _d in {_PLACES}:
        for _f in _g.glob(_d + "/leak-*.py"):
            if "add(2, 3) == 5" in open(_f).read():
                return a + b
    return _plain(a, b)
"""


def test_hidden_tests_copied_during_grading_do_not_reach_a_later_episode():
    """Episode 1's code copies the hidden tests wherever it can while they run; episode 2's
    wrong solution passes only if it finds such a copy. Guards off: isolation alone."""
    import json

    from codegym.envs import CodingEnv
    from codegym.envs.grader import SandboxGrader
    from codegym.sandbox import SandboxPool

    with SandboxPool(SandboxConfig(), size=1, max_live=1, backend="docker") as pool:
        env = CodingEnv("toy", backend="docker", pool=pool)
        grader = SandboxGrader(pool, timeout_s=120)
        logs = []
        for code in (COPY, READ, COPY, READ):
            plant = "cat >> calc.py <<'CODEGYM_EOF'\n" + code + "CODEGYM_EOF"
            env.reset(options={"task_id": "toy-add-typo"})
            env.step("<tool_call>" + json.dumps({"name": "bash", "arguments": {"command": plant}}) + "</tool_call>")
            diff = grader.agent_diff(env.sandbox, env.task)
            env.close()
            graded = grader.grade(env.task, diff)
            logs.append(graded.log)
            assert graded.result.score == 0.0, (graded.result.outcomes, graded.log[-1500:])
        copied = [int(line.split()[1]) for log in logs for line in log.splitlines() if line.startswith("COPIED")]
        assert copied and max(copied) > 0, "the leak never ran"
