"""`codegym eval` keeps each episode's final diff and writes SWE-bench predictions (real Docker)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from calc_fixtures import CalcRepo, git


def test_eval_writes_diffs_and_swebench_predictions(tmp_path):
    calc = CalcRepo(tmp_path)
    repos = tmp_path / "repos"
    (repos / "example").mkdir(parents=True)
    git("clone", "-q", "--bare", str(calc.path), str(repos / "example" / "calc"), cwd=tmp_path)
    row = {**calc.task.to_dict(), "repo": "example/calc", "instance_id": "example__calc-1"}
    (tmp_path / "tasks.jsonl").write_text(json.dumps(row) + "\n")
    out, preds = tmp_path / "eval", tmp_path / "preds.jsonl"
    env = {**os.environ, "CODEGYM_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run(
        [
            str(Path(sys.executable).with_name("codegym")),
            "eval",
            "--agent",
            "oracle",
            "--suite",
            str(tmp_path / "tasks.jsonl"),
            "--out",
            str(out),
            "--predictions",
            str(preds),
            "--repos-dir",
            str(repos),
            "--workers",
            "1",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (episode,) = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert episode["reward"] == 1.0 and "+    return a + b" in episode["diff"]
    (pred,) = [json.loads(line) for line in preds.read_text().splitlines()]
    assert pred == {
        "instance_id": "example__calc-1",
        "model_name_or_path": "oracle",
        "model_patch": episode["diff"],
    }
    applied = tmp_path / "check"
    git("clone", "-q", str(calc.path), str(applied), cwd=tmp_path)
    git("checkout", "-q", calc.base, cwd=applied)
    check = subprocess.run(
        ["git", "apply", "--check", "-"],
        input=pred["model_patch"],
        cwd=applied,
        text=True,
        capture_output=True,
    )
    assert check.returncode == 0, check.stderr  # the harness applies it to base_commit as it is
