"""The grading script and the JUnit parser, run for real on a host copy of the workspace."""

from __future__ import annotations

import io
import py_compile
import shutil
import subprocess
import tarfile

import pytest

from codegym.tasks.grading import (
    build_diff_script,
    build_grading_script,
    grade,
    mangle_node_id,
    parse_grade_log,
    parse_junit_xml,
)
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
    assert empty.status == {"agent_patch": "empty", "test_patch": "applied", "tests": "exit=1"}, log
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
    assert result.status == {"agent_patch": "failed"}, log
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
    assert "test_unlisted" not in (ws.parent / f"{ws.name}-grade" / "junit.xml").read_text()


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


def test_script_shape(calc_repo):
    script = build_grading_script(calc_repo.task, timeout_s=60)
    assert script.startswith("#!/usr/bin/env bash")
    assert "-p no:cacheprovider" in script and '-o addopts=""' in script and "--junitxml=" in script
    assert "timeout -k 10 60 python" in script
    assert f"BASE={calc_repo.base}" in script
    assert "tests/test_add.py::test_add" in script  # the listed ids travel inside the script
    assert shutil.which("bash")


def test_parse_grade_log():
    log = "noise\nCODEGYM_GRADE agent_patch applied\nCODEGYM_GRADE tests exit=0\n"
    assert parse_grade_log(log) == {"agent_patch": "applied", "tests": "exit=0"}


XML = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
  <testcase classname="tests.test_a" name="test_ok" time="0.1"/>
  <testcase classname="tests.test_a.TestK" name="test_m[x-1]" time="0.1"><failure message="boom"/></testcase>
  <testcase classname="tests.test_a" name="test_skip"><skipped type="pytest.skip" message="s"/></testcase>
  <testcase classname="tests.test_a" name="test_twice"/>
  <testcase classname="tests.test_a" name="test_twice"><error message="teardown"/></testcase>
  <testcase classname="" name="tests.test_broken"><error message="collection failure"/></testcase>
  <testcase classname="tests.test_p" name="test_tagged">
    <properties><property name="codegym_nodeid" value="tests/test_p.py::test_tagged"/></properties>
    <failure/>
  </testcase>
</testsuite></testsuites>"""


def test_parse_junit_xml():
    ids = [
        "tests/test_a.py::test_ok",
        "tests/test_a.py::TestK::test_m[x-1]",
        "tests/test_a.py::test_skip",
        "tests/test_a.py::test_twice",
        "tests/test_broken.py::test_any",
        "tests/test_p.py::test_tagged",
        "tests/test_a.py::test_gone",
    ]
    assert parse_junit_xml(XML, ids) == {
        "tests/test_a.py::test_ok": "passed",
        "tests/test_a.py::TestK::test_m[x-1]": "failed",
        "tests/test_a.py::test_skip": "skipped",
        "tests/test_a.py::test_twice": "error",
        "tests/test_broken.py::test_any": "error",
        "tests/test_p.py::test_tagged": "failed",
        "tests/test_a.py::test_gone": "missing",
    }
    assert parse_junit_xml(XML)["tests/test_p.py::test_tagged"] == "failed"
    assert parse_junit_xml(None, ["a.py::t"]) == {"a.py::t": "missing"}
    assert parse_junit_xml("<not xml", ["a.py::t"]) == {"a.py::t": "missing"}
    assert mangle_node_id("tests/sub/test_a.py::TestK::test_m[a/b::c]") == (
        "tests.sub.test_a.TestK",
        "test_m[a/b::c]",
    )


def test_grade_counts(calc_repo):
    task = calc_repo.task
    result = grade(task, {"tests/test_add.py::test_add": "passed", "tests/test_calc.py::test_mul": "failed"})
    assert (result.f2p_fraction, result.p2p_fraction, result.resolved) == (1.0, 0.0, False)
