"""`rollout.engine: openai` against `codegym serve` (the real CLI) in a separate process over real
HTTP: the adapter of every version goes to the server (files + /v1/load_lora_adapter), every
completion records the version it was sampled with, and the probe compares the server's logprobs
with the trainer's each iteration; a server that ignores the load call
(`codegym serve --ignore-adapter-loads`) is caught after one update. Synchronous and async
(`max_staleness: 1`). The server fixture, `codegym_serve`, is in conftest.py."""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path

import pytest

from codegym.agents.engines import AdapterSyncError
from codegym.trainer.config import ConfigError, config_from_dict
from codegym.trainer.loop import Trainer
from codegym.trainer.models import probe_tolerance


def openai_config(out, base_url: str, **rollout):
    return config_from_dict({
        "algorithm": {"name": "ppo", "epochs": 2}, "model": {"lora_r": 4, "lora_alpha": 8},
        "optim": {"lr": 1e-2},  # a large step: a stale adapter is far off
        "env": {"tasks": ["toy-add-typo"], "max_turns": 2, "kwargs": {"backend": "local", "tools": ["create", "submit"]}},
        "rollout": {"tasks_per_iteration": 1, "group_size": 2, "max_new_tokens": 8, "max_envs": 2, "engine": "openai",
                    "engine_kwargs": {"base_url": base_url, "model": "tiny", "timeout": 120}, **rollout},
        "run": {"iterations": 2, "out_dir": str(out), "progress": False, "tensorboard": False}})


def get(url: str, path: str) -> dict:
    with urllib.request.urlopen(url + path, timeout=60) as resp:
        return json.loads(resp.read())


def served_versions(url: str) -> list[int]:
    """The policy version of every completion the server recorded (the trainer's rollouts and probes)."""
    sessions = get(url, "/codegym/sessions")["sessions"]
    return [r["policy_version"] for sid in sessions for r in get(url, f"/codegym/sessions/{sid}")["records"]]


def check_two_synced_iterations(trainer, rows, url, tmp_path):
    """Both iterations trained; every version's adapter reached the server and was probed there."""
    import torch

    tol = probe_tolerance(torch.float32)
    assert trainer.policy_version == 2 and trainer.engine.policy_version == 2 and trainer.engine.model == "tiny-v2"
    for v in (0, 1, 2):  # every version's files, as the server read them
        assert (tmp_path / "adapters" / f"v{v}" / "adapter_model.safetensors").exists()
    # the server holds the last two versions (the one before is unloaded), each under its version
    models = {m["id"]: m.get("policy_version") for m in get(url, "/models")["data"]}
    assert models == {"tiny": None, "tiny-v1": 1, "tiny-v2": 2}
    # the probe ran against the server after each update and agreed to within the float32 tolerance
    assert [r["policy/version"] for r in rows] == [1.0, 2.0]
    assert all(r["probe/mean_abs_diff"] < tol for r in rows), [r["probe/mean_abs_diff"] for r in rows]
    # the server's logprobs of a batch sampled by the version the trainer holds are the trainer's
    assert rows[0]["policy/engine_logprob_diff"] < tol
    versions = served_versions(url)
    assert set(versions) == {0, 1, 2}  # rollouts and probes of every version were served by its adapter


def test_two_iterations_against_codegym_serve_that_loads_each_adapter(codegym_serve, tmp_path):
    url = codegym_serve()
    trainer = Trainer(openai_config(tmp_path, url))
    rows = trainer.train()
    trainer.close()
    check_two_synced_iterations(trainer, rows, url, tmp_path)
    assert rows[1]["staleness/hist"] == {"0": rows[1]["batch/completion_tokens"]}  # sampled by version 1
    assert rows[1]["policy/engine_logprob_diff"] < probe_tolerance(trainer.models.dtype)


def test_an_async_run_against_codegym_serve_with_max_staleness_1(codegym_serve, tmp_path):
    url = codegym_serve()
    trainer = Trainer(openai_config(tmp_path, url, max_staleness=1))
    rows = trainer.train()
    trainer.close()
    check_two_synced_iterations(trainer, rows, url, tmp_path)
    assert [r["episodes/count"] for r in rows] == [2, 2]
    assert rows[0]["staleness/hist"] == {"0": rows[0]["batch/completion_tokens"]}
    # iteration 1 was admitted while iteration 0 trained: sampled by version 0, 1 or both
    assert rows[1]["staleness/max"] <= 1 and sum(rows[1]["staleness/hist"].values()) == rows[1]["batch/completion_tokens"]
    assert set(rows[1]["staleness/hist"]) <= {"0", "1"}


def test_codegym_serve_ignoring_the_load_call_raises_adapter_sync_error(codegym_serve, tmp_path):
    import torch

    url = codegym_serve("--ignore-adapter-loads")
    trainer = Trainer(openai_config(tmp_path, url))  # v0 is the fresh adapter (B = 0), the base: it passes
    with pytest.raises(AdapterSyncError, match="trainer holds policy version 1 and the engine reports policy "
                                               "version 1, but they disagree") as err:
        trainer.train_iteration()
    # one update at lr 1e-2 moves the probe's logprobs by 5e-2 to 1.4e-1, far over the float32 tolerance
    assert err.value.trainer_version == 1 and err.value.engine_version == 1
    assert err.value.mean_abs_diff > 100 * probe_tolerance(torch.float32)
    trainer.close()
    # the server answered the load and named the adapter, but served the old weights under it
    models = {m["id"]: m.get("policy_version") for m in get(url, "/models")["data"]}
    assert models["tiny-v1"] == 1


def test_engine_settings_are_validated(tmp_path):
    base = {"env": {"tasks": ["toy-add-typo"]}, "run": {"out_dir": str(tmp_path)}}
    with pytest.raises(ConfigError, match="rollout.engine 'sglang': use one of transformers, openai, vllm, ray"):
        config_from_dict(base, {"rollout": {"engine": "sglang"}})
    with pytest.raises(ConfigError, match="openai needs rollout.engine_kwargs.base_url"):
        config_from_dict(base, {"rollout": {"engine": "openai"}})
    with pytest.raises(ConfigError, match=r"engine_kwargs \['url'\] are not options of the openai engine"):
        config_from_dict(base, {"rollout": {"engine": "openai", "engine_kwargs": {"base_url": "http://x/v1", "url": 1}}})
    with pytest.raises(ConfigError, match=r"engine_kwargs \['base_url'\] are not options of the transformers"):
        config_from_dict(base, {"rollout": {"engine_kwargs": {"base_url": "http://x/v1"}}})
    with pytest.raises(ConfigError, match="a ray engine actor runs transformers or vllm"):
        config_from_dict(base, {"rollout": {"engine": "ray", "engine_kwargs": {"engine": "openai"}}})
    with pytest.raises(ConfigError, match="rollout.max_staleness must be >= 0"):
        config_from_dict(base, {"rollout": {"max_staleness": -1}})
    with pytest.raises(ConfigError, match="icepop_bounds must be \\[low, high\\] with 0 < low < 1 < high"):
        config_from_dict(base, {"algorithm": {"icepop_bounds": [1.5, 2.0]}})
    with pytest.raises(ConfigError, match="which is 1 with old_logprobs: engine"):
        config_from_dict(base, {"algorithm": {"tis_cap": 2, "old_logprobs": "engine"}})
    cfg = config_from_dict(base, {"rollout": {"engine": "vllm", "engine_kwargs": {"gpu_memory_utilization": 0.4},
                                              "max_staleness": "1"}, "algorithm": {"tis_cap": "2"}})
    assert cfg.rollout.max_staleness == 1 and cfg.algorithm.tis_cap == 2.0


@pytest.fixture
def fake_vllm(monkeypatch):
    """The recording fake of vLLM's offline API from tests/agents/test_vllm_engine.py."""
    import importlib.util
    import types

    spec = importlib.util.spec_from_file_location(
        "_fake_vllm", Path(__file__).parents[1] / "agents" / "test_vllm_engine.py")
    mod = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "_fake_vllm", mod)  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    vllm, lora, request = (types.ModuleType(n) for n in ("vllm", "vllm.lora", "vllm.lora.request"))
    vllm.LLM, vllm.SamplingParams, request.LoRARequest = mod.FakeLLM, mod.SamplingParams, mod.LoRARequest
    vllm.lora, lora.request = lora, request
    for name, m in [("vllm", vllm), ("vllm.lora", lora), ("vllm.lora.request", request)]:
        monkeypatch.setitem(sys.modules, name, m)
    mod.FakeLLM.instances.clear()
    return mod.FakeLLM


def test_an_iteration_with_the_vllm_engine_sends_a_lora_request_per_version(fake_vllm, tmp_path):
    cfg = config_from_dict({
        "algorithm": {"name": "ppo"}, "model": {"lora_r": 4, "lora_alpha": 8}, "optim": {"lr": 1e-2},
        "env": {"tasks": ["toy-add-typo"], "max_turns": 2, "kwargs": {"backend": "local", "tools": ["create", "submit"]}},
        "rollout": {"tasks_per_iteration": 1, "group_size": 2, "max_new_tokens": 8, "max_envs": 2, "engine": "vllm"},
        "run": {"iterations": 1, "out_dir": str(tmp_path), "progress": False, "tensorboard": False}})
    trainer = Trainer(cfg)
    [m] = trainer.train()
    [llm] = fake_vllm.instances
    assert llm.kwargs["model"] == str(tmp_path / "adapters" / "base") and llm.kwargs["max_lora_rank"] == 4
    names = [c["lora_request"].lora_name for c in llm.calls]
    assert names[0] == "policy-v0" and names[-1] == "policy-v1"  # the last call is the probe of version 1
    assert m["policy/engine_logprob_diff"] < 1e-3 and trainer.engine.policy_version == 1
    trainer.close()
