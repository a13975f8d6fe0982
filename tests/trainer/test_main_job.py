"""The main job end to end at a small size: SFT warm start, training, evaluation with hack rates,
and the report (markdown with the measured numbers, learning curve and hack-rate chart)."""

from __future__ import annotations

import json

import pytest

from codegym.trainer.config import load_config
from codegym.trainer.report import run_main_job

pytestmark = pytest.mark.docker


def test_main_job_writes_a_report_from_real_runs(tmp_path):
    cfg = load_config("examples/main_job.yaml")
    cfg.run.out_dir = str(tmp_path / "main")
    cfg.run.iterations, cfg.run.progress, cfg.run.tensorboard = 2, False, False
    cfg.rollout.group_size, cfg.rollout.tasks_per_iteration = 2, 2
    cfg.env.tasks = ["toy-add-typo", "toy-max-of"]
    cfg.sft.steps, cfg.sft.target_success = 3, None
    report = run_main_job(cfg, eval_episodes_per_task=1)
    out = tmp_path / "main"
    text = report.read_text()
    assert report == out / "report.md"
    for png in ("learning_curve.png", "hack_rates.png"):
        assert (out / png).stat().st_size > 1000 and png in text
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in rows] == [0, 1]
    assert all(r["episodes/count"] == 4 for r in rows)
    episodes = [json.loads(line) for line in (out / "eval" / "episodes.jsonl").read_text().splitlines()]
    assert sorted(e["task_id"] for e in episodes) == ["toy-add-typo", "toy-max-of"]
    # the report states what was measured in this run
    assert f"{rows[-1]['reward/mean']:.3f}" in text or f"{rows[-1]['reward/mean']:.2f}" in text
