"""Log parsers for suites pytest cannot run, and a unittest-only repository graded through its
own test command."""

from __future__ import annotations

import io
import tarfile

import pytest

from codegym.tasks.gitrepo import Commit, build_repo
from codegym.tasks.log_parsers import parse_passfail, parse_unittest
from codegym.tasks.task import Task
from codegym.tasks.validate import run_grading_locally
from codegym.tasks.workspace import prepare_workspace

UNITTEST_LOG = """\
test_add (tests.test_calc.TestCalc) ... FAIL
test_mul (tests.test_calc.TestCalc) ... ok
test_div (tests.test_calc.TestCalc.test_div) ... ok
test_skip (tests.test_calc.TestCalc) ... skipped 'later'
test_boom (tests.test_calc.TestCalc) ... ERROR
"""


def test_unittest_and_django_lines():
    ids = ["test_add (tests.test_calc.TestCalc)", "test_mul (tests.test_calc.TestCalc)",
           "test_div (tests.test_calc.TestCalc)", "test_skip (tests.test_calc.TestCalc)",
           "test_boom (tests.test_calc.TestCalc)", "test_gone (tests.test_calc.TestCalc)"]
    assert parse_unittest(UNITTEST_LOG, ids) == dict(zip(ids, ["failed", "passed", "passed", "skipped", "error",
                                                               "missing"], strict=True))


def test_a_repeated_line_keeps_the_worst_outcome():
    log = "PASSED a::b\nFAILED a::b\nc::d PASSED\nSKIPPED: e\n"
    assert parse_passfail(log, ["a::b", "c::d", "e", "f"]) == {"a::b": "failed", "c::d": "passed",
                                                                "e": "skipped", "f": "missing"}


def test_a_test_cmd_without_a_parser_is_refused():
    with pytest.raises(ValueError, match="log_parser"):
        Task(instance_id="x", repo=".", base_commit="0" * 40, problem_statement="", test_patch="",
             FAIL_TO_PASS=("a",), test_cmd="make test")


CALC = "def add(a, b):\n    return a - b\n"
TEST = ("import unittest\n\nfrom calc import add\n\n\nclass TestCalc(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n")


def test_a_unittest_suite_grades_per_test_through_its_own_command(tmp_path):
    repo = tmp_path / "calc.git"
    (base,) = build_repo(repo, [Commit("init", {"calc.py": CALC, "tests/__init__.py": ""})])
    test_patch = ("diff --git a/tests/test_calc.py b/tests/test_calc.py\nnew file mode 100644\n--- /dev/null\n"
                  f"+++ b/tests/test_calc.py\n@@ -0,0 +1,{len(TEST.splitlines())} @@\n"
                  + "".join(f"+{ln}\n" for ln in TEST.splitlines()))
    fix = ("diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n"
           " def add(a, b):\n-    return a - b\n+    return a + b\n")
    task = Task(instance_id="ut-1", repo=str(repo), base_commit=base, problem_statement="add is wrong",
                test_patch=test_patch, FAIL_TO_PASS=("test_add (tests.test_calc.TestCalc)",), patch=fix,
                test_cmd="python3 -m unittest -v tests.test_calc 2>&1", log_parser="unittest")
    results = {}
    for label, diff in (("empty", ""), ("fix", fix)):
        ws = tmp_path / label
        with tarfile.open(fileobj=io.BytesIO(prepare_workspace(task))) as tar:
            tar.extractall(ws, filter="data")
        result, log = run_grading_locally(task, ws, diff)
        results[label] = (result.score, dict(result.outcomes), log)
    assert results["empty"][:2] == (0.0, {"test_add (tests.test_calc.TestCalc)": "failed"}), results["empty"][2]
    assert results["fix"][:2] == (1.0, {"test_add (tests.test_calc.TestCalc)": "passed"}), results["fix"][2]
