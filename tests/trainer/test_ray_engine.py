"""`RayEngine` on a real local Ray cluster: two CPU engine actors (the tiny model under peft) in a
placement group, sharded generation equal to a local engine's, adapters broadcast to both and
checked engine by engine with the sync probe, and an LLMAgent collecting through it.
"""

from __future__ import annotations

import sys

import gymnasium as gym
import pytest
import ray
from peft import LoraConfig, get_peft_model, get_peft_model_state_dict

import codegym  # noqa: F401  (registers the ids)
from codegym.agents import LLMAgent
from codegym.agents.engines import AdapterSyncError, GenerationRequest, TransformersEngine
from codegym.trainer.ray_engine import RayEngine
from codegym.trainer.rollout import collect

ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])

LORA = dict(r=4, target_modules=["q_proj", "v_proj"], lora_dropout=0.0)


@pytest.fixture(scope="module", autouse=True)
def cluster(ray_cluster):
    """Every test of this module runs on one small local cluster (see conftest.py)."""
    return ray_cluster


def tiny_peft_engine():
    """Runs inside each actor: the tiny base (seed 0) under a fresh LoRA adapter."""
    import torch

    from codegym.agents.tiny import build_tiny_model, build_tiny_tokenizer

    torch.manual_seed(0)
    tok = build_tiny_tokenizer()
    return TransformersEngine(get_peft_model(build_tiny_model(tok), LoraConfig(**LORA)), tok)


@pytest.fixture(scope="module")
def engine():
    with RayEngine(tiny_peft_engine, num_engines=2, num_gpus=0, num_cpus=0.5, timeout_s=120) as e:
        yield e


@pytest.fixture(scope="module")
def tok():
    from codegym.agents.tiny import build_tiny_tokenizer

    return build_tiny_tokenizer()


def randomize(model, seed):
    import torch

    g = torch.Generator().manual_seed(seed)
    for name, p in model.named_parameters():
        if "lora_B" in name:  # a training step, roughly
            p.data.copy_(torch.randn(p.shape, generator=g) * 2.0)


def test_sharded_generation_matches_a_local_engine(engine, tok):
    assert len({i["pid"] for i in engine.infos}) == 2 and engine.pg is not None
    assert engine.eos_token_ids == [tok.eos_token_id] and engine.policy_version == 0
    texts = ["hello", "def add(a, b):", "<tool_call>", "import os", "print(1)"]
    reqs = [GenerationRequest(tok.encode(t, add_special_tokens=False), max_new_tokens=6, temperature=0.0)
            for t in texts]
    out = engine.generate(reqs)
    assert [c.meta["engine"] for c in out] == [0, 0, 0, 1, 1]  # contiguous shards, in order
    local = tiny_peft_engine()
    expected = local.generate(reqs[:3]) + local.generate(reqs[3:])
    assert [c.token_ids for c in out] == [c.token_ids for c in expected]
    for c, e in zip(out, expected, strict=True):
        assert c.logprobs == pytest.approx(e.logprobs, abs=1e-4)
    assert {c.meta["engine"] for c in engine.generate(reqs[:1]) + engine.generate(reqs[:1])} == {0, 1}


def test_adapters_reach_every_engine_and_the_probe_checks_each(engine, tok, tmp_path):
    import torch

    from codegym.agents.tiny import build_tiny_model

    torch.manual_seed(1)
    trainer = get_peft_model(build_tiny_model(tok), LoraConfig(**LORA))
    randomize(trainer, 1)
    with pytest.raises(AdapterSyncError):  # nothing loaded yet: every engine serves a zero adapter
        engine.probe(trainer, tok, version=0)
    engine.load_adapter(get_peft_model_state_dict(trainer), version=1)  # tensors
    assert [r.policy_version for r in engine.replicas] == [1, 1]
    assert [p.policy_version for p in engine.probe(trainer, tok)] == [1, 1]
    randomize(trainer, 2)
    trainer.save_pretrained(tmp_path / "v2")
    engine.load_adapter(tmp_path / "v2", version=2)  # a directory, shipped as files
    engine.probe(trainer, tok)
    randomize(trainer, 3)
    engine.load_adapter(trainer, version=3)  # a PeftModel
    results = engine.probe(trainer, tok)
    assert [r.policy_version for r in results] == [3, 3] and max(r.mean_abs_diff for r in results) < 1e-3

    agent = LLMAgent(engine, tok, max_new_tokens=8)
    make = lambda: gym.make("codegym/Toy-v0", backend="docker", max_turns=1)  # noqa: E731
    episodes = collect(make, agent, ["toy-add-typo"], group_size=2, max_envs=2, batch_id="re")
    assert all(e.train_mask and e.num_steps == 1 and e.steps[0].policy_version == 3 for e in episodes)


def fake_vllm_engine(base: str):
    """Runs inside each actor: `VLLMEngine` over a recording fake of vLLM's offline API (vLLM
    needs a GPU), which generates with the tiny model and caches adapters by id, as vLLM does."""
    import types

    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from codegym.agents.engines import VLLMEngine

    class LoRARequest:  # not a dataclass: this module is not importable in the actor
        def __init__(self, lora_name, lora_int_id, lora_path=""):
            self.lora_name, self.lora_int_id, self.lora_path = lora_name, lora_int_id, lora_path

    class SamplingParams:
        def __init__(self, **kwargs):
            self.kwargs = kwargs

    class LLM:
        def __init__(self, **kwargs):
            self.kwargs, self.tokenizer = kwargs, AutoTokenizer.from_pretrained(kwargs["model"])
            self.base = AutoModelForCausalLM.from_pretrained(kwargs["model"]).eval()
            self.adapters, self.removed = {}, []
            self.llm_engine = types.SimpleNamespace(remove_lora=self.removed.append)

        def get_tokenizer(self):
            return self.tokenizer

        def generate(self, prompts, params, *, lora_request=None, use_tqdm=True):
            model = self.base
            if lora_request is not None:
                if lora_request.lora_int_id not in self.adapters:
                    self.adapters[lora_request.lora_int_id] = PeftModel.from_pretrained(
                        AutoModelForCausalLM.from_pretrained(self.kwargs["model"]), lora_request.lora_path).eval()
                model = self.adapters[lora_request.lora_int_id]
            engine, outs = TransformersEngine(model, self.tokenizer), []
            for p, sp in zip(prompts, params, strict=True):
                k = sp.kwargs
                [c] = engine.generate([GenerationRequest(p["prompt_token_ids"], k["max_tokens"], k["temperature"],
                                                         k["top_p"], tuple(k["stop"] or ()), k["seed"])])
                logprobs = [{t: types.SimpleNamespace(logprob=lp)} for t, lp in zip(c.token_ids, c.logprobs, strict=True)]
                out = types.SimpleNamespace(text=c.text, token_ids=c.token_ids, logprobs=logprobs,
                                            finish_reason=c.finish_reason)
                outs.append(types.SimpleNamespace(outputs=[out]))
            return outs

    vllm, lora, request = (types.ModuleType(n) for n in ("vllm", "vllm.lora", "vllm.lora.request"))
    vllm.LLM, vllm.SamplingParams, request.LoRARequest = LLM, SamplingParams, LoRARequest
    vllm.lora, lora.request = lora, request
    sys.modules.update({"vllm": vllm, "vllm.lora": lora, "vllm.lora.request": request})
    return VLLMEngine(base, max_lora_rank=8, gpu_memory_utilization=0.3)


def test_vllm_engines_in_bundles_get_each_adapter_as_files(tok, tmp_path):
    from codegym.agents.tiny import build_tiny_model

    base = tmp_path / "base"
    build_tiny_model(tok).save_pretrained(base)
    tok.save_pretrained(base)
    trainer = get_peft_model(build_tiny_model(tok), LoraConfig(**LORA))
    make = lambda: fake_vllm_engine(str(base))  # noqa: E731
    with RayEngine(make, num_engines=2, num_gpus=0, num_cpus=0.5, timeout_s=120) as engine:
        for version in (1, 2):
            randomize(trainer, version)
            engine.load_adapter(trainer, version=version)  # saved here, sent as files, written in each actor
            assert [p.policy_version for p in engine.probe(trainer, tok, tolerance=1e-3)] == [version, version]
        requests = engine.call("__getattribute__", "lora_request")
        assert [(r.lora_name, r.lora_int_id) for r in requests] == [("policy-v2", 2)] * 2
        assert len({r.lora_path for r in requests}) == 2 and all(r.lora_path.endswith("/v2") for r in requests)
        randomize(trainer, 3)  # trained again, never loaded: the probe fails
        with pytest.raises(AdapterSyncError, match="stale"):
            engine.probe(trainer, tok, tolerance=1e-3)
