"""`VLLMEngine` against a recording fake of vLLM's documented offline API.

vLLM needs a GPU, so it never runs here. The fake implements what the engine calls --
`vllm.LLM(...)`, `LLM.generate(prompts, sampling_params, lora_request=...)`,
`LLM.get_tokenizer()`, `LLM.llm_engine.remove_lora(id)`, `vllm.SamplingParams(...)`,
`vllm.lora.request.LoRARequest(lora_name, lora_int_id, lora_path)`, and `RequestOutput` /
`CompletionOutput` / `Logprob` results -- records every call, and generates with the tiny model.
Like vLLM it caches adapters by `lora_int_id`, so reusing an id would serve stale weights.
"""

from __future__ import annotations

import copy
import sys
import types
from dataclasses import dataclass

import pytest
from peft import LoraConfig, PeftModel, get_peft_model

from codegym.agents.engines import (
    AdapterSyncError,
    GenerationRequest,
    TransformersEngine,
    VLLMEngine,
    probe_logprobs,
)


@dataclass
class Logprob:
    logprob: float
    rank: int | None = None
    decoded_token: str | None = None


@dataclass
class CompletionOutput:
    index: int
    text: str
    token_ids: list
    cumulative_logprob: float | None
    logprobs: list
    finish_reason: str | None


@dataclass
class RequestOutput:
    request_id: str
    prompt_token_ids: list
    outputs: list


class SamplingParams:
    def __init__(self, **kwargs):
        self.kwargs = kwargs


@dataclass
class LoRARequest:
    lora_name: str
    lora_int_id: int
    lora_path: str = ""


class FakeLLM:
    instances: list = []

    def __init__(self, **kwargs):
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.kwargs, self.calls, self.removed = kwargs, [], []
        self.tokenizer = AutoTokenizer.from_pretrained(kwargs["model"])
        self.base = AutoModelForCausalLM.from_pretrained(kwargs["model"]).eval()
        self.adapters: dict[int, object] = {}  # by lora_int_id, as vLLM caches them
        self.llm_engine = types.SimpleNamespace(remove_lora=lambda i: self.removed.append(i) or True)
        FakeLLM.instances.append(self)

    def get_tokenizer(self):
        return self.tokenizer

    def generate(self, prompts, sampling_params=None, *, lora_request=None, use_tqdm=True):
        self.calls.append({"prompts": prompts, "params": [p.kwargs for p in sampling_params],
                           "lora_request": lora_request, "use_tqdm": use_tqdm})
        model = self.base
        if lora_request is not None:
            if lora_request.lora_int_id not in self.adapters:
                self.adapters[lora_request.lora_int_id] = PeftModel.from_pretrained(
                    copy.deepcopy(self.base), lora_request.lora_path).eval()
            model = self.adapters[lora_request.lora_int_id]
        engine = TransformersEngine(model, self.tokenizer)
        outs = []
        for i, (p, sp) in enumerate(zip(prompts, sampling_params, strict=True)):
            k = sp.kwargs
            [c] = engine.generate([GenerationRequest(p["prompt_token_ids"], k["max_tokens"], k["temperature"],
                                                     k["top_p"], tuple(k["stop"] or ()), k["seed"])])
            outs.append(RequestOutput(str(i), p["prompt_token_ids"], [CompletionOutput(
                0, c.text, list(c.token_ids), sum(c.logprobs), [{t: Logprob(lp)} for t, lp in zip(c.token_ids, c.logprobs, strict=True)],
                c.finish_reason)]))
        return outs


@pytest.fixture
def fake_vllm(monkeypatch):
    vllm = types.ModuleType("vllm")
    vllm.LLM, vllm.SamplingParams = FakeLLM, SamplingParams
    lora = types.ModuleType("vllm.lora")
    request = types.ModuleType("vllm.lora.request")
    request.LoRARequest = LoRARequest
    vllm.lora, lora.request = lora, request
    for name, mod in [("vllm", vllm), ("vllm.lora", lora), ("vllm.lora.request", request)]:
        monkeypatch.setitem(sys.modules, name, mod)
    FakeLLM.instances.clear()
    return vllm


def test_vllm_engine_calls_the_documented_api_and_syncs_adapters(fake_vllm, tiny_model, tok, tmp_path):
    base = tmp_path / "base"
    tiny_model.save_pretrained(base)
    tok.save_pretrained(base)
    engine = VLLMEngine(str(base), max_lora_rank=8, gpu_memory_utilization=0.3, adapter_dir=tmp_path / "adapters")
    [llm] = FakeLLM.instances
    assert llm.kwargs == {"model": str(base), "enable_lora": True, "max_lora_rank": 8, "max_loras": 1,
                          "logprobs_mode": "processed_logprobs", "gpu_memory_utilization": 0.3}

    ids = tok.encode("hello", add_special_tokens=False)
    [c] = engine.generate([GenerationRequest(ids, 5, temperature=0.8, top_p=1.0, stop=("x",), seed=3)])
    call = llm.calls[-1]
    assert call["prompts"] == [{"prompt_token_ids": ids}] and call["lora_request"] is None and not call["use_tqdm"]
    assert call["params"] == [{"n": 1, "temperature": 0.8, "top_p": 1.0, "max_tokens": 5, "stop": ["x"],
                               "include_stop_str_in_output": True, "seed": 3, "logprobs": 0,
                               "skip_special_tokens": False}]
    assert c.policy_version == 0 and len(c.logprobs) == len(c.token_ids) > 0

    config = LoraConfig(r=4, target_modules=["q_proj", "v_proj", "up_proj", "down_proj"])
    trainer = get_peft_model(copy.deepcopy(tiny_model), config)
    for version in (1, 2):
        for name, p in trainer.named_parameters():  # a training step, roughly
            if "lora_B" in name:
                p.data.normal_(0, 2.0)
        if version == 1:
            trainer.save_pretrained(tmp_path / "v1")
            engine.load_adapter(tmp_path / "v1", version=1)
        else:
            engine.load_adapter(trainer, version=2)  # saved under adapter_dir first
        assert probe_logprobs(trainer, engine, tok, tolerance=1e-3).policy_version == version
    requests = [call["lora_request"] for call in llm.calls if call["lora_request"] is not None]
    assert [(r.lora_name, r.lora_int_id) for r in requests] == [("policy-v1", 1), ("policy-v2", 2)]
    assert requests[0].lora_path == str(tmp_path / "v1") and requests[-1].lora_path == str(tmp_path / "adapters" / "v2")
    assert llm.removed == [1]  # the old adapter's slot is freed

    for name, p in trainer.named_parameters():  # trained again, never loaded: the probe fails
        if "lora_B" in name:
            p.data.normal_(0, 2.0)
    with pytest.raises(AdapterSyncError, match="stale"):
        probe_logprobs(trainer, engine, tok, tolerance=1e-3)
    with pytest.raises(TypeError, match="from disk"):
        engine.load_adapter({"a": 1}, version=3)
