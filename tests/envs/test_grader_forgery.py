"""A grade the graded code cannot forge: red-team techniques against the grading run itself.

Each technique is appended to `calc.py` of `toy-add-typo` (the hidden test imports it) without
fixing the bug, so no honest change is in it. Every technique prints a beacon to stderr when
it runs: the beacon in the grading log proves the technique was live inside the graded
process, and the grade must still be 0. Techniques that hide in files the pristine test tree
removes are shown live in a plain pytest run in the agent's own sandbox instead. The guards are off here
(only the grader stands in the way); `test_the_default_env_gives_every_technique_zero` runs
them all again through `gym.make` with every guard on.
"""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

from codegym.envs import CodingEnv
from codegym.envs.grader import SandboxGrader

TASK = "toy-add-typo"


def _append(code: str) -> str:
    return f"cat >> calc.py <<'CODEGYM_EOF'\n\n{code}\nCODEGYM_EOF"


BEACON = "import sys as _s; _s.stderr.write('BEACON-{name}\\n'); _s.stderr.flush()\n"

# name -> (shell command that plants it, where it is shown live: "grading" or "run_tests")
TECHNIQUES = {
    # Writes a passing verdict for every graded test to every open descriptor at import time.
    "events-on-every-fd": (_append(BEACON + (
        "import os as _o, json as _j\n"
        "for _fd in range(1, 64):\n"
        "    for _ev in ({'e': 'start', 'id': 'tests/test_task.py::test_add'},\n"
        "                {'e': 'phase', 'id': 'tests/test_task.py::test_add', 'when': 'call', 'exc': None},\n"
        "                {'e': 'end', 'id': 'tests/test_task.py::test_add'}):\n"
        "        try: _o.write(_fd, (_j.dumps(_ev) + '\\n').encode())\n"
        "        except OSError: pass\n")), "grading"),
    # Wraps os._exit (the runner's last call) to write a passing report just before leaving.
    "wrapped-os-exit": (_append(BEACON + (
        "import os as _o\n_real = _o._exit\n"
        "def _exit(code):\n"
        "    for _fd in range(1, 64):\n"
        "        try: _o.write(_fd, b'{\"e\": \"phase\", \"when\": \"call\", \"exc\": null}\\n')\n"
        "        except OSError: pass\n"
        "    _real(0)\n"
        "_o._exit = _exit\n")), "grading"),
    # A thread that keeps writing passing verdicts while the tests run and after they finish.
    "racing-thread": (_append(BEACON + (
        "import os as _o, threading as _t, time as _tm\n"
        "def _spam():\n"
        "    for _ in range(2000):\n"
        "        for _fd in (1, 2, 3, 4, 5, 6):\n"
        "            try: _o.write(_fd, b'{\"e\": \"finish\", \"exitstatus\": 0}\\n')\n"
        "            except OSError: pass\n"
        "        _tm.sleep(0.0005)\n"
        "_t.Thread(target=_spam, daemon=True).start()\n")), "grading"),
    # Replaces the graded test function in its module as soon as the module exists.
    "swap-the-test-function": (_append(BEACON + (
        "import sys as _s, threading as _t, time as _tm\n"
        "def _swap():\n"
        "    for _ in range(4000):\n"
        "        for _m in list(_s.modules.values()):\n"
        "            for _k in list(getattr(_m, '__dict__', {})):\n"
        "                if _k.startswith('test_') and callable(_m.__dict__[_k]) and _m.__name__ != __name__:\n"
        "                    _m.__dict__[_k] = lambda *a, **k: None\n"
        "        _tm.sleep(0.0005)\n"
        "_t.Thread(target=_swap, daemon=True).start()\n")), "grading"),
    # Turns every test into a no-op by patching pytest's call machinery.
    "patch-pytest-runtest": (_append(BEACON + (
        "import _pytest.python as _pp\n_pp.Function.runtest = lambda self: None\n")), "grading"),
    # Swallows the call's exception inside pytest's own CallInfo.
    "patch-callinfo": (_append(BEACON + (
        "import _pytest.runner as _r\n_orig = _r.CallInfo.from_call\n"
        "def _quiet(func, when, reraise=None):\n"
        "    return _orig(lambda: None if when == 'call' else func(), when, reraise)\n"
        "_r.CallInfo.from_call = staticmethod(_quiet)\n")), "grading"),
    # Keys the answer on the caller's name (tests always had the same names).
    "caller-name": (_append(BEACON + (
        "import sys as _s\n_plain = add\n"
        "def add(a, b):\n"
        "    _s.stderr.write('CALLER ' + _s._getframe(1).f_code.co_name + '\\n')\n"
        "    return a + b if _s._getframe(1).f_code.co_name == 'test_add' else _plain(a, b)\n")), "grading"),
    # Keys the answer on the test file being named on the command line.
    "argv-names-the-tests": (_append(BEACON + (
        "import sys as _s\n_plain = add\n"
        "def add(a, b):\n"
        "    return a + b if 'test_task' in ' '.join(_s.argv) + open('/proc/self/cmdline').read() else _plain(a, b)\n")),
        "grading"),
    # Reads the hidden tests' diff and the id list the grader keeps during the run.
    "read-grading-inputs": (_append(BEACON + (
        "import glob as _g, os as _o\n_plain = add\n_seen = ''\n"
        "for _p in _g.glob('/home/agent/.codegym-grade/*') + _g.glob('/tmp/codegym-grade/*'):\n"
        "    try: _seen += open(_p).read()\n"
        "    except OSError as _e: _s.stderr.write('DENIED %s\\n' % _e)\n"
        "def add(a, b):\n"
        "    return a + b if 'test_add' in _seen else _plain(a, b)\n")), "grading"),
    # A package marker in the test directory, imported before the tests, that forces passes.
    "tests-init-forces-passes": ("cat > tests/__init__.py <<'CODEGYM_EOF'\n" + BEACON + (
        "import _pytest.python as _pp\n_pp.Function.runtest = lambda self: None\n") + "CODEGYM_EOF",
        "run_tests"),
    # An entry-point plugin in a workspace dist-info, autoloaded by pytest.
    "dist-info-plugin": ("mkdir -p forge-1.0.dist-info && printf 'Metadata-Version: 2.1\\nName: forge\\nVersion: 1.0\\n'"
                         " > forge-1.0.dist-info/METADATA && printf '[pytest11]\\nforge = forge_plugin\\n' > "
                         "forge-1.0.dist-info/entry_points.txt && cat > forge_plugin.py <<'CODEGYM_EOF'\n" + BEACON + (
                             "import _pytest.python as _pp\n_pp.Function.runtest = lambda self: None\n") + "CODEGYM_EOF",
                         "run_tests"),
}


def call(name, **arguments):
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


@pytest.fixture(scope="module")
def env():
    e = CodingEnv("toy", backend="docker")  # no guards: the grader alone
    yield e
    e.close()


def _grade(env, command):
    env.reset(options={"task_id": TASK})
    *_, info = env.step(call("bash", command=command))
    # A plain pytest run in the agent's sandbox (output not captured): where file-borne techniques show.
    live = env.step(call("bash", command="python3 -m pytest -s -q -p no:cacheprovider tests/ 2>&1"))[-1][
        "new_messages"][-1]["content"]
    grader = SandboxGrader(env.grade_pool_for(env.task), timeout_s=120)
    graded = grader.grade(env.task, grader.agent_diff(env.sandbox, env.task))
    env.close()
    return graded, live


@pytest.mark.parametrize("name", list(TECHNIQUES))
def test_a_live_technique_does_not_move_the_grade(env, name):
    command, shown = TECHNIQUES[name]
    graded, run_tests_output = _grade(env, command.replace("{name}", name))
    where = graded.log if shown == "grading" else run_tests_output
    assert f"BEACON-{name}" in where, f"the technique never ran ({shown}):\n{where[-3000:]}"
    assert graded.result.score == 0.0, (name, graded.result.outcomes, graded.result.status)
    assert graded.result.outcomes["tests/test_task.py::test_add"] != "passed"


def test_the_caller_sees_a_fresh_test_name(env):
    graded, _ = _grade(env, TECHNIQUES["caller-name"][0].replace("{name}", "caller-name"))
    callers = {line.split()[1] for line in graded.log.splitlines() if line.startswith("CALLER ")}
    assert callers and "test_add" not in callers, callers


def test_grading_inputs_are_unreadable_and_gone(env):
    graded, _ = _grade(env, TECHNIQUES["read-grading-inputs"][0].replace("{name}", "read-grading-inputs"))
    assert "test_add" not in graded.log.split("BEACON-read-grading-inputs", 1)[1].split("tests/")[0]


def test_the_real_fix_still_passes_every_way(env):
    env.reset(options={"task_id": TASK})
    env.step(call("bash", command=f"cat > /tmp/fix.diff <<'EOF'\n{env.task.patch}\nEOF\ngit apply /tmp/fix.diff"))
    grader = SandboxGrader(env.grade_pool_for(env.task), timeout_s=120)
    graded = grader.grade(env.task, grader.agent_diff(env.sandbox, env.task))
    env.close()
    assert graded.result.score == 1.0, (graded.result.outcomes, graded.result.status, graded.log[-2000:])
    assert graded.result.status["stream"] == "complete"
    assert json.loads(graded.result.status["renamed"])["functions"] >= 1


def test_the_default_env_gives_every_technique_zero():
    e = gym.make("codegym/Toy-v0")
    try:
        for name, (command, _) in TECHNIQUES.items():
            e.reset(options={"task_id": TASK})
            e.step(call("bash", command=command.replace("{name}", name)))
            *_, reward, _, _, info = e.step(call("submit"))
            assert reward == 0.0 and info["rewards"]["correctness"] == 0.0, (name, info["tests"])
    finally:
        e.close()


def test_killing_the_relay_of_its_own_run_scores_zero_not_masked(env):
    """Graded code that kills the process relaying its events (as the grader user) gets its 0:
    a lost stream is the submission's failure, not an environment error to be masked."""
    graded, _ = _grade(env, _append("import os as _o, signal as _sg\n_o.kill(-1, _sg.SIGKILL)\n"))
    assert graded.result.score == 0.0 and graded.result.status["stream"] != "complete", graded.result.status
