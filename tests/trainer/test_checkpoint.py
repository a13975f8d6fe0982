"""Kill and resume: a run resumed from its iteration-1 checkpoint computes exactly the iteration-2
losses of the run that went on (adapters, value head, optimizers, schedulers, RNG, sampler cursor
and policy version are all restored; rollouts are seeded by the run seed and the iteration)."""

from __future__ import annotations

import pytest
from test_loop import tiny_config  # tests/trainer is on sys.path (rootdir-less test modules)

from codegym.trainer.checkpoint import find_checkpoint
from codegym.trainer.loop import Trainer

pytestmark = pytest.mark.docker

EXACT = ("loss/policy", "loss/value", "grad_norm/policy", "grad_norm/critic", "policy/clipfrac", "policy/approx_kl",
         "reward/mean", "advantages/abs_mean", "values/mean", "batch/completion_tokens", "optim/lr")


def test_resume_gives_identical_next_losses(tmp_path):
    over = {"rollout": {"group_size": 2, "max_new_tokens": 6}, "optim": {"lr": 1e-2, "schedule": "cosine"},
            "env": {"tasks": ["toy-add-typo", "toy-is-even", "toy-max-of"]},
            "run": {"iterations": 2, "save_every": 1, "keep_checkpoints": 0, "tensorboard": False}}
    first = Trainer(tiny_config("ppo", tmp_path / "a", **over))
    rows = first.train()
    ckpt = find_checkpoint(tmp_path / "a" / "checkpoints" / "iter-000001")
    resumed = Trainer(tiny_config("ppo", tmp_path / "b", **over), resume=ckpt)
    assert resumed.iteration == 1 and resumed.policy_version == first.history[0]["policy/version"]
    assert resumed.engine.policy_version == resumed.policy_version
    again = resumed.train()
    assert len(again) == 1 and resumed.iteration == 2
    for key in EXACT:
        assert again[0][key] == rows[1][key], key
    assert rows[1]["loss/value"] != rows[0]["loss/value"]  # the second iteration is a different batch
    assert find_checkpoint(tmp_path / "a").name == "iter-000002"
