"""Wrappers over `CodingEnv`: anti-hack guards and compaction, on by default in every id."""

from __future__ import annotations

import gymnasium as gym

from .compaction import DEFAULT_BUDGET, Compaction, TokenCounter
from .guards import GuardEngine, ProtectedFileGuard, TestTamperGuard, UpstreamCommitGuard, with_guards

__all__ = ["Compaction", "GuardEngine", "ProtectedFileGuard", "TestTamperGuard", "TokenCounter",
           "UpstreamCommitGuard", "apply_default_wrappers", "with_guards"]


def apply_default_wrappers(env: gym.Env, *, guards: bool = True, protected_file_guard: bool = True,
                           upstream_commit_guard: bool = True, test_tamper_guard: bool = True,
                           honeypot: bool = False, judge=None, compaction: bool = True,
                           context_budget: int = DEFAULT_BUDGET, compaction_strategy: str = "digest",
                           tokenizer=None, summarizer=None, **kwargs) -> gym.Env:
    """The stack every registered id gets. Kwargs switch wrappers on or off.

    Guards (innermost, hooked between tool-call parsing and execution): `guards=False` turns
    all three off; `protected_file_guard`, `upstream_commit_guard`, `test_tamper_guard` each
    one; `honeypot=True` plants decoys; `judge` replaces the offline `SemanticJudge`.
    Compaction (outermost, it sees the context as the policy will): `compaction=False` turns it
    off; `context_budget`, `compaction_strategy`, `tokenizer`, `summarizer` (docs/compaction.md).
    """
    if kwargs:
        raise TypeError(f"unknown wrapper options {sorted(kwargs)}")
    names = [n for n, on in (("protected", protected_file_guard), ("upstream", upstream_commit_guard),
                             ("tamper", test_tamper_guard)) if on and guards]
    env = with_guards(env, names, judge=judge, honeypot=honeypot)
    if compaction:
        env = Compaction(env, context_budget, compaction_strategy, tokenizer=tokenizer, summarizer=summarizer)
    return env
