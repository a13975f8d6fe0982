"""validate_task_locally: good tasks pass, broken ones are named with the reason."""

from __future__ import annotations

from codegym.tasks.validate import validate_task_locally, validate_tasks


def test_a_good_task_is_valid(calc_repo):
    result = validate_task_locally(calc_repo.task)
    assert result.ok, result.problems
    assert result.empty.score == 0.0 and result.reference.score == 1.0


def test_reference_that_does_not_fix_is_reported(calc_repo):
    task = calc_repo.task.replace(patch="")
    result = validate_task_locally(task)
    assert any("no reference patch" in p for p in result.problems)
    assert any("reference patch does not pass" in p for p in result.problems)


def test_fail_to_pass_that_already_passes_is_reported(calc_repo):
    task = calc_repo.task.replace(
        FAIL_TO_PASS=("tests/test_add.py::test_add", "tests/test_calc.py::test_mul")
    )
    result = validate_task_locally(task)
    assert result.problems == ["empty submission passes FAIL_TO_PASS tests: ['tests/test_calc.py::test_mul']"]


def test_leaks_and_test_edits_in_the_reference_are_reported(calc_repo):
    task = calc_repo.task.replace(
        upstream_refs=(calc_repo.fix, calc_repo.first),  # `first` is (wrongly) called upstream
        patch=calc_repo.task.patch
        + "diff --git a/tests/test_calc.py b/tests/test_calc.py\n--- a/tests/test_calc.py\n+++ b/tests/test_calc.py\n"
        "@@ -1 +1 @@\n-from calc import mul\n+from calc import mul  # edited\n",
    )
    problems = validate_task_locally(task).problems
    assert any("touches test files ['tests/test_calc.py']" in p for p in problems)
    assert any(f"upstream refs reachable from the workspace: ['{calc_repo.first}']" in p for p in problems)


def test_unbuildable_workspace_is_reported_not_raised(calc_repo):
    results = validate_tasks([calc_repo.task.replace(repo="/does/not/exist")], jobs=1)
    assert not results[0].ok and "workspace" in results[0].problems[0]


def test_grading_on_the_host_leaves_the_users_processes_alone(calc_repo):
    """The grading plugin kills stray processes only in a grading sandbox: validating on a host
    must not touch the user's own programs (it once killed dockerd and the user's shell)."""
    import subprocess
    import sys

    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        result = validate_task_locally(calc_repo.task)
        assert result.ok, result.problems
        assert bystander.poll() is None, "a process of the user was killed by host-side grading"
    finally:
        bystander.kill()
        bystander.wait()
