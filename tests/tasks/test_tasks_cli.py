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
