"""A one-iteration smoke run of every algorithm on Toy-v0 in Docker with the tiny model.

Tiny settings (one task, two rollouts, 8 new tokens, 2 turns): the point is that collection,
rewards, values, advantages, the PPO update, the adapter sync with its probe, logging and
checkpointing run end to end for each algorithm, not that anything is learned
(benchmarks/learning.py measures learning).
"""

from __future__ import annotations

import itertools
import json
import logging

import pytest

from codegym.trainer.config import config_from_dict
from codegym.trainer.loop import Trainer, TrainingError, default_make_env, pack_micro_batches

pytestmark = pytest.mark.docker

ALGOS = ["ppo", "grpo", "gigpo", "tree_grpo", "gdpo", "gd2po"]


def tiny_config(name: str, out, **over):
    rollout = {"tasks_per_iteration": 1, "group_size": 2, "max_new_tokens": 8, "max_envs": 2}
    if name == "tree_grpo":
        rollout.update(trees=1, rounds=1, expand=1)
    data = {"algorithm": {"name": name, "epochs": 2}, "model": {"lora_r": 4, "lora_alpha": 8},
            "env": {"tasks": ["toy-add-typo"], "max_turns": 2,
                    "kwargs": {"backend": "docker", "tools": ["create", "submit"]}},  # a short prompt
            "rollout": rollout, "run": {"iterations": 1, "out_dir": str(out), "progress": False}}
    for k, v in over.items():
        data.setdefault(k, {}).update(v)
    return config_from_dict(data)


@pytest.mark.parametrize("name", ALGOS)
def test_one_iteration(name, tmp_path):
    trainer = Trainer(tiny_config(name, tmp_path, run={"tensorboard": name == "ppo"}))
    [m] = trainer.train()
    assert trainer.iteration == 1 and trainer.policy_version == 1 and trainer.engine.policy_version == 1
    assert m["episodes/count"] == 2 and m["batch/segments"] >= 1 and "loss/policy" in m
    assert m["policy/engine_logprob_diff"] < 1e-3  # recomputed old logprobs match the engine's
    for key in ("reward/mean", "reward/correctness", "reward/format", "episodes/pass_rate",
                "episodes/hack_event_rate", "policy/clipfrac", "throughput/gen_tokens_per_s"):
        assert key in m, key
    if name == "ppo":
        assert "loss/value" in m and m["advantages/abs_mean"] > 0
        assert list((tmp_path / "tensorboard").glob("events.*"))
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert rows[0]["iteration"] == 0
    assert (tmp_path / "checkpoints" / "iter-000001" / "policy" / "adapter_model.safetensors").exists()


def test_masked_episodes_are_counted_logged_and_not_trained(tmp_path, caplog):
    cfg = tiny_config("grpo", tmp_path, run={"tensorboard": False})
    real, calls = default_make_env(cfg), itertools.count()

    def first_env_fails():
        if next(calls) == 0:
            raise RuntimeError("no sandbox today")
        return real()

    trainer = Trainer(cfg, make_env=first_env_fails)
    with caplog.at_level(logging.WARNING, logger="codegym.trainer.loop"):
        m = trainer.train_iteration()
    assert m["episodes/masked"] == 1 and m["masked/start_error"] == 1 and trainer.policy_version == 1
    assert m["episodes/mask_reasons"] == {"start_error: RuntimeError: no sandbox today": 1}
    assert "iteration 0: 1/2 episodes masked: 1x start_error: RuntimeError: no sandbox today" in caplog.text
    trainer.close()


def test_an_iteration_with_every_episode_masked_stops_the_run(tmp_path):
    trainer = Trainer(tiny_config("grpo", tmp_path, run={"tensorboard": False}),
                      make_env=lambda: (_ for _ in ()).throw(RuntimeError("no sandbox today")))
    with pytest.raises(TrainingError, match="2/2 episodes masked: 2x start_error: RuntimeError: no sandbox today"):
        trainer.train()
    assert trainer.iteration == 0 and trainer.policy_version == 0
    [row] = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert row["episodes/masked"] == 2 and row["episodes/mask_reasons"] == {
        "start_error: RuntimeError: no sandbox today": 2}
    assert not (tmp_path / "checkpoints").exists()  # nothing trained, nothing saved


def test_pack_micro_batches():
    assert pack_micro_batches([0, 1, 2, 3], [10, 10, 30, 5], 40) == [[0, 1], [2], [3]]
    assert pack_micro_batches([2], [0, 0, 100], 10) == [[2]]


def test_episode_metrics_report_pass_rates_per_task():
    from codegym.trainer.data import Episode
    from codegym.trainer.loop import episode_metrics

    eps = [Episode("a", "g", reward=r, reward_components={"correctness": r}) for r in (1.0, 0.0, 1.0, 1.0)]
    eps += [Episode("b", "h", reward=0.0, reward_components={"correctness": 0.0}) for _ in range(4)]
    m = episode_metrics(eps)
    assert m["pass_rate/a"] == 0.75 and m["pass_rate/b"] == 0.0
    assert m["episodes/pass_rate"] == 3 / 8


def test_mask_reasons_are_summarized_by_kind_and_text():
    from codegym.trainer.data import Episode
    from codegym.trainer.loop import episode_metrics, mask_reasons, mask_summary

    eps = [Episode("a", "g", reward=1.0, reward_components={"correctness": 1.0})]
    for reason, stop in [("the sandbox failed: gone\ntraceback ...", "sandbox_error")] * 2 + [
            ("engine_error: CUDA out of memory", "engine_error")]:
        eps.append(Episode("a", "g", stop_reason=stop))
        eps[-1].mask(reason)
    m = episode_metrics(eps)
    assert m["episodes/masked"] == 3 and m["masked/sandbox_error"] == 2 and m["masked/engine_error"] == 1
    reasons = mask_reasons(eps)
    assert reasons == {"the sandbox failed: gone": 2, "engine_error: CUDA out of memory": 1}
    assert mask_summary(7, len(eps), reasons) == ("iteration 7: 3/4 episodes masked: 2x the sandbox failed: gone; "
                                                  "1x engine_error: CUDA out of memory")
