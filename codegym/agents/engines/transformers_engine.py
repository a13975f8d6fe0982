"""`TransformersEngine`: Hugging Face `generate` on a (peft) model, CPU or GPU, batched.

    engine = TransformersEngine(model, tokenizer)              # a live (peft) model: no sync needed
    engine = TransformersEngine.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct", device="cuda")
    [c] = engine.generate([GenerationRequest(prompt_ids, max_new_tokens=64)])

Requests are grouped by sampling settings and run in left-padded batches of up to
`max_batch_size`. Logprobs are recorded by a logits processor that also applies the temperature
and top-p itself, so they are exactly ``log_softmax(logits / T)`` of the sampled tokens whatever
defaults a checkpoint's `generation_config` carries (those are neutralized while generating).
The model is put in eval mode while generating (LoRA dropout off) and restored afterwards.
A seeded request samples from its own random stream (a generator seeded by the request's seed,
one draw per generated token), so what it samples does not depend on which other requests share
its batch, in which order, or how the batch is chunked: a seeded rollout is the same whatever
the timing of the envs around it (the collector's slots pick up jobs in a racing order). Requests
are also batched in seed order, so the batch shapes, and with them the logits bit for bit, are
the same from run to run. Unseeded requests sample from torch's global stream.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .base import Completion, EngineError, GenerationRequest


def _log_softmax(x):
    import torch

    return torch.log_softmax(x, dim=-1)


class _Sampler:
    """A logits processor: stashes ``log_softmax(logits / T)``, records the sampled tokens' logprobs,
    and, given one seed per row, samples each row from its own stream.

    Row b's token at step t is the inverse CDF of the (top-p-masked) distribution at u_{b,t}, the
    t-th draw of a generator seeded by ``seeds[b]``; the scores returned keep only that token
    (every other one -inf), so `generate`'s own sampling can only pick it.
    """

    def __init__(self, temperature: float, top_p: float, seeds: Sequence[int | None] = ()):
        self.temperature, self.top_p = temperature, top_p
        self.seeds = list(seeds) if seeds and all(s is not None for s in seeds) and temperature > 0 else None
        self.streams: list[Any] | None = None
        self.prev = None
        self.logprobs: list[Any] = []

    def __call__(self, input_ids, scores):
        import torch

        if self.prev is not None:
            self.logprobs.append(self.prev.gather(1, input_ids[:, -1:]).squeeze(1))
        scaled = scores.float() / self.temperature if self.temperature > 0 else scores.float()
        self.prev = _log_softmax(scaled)
        if self.temperature > 0 and self.top_p < 1.0:
            probs = self.prev.exp()
            sorted_p, order = probs.sort(dim=-1, descending=True)
            drop_sorted = (sorted_p.cumsum(-1) - sorted_p) >= self.top_p  # keep the nucleus, at least one
            drop = torch.zeros_like(drop_sorted).scatter(1, order, drop_sorted)
            scaled = scaled.masked_fill(drop, float("-inf"))
        if self.seeds is None:
            return scaled
        return self._pick(scaled)

    def _pick(self, scaled):
        import torch

        if self.streams is None:
            self.streams = [torch.Generator(device=scaled.device).manual_seed(int(s) % (1 << 63)) for s in self.seeds]
        u = torch.cat([torch.rand(1, generator=g, device=scaled.device) for g in self.streams])
        cdf = torch.softmax(scaled, dim=-1).cumsum(-1)
        token = (cdf < (u * cdf[:, -1])[:, None]).sum(-1).clamp(max=scaled.shape[-1] - 1)
        only = torch.full_like(scaled, float("-inf"))
        return only.scatter(1, token[:, None], 0.0)

    def finish(self, last_tokens) -> Any:
        import torch

        if self.prev is not None:
            self.logprobs.append(self.prev.gather(1, last_tokens[:, None]).squeeze(1))
        return torch.stack(self.logprobs, 1) if self.logprobs else None


def _as_list(x) -> list[int]:
    if x is None:
        return []
    return [int(v) for v in (x if isinstance(x, (list, tuple)) else [x])]


def _hf_model(model):
    """The `PreTrainedModel` under a peft wrapper (where `generation_config` lives)."""
    get_base = getattr(model, "get_base_model", None)
    return get_base() if callable(get_base) else model


class TransformersEngine:
    """Batched HF `generate` behind the engine contract (see `engines.base`).

    Args:
        model: a causal LM, optionally a `peft.PeftModel` (then `load_adapter` works).
        tokenizer: used for `text`, stop strings and `complete`; optional otherwise.
        max_batch_size: sequences per `generate` call.
        max_context: prompt + completion limit (default: the model's position embeddings).
    """

    #: Default tolerance of the adapter-sync probe (mean |logprob difference|), fp32 on one machine.
    probe_tolerance = 1e-3

    def __init__(self, model, tokenizer=None, *, max_batch_size: int = 16, max_context: int | None = None,
                 eos_token_ids: Sequence[int] | None = None, pad_token_id: int | None = None,
                 policy_version: int = 0, adapter_name: str = "default"):
        self.model = model
        self.tokenizer = tokenizer
        base = _hf_model(model)
        gen = getattr(base, "generation_config", None)
        eos = _as_list(eos_token_ids) or _as_list(getattr(gen, "eos_token_id", None))
        if tokenizer is not None and tokenizer.eos_token_id is not None and tokenizer.eos_token_id not in eos:
            eos.append(int(tokenizer.eos_token_id))
        if not eos:
            raise ValueError("no eos token id: pass eos_token_ids= or a tokenizer with an eos token")
        self.eos_token_ids = eos
        pad = pad_token_id if pad_token_id is not None else getattr(tokenizer, "pad_token_id", None)
        self.pad_token_id = int(pad if pad is not None else eos[0])
        self.max_context = int(max_context or getattr(base.config, "max_position_embeddings", 1 << 30))
        self.max_batch_size = max_batch_size
        self.policy_version = policy_version
        self.adapter_name = adapter_name
        self.stats = {"calls": 0, "sequences": 0, "generated_tokens": 0, "seconds": 0.0}
        self._lock = threading.Lock()

    @classmethod
    def from_pretrained(cls, name_or_path: str, *, adapter: str | None = None, device: str | None = None,
                        dtype: str = "auto", **kwargs) -> TransformersEngine:
        """A local directory or hub id (with its tokenizer), optionally with a peft adapter."""
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(name_or_path)
        model = AutoModelForCausalLM.from_pretrained(name_or_path, dtype=dtype)
        if adapter:
            from peft import PeftModel

            model = PeftModel.from_pretrained(model, adapter)
        device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        return cls(model.to(device).eval(), tokenizer, **kwargs)

    @property
    def device(self):
        return next(self.model.parameters()).device

    # ---- generation --------------------------------------------------------------------------

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        out: list[Completion | None] = [None] * len(requests)
        groups: dict[tuple, list[int]] = {}
        order = sorted(range(len(requests)), key=lambda i: (requests[i].seed is None, requests[i].seed or 0, i))
        for i in order:  # seed order: the same batches whatever order the caller's requests came in
            r = requests[i]
            groups.setdefault((float(r.temperature), float(r.top_p), tuple(r.stop)), []).append(i)
        for (temperature, top_p, stop), idx in groups.items():
            for k in range(0, len(idx), self.max_batch_size):
                chunk = idx[k: k + self.max_batch_size]
                for i, c in zip(chunk, self._generate_batch([requests[i] for i in chunk], temperature, top_p, stop), strict=True):
                    out[i] = c
        return out  # type: ignore[return-value]

    def _generate_batch(self, reqs: list[GenerationRequest], temperature: float, top_p: float,
                        stop: tuple[str, ...]) -> list[Completion]:
        import torch
        from transformers import GenerationConfig, LogitsProcessorList

        t0 = time.monotonic()
        limits = []
        for r in reqs:
            if not r.prompt_ids:
                raise EngineError("empty prompt")
            room = self.max_context - len(r.prompt_ids)
            if room < 1:
                raise EngineError(f"a prompt of {len(r.prompt_ids)} tokens leaves no room in the "
                                  f"{self.max_context}-token context")
            limits.append(max(0, min(int(r.max_new_tokens), room)))
        width = max(len(r.prompt_ids) for r in reqs)
        ids = torch.full((len(reqs), width), self.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(reqs), width), dtype=torch.long)
        for b, r in enumerate(reqs):
            ids[b, width - len(r.prompt_ids):] = torch.tensor(r.prompt_ids, dtype=torch.long)
            mask[b, width - len(r.prompt_ids):] = 1
        max_new = max(limits)
        if max_new == 0:
            return [Completion([], [], "length", self.policy_version, "" if self.tokenizer else None) for _ in reqs]
        seeds = [r.seed for r in reqs]
        sampler = _Sampler(temperature, top_p, seeds)
        # Neutral settings: the sampler above does temperature and top-p itself.
        warpers = {"temperature": 1.0, "top_p": 1.0, "top_k": 0} if temperature > 0 else {}
        config = GenerationConfig(
            max_new_tokens=max_new, do_sample=temperature > 0, repetition_penalty=1.0, num_beams=1,
            eos_token_id=self.eos_token_ids, pad_token_id=self.pad_token_id, return_dict_in_generate=True,
            use_cache=True, **warpers)
        if stop and self.tokenizer is not None:
            config.stop_strings = list(stop)
        hf = _hf_model(self.model)
        with self._lock, torch.no_grad(), torch.random.fork_rng(devices=self._rng_devices()):
            was_training, saved = self.model.training, hf.generation_config
            hf.generation_config = GenerationConfig(eos_token_id=self.eos_token_ids, pad_token_id=self.pad_token_id)
            self.model.eval()
            try:
                kwargs = {"tokenizer": self.tokenizer} if config.stop_strings else {}
                out = self.model.generate(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                                          generation_config=config, logits_processor=LogitsProcessorList([sampler]),
                                          **kwargs)
            except Exception as exc:  # OOM, a bad model: the caller masks the episodes
                raise EngineError(f"generate failed: {type(exc).__name__}: {exc}") from exc
            finally:
                hf.generation_config = saved
                self.model.train(was_training)
        seq = out.sequences[:, width:].cpu()
        logprobs = sampler.finish(out.sequences[:, -1]).cpu()
        completions = [self._cut(seq[b].tolist(), logprobs[b].tolist(), limits[b], stop) for b in range(len(reqs))]
        self.stats["calls"] += 1
        self.stats["sequences"] += len(reqs)
        self.stats["generated_tokens"] += sum(len(c.token_ids) for c in completions)
        self.stats["seconds"] += time.monotonic() - t0
        return completions

    def _rng_devices(self) -> list:
        dev = self.device
        return [dev] if dev.type == "cuda" else []

    def _cut(self, tokens: list[int], logprobs: list[float], limit: int, stop: tuple[str, ...]) -> Completion:
        """One row: up to its first eos (kept), its own token limit, then its first stop string."""
        n, reason = min(limit, len(tokens)), "length"
        for i, t in enumerate(tokens[:n]):
            if t in self.eos_token_ids:
                n, reason = i + 1, "stop"
                break
        if stop and self.tokenizer is not None:
            end = _stop_end(self.tokenizer, tokens[:n], stop)
            if end is not None:
                n, reason = end, "stop"
        tokens, logprobs = tokens[:n], logprobs[:n]
        text = self.tokenizer.decode(tokens, skip_special_tokens=False) if self.tokenizer is not None else None
        return Completion(tokens, logprobs, reason, self.policy_version, text)

    # ---- adapters ----------------------------------------------------------------------------

    def load_adapter(self, path_or_state: Any, version: int) -> None:
        """Copy adapter weights into the served model and call it policy `version`.

        `path_or_state`: a peft adapter directory (``adapter_model.safetensors``), a state dict
        as `peft.get_peft_model_state_dict` returns it, a `PeftModel` to copy from, or None when
        the engine serves the trainer's live model (the weights are already current).
        """
        with self._lock:  # never between the batches of a generate running in another thread
            self._load_adapter(path_or_state, version)

    def _load_adapter(self, path_or_state: Any, version: int) -> None:
        if path_or_state is not None:
            from peft import get_peft_model_state_dict, set_peft_model_state_dict

            if not hasattr(self.model, "peft_config"):
                raise TypeError("this engine's model has no LoRA adapter: wrap it with peft.get_peft_model "
                                "(or use from_pretrained(..., adapter=DIR)) before loading adapters")
            state = path_or_state
            if isinstance(state, (str, Path)):
                state = load_adapter_state(state)
            elif hasattr(state, "peft_config"):
                state = get_peft_model_state_dict(state)
            result = set_peft_model_state_dict(self.model, state, adapter_name=self.adapter_name)
            unexpected = [k for k in getattr(result, "unexpected_keys", []) if "lora_" in k]
            if unexpected:
                raise ValueError(f"{len(unexpected)} adapter tensors match nothing in the model "
                                 f"(e.g. {unexpected[0]}): was the adapter made for another base?")
        self.policy_version = int(version)

    # ---- conveniences --------------------------------------------------------------------------

    def complete(self, prompt: str, max_new_tokens: int = 256, temperature: float = 0.0) -> str:
        """One user message in, the reply text out (greedy by default), for judges and smoke tests."""
        if self.tokenizer is None:
            raise ValueError("complete() needs the engine's tokenizer")
        ids = self.tokenizer.apply_chat_template([{"role": "user", "content": prompt}], tokenize=False,
                                                 add_generation_prompt=True)
        ids = self.tokenizer.encode(ids, add_special_tokens=False)
        [c] = self.generate([GenerationRequest(ids, max_new_tokens=max_new_tokens, temperature=temperature)])
        return self.tokenizer.decode(c.token_ids, skip_special_tokens=True)


def _stop_end(tokenizer, tokens: list[int], stop: tuple[str, ...]) -> int | None:
    """The shortest token prefix whose text contains a stop string (binary search), or None."""
    def hit(k: int) -> bool:
        text = tokenizer.decode(tokens[:k], skip_special_tokens=False)
        return any(s in text for s in stop)

    if not tokens or not hit(len(tokens)):
        return None
    lo, hi = 1, len(tokens)
    while lo < hi:
        mid = (lo + hi) // 2
        if hit(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def load_adapter_state(path: str | Path) -> dict[str, Any]:
    """The tensors of a peft adapter directory or file (safetensors, else torch pickle)."""
    p = Path(path)
    if p.is_dir():
        for name in ("adapter_model.safetensors", "adapter_model.bin"):
            if (p / name).exists():
                p = p / name
                break
        else:
            raise FileNotFoundError(f"no adapter_model.safetensors or adapter_model.bin in {path}")
    if p.suffix == ".safetensors":
        from safetensors.torch import load_file

        return load_file(str(p))
    import torch

    return torch.load(str(p), map_location="cpu", weights_only=True)
