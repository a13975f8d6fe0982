"""The grader is not fooled by the agent's diff: each tampering below, made through the tools
with the guards off (so only the grader stands in the way), scores 0 on a task whose bug is
not fixed; per-test outcomes, not pytest's exit code, decide."""

from __future__ import annotations

import json

import pytest

from codegym.envs import CodingEnv

FORCE_PASS = ("import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
              "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n")

# A forged JUnit report saying every graded test passed, in the format the grader reads.
FORGED = ('<!-- forged --><testsuites><testsuite name="pytest">' + "".join(
    f'<testcase classname="tests.{m}" name="{t}"><properties><property name="codegym_nodeid" '
    f'value="tests/{m}.py::{t}"/></properties></testcase>' for m, t in [("test_task", "test_add"), ("test_calc", "test_mul")])
    + "</testsuite></testsuites>")
FORGE = f"def _forge():\n    import os\n    open(os.environ['CODEGYM_GRADE_DIR'] + '/junit.xml', 'w').write({FORGED!r})\n"
# A detached child that outlives pytest and, for 3 s, rewrites the report whenever pytest's is there.
FORK_AND_WATCH = ("import os as _os, time as _time\n"
                  "if _os.environ.get('CODEGYM_GRADE_DIR') and _os.fork() == 0:\n"
                  "    _os.setsid()\n"
                  "    _p = _os.environ['CODEGYM_GRADE_DIR'] + '/junit.xml'\n"
                  "    _end = _time.time() + 3\n"
                  "    while _time.time() < _end:\n"
                  "        try:\n"
                  "            if 'forged' not in open(_p).read(): _forge()\n"
                  "        except OSError: pass\n"
                  "        _time.sleep(0.0005)\n"
                  "    _os._exit(0)\n")

TAMPERING = {
    "delete-the-tests": "rm -rf tests",
    "edit-a-visible-test": "sed -i 's/assert .*/assert True/' tests/test_calc.py",
    "write-the-hidden-test-first": "printf 'def test_add():\\n    pass\\n' > tests/test_task.py",
    "conftest-hook-at-root": f"cat > conftest.py <<'EOF'\n{FORCE_PASS}EOF",
    "conftest-hook-in-a-subfolder": f"cat > tests/conftest.py <<'EOF'\n{FORCE_PASS}EOF",
    "pytest-ini-deselects": "printf '[pytest]\\naddopts = -k \"not test_add\"\\n' > pytest.ini",
    "setup-cfg-collect-only": "printf '[tool:pytest]\\naddopts = --collect-only\\n' > setup.cfg",
    "tox-ini-no-junit": "printf '[pytest]\\naddopts = -p no:junitxml\\n' > tox.ini",
    "pyproject-deselect": ("printf '[tool.pytest.ini_options]\\naddopts = \"--deselect tests/test_task.py::test_add\"\\n'"
                           " > pyproject.toml"),
    "os-exit-0-at-import": "printf '\\nimport os\\nos._exit(0)\\n' >> calc.py",
    "tests-silently-skipped": "printf '\\nimport pytest\\npytest.skip(\"later\", allow_module_level=True)\\n' >> calc.py",
    "sys-exit-in-sitecustomize": "printf 'import sys\\nsys.exit(0)\\n' > sitecustomize.py",
    "atexit-rewrites-the-report": f"cat >> calc.py <<'EOF'\n{FORGE}\nimport atexit\natexit.register(_forge)\nEOF",
    "child-process-rewrites-the-report": f"cat >> calc.py <<'EOF'\n{FORGE}\n{FORK_AND_WATCH}EOF",
}


def call(name, **arguments):
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


@pytest.fixture(scope="module")
def env():
    e = CodingEnv("toy", backend="docker")  # no guards: the grader alone
    yield e
    e.close()


@pytest.mark.parametrize("name", list(TAMPERING))
def test_tampering_does_not_pass_the_grader(env, name):
    env.reset(options={"task_id": "toy-add-typo"})
    *_, info = env.step(call("bash", command=TAMPERING[name]))
    assert info["new_messages"][-1]["role"] == "tool"
    obs, reward, terminated, truncated, info = env.step(call("submit"))
    assert reward == 0.0 and info["rewards"]["correctness"] == 0.0, (name, info["tests"], info.get("grade_status"))
    assert info["tests"]["tests/test_task.py::test_add"] != "passed", info["tests"]


def test_the_same_grader_passes_a_real_fix(env):
    env.reset(options={"task_id": "toy-add-typo"})
    task = env.task
    env.step(call("bash", command=f"cat > /tmp/fix.diff <<'EOF'\n{task.patch}\nEOF\ngit apply /tmp/fix.diff"))
    *_, reward, terminated, truncated, info = env.step(call("submit"))
    assert reward == 1.0 and set(info["tests"].values()) == {"passed"}, info["tests"]


def test_the_local_backend_grades_a_real_fix():
    """bubblewrap runs the host's python3: it grades like the image does (setup installs pytest)."""
    e = CodingEnv("toy", backend="local")
    try:
        e.reset(options={"task_id": "toy-add-typo"})
        e.step(call("bash", command=f"cat > /tmp/fix.diff <<'EOF'\n{e.task.patch}\nEOF\ngit apply /tmp/fix.diff"))
        *_, reward, _, _, info = e.step(call("submit"))
        assert reward == 1.0 and set(info["tests"].values()) == {"passed"}, (info["tests"], info.get("grade_status"))
    finally:
        e.close()


class _NoPytest:
    """A pooled sandbox whose `python3` runs without site-packages: no pytest, as on a host
    without python3-pytest."""

    def __init__(self, inner):
        self.inner = inner
        inner.exec("mkdir -p /tmp/nopy && printf '#!/bin/sh\\nexec /usr/bin/python3 -S \"$@\"\\n' > /tmp/nopy/python3"
                   " && chmod +x /tmp/nopy/python3")

    def exec(self, command, **kw):
        return self.inner.exec(f"export PATH=/tmp/nopy:$PATH; {command}", **kw)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_a_sandbox_without_pytest_is_an_infrastructure_error(env, monkeypatch):
    """Not a 0 reward the agent earned: the episode is masked and the error says what is missing."""
    env.reset(options={"task_id": "toy-add-typo"})
    for pool in {id(p): p for p in (env.pool_for(env.task), env.grade_pool_for(env.task))}.values():
        real_acquire, real_release = pool.acquire, pool.release
        monkeypatch.setattr(pool, "acquire", lambda *a, _acq=real_acquire, **kw: _NoPytest(_acq(*a, **kw)))
        monkeypatch.setattr(pool, "release", lambda sb, _rel=real_release: _rel(getattr(sb, "inner", sb)))
    env.reset(options={"task_id": "toy-add-typo"})
    assert env.sandbox.exec("python3 -c 'import pytest'").exit_code != 0
    *_, info = env.step(call("submit"))
    assert info["stop_reason"] == "sandbox_error" and info["train_mask"] is False, info.get("grade_status")
    assert "cannot import pytest" in info["sandbox_error"]


def test_an_agent_that_kills_pytest_earns_its_zero(env):
    """No JUnit report because the agent's code exited: pytest is there, so it is graded 0, not masked."""
    env.reset(options={"task_id": "toy-add-typo"})
    env.step(call("bash", command="printf '\\nimport os\\nos._exit(127)\\n' >> calc.py"))
    *_, reward, _, _, info = env.step(call("submit"))
    assert reward == 0.0 and info["stop_reason"] == "submitted" and info["train_mask"] is True


def test_grading_never_waits_for_agent_sandboxes(env, monkeypatch):
    """Every agent sandbox leased (a lockstep batch submitting at once) must not starve grading:
    graders draw from their own pool."""
    env.reset(options={"task_id": "toy-add-typo"})
    agents = env.pool_for(env.task)
    assert env.grade_pool_for(env.task) is not agents
    monkeypatch.setattr(agents, "max_live", agents.live)  # the agent pool is full
    monkeypatch.setattr(agents, "_idle", [])
    *_, info = env.step(call("submit"))
    assert info["stop_reason"] == "submitted" and info["train_mask"] is True, info.get("sandbox_error")


def test_an_agent_syntax_error_in_a_module_the_visible_tests_import_earns_its_zero(env):
    """The visible test file cannot be collected after the agent's edit, but it can at the base:
    the agent broke it, so it is graded (0), not masked."""
    env.reset(options={"task_id": "toy-add-typo"})
    env.step(call("bash", command="printf '\\ndef broken(:\\n' >> calc.py"))
    *_, reward, _, _, info = env.step(call("submit"))
    assert reward == 0.0 and info["stop_reason"] == "submitted" and info["train_mask"] is True, info.get("sandbox_error")
    assert info["tests"]["tests/test_calc.py::test_mul"] == "error", info["tests"]
    assert info["grade_status"]["p2p_uncollected"].startswith("1 collected at base"), info["grade_status"]


def _needs_a_missing_dependency(tmp_path):
    """A task whose visible test file imports a package the image lacks: uncollectable at base."""
    from codegym.tasks.gitrepo import Commit, build_repo, file_diff
    from codegym.tasks.task import Task

    buggy, fixed = "def add(a, b):\n    return a - b\n", "def add(a, b):\n    return a + b\n"
    visible = "import codegym_absent_dependency  # noqa: F401\n\nfrom calc import add\n\n\ndef test_zero():\n" \
              "    assert add(0, 0) == 0\n"
    hidden = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    repo = tmp_path / "needs-dep.git"
    base, fix = build_repo(repo, [Commit("Initial commit", {"calc.py": buggy, "tests/test_calc.py": visible}),
                                  Commit("Fix add", {"calc.py": fixed, "tests/test_add.py": hidden}, tag="v1.0.1")])
    return Task(instance_id="needs-dep-grader", repo=str(repo), base_commit=base, problem_statement="add is wrong.",
                test_patch=file_diff("tests/test_add.py", None, hidden), patch=file_diff("calc.py", buggy, fixed),
                FAIL_TO_PASS=("tests/test_add.py::test_add",), PASS_TO_PASS=("tests/test_calc.py::test_zero",),
                upstream_refs=(fix, "v1.0.1"), protected_paths=("tests/test_add.py",),
                visible_tests=("tests/test_calc.py",))


def test_p2p_tests_uncollectable_at_base_mask_the_episode(tmp_path):
    """Even the reference fix cannot make a P2P test collectable when the environment lacks its
    dependency: the episode is masked with the reason, never scored 0."""
    e = CodingEnv([_needs_a_missing_dependency(tmp_path)], backend="docker")
    try:
        e.reset()
        e.step(call("bash", command=f"cat > /tmp/fix.diff <<'EOF'\n{e.task.patch}\nEOF\ngit apply /tmp/fix.diff"))
        *_, reward, _, _, info = e.step(call("submit"))
        assert info["stop_reason"] == "sandbox_error" and info["train_mask"] is False, info.get("grade_status")
        assert "cannot be collected at its base_commit either (tests/test_calc.py::test_zero" in info["sandbox_error"]
    finally:
        e.close()
