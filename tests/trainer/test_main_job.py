"""The main job end to end at a small size: warm start on train instances, one RL iteration, the
controls, every arm evaluated on the same held-out instances, and the report (markdown with the
measured numbers, the held-out chart, learning curve, hack-rate chart)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from codegym.trainer.config import ConfigError
from codegym.trainer.report import load_main_job, run_main_job

pytestmark = pytest.mark.docker


@pytest.mark.timeout(1800)  # ~50 real episodes: a few minutes on 2 quiet cores, far more on loaded ones
def test_main_job_writes_a_report_of_held_out_evaluation_beside_the_controls(tmp_path):
    out = tmp_path / "main"
    cfg, spec = load_main_job("examples/main_job.yaml", {"run": {"out_dir": str(out), "iterations": 1}})
    assert cfg.env.id == "codegym/Families-v0" and cfg.algorithm.log_kl_ref
    cfg.rollout.group_size, cfg.rollout.tasks_per_iteration, cfg.rollout.max_new_tokens = 2, 1, 16
    cfg.sft.steps = 3
    spec.train_tasks, spec.heldout_tasks, spec.low_temperatures, spec.copy_steps = 2, 2, [0.5], 5
    report = run_main_job(cfg, spec)
    text = report.read_text()
    assert report == out / "report.md"
    for png in ("heldout.png", "learning_curve.png", "hack_rates.png"):
        assert (out / png).stat().st_size > 1000 and png in text
    summary = json.loads((out / "summary.json").read_text())
    arms = summary["arms"]
    assert set(arms) == {"warm start", "warm T=0.5", "gigpo", "gigpo shuffled", "sft-continued"}
    held = set(arms["warm start"]["T1"]["passed"])
    assert len(held) == 2 and all(set(a[m]["passed"]) == held for a in arms.values() for m in a
                                  if isinstance(a[m], dict) and "passed" in a[m])
    # RL and the warm start saw train instances only
    rows = [json.loads(line) for line in (out / "gigpo" / "metrics.jsonl").read_text().splitlines()]
    trained = {k.split("/", 1)[1] for r in rows for k in r if k.startswith("pass_rate/")}
    assert trained and not trained & held
    assert json.loads((out / "warm.json").read_text())["episodes"] == 2
    assert "policy/entropy" in rows[0] and "policy/kl_ref" in rows[0]
    assert summary["verdict"]["gigpo"]["T1"]["best_control"]
    # SFT continued for the RL arm's training tokens (a step count, not wall time)
    assert arms["sft-continued"]["budget_tokens"] == arms["gigpo"]["trained_tokens"] > 0
    assert arms["sft-continued"]["steps"] >= 1
    # the report states what was measured in this run
    t1 = arms["gigpo"]["T1"]["pass"]
    assert f"{t1['value']:.3f} [{t1['wilson95'][0]:.3f}, {t1['wilson95'][1]:.3f}] ({t1['k']}/{t1['n']})" in text
    assert "sft-continued" in text and "gigpo shuffled" in text


def test_main_job_config_errors_name_the_field(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("main: {train_task: 3}\n")
    with pytest.raises(ConfigError, match="main.train_task is not a main-job setting"):
        load_main_job(bad)
    bad.write_text("main: {controls: [shuffle]}\n")
    with pytest.raises(ConfigError, match="unknown control 'shuffle'"):
        load_main_job(bad)
    bad.write_text("env: {id: codegym/Toy-v0}\n")
    with pytest.raises(ConfigError, match="held-out instances of codegym/Families-v0"):
        load_main_job(bad)


@pytest.mark.timeout(600)
def test_prepare_only_fills_the_copy_base_cache_the_job_then_loads(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CODEGYM_CACHE", str(tmp_path / "cache"))
    cfg, spec = load_main_job("examples/main_job.yaml", {"run": {"out_dir": str(tmp_path / "main")}})
    spec.train_tasks, spec.heldout_tasks, spec.copy_steps = 2, 2, 5
    assert run_main_job(cfg, spec, prepare_only=True) is None
    assert not (tmp_path / "main" / "report.md").exists()
    cached = list((tmp_path / "cache" / "tiny").glob("copy-*/model.pt"))
    assert len(cached) == 1
    # the job's own warm start finds it (same demonstrations, same width: the same key)
    from codegym.trainer.learning import LearningStudy, pick_tasks

    train, held = pick_tasks(list(cfg.env.kwargs.get("families")), 2, 2, cfg.run.seed)
    cfg = replace(cfg, env=replace(cfg.env, kwargs={**cfg.env.kwargs, "split": "train"}))
    study = LearningStudy(cfg, train, held, tmp_path / "again", say=print)
    capsys.readouterr()
    study.prepare_base(copy_steps=5)
    study.cleanup()
    assert "copy pre-training: cached" in capsys.readouterr().out
