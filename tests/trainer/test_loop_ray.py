"""The trainer runs unchanged with `rollout.backend: ray`: envs step in Ray worker actors."""

from __future__ import annotations

import json

import pytest
from test_loop import tiny_config  # tests/trainer is on sys.path (pytest rootdir-relative imports)

from codegym.trainer.config import ConfigError
from codegym.trainer.loop import Trainer

pytestmark = pytest.mark.docker


def test_one_gigpo_iteration_on_ray_workers(tmp_path, ray_cluster):
    trainer = Trainer(tiny_config("gigpo", tmp_path, rollout={"backend": "ray", "ray": {"num_workers": 1}},
                                  run={"tensorboard": False, "save_episodes": True}))
    [m] = trainer.train()
    assert type(trainer.env_pool()).__name__ == "RayEnvPool"
    episodes = [json.loads(line) for line in (tmp_path / "episodes.jsonl").read_text().splitlines()]
    reasons = [e.get("mask_reason") for e in episodes if not e["train_mask"]]
    # The iteration completes and trains on what the workers returned; an infrastructure
    # failure would mask an episode with its reason (shown here if it happens).
    assert m["episodes/count"] == 2 and m["episodes/masked"] < 2 and trainer.policy_version == 1, reasons
    assert m["episodes/masked"] == len(reasons) and all(reasons), reasons
    trainer.close()




def test_ray_options_without_the_ray_backend_are_rejected(tmp_path):
    with pytest.raises(ConfigError, match="rollout.backend is local"):
        tiny_config("grpo", tmp_path, rollout={"ray": {"num_workers": 2}})
