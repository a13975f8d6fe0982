"""`VLLMEngine`: in-process vLLM with LoRA, adapter-only sync, one `LoRARequest` per version.

    engine = VLLMEngine("Qwen/Qwen2.5-1.5B-Instruct", max_lora_rank=16, gpu_memory_utilization=0.4)
    engine.load_adapter("runs/x/adapter-v3", version=3)     # a peft adapter directory
    completions = engine.generate(requests)

The base model stays resident; each `load_adapter` registers the adapter under a new name and
a new integer id (`policy-v3`, id 3...), because vLLM caches adapters by id and reusing one
serves stale weights. `logprobs_mode="processed_logprobs"` makes vLLM return the logprobs of
the temperature-scaled distribution, the same contract as every codegym engine (keep
``top_p = 1``: vLLM's processed logprobs are renormalized over the nucleus otherwise).

vLLM needs a GPU: this backend is not exercised in CI, where a recording fake of vLLM's
documented API (`vllm.LLM`, `vllm.SamplingParams`, `vllm.lora.request.LoRARequest`) checks the
calls it makes.
"""

from __future__ import annotations

import importlib
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .base import Completion, EngineError, GenerationRequest


class VLLMEngine:
    """In-process `vllm.LLM` behind the engine contract (see `engines.base`).

    Args:
        model: a hub id or local path of the base model.
        max_lora_rank: the largest LoRA rank that will be loaded.
        adapter_dir: where adapters given as a `PeftModel` are saved (default: a temp dir).
        **llm_kwargs: passed to `vllm.LLM` (`gpu_memory_utilization`, `max_model_len`,
            `enable_sleep_mode`, `dtype`, ...).
    """

    probe_tolerance = 0.05

    def __init__(self, model: str, *, max_lora_rank: int = 64, adapter_dir: str | Path | None = None,
                 **llm_kwargs: Any):
        vllm = importlib.import_module("vllm")
        kwargs: dict[str, Any] = {"model": model, "enable_lora": True, "max_lora_rank": max_lora_rank,
                                  "max_loras": 1, "logprobs_mode": "processed_logprobs"}
        kwargs.update(llm_kwargs)
        self.llm = vllm.LLM(**kwargs)
        self.tokenizer = self.llm.get_tokenizer()
        self.adapter_dir = Path(adapter_dir) if adapter_dir else Path(tempfile.mkdtemp(prefix="codegym-lora-"))
        self.lora_request: Any = None
        self.policy_version = 0
        self._current: tuple[Any, int] = (None, 0)
        self._next_lora_id = 1

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        from vllm import SamplingParams

        params = [SamplingParams(n=1, temperature=r.temperature, top_p=r.top_p, max_tokens=r.max_new_tokens,
                                 stop=list(r.stop) or None, include_stop_str_in_output=True, seed=r.seed,
                                 logprobs=0, skip_special_tokens=False) for r in requests]
        prompts = [{"prompt_token_ids": list(r.prompt_ids)} for r in requests]
        lora_request, version = self._current  # together: the version is that of the adapter used
        try:
            outputs = self.llm.generate(prompts, params, lora_request=lora_request, use_tqdm=False)
        except Exception as exc:
            raise EngineError(f"vLLM generate failed: {type(exc).__name__}: {exc}") from exc
        completions = []
        for out in outputs:
            o = out.outputs[0]
            ids = [int(t) for t in o.token_ids]
            logprobs = [float(step[t].logprob) for step, t in zip(o.logprobs, ids, strict=True)]
            reason = "length" if o.finish_reason == "length" else "stop"
            completions.append(Completion(ids, logprobs, reason, version, o.text))
        return completions

    def load_adapter(self, path_or_state: Any, version: int) -> None:
        """Serve the adapter (a peft directory, or a `PeftModel` saved here first) as `version`."""
        from vllm.lora.request import LoRARequest

        if hasattr(path_or_state, "save_pretrained"):
            path = self.adapter_dir / f"v{version}"
            path_or_state.save_pretrained(str(path))
        elif isinstance(path_or_state, (str, Path)):
            path = Path(path_or_state)
        else:
            raise TypeError("VLLMEngine.load_adapter takes a peft adapter directory or a PeftModel "
                            f"(vLLM loads adapters from disk), not {type(path_or_state).__name__}")
        old = self.lora_request
        self.lora_request = LoRARequest(f"policy-v{version}", self._next_lora_id, str(path))
        self._next_lora_id += 1
        self.policy_version = int(version)
        self._current = (self.lora_request, self.policy_version)
        if old is not None:  # free the old slot; with max_loras=1 vLLM would evict it anyway
            remove = getattr(getattr(self.llm, "llm_engine", None), "remove_lora", None)
            if callable(remove):
                remove(old.lora_int_id)

    def sleep(self, level: int = 1) -> None:
        """Free GPU memory between rollout phases (needs ``enable_sleep_mode=True``)."""
        self.llm.sleep(level=level)

    def wake_up(self) -> None:
        self.llm.wake_up()
