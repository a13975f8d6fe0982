"""Rollout engines: token ids in, token ids (with logprobs and a policy version) out.

    from codegym.agents.engines import GenerationRequest, TransformersEngine
    engine = TransformersEngine(model, tokenizer)
    [c] = engine.generate([GenerationRequest(prompt_ids, max_new_tokens=64)])
    c.token_ids, c.logprobs, c.finish_reason, c.policy_version

Backends: `TransformersEngine` (HF generate, CPU or GPU; the CI backend), `VLLMEngine`
(in-process vLLM with LoRA; GPU only, not exercised in CI), `OpenAIEngine` (any
OpenAI-compatible server), `ScriptedEngine` (canned texts, for tests). After every adapter
load, `probe_logprobs` checks that the engine serves what the trainer holds.
Heavy dependencies (torch, transformers, vllm) are imported only when a backend is used.
"""

from __future__ import annotations

import importlib
from typing import Any

from .base import Completion, Engine, EngineError, GenerationRequest
from .probe import PROBE_MESSAGES, AdapterSyncError, ProbeResult, probe_logprobs, sequence_logprobs

_LAZY = {
    "TransformersEngine": ".transformers_engine",
    "load_adapter_state": ".transformers_engine",
    "VLLMEngine": ".vllm_engine",
    "OpenAIEngine": ".openai_engine",
    "ScriptedEngine": ".scripted_engine",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["PROBE_MESSAGES", "AdapterSyncError", "Completion", "Engine", "EngineError", "GenerationRequest",
           "OpenAIEngine", "ProbeResult", "ScriptedEngine", "TransformersEngine", "VLLMEngine",
           "load_adapter_state", "probe_logprobs", "sequence_logprobs"]
