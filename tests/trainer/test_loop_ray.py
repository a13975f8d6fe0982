"""The trainer runs unchanged with `rollout.backend: ray`: envs step in Ray worker actors."""

from __future__ import annotations

import pytest
from test_loop import tiny_config  # tests/trainer is on sys.path (pytest rootdir-relative imports)

from codegym.trainer.config import ConfigError
from codegym.trainer.loop import Trainer

pytestmark = pytest.mark.docker


def test_one_gigpo_iteration_on_ray_workers(tmp_path):
    import ray

    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True)
    try:
        trainer = Trainer(tiny_config("gigpo", tmp_path, rollout={"backend": "ray", "ray": {"num_workers": 1}},
                                      run={"tensorboard": False}))
        [m] = trainer.train()
        assert type(trainer.env_pool()).__name__ == "RayEnvPool"
        assert m["episodes/count"] == 2 and m["episodes/masked"] == 0 and trainer.policy_version == 1
        trainer.close()
    finally:
        ray.shutdown()


def test_ray_options_without_the_ray_backend_are_rejected(tmp_path):
    with pytest.raises(ConfigError, match="rollout.backend is local"):
        tiny_config("grpo", tmp_path, rollout={"ray": {"num_workers": 2}})
