"""Async rollouts (`rollout.max_staleness`): admission, k = 0 reproduces the synchronous losses,
an async run with k = 1 trains with the staleness and off-policy metrics."""

from __future__ import annotations

import time

import pytest
import torch

from codegym.trainer.config import config_from_dict
from codegym.trainer.loop import TaskSampler, Trainer
from codegym.trainer.losses import off_policy_weights, policy_loss
from codegym.trainer.pipeline import RolloutPipeline


def test_admission_lets_a_rollout_start_only_within_k_versions():
    started: list[tuple[int, int]] = []
    done = {"n": 0}

    def collect(it, tasks, stats):
        started.append((it, done["n"]))
        time.sleep(0.01)
        return [f"ep-{it}"]

    sampler = TaskSampler(["a", "b", "c"], seed=0)
    pipe = RolloutPipeline(collect, sampler, tasks_per_iteration=1, max_staleness=1, start=0, limit=4)
    for it in range(4):
        episodes, _, _ = pipe.take(it, sampler.next(1))
        assert episodes == [f"ep-{it}"]
        time.sleep(0.05)  # "training": the next batch is collected meanwhile
        done["n"] = it + 1
        pipe.completed(it + 1)
    pipe.close()
    assert all(it - finished <= 1 for it, finished in started) and [it for it, _ in started] == [0, 1, 2, 3]
    assert any(it - finished == 1 for it, finished in started)  # it did run ahead


def test_a_failed_collection_reaches_the_trainer():
    def collect(it, tasks, stats):
        raise OSError("no sandbox")

    pipe = RolloutPipeline(collect, TaskSampler(["a"]), tasks_per_iteration=1, max_staleness=0, start=0, limit=1)
    with pytest.raises(RuntimeError, match="iteration 0 failed: no sandbox"):
        pipe.take(0, ["a"])
    pipe.close()
    assert not pipe.thread.is_alive()


def test_off_policy_weights_truncate_and_mask():
    old = torch.log(torch.tensor([[1.0, 3.0, 0.2, 1.2, 9.0]]))
    engine = torch.zeros(1, 5)
    mask = torch.tensor([[1, 1, 1, 1, 0]])
    none = off_policy_weights(old, engine, mask)
    assert torch.equal(none.weights, mask.float()) and none.metrics["offpolicy/is_ratio_max"] == pytest.approx(3.0)
    out = off_policy_weights(old, engine, mask, tis_cap=2.0, mask_bounds=(0.5, 2.5))
    assert out.weights.tolist() == [[1.0, 0.0, 0.0, pytest.approx(1.2), 0.0]]
    assert out.metrics["offpolicy/truncated_frac"] == 0.25 and out.metrics["offpolicy/masked_token_frac"] == 0.5
    lp, adv = torch.zeros(1, 5, requires_grad=True), torch.ones(1, 5)
    weighted = policy_loss(lp, old, adv, mask, token_weights=out.weights, dual_clip=None)
    # l = -A rho w with rho = exp(0 - old): 1 x 1 and (1 / 1.2) x 1.2 kept, the rest weighted 0, / 4 tokens
    assert weighted.loss.item() == pytest.approx(-(1.0 + 1.0) / 4, rel=1e-5)


def toy_config(out, **rollout):
    return config_from_dict({
        "algorithm": {"name": "ppo", "epochs": 2, "tis_cap": rollout.pop("tis_cap", None),
                      "icepop_bounds": rollout.pop("icepop_bounds", None)},
        "model": {"lora_r": 4, "lora_alpha": 8}, "optim": {"lr": 1e-2},
        "env": {"tasks": ["toy-add-typo"], "max_turns": 2, "kwargs": {"backend": "local", "tools": ["create", "submit"]}},
        "rollout": {"tasks_per_iteration": 1, "group_size": 2, "max_new_tokens": 8, "max_envs": 2, **rollout},
        "run": {"iterations": 2, "out_dir": str(out), "progress": False, "tensorboard": False}})


def losses(rows):
    return [(r["loss/policy"], r["loss/value"], r["reward/mean"]) for r in rows]


def test_max_staleness_0_reproduces_the_synchronous_losses_exactly(tmp_path):
    sync = Trainer(toy_config(tmp_path / "sync"))
    want = losses(sync.train())
    sync.close()
    k0 = Trainer(toy_config(tmp_path / "k0", max_staleness=0))
    assert not k0._live_engine  # the async engine samples on its own copy of the model
    got = k0.train()
    k0.close()
    assert losses(got) == want
    assert all(r["staleness/max"] == 0 for r in got)


def test_an_async_run_with_max_staleness_1_trains_two_iterations_with_the_metrics(tmp_path):
    trainer = Trainer(toy_config(tmp_path, max_staleness=1, tis_cap=2.0, icepop_bounds=[0.5, 2.0]))
    rows = trainer.train()
    trainer.close()
    assert trainer.iteration == 2 and trainer.policy_version == 2 and trainer.engine.policy_version == 2
    assert [r["episodes/count"] for r in rows] == [2, 2]
    for r in rows:
        for key in ("staleness/mean", "staleness/max", "staleness/hist", "offpolicy/is_weight_mean",
                    "offpolicy/is_ratio_min", "offpolicy/is_ratio_max", "offpolicy/truncated_frac",
                    "offpolicy/masked_token_frac", "time/rollout_s", "loss/policy"):
            assert key in r, key
    assert rows[0]["staleness/hist"] == {"0": rows[0]["batch/completion_tokens"]}
    assert rows[1]["staleness/max"] <= 1  # iteration 1 was admitted while iteration 0 trained
