"""Wrappers over `CodingEnv`: anti-hack guards and compaction, on by default in every id."""

from __future__ import annotations

import gymnasium as gym

from .compaction import DEFAULT_BUDGET, Compaction, TokenCounter

__all__ = ["Compaction", "TokenCounter", "apply_default_wrappers"]


def apply_default_wrappers(env: gym.Env, *, compaction: bool = True, context_budget: int = DEFAULT_BUDGET,
                           compaction_strategy: str = "digest", tokenizer=None, summarizer=None,
                           **kwargs) -> gym.Env:
    """The stack every registered id gets. Kwargs switch wrappers on or off.

    Compaction (outermost, it sees the context as the policy will): `compaction=False` turns it
    off; `context_budget`, `compaction_strategy`, `tokenizer`, `summarizer` (docs/compaction.md).
    """
    if kwargs:
        raise TypeError(f"unknown wrapper options {sorted(kwargs)}")
    if compaction:
        env = Compaction(env, context_budget, compaction_strategy, tokenizer=tokenizer, summarizer=summarizer)
    return env
