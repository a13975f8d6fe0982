"""Grading (preparation, the graded run, the stream collector), run for real on a host copy of the workspace."""

from __future__ import annotations

import io
import json
import py_compile
import subprocess
import tarfile

import pytest

from codegym.tasks.grade_stream import collect
from codegym.tasks.grading import GradingError, build_diff_script, grade
from codegym.tasks.validate import run_grading_locally
from codegym.tasks.workspace import prepare_workspace


@pytest.fixture
def workspace(calc_repo, tmp_path):
    """A fresh extraction of the calc task's workspace (call it for each one you need)."""
    data = prepare_workspace(calc_repo.task)
    counter = iter(range(100))

    def make():
        dest = tmp_path / f"ws{next(counter)}"
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(dest, filter="data")
        return dest

    return make


def _grade(task, ws, diff):
    result, log = run_grading_locally(task, ws, diff)
    return result, log


def test_empty_submission_fails_and_reference_passes(calc_repo, workspace):
    task = calc_repo.task
    empty, log = _grade(task, workspace(), "")
    assert (empty.status["agent_patch"], empty.status["test_patch"], empty.status["stream"]) == (
        "empty", "applied", "complete"), log
    assert empty.outcomes == {
        "tests/test_add.py::test_add": "failed",
        "tests/test_calc.py::test_mul": "passed",
    }
    assert not empty.resolved and empty.score == 0.0
    assert (empty.f2p_passed, empty.p2p_passed, empty.p2p_fraction) == (0, 1, 1.0)

    ref, log = _grade(task, workspace(), task.patch)
    assert ref.status["agent_patch"] == "applied" and ref.resolved and ref.score == 1.0, log
    assert ref.to_dict()["f2p"] == [1, 1]


HACKS = """\
diff --git a/conftest.py b/conftest.py
--- a/conftest.py
+++ b/conftest.py
@@ -0,0 +1,7 @@
+import pytest
+
+@pytest.hookimpl(hookwrapper=True)
+def pytest_runtest_makereport(item, call):
+    outcome = yield
+    outcome.get_result().outcome = "passed"
+
diff --git a/tests/conftest.py b/tests/conftest.py
new file mode 100644
--- /dev/null
+++ b/tests/conftest.py
@@ -0,0 +1,2 @@
+import builtins
+builtins.HACKED = True
diff --git a/pytest.ini b/pytest.ini
new file mode 100644
--- /dev/null
+++ b/pytest.ini
@@ -0,0 +1,2 @@
+[pytest]
+addopts = -p no:junitxml
diff --git a/pytest.py b/pytest.py
new file mode 100644
--- /dev/null
+++ b/pytest.py
@@ -0,0 +1,3 @@
+import sys
+open(sys.argv[sys.argv.index("--junitxml") + 1] if "--junitxml" in sys.argv else "x", "w").write("<x/>")
+sys.exit(0)
diff --git a/tests/test_add.py b/tests/test_add.py
new file mode 100644
--- /dev/null
+++ b/tests/test_add.py
@@ -0,0 +1,2 @@
+def test_add():
+    pass
diff --git a/tests/test_calc.py b/tests/test_calc.py
--- a/tests/test_calc.py
+++ b/tests/test_calc.py
@@ -1,5 +1,2 @@
-from calc import mul
-
-
 def test_mul():
-    assert mul(2, 3) == 6
+    assert True
"""


def test_agent_config_test_edits_and_shadowing_do_not_count(calc_repo, workspace):
    result, log = _grade(calc_repo.task, workspace(), HACKS)
    assert result.status["agent_patch"] == "applied", log
    assert result.status["test_patch"] == "applied", log
    assert result.outcomes["tests/test_add.py::test_add"] == "failed", log
    assert result.outcomes["tests/test_calc.py::test_mul"] == "passed"
    assert not result.resolved


def test_planted_bytecode_is_removed(calc_repo, workspace, tmp_path):
    ws = workspace()
    fixed = tmp_path / "calc.py"
    fixed.write_text("def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n")
    (ws / "__pycache__").mkdir()
    py_compile.compile(
        str(fixed),
        cfile=str(ws / "__pycache__" / "calc.cpython-311.pyc"),
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
    )
    result, _ = _grade(calc_repo.task, ws, "")
    assert result.outcomes["tests/test_add.py::test_add"] == "failed"
    assert not (ws / "__pycache__").exists()


def test_a_patch_that_does_not_apply_scores_zero(calc_repo, workspace):
    bad = "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,1 +1,1 @@\n-nope\n+yes\n"
    result, log = _grade(calc_repo.task, workspace(), bad)
    assert result.status["agent_patch"] == "failed", log
    assert set(result.outcomes.values()) == {"missing"} and result.score == 0.0


def test_missing_ids_do_not_stop_the_others(calc_repo, workspace):
    task = calc_repo.task.replace(
        PASS_TO_PASS=(
            "tests/test_calc.py::test_mul",
            "tests/test_calc.py::test_absent",
            "tests/test_nope.py::test_x",
        )
    )
    result, log = _grade(task, workspace(), task.patch)
    assert result.outcomes == {
        "tests/test_add.py::test_add": "passed",
        "tests/test_calc.py::test_mul": "passed",
        "tests/test_calc.py::test_absent": "missing",
        "tests/test_nope.py::test_x": "missing",
    }, log
    assert not result.resolved and result.p2p_passed == 1


def test_only_listed_tests_run_and_parametrized_ids_aggregate(calc_repo, workspace):
    ws = workspace()
    extra = (
        "import pytest\n\n\n@pytest.mark.parametrize('n', [1, 2])\ndef test_param(n):\n    assert n == 1\n\n\n"
        "def test_unlisted():\n    raise SystemExit('must not run')\n"
    )
    (ws / "tests" / "test_more.py").write_text(extra)
    subprocess.run(["git", "-c", "safe.directory=*", "add", "-A"], cwd=ws, check=True)
    subprocess.run(
        [
            "git",
            "-c",
            "safe.directory=*",
            "-c",
            "user.name=x",
            "-c",
            "user.email=x@x",
            "commit",
            "-qm",
            "more",
        ],
        cwd=ws,
        check=True,
    )
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ws, capture_output=True, text=True).stdout.strip()
    task = calc_repo.task.replace(
        base_commit=head,
        PASS_TO_PASS=("tests/test_more.py::test_param[1]", "tests/test_more.py::test_param"),
    )
    result, log = _grade(task, ws, "")
    assert result.outcomes["tests/test_more.py::test_param[1]"] == "passed", log
    assert result.outcomes["tests/test_more.py::test_param"] == "failed"  # worst of [1] and [2]
    assert "must not run" not in log


def test_diff_script_captures_the_agents_work(calc_repo, workspace):
    agent_ws = workspace()
    (agent_ws / "calc.py").write_text((agent_ws / "calc.py").read_text().replace("a - b", "a + b"))
    (agent_ws / "NOTES.md").write_text("fixed add\n")
    (agent_ws / "__pycache__").mkdir()
    (agent_ws / "__pycache__" / "calc.cpython-311.pyc").write_bytes(b"\0junk")
    git = ["git", "-c", "safe.directory=*", "-c", "user.name=a", "-c", "user.email=a@a"]
    subprocess.run([*git, "add", "NOTES.md"], cwd=agent_ws, check=True)
    subprocess.run([*git, "commit", "-qm", "agent commit"], cwd=agent_ws, check=True)
    out = agent_ws.parent / "agent.diff"
    proc = subprocess.run(
        ["bash", "-c", build_diff_script(calc_repo.base, str(agent_ws), str(out))],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    diff = out.read_text()
    assert "a/calc.py" in diff and "b/NOTES.md" in diff and "__pycache__" not in diff

    result, log = _grade(calc_repo.task, workspace(), diff)
    assert result.resolved, log


def test_a_test_patch_that_does_not_apply_is_an_environment_error(calc_repo, workspace):
    stale = "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,1 +1,1 @@\n-nope\n+yes\n"
    with pytest.raises(GradingError, match="do not apply"):
        _grade(calc_repo.task.replace(test_patch=stale), workspace(), "")


def test_agent_files_in_test_dirs_and_startup_files_are_removed(calc_repo, workspace):
    """A new file under tests/, a .pth and a dist-info entry point would all run before the tests."""
    force = "import _pytest.python\n_pytest.python.Function.runtest = lambda self: None\n"
    diff = _new_files({"tests/__init__.py": force, "tests/helpers.py": force, "evil.pth": "import os\n",
                       "forge-1.0.dist-info/entry_points.txt": "[pytest11]\nforge = tests.helpers\n",
                       "forge-1.0.dist-info/METADATA": "Name: forge\nVersion: 1.0\n"})
    result, log = _grade(calc_repo.task, workspace(), diff)
    assert result.status["agent_patch"] == "applied", log
    assert result.outcomes["tests/test_add.py::test_add"] == "failed", log


def test_graded_files_and_functions_get_fresh_names(calc_repo, workspace):
    result, log = _grade(calc_repo.task, workspace(), "")
    renamed = json.loads(result.status["renamed"])
    assert renamed["files"] == 2 and renamed["functions"] == 2, renamed
    assert "test_add.py" not in log and "::test_add" not in log, log


def _new_files(files: dict[str, str]) -> str:
    out = []
    for path, text in files.items():
        lines = text.splitlines()
        out.append(f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
                   f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{ln}\n" for ln in lines))
    return "".join(out)


N = "nonce1"


def _ev(kind, **kw):
    return json.dumps({"e": kind, "n": N, **kw})


def _stream(*events):
    return "\n".join(events) + "\n"


GOOD = [_ev("hello"), _ev("collected", ids=["t.py::a", "t.py::b[1]", "t.py::b[2]"]),
        _ev("start", id="t.py::a"), _ev("phase", id="t.py::a", when="setup", exc=None),
        _ev("phase", id="t.py::a", when="call", exc=None), _ev("phase", id="t.py::a", when="teardown", exc=None),
        _ev("end", id="t.py::a"),
        _ev("start", id="t.py::b[1]"), _ev("phase", id="t.py::b[1]", when="setup", exc=None),
        _ev("phase", id="t.py::b[1]", when="call", exc="AssertionError"), _ev("end", id="t.py::b[1]"),
        _ev("start", id="t.py::b[2]"), _ev("phase", id="t.py::b[2]", when="setup", exc="Skipped", skip=True),
        _ev("end", id="t.py::b[2]"), _ev("finish", exitstatus=1)]


def test_collector_reads_a_consistent_stream():
    outcomes, status = collect(_stream(*GOOD), N, ["t.py::a", "t.py::b[1]", "t.py::b[2]", "t.py::b", "t.py::c"])
    assert outcomes == {"t.py::a": "passed", "t.py::b[1]": "failed", "t.py::b[2]": "skipped", "t.py::b": "failed",
                        "t.py::c": "missing"}
    assert status == {"stream": "complete", "pytest_exit": "1"}


@pytest.mark.parametrize("broken", [
    GOOD[:5] + [_ev("phase", id="t.py::a", when="call", exc=None)] + GOOD[5:],   # a phase twice
    GOOD[:2] + [_ev("start", id="t.py::zzz")] + GOOD[2:],                         # never collected
    GOOD + [_ev("phase", id="t.py::a", when="call", exc=None)],                  # after finish
    [GOOD[0], GOOD[1], json.dumps({"e": "start", "id": "t.py::a"})] + GOOD[3:],  # no nonce
    GOOD[:3] + ["garbage"] + GOOD[3:],                                            # not an event
    GOOD[:2] + GOOD[7:] + GOOD[2:7],                                              # a test started twice
    GOOD[:6] + GOOD[7:],                                                          # start while one runs
], ids=["phase-twice", "uncollected", "after-finish", "no-nonce", "garbage", "twice", "overlap"])
def test_an_inconsistent_stream_fails_every_test(broken):
    outcomes, status = collect(_stream(*broken), N, ["t.py::a", "t.py::b[1]"])
    assert set(outcomes.values()) == {"error"} and status["stream"].startswith("inconsistent"), status


def test_a_stream_that_stops_early_is_never_a_pass():
    outcomes, status = collect(_stream(*GOOD[:6]), N, ["t.py::a"])
    assert outcomes == {"t.py::a": "missing"} and status["stream"] == "incomplete"
    outcomes, status = collect("", N, ["t.py::a"])
    assert outcomes == {"t.py::a": "missing"} and status["stream"] == "empty"


def test_a_tampered_phase_fails_the_test():
    tampered = GOOD[:4] + [_ev("phase", id="t.py::a", when="call", exc=None, tampered="swapped")] + GOOD[5:]
    outcomes, status = collect(_stream(*tampered), N, ["t.py::a"])
    assert outcomes == {"t.py::a": "failed"} and "swapped" in status["tampering"]


def test_grade_counts(calc_repo):
    task = calc_repo.task
    result = grade(task, {"tests/test_add.py::test_add": "passed", "tests/test_calc.py::test_mul": "failed"})
    assert (result.f2p_fraction, result.p2p_fraction, result.resolved) == (1.0, 0.0, False)


def test_the_project_comes_first_even_where_pytest_preloaded_a_namesake(tmp_path):
    """pytest imports `iniconfig` from site-packages before any test: a project of that name is
    still graded as itself, not as the installed copy."""
    from codegym.tasks.gitrepo import Commit, build_repo
    from codegym.tasks.task import Task

    test = "import iniconfig\n\n\ndef test_own():\n    assert iniconfig.PROJECT == 'mine'\n"
    repo = tmp_path / "iniconfig.git"
    (base,) = build_repo(repo, [Commit("init", {"iniconfig/__init__.py": "PROJECT = 'mine'\n",
                                                "tests/test_base.py": "def test_ok():\n    pass\n"})])
    task = Task(instance_id="shadow-1", repo=str(repo), base_commit=base, problem_statement="-",
                test_patch=_new_files({"tests/test_own.py": test}), FAIL_TO_PASS=("tests/test_own.py::test_own",),
                patch="")
    ws = tmp_path / "ws"
    with tarfile.open(fileobj=io.BytesIO(prepare_workspace(task))) as tar:
        tar.extractall(ws, filter="data")
    result, log = _grade(task, ws, "")
    assert result.outcomes == {"tests/test_own.py::test_own": "passed"}, log


def test_no_graded_file_at_all_leaves_every_test_missing(calc_repo, workspace):
    task = calc_repo.task.replace(FAIL_TO_PASS=("tests/test_gone.py::test_x",), PASS_TO_PASS=())
    result, log = _grade(task, workspace(), task.patch)
    assert result.outcomes == {"tests/test_gone.py::test_x": "missing"} and result.score == 0.0, log
    assert result.status["stream"] == "no test files"
