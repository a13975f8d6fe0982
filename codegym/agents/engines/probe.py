"""The adapter-sync probe: after every adapter load, the trainer and the engine must agree.

    engine.load_adapter(adapter_dir, version=7)
    probe_logprobs(policy_model, engine, tokenizer)      # raises AdapterSyncError when stale

The engine samples a short completion of a fixed prompt (temperature 1, top-p 1, a fixed
seed); the trainer's model scores the same tokens by teacher forcing; the mean absolute
difference of the per-token logprobs must stay under a tolerance (the engine's
`probe_tolerance`: 1e-3 for the fp32 `TransformersEngine`, 0.05 for bf16 vLLM and servers). The
completion must also carry the expected policy version. This catches the silent failure of
serving a stale or base adapter (OpenPipe/ART#661): training "works" with no learning signal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .base import GenerationRequest

PROBE_MESSAGES = [
    {"role": "system", "content": "You are a software engineer working in a sandboxed repository."},
    {"role": "user", "content": "Fix `add` in calc.py, then call submit."},
]


class AdapterSyncError(RuntimeError):
    """The engine does not serve the weights the trainer holds: `trainer_version` (what the trainer
    holds) and `engine_version` (what the engine claims to serve) are both in the message."""

    def __init__(self, message: str, *, trainer_version: int | None = None, engine_version: int | None = None,
                 mean_abs_diff: float | None = None):
        super().__init__(message)
        self.trainer_version, self.engine_version, self.mean_abs_diff = trainer_version, engine_version, mean_abs_diff


@dataclass
class ProbeResult:
    mean_abs_diff: float
    max_abs_diff: float
    n_tokens: int
    policy_version: int


def sequence_logprobs(model, prompt_ids: Sequence[int], completion_ids: Sequence[int],
                      temperature: float = 1.0) -> list[float]:
    """Teacher-forced ``log_softmax(logits / T)`` of each completion token (the trainer's view)."""
    import torch

    if not completion_ids:
        return []
    device = next(model.parameters()).device
    ids = torch.tensor([list(prompt_ids) + list(completion_ids)], dtype=torch.long, device=device)
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            logits = model(input_ids=ids).logits[0, len(prompt_ids) - 1: -1].float()
    finally:
        model.train(was_training)
    if temperature > 0:
        logits = logits / temperature
    lp = torch.log_softmax(logits, -1).gather(1, ids[0, len(prompt_ids):, None]).squeeze(1)
    return lp.cpu().tolist()


def probe_logprobs(trainer_model: Any, engine: Any, tokenizer: Any = None, prompt: Any = None, *,
                   max_new_tokens: int = 16, tolerance: float | None = None, version: int | None = None,
                   seed: int = 0) -> ProbeResult:
    """Compare the engine's and the trainer's logprobs on a fixed prompt; raise on mismatch.

    Args:
        trainer_model: the model the trainer optimizes (its policy adapter active), or a
            callable ``(prompt_ids, completion_ids) -> logprobs``.
        engine: any engine.
        tokenizer: renders `prompt` (default `PROBE_MESSAGES`) with its chat template;
            not needed when `prompt` is a list of token ids.
        tolerance: mean |difference| allowed (default: the engine's `probe_tolerance`, else 0.05).
        version: the policy version the engine must report (default: `engine.policy_version`).
    """
    prompt = PROBE_MESSAGES if prompt is None else prompt
    if isinstance(prompt, (list, tuple)) and prompt and isinstance(prompt[0], int):
        prompt_ids = list(prompt)
    else:
        if tokenizer is None:
            raise ValueError("probe_logprobs needs a tokenizer to render a text or chat prompt")
        text = prompt if isinstance(prompt, str) else tokenizer.apply_chat_template(
            list(prompt), tokenize=False, add_generation_prompt=True)
        prompt_ids = tokenizer.encode(text, add_special_tokens=False)
    tolerance = tolerance if tolerance is not None else getattr(engine, "probe_tolerance", 0.05)
    expected = engine.policy_version if version is None else version
    [c] = engine.generate([GenerationRequest(prompt_ids, max_new_tokens=max_new_tokens, temperature=1.0,
                                             top_p=1.0, seed=seed)])
    if c.policy_version != expected:
        raise AdapterSyncError(f"the trainer holds policy version {expected} but the engine answered with policy "
                               f"version {c.policy_version}", trainer_version=expected, engine_version=c.policy_version)
    score: Callable = trainer_model if not hasattr(trainer_model, "parameters") else (
        lambda p, t: sequence_logprobs(trainer_model, p, t))
    mine = score(prompt_ids, c.token_ids)
    if len(mine) != len(c.logprobs):
        raise AdapterSyncError(f"the trainer scored {len(mine)} tokens, the engine returned {len(c.logprobs)}")
    diffs = [abs(a - b) for a, b in zip(mine, c.logprobs, strict=True)]
    result = ProbeResult(sum(diffs) / len(diffs) if diffs else 0.0, max(diffs, default=0.0), len(diffs), expected)
    if result.mean_abs_diff > tolerance:
        raise AdapterSyncError(
            f"the trainer holds policy version {expected} and the engine reports policy version "
            f"{c.policy_version}, but they disagree: mean |logprob difference| {result.mean_abs_diff:.4g} "
            f"(max {result.max_abs_diff:.4g}) over {result.n_tokens} tokens exceeds {tolerance:g}. The engine is "
            "probably serving a stale or base adapter: check that load_adapter got the new weights (a new "
            "adapter name/id per version for vLLM; the server must read the adapter directory).",
            trainer_version=expected, engine_version=c.policy_version, mean_abs_diff=result.mean_abs_diff)
    return result
