"""The trainer's KL reference, policy version and probe, and the Tree-GRPO loss mask, on the real
tiny transformer with a small in-process env (no sandbox: these are properties of the loop).

- the KL reference is the policy the run started from: with `model.init_adapter`, the init adapter;
- `critic_warmup` iterations train the critic alone and do not bump `policy_version`;
- a bf16 model's adapter-sync probe uses a bf16 tolerance (a warm-started bf16 base starts);
- a tree branch's copy of its parent's prefix is out of the loss unless `shared_prefix: every_leaf`.
"""

from __future__ import annotations

import gymnasium as gym
import pytest
import torch

from codegym.trainer import loop as loop_module
from codegym.trainer.config import ModelConfig, config_from_dict
from codegym.trainer.loop import Trainer
from codegym.trainer.models import build_models


class TwoTurns(gym.Env):
    """Two turns; the reward is the parity of the actions' total length (so rollouts differ)."""

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.turn, self.total = 0, 0
        return self._obs(), {"state_key": "s0"}

    def _obs(self):
        return [{"role": "user", "content": f"turn {self.turn}: fix calc.py"}]

    def step(self, action):
        self.turn += 1
        self.total += len(action)
        done = self.turn >= 2
        info = {"state_key": f"s{self.turn}"}
        reward = float(self.total % 2) if done else 0.0
        if done:
            info.update(rewards={"correctness": reward}, stop_reason="max_turns")
        return self._obs(), reward, done, False, info

    def snapshot(self):
        return {"turn": self.turn, "total": self.total}

    def restore(self, snap):
        self.turn, self.total = snap["turn"], snap["total"]


def trainer(tmp_path, name="grpo", **over):
    rollout = {"tasks_per_iteration": 1, "group_size": 4, "max_new_tokens": 6, "max_envs": 4, "stop_at_call": False}
    if name == "tree_grpo":
        rollout.update(trees=1, rounds=1, expand=2)
    data = {"algorithm": {"name": name}, "model": {"lora_r": 4, "lora_alpha": 8},
            "rollout": rollout, "optim": {"lr": 1e-2},
            "run": {"iterations": 2, "out_dir": str(tmp_path / "run"), "progress": False, "tensorboard": False}}
    for k, v in over.items():
        data.setdefault(k, {}).update(v)
    return Trainer(config_from_dict(data), make_env=TwoTurns, task_ids=["t"])


def policy_state(t):
    return [p.detach().clone() for p in t.models.policy_parameters()]


def test_critic_warmup_does_not_bump_the_policy_version(tmp_path):
    t = trainer(tmp_path, "ppo", algorithm={"critic_warmup": 1})
    before = policy_state(t)
    m = t.train_iteration()
    assert m["update/policy_steps"] == 0 and "loss/value" in m
    assert t.policy_version == 0 and t.engine.policy_version == 0 and m["policy/version"] == 0.0
    assert all(torch.equal(a, b) for a, b in zip(before, policy_state(t), strict=True))
    m = t.train_iteration()
    assert m["update/policy_steps"] == 1 and t.policy_version == 1 and t.engine.policy_version == 1


def test_the_kl_reference_is_the_init_adapter(tmp_path):
    start = build_models(ModelConfig(base="tiny", lora_r=4, lora_alpha=8))
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():  # a warm start far from the base
        for p in start.policy_parameters():
            p.add_(torch.randn(p.shape, generator=g) * 0.1)
    path = start.save_policy_adapter(tmp_path / "sft")
    t = trainer(tmp_path, model={"init_adapter": str(path)}, algorithm={"kl_coef": 0.1})
    m = t.train_iteration()
    # one mini-batch: the loss is taken at the starting policy, which is the reference
    assert abs(m["policy/kl_ref"]) < 1e-5 and abs(m["policy/kl_loss"]) < 1e-6
    m = t.train_iteration()
    assert m["policy/kl_loss"] > 0  # the policy has moved away from where it started


def test_a_bf16_trainer_probes_with_a_bf16_tolerance(tmp_path, warm_tiny_base):
    t = trainer(tmp_path, model={"base": warm_tiny_base, "dtype": "bfloat16", "device": "cpu"})
    assert t.models.dtype == torch.bfloat16  # __init__ ran the probe (fp32's 1e-3 fails here)
    t.train_iteration()
    assert t.policy_version == 1


@pytest.mark.parametrize("shared_prefix", ["backbone", "every_leaf"])
def test_tree_branches_train_only_their_own_steps(tmp_path, monkeypatch, shared_prefix):
    batches = []

    def spy(*args, **kwargs):
        batches.append(real(*args, **kwargs))
        return batches[-1]

    real = loop_module.to_sequences
    monkeypatch.setattr(loop_module, "to_sequences", spy)
    t = trainer(tmp_path, "tree_grpo", algorithm={"advantage_kwargs": {"shared_prefix": shared_prefix}})
    t.train_iteration()
    [batch] = batches
    shared = batch.shared_prefix_mask.bool()
    assert shared.any()  # the branches hold a copy of the backbone's first step
    assert bool((batch.completion_mask.bool() & shared).any()) is (shared_prefix == "every_leaf")
