"""`codegym tasks validate SUITE`: every built-in task scores 1 with its reference, 0 without."""

from __future__ import annotations

import os
import subprocess
import sys


def _validate(source: str, cache, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codegym.tasks", "validate", source, "--jobs", "2", *extra],
        capture_output=True,
        text=True,
        env={**os.environ, "CODEGYM_CACHE": str(cache)},
        timeout=1800,
    )


def test_validate_toy(codegym_cache):
    proc = _validate("toy", codegym_cache)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "toy: 15/15 tasks valid, 0 load error(s)" in proc.stdout


# repofix and humaneval are validated end to end in real sandboxes, through the env's own
# tools, by tests/envs/test_suites.py (`codegym tasks validate SUITE`); this file checks the
# host-side validator on the toy suite and a hand-made broken task.


def test_validate_reports_a_bad_task(calc_repo, tmp_path, codegym_cache):
    from codegym.tasks.loader import write_tasks_jsonl

    path = tmp_path / "mixed.jsonl"
    write_tasks_jsonl([calc_repo.task, calc_repo.task.replace(instance_id="calc-broken", patch="")], path)
    with path.open("a") as fh:
        fh.write("{broken\n")
    proc = _validate(str(path), codegym_cache, "--verbose")
    assert proc.returncode == 1
    assert "ok   calc-1" in proc.stdout and "FAIL calc-broken" in proc.stdout
    assert "1/2 tasks valid, 1 load error(s)" in proc.stdout
    assert f"{path}:3" in proc.stderr


def test_list_and_show(codegym_cache):
    env = {**os.environ, "CODEGYM_CACHE": str(codegym_cache)}
    run = [sys.executable, "-m", "codegym.tasks"]
    shown = subprocess.run([*run, "show", "toy", "toy-add-typo"], capture_output=True, text=True, env=env)
    assert shown.returncode == 0 and '"instance_id": "toy-add-typo"' in shown.stdout


PARAM_NODE = "tests/test_size.py::test_size[test_args62-1 Bytes]"


def _broken_suite(calc_repo, tmp_path):
    """A valid task, one whose reference patch does not apply, and one whose reference leaves a
    parametrized test with brackets and a space in its node id failing."""
    from codegym.tasks.loader import write_tasks_jsonl

    task = calc_repo.task
    bad_patch = task.replace(instance_id="calc-bad-patch", patch=task.patch.replace("-    return a - b",
                                                                                    "-    return a // b"))
    param_test = ('import pytest\n\n\n@pytest.mark.parametrize("size", ["1 Bytes"], ids=["test_args62-1 Bytes"])\n'
                  'def test_size(size):\n    assert size == "2 Bytes"\n')
    failing = task.replace(
        instance_id="calc-params", FAIL_TO_PASS=(*task.FAIL_TO_PASS, PARAM_NODE),
        protected_paths=("tests/test_add.py", "tests/test_size.py"),
        test_patch=task.test_patch + "diff --git a/tests/test_size.py b/tests/test_size.py\nnew file mode 100644\n"
        f"--- /dev/null\n+++ b/tests/test_size.py\n@@ -0,0 +1,{len(param_test.splitlines())} @@\n"
        + "".join(f"+{line}\n" for line in param_test.splitlines()))
    path = tmp_path / "broken.jsonl"
    write_tasks_jsonl([task, bad_patch, failing], path)
    return path


def test_validate_in_sandboxes_prints_the_cause(calc_repo, tmp_path, codegym_cache):
    # The default mode (real episodes in Docker sandboxes) says why a task fails, as --local does,
    # and prints node ids verbatim (rich markup used to eat "[test_args62-1 Bytes]").
    path = _broken_suite(calc_repo, tmp_path)
    proc = subprocess.run([sys.executable, "-m", "codegym.cli", "tasks", "validate", str(path), "--backend", "docker",
                           "--workers", "2"], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "CODEGYM_CACHE": str(codegym_cache), "COLUMNS": "400"})
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert "1/3 tasks valid" in out
    line = next(x for x in out.splitlines() if x.startswith("FAIL calc-bad-patch"))
    assert "reference scored 0.0: the reference patch does not apply" in line and "patch does not apply" in line
    line = next(x for x in out.splitlines() if x.startswith("FAIL calc-params"))
    assert f"tests that do not pass with the reference patch: {PARAM_NODE}=failed" in line, out
    assert "FAIL calc-1" not in out


def test_validate_on_the_host_names_the_cause_too(calc_repo, tmp_path, codegym_cache):
    proc = _validate(str(_broken_suite(calc_repo, tmp_path)), codegym_cache)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    cause = proc.stdout.split("FAIL calc-bad-patch", 1)[1].splitlines()[1]
    assert cause.strip().startswith("reference: the reference patch does not apply"), proc.stdout
    assert PARAM_NODE in proc.stdout.split("FAIL calc-params", 1)[1]


def test_show_of_an_unknown_task_is_one_line_and_exit_code_2(codegym_cache):
    for run in ([sys.executable, "-m", "codegym.tasks"], [sys.executable, "-m", "codegym.cli", "tasks"]):
        proc = subprocess.run([*run, "show", "toy", "toy-add-typp"], capture_output=True, text=True,
                              env={**os.environ, "CODEGYM_CACHE": str(codegym_cache)})
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
        assert "no task 'toy-add-typp' in toy (15 tasks); did you mean toy-add-typo" in proc.stderr


def test_validate_repeats_reports_flaky_tests_and_writes_the_valid_tasks(calc_repo, tmp_path, codegym_cache):
    # Both modes: real env episodes in Docker sandboxes (with the leak probe), and --local.
    # calc-flaky has a PASS_TO_PASS test that passes on half the runs; calc-broken has no fix.
    import json

    from codegym.tasks.loader import load_tasks, write_tasks_jsonl
    from tests.tasks.test_tasks_validate import flaky_task

    source = tmp_path / "tasks.jsonl"
    write_tasks_jsonl([flaky_task(calc_repo.task), calc_repo.task.replace(instance_id="calc-broken", patch="")],
                      source)
    for mode in (["--backend", "docker"], ["--local"]):
        out = tmp_path / f"valid{len(mode)}.jsonl"
        proc = subprocess.run([sys.executable, "-m", "codegym.cli", "tasks", "validate", str(source), *mode,
                               "--workers", "2", "--repeats", "6", "--write-valid", str(out)],
                              capture_output=True, text=True, timeout=900,
                              env={**os.environ, "CODEGYM_CACHE": str(codegym_cache), "COLUMNS": "400"})
        lines = proc.stdout.splitlines()
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert any(x.startswith("flaky calc-flaky tests/test_coin.py::test_coin (") for x in lines), proc.stdout
        assert any(x.startswith("broken calc-broken: ") for x in lines), proc.stdout
        assert "leak" not in proc.stdout and "FAIL calc-flaky" not in proc.stdout, proc.stdout
        assert f"{source}: 1/2 tasks valid, 0 load error(s), 1 flaky test(s), 1 broken" in lines[-1]
        assert f"wrote 1 valid task(s) to {out} (1 flaky test(s) removed)" in proc.stdout
        (row,) = [json.loads(x) for x in out.read_text().splitlines()]
        assert row["instance_id"] == "calc-flaky" and row["PASS_TO_PASS"] == ["tests/test_calc.py::test_mul"]
        assert [t.instance_id for t in load_tasks(out)] == ["calc-flaky"]
