"""The trainer on Ray: envs stepping in Ray worker actors (`rollout.backend: ray`), and rollouts
sampled by `RayEngine` actors (`rollout.engine: ray`), each new adapter broadcast to every actor
and probed actor by actor. One small local cluster (conftest.py's `ray_cluster`, 2 CPUs)."""

from __future__ import annotations

import json

import pytest
import torch
from test_loop import tiny_config  # tests/trainer is on sys.path (pytest rootdir-relative imports)

from codegym.agents.engines import AdapterSyncError
from codegym.trainer.config import ConfigError
from codegym.trainer.loop import Trainer
from codegym.trainer.models import probe_tolerance
from codegym.trainer.ray_engine import AdapterFiles, RayEngine
from codegym.trainer.sync import probe

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


def test_two_iterations_sampled_by_ray_engine_actors_with_the_adapter_broadcast_and_probed(tmp_path, ray_cluster):
    local_envs = {"kwargs": {"backend": "local", "tools": ["create", "submit"]}}  # the engine is what runs on Ray
    trainer = Trainer(tiny_config("ppo", tmp_path, env=local_envs, run={"iterations": 2, "tensorboard": False},
                                  optim={"lr": 1e-2},  # a large step: a stale actor is far off
                                  rollout={"engine": "ray", "engine_kwargs": {"num_engines": 2, "num_cpus": 0.5,
                                                                              "timeout_s": 300}}))
    try:
        engine = trainer.engine
        assert isinstance(engine, RayEngine) and len({i["pid"] for i in engine.infos}) == 2  # two actor processes
        rows = trainer.train()
        tol = probe_tolerance(torch.float32)
        assert trainer.policy_version == 2 and [r["policy/version"] for r in rows] == [1.0, 2.0]
        # every actor loaded each version (the broadcast) and agreed with the trainer in the probe
        assert [r.policy_version for r in engine.replicas] == [2, 2] and engine.policy_version == 2
        assert all(r["probe/mean_abs_diff"] < tol for r in rows), [r["probe/mean_abs_diff"] for r in rows]
        # the actors sampled the batches: their logprobs are the trainer's, under the current version
        assert all(r["policy/engine_logprob_diff"] < tol for r in rows)
        assert all(r["staleness/hist"] == {"0": r["batch/completion_tokens"]} for r in rows)
        assert all(r["episodes/count"] == 2 and r["episodes/masked"] == 0 for r in rows)
        for v in (0, 1, 2):
            assert (tmp_path / "adapters" / f"v{v}" / "adapter_model.safetensors").exists()
        # a stale actor is caught: put version 0's weights back into actor 0 under the name of version 2
        [actor0, _] = engine.actors
        ray_cluster.get(actor0.load_adapter.remote(AdapterFiles.from_dir(tmp_path / "adapters" / "v0"), 2), timeout=300)
        with pytest.raises(AdapterSyncError, match="trainer holds policy version 2 and the engine reports policy "
                                                   "version 2, but they disagree"):
            probe(engine, trainer.models, 2, trainer.cfg)
        assert [r.policy_version for r in engine.replicas] == [2, 2]  # both claim version 2
    finally:
        trainer.close()


def test_ray_options_without_the_ray_backend_are_rejected(tmp_path):
    with pytest.raises(ConfigError, match="rollout.backend is local"):
        tiny_config("grpo", tmp_path, rollout={"ray": {"num_workers": 2}})
