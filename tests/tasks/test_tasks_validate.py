"""validate_task_locally: good tasks pass, broken ones are named with the reason."""

from __future__ import annotations

from codegym.tasks.validate import (
    ValidationResult,
    judge_outcomes,
    summary,
    validate_task_locally,
    validate_tasks,
    write_valid,
)


def test_a_good_task_is_valid(calc_repo):
    result = validate_task_locally(calc_repo.task)
    assert result.ok, result.problems
    assert result.empty.score == 0.0 and result.reference.score == 1.0


def test_reference_that_does_not_fix_is_reported(calc_repo):
    task = calc_repo.task.replace(patch="")
    result = validate_task_locally(task)
    assert any("no reference patch" in p for p in result.problems)
    assert any("tests that do not pass with the reference patch" in p for p in result.problems)


def test_fail_to_pass_that_already_passes_is_reported(calc_repo):
    task = calc_repo.task.replace(
        FAIL_TO_PASS=("tests/test_add.py::test_add", "tests/test_calc.py::test_mul")
    )
    result = validate_task_locally(task)
    assert result.problems == ["FAIL_TO_PASS tests pass without a fix: tests/test_calc.py::test_mul=passed"]


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


COIN = "import random\n\n\ndef test_coin():\n    assert random.SystemRandom().random() < 0.5\n"


def flaky_task(task):
    """`task` plus a PASS_TO_PASS test that passes on half the runs (fresh randomness in every
    pytest process: no state survives between pooled sandboxes)."""
    coin_patch = ("diff --git a/tests/test_coin.py b/tests/test_coin.py\nnew file mode 100644\n"
                  f"--- /dev/null\n+++ b/tests/test_coin.py\n@@ -0,0 +1,{len(COIN.splitlines())} @@\n"
                  + "".join(f"+{line}\n" for line in COIN.splitlines()))
    return task.replace(instance_id="calc-flaky", test_patch=task.test_patch + coin_patch,
                        PASS_TO_PASS=(*task.PASS_TO_PASS, "tests/test_coin.py::test_coin"),
                        protected_paths=(*task.protected_paths, "tests/test_coin.py"))


def test_flake_rates_and_judging_are_per_submission():
    from codegym.tasks.task import Task

    task = Task("t", "r", "b", "s", "", FAIL_TO_PASS=("a", "b"), PASS_TO_PASS=("c",))
    empty = [{"a": "failed", "b": "failed", "c": "passed"}, {"a": "failed", "b": "passed", "c": "passed"}]
    gold = [{"a": "passed", "b": "passed", "c": "passed"}, {"a": "passed", "b": "passed", "c": "failed"}]
    problems, flaky = judge_outcomes(task, empty, gold)
    assert problems == [] and flaky == {"b": 0.25, "c": 0.25}
    problems, flaky = judge_outcomes(task.replace(FAIL_TO_PASS=("b",)), empty, gold)
    assert problems == ["no FAIL_TO_PASS test is left once the flaky ones are removed"]
    problems, _ = judge_outcomes(task, empty[:1], [{"a": "failed", "b": "passed", "c": "passed"}])
    assert problems == ["tests that do not pass with the reference patch: a=failed"]


def test_a_flaky_test_is_found_and_write_valid_drops_it_and_the_broken_tasks(calc_repo, tmp_path):
    from codegym.tasks.loader import load_tasks, write_tasks_jsonl

    result = validate_task_locally(flaky_task(calc_repo.task), repeats=6)
    # P(no flake seen in 6 runs of each submission) = (2/64)**2 < 0.1%
    assert result.ok, result.problems
    assert list(result.flaky) == ["tests/test_coin.py::test_coin"] and 0 < result.flaky["tests/test_coin.py::test_coin"] < 1
    broken = ValidationResult("calc-broken", ["no reference patch"])
    source = tmp_path / "in" / "tasks.jsonl"
    source.parent.mkdir()
    write_tasks_jsonl([flaky_task(calc_repo.task), calc_repo.task.replace(instance_id="calc-broken", patch="")],
                      source)
    out = tmp_path / "valid.jsonl"
    assert write_valid(source, [result, broken], out) == (1, 1)
    (task,) = load_tasks(out)
    assert task.instance_id == "calc-flaky" and task.PASS_TO_PASS == ("tests/test_calc.py::test_mul",)
    lines = summary("tasks.jsonl", [result, broken])
    assert lines[0].startswith("flaky calc-flaky tests/test_coin.py::test_coin (")
    assert lines[1] == "broken calc-broken: no reference patch"
    assert lines[2] == "tasks.jsonl: 1/2 tasks valid, 0 load error(s), 1 flaky test(s), 1 broken, 6 runs of each submission"
