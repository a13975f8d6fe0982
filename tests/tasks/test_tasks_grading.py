"""Grading (preparation, the graded run, the stream collector), run for real on a host copy of the workspace."""

from __future__ import annotations

import io
import json
import py_compile
import subprocess
import tarfile

import pytest
from calc_fixtures import (
    CALC_BUGGY,
    CALC_FIXED,
    HIDDEN,
    VISIBLE,
)

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
    assert status == {"stream": "complete", "pytest_exit": "1", "uncollected": '["t.py::c"]'}


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



def test_warnings_as_errors_with_ini_keys_unknown_here_still_grade(tmp_path):
    """`filterwarnings = error` plus an ini key pytest does not know in the grading run (junitxml is
    off there, so `junit_family` is unknown; wcwidth 0.2.13 ships both) made pytest stop with an
    INTERNALERROR before collecting: every test came back "missing". Config warnings are pytest's,
    not the project's: ignored, and the tests grade."""
    from codegym.tasks.gitrepo import Commit, build_repo
    from codegym.tasks.task import Task

    ini = "[pytest]\nfilterwarnings =\n    error\njunit_family = xunit1\ntimeout = 10\n"
    repo = tmp_path / "strict.git"
    (base,) = build_repo(repo, [Commit("init", {"tox.ini": ini, "mod.py": "def f():\n    return 1\n",
                                                "tests/test_mod.py": "import mod\n\n\ndef test_f():\n    assert mod.f() == 1\n"})])
    task = Task(instance_id="strict-1", repo=str(repo), base_commit=base, problem_statement="-",
                test_patch=_new_files({"tests/test_new.py": "import warnings\n\n\ndef test_warns():\n    warnings.warn('x')\n"}),
                FAIL_TO_PASS=("tests/test_new.py::test_warns",), PASS_TO_PASS=("tests/test_mod.py::test_f",), patch="")
    ws = tmp_path / "ws"
    with tarfile.open(fileobj=io.BytesIO(prepare_workspace(task))) as tar:
        tar.extractall(ws, filter="data")
    result, log = _grade(task, ws, "")
    # the project's own filter still holds for its tests: a warning in a test is an error there
    assert result.outcomes == {"tests/test_mod.py::test_f": "passed", "tests/test_new.py::test_warns": "failed"}, log

def test_no_graded_file_at_all_leaves_every_test_missing(calc_repo, workspace):
    task = calc_repo.task.replace(FAIL_TO_PASS=("tests/test_gone.py::test_x",), PASS_TO_PASS=())
    result, log = _grade(task, workspace(), task.patch)
    assert result.outcomes == {"tests/test_gone.py::test_x": "missing"} and result.score == 0.0, log
    assert result.status["stream"] == "no test files"


# ---- PASS_TO_PASS tests that cannot be collected: the environment's fault or the agent's? ----


def _missing_dependency_task(tmp_path):
    """The calc task, but its visible test file imports a package the environment lacks: it cannot
    be collected at the base, whatever the agent does."""
    from codegym.tasks.gitrepo import Commit, build_repo, file_diff
    from codegym.tasks.task import Task

    visible = "import codegym_absent_dependency  # noqa: F401\n" + VISIBLE
    repo = tmp_path / "needs-dep.git"
    base, fix = build_repo(repo, [
        Commit("Initial commit", {"calc.py": CALC_BUGGY, "tests/test_calc.py": visible, "conftest.py": ""}),
        Commit("Fix add", {"calc.py": CALC_FIXED, "tests/test_add.py": HIDDEN}, tag="v1.0.1"),
    ])  # fmt: skip
    return Task(instance_id="needs-dep-1", repo=str(repo), base_commit=base, problem_statement="add is wrong.",
                test_patch=file_diff("tests/test_add.py", None, HIDDEN), patch=file_diff("calc.py", CALC_BUGGY, CALC_FIXED),
                FAIL_TO_PASS=("tests/test_add.py::test_add",), PASS_TO_PASS=("tests/test_calc.py::test_mul",),
                upstream_refs=(fix, "v1.0.1"), protected_paths=("tests/test_add.py",),
                visible_tests=("tests/test_calc.py",))  # fmt: skip


def _fresh(task, tmp_path):
    counter = iter(range(100))

    def make():
        dest = tmp_path / f"fresh{next(counter)}"
        with tarfile.open(fileobj=io.BytesIO(prepare_workspace(task))) as tar:
            tar.extractall(dest, filter="data")
        return dest

    return make


def test_p2p_tests_uncollectable_at_base_are_an_environment_error(tmp_path, codegym_cache):
    task = _missing_dependency_task(tmp_path)
    fresh = _fresh(task, tmp_path)
    # Without the check at base, the reference fix itself would score 0: its P2P test errors.
    result, log = run_grading_locally(task, fresh(), task.patch)
    assert result.outcomes == {"tests/test_add.py::test_add": "passed", "tests/test_calc.py::test_mul": "error"}, log
    assert result.score == 0.0
    # With it, the environment is found broken: a GradingError (the env masks the episode).
    with pytest.raises(GradingError, match=r"cannot be collected at its base_commit either \(tests/test_calc.py"):
        run_grading_locally(task, fresh(), task.patch, base_workspace=fresh)


def test_a_syntax_error_the_agent_introduced_still_scores_zero(calc_repo, workspace):
    broken = (
        "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,5 +1,5 @@\n"
        " def add(a, b):\n-    return a - b\n+    return a +\n \n \n def mul(a, b):\n"
    )
    result, log = run_grading_locally(calc_repo.task, workspace(), broken, base_workspace=workspace)
    assert result.status["agent_patch"] == "applied", log
    assert result.outcomes["tests/test_calc.py::test_mul"] == "error" and result.score == 0.0, log
    assert result.status["p2p_uncollected"].startswith("1 collected at base: the submission broke them"), log


def test_collectable_p2p_tests_never_reach_the_check_at_base(calc_repo, workspace):
    def unused():
        raise AssertionError("the check at base ran although every P2P test was collected")

    result, log = run_grading_locally(calc_repo.task, workspace(), "", base_workspace=unused)
    assert result.outcomes["tests/test_calc.py::test_mul"] == "passed" and "p2p_uncollected" not in result.status


def test_the_collector_names_the_ids_it_never_collected():
    a = "tests/test_a.py::t"
    text = _stream(_ev("hello"), _ev("collect_error", path="tests/test_b.py"), _ev("collected", ids=[a]),
                   _ev("start", id=a), _ev("phase", id=a, when="call", exc=None), _ev("end", id=a),
                   _ev("finish", exitstatus=2))  # fmt: skip
    outcomes, status = collect(text, N, [a, "tests/test_b.py::u", "tests/test_c.py::v"])
    assert outcomes == {a: "passed", "tests/test_b.py::u": "error", "tests/test_c.py::v": "missing"}
    assert json.loads(status["uncollected"]) == ["tests/test_b.py::u", "tests/test_c.py::v"]


def test_unittest_style_tests_pass_untampered(tmp_path):
    """A `unittest.TestCase` method is a new bound method at every access (pytest rebinds it in
    setup): an untouched unittest-style test is not "changed after collection" (it was, for every
    test of jmespath and more-itertools)."""
    from codegym.tasks.gitrepo import Commit, build_repo
    from codegym.tasks.task import Task

    test = ("import unittest\n\nfrom pkg import two\n\n\nclass TestTwo(unittest.TestCase):\n"
            "    def setUp(self):\n        self.n = 2\n\n    def test_two(self):\n        self.assertEqual(two(), self.n)\n")
    repo = tmp_path / "pkg.git"
    (base,) = build_repo(repo, [Commit("init", {"pkg/__init__.py": "def two():\n    return 2\n",
                                                "tests/test_base.py": "def test_ok():\n    pass\n"})])
    task = Task(instance_id="unittest-1", repo=str(repo), base_commit=base, problem_statement="-",
                test_patch=_new_files({"tests/test_two.py": test}),
                FAIL_TO_PASS=("tests/test_two.py::TestTwo::test_two",), patch="")
    ws = tmp_path / "ws"
    with tarfile.open(fileobj=io.BytesIO(prepare_workspace(task))) as tar:
        tar.extractall(ws, filter="data")
    result, log = _grade(task, ws, "")
    assert result.outcomes == {"tests/test_two.py::TestTwo::test_two": "passed"}, log


# ---- unittest-style tests: their failures never reach the call phase, pytest < 8 rebinds them ----

UNITTEST_TESTS = (
    "import unittest\n\nfrom pkg import two\n\n\n"
    "class TestTwo(unittest.TestCase):\n"
    "    def setUp(self):\n        self.n = 2\n\n"
    "    def test_equal(self):\n        self.assertEqual(two(), self.n)\n\n"
    "    def test_lookup(self):\n        self.assertEqual({2: 'two'}[two()], 'two')\n\n"
    "    def test_subtests(self):\n        for k in (1, 2):\n            with self.subTest(k=k):\n"
    "                self.assertEqual(two() * k, 2 * k)\n\n"
    "    @unittest.expectedFailure\n    def test_known_bug(self):\n        self.assertEqual(two(), 3)\n\n"
    "    @unittest.skip('later')\n    def test_later(self):\n        raise AssertionError('never runs')\n"
)  # fmt: skip
UNITTEST_IDS = tuple(f"tests/test_two.py::TestTwo::{t}" for t in
                     ("test_equal", "test_lookup", "test_subtests", "test_known_bug", "test_later"))  # fmt: skip
TWO_RIGHT, TWO_WRONG = "def two():\n    return 2\n", "def two():\n    return 3\n"


def _unittest_task(tmp_path, ids=UNITTEST_IDS):
    """A task whose graded tests are one `unittest.TestCase` (setUp, subTest, expectedFailure,
    skip), its code right at the base; `file_diff(TWO_RIGHT, TWO_WRONG)` breaks it."""
    from codegym.tasks.gitrepo import Commit, build_repo
    from codegym.tasks.task import Task

    repo = tmp_path / "two.git"
    (base,) = build_repo(repo, [Commit("init", {"pkg/__init__.py": TWO_RIGHT, "tests/__init__.py": "",
                                                "tests/test_base.py": "def test_ok():\n    pass\n"})])  # fmt: skip
    return Task(instance_id="unittest-2", repo=str(repo), base_commit=base, problem_statement="-",
                test_patch=_new_files({"tests/test_two.py": UNITTEST_TESTS}), FAIL_TO_PASS=ids, patch="")  # fmt: skip


def test_unittest_failures_are_failures(tmp_path):
    """A TestCase reports its failures to pytest's item (`result.addFailure`), which re-raises
    them only in the report: the runner hears them where they are reported (every unittest-style
    test passed, whatever the code did)."""
    from codegym.tasks.gitrepo import file_diff

    task = _unittest_task(tmp_path)
    fresh = _fresh(task, tmp_path)
    result, log = _grade(task, fresh(), "")
    assert result.outcomes == dict(zip(UNITTEST_IDS, ["passed", "passed", "passed", "skipped", "skipped"], strict=True)), log
    result, log = _grade(task, fresh(), file_diff("pkg/__init__.py", TWO_RIGHT, TWO_WRONG))
    assert result.outcomes == dict(zip(UNITTEST_IDS, ["failed", "failed", "failed", "failed", "skipped"], strict=True)), log
    assert result.score == 0.0


def test_unittest_tests_in_the_sandbox_image(tmp_path):
    """In the sandbox image (pytest < 8 rebinds a TestCase method to a fresh instance in setup)
    the pristine code passes untampered and the broken code fails: graded by the real sandbox."""
    from codegym.envs import CodingEnv
    from codegym.tasks.gitrepo import file_diff

    ids = UNITTEST_IDS[:3]
    env = CodingEnv([_unittest_task(tmp_path, ids)], backend="docker")
    try:
        for diff, want, reward in [("", "passed", 1.0), (file_diff("pkg/__init__.py", TWO_RIGHT, TWO_WRONG), "failed", 0.0)]:
            env.reset()
            if diff:
                env.step('<tool_call>{"name": "bash", "arguments": {"command": '
                         + json.dumps(f"cat > /tmp/x.diff <<'EOF'\n{diff}EOF\ngit apply /tmp/x.diff") + "}}</tool_call>")
            *_, got, _, _, info = env.step('<tool_call>{"name": "submit", "arguments": {}}</tool_call>')
            assert info["tests"] == dict.fromkeys(ids, want) and got == reward, info.get("grade_status")
            assert "tampering" not in info.get("grade_status", {}), info["grade_status"]
    finally:
        env.close()
