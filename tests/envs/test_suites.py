"""Every task of every built-in suite, through the env in real sandboxes: the oracle (the
reference patch applied through the bash tool) scores 1.0 and an immediate submit 0.0.
This is what `codegym tasks validate SUITE` checks; the test runs that command."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from codegym.cli import app


@pytest.mark.parametrize("suite, at_least", [("toy", 10), ("repofix", 24), ("humaneval", 164)])
def test_codegym_tasks_validate_passes_every_task(suite, at_least):
    result = CliRunner().invoke(app, ["tasks", "validate", suite, "--backend", "docker", "--workers", "4"])
    assert result.exit_code == 0, result.output[-3000:]
    valid, total = result.output.strip().splitlines()[-1].split(": ")[1].split(" ")[0].split("/")
    assert valid == total and int(total) >= at_least


def test_validate_reports_a_broken_task(tmp_path):
    from codegym.tasks.loader import load_tasks, write_tasks_jsonl

    task = load_tasks("toy")[0]
    broken = task.replace(instance_id="broken", patch="")  # no reference: the oracle just submits
    write_tasks_jsonl([task, broken], tmp_path / "t.jsonl")
    result = CliRunner().invoke(app, ["tasks", "validate", str(tmp_path / "t.jsonl"), "--backend", "docker"])
    assert result.exit_code == 1 and "FAIL broken: tests that do not pass with the reference patch" in result.output
    assert "1/2 tasks valid" in result.output
