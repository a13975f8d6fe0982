"""Wrappers over `CodingEnv`: anti-hack guards and compaction, on by default in every id."""

from __future__ import annotations

import gymnasium as gym

from .compaction import DEFAULT_BUDGET, Compaction, TokenCounter
from .guards import (
    GUARDS,
    Guard,
    Honeypot,
    ProtectedFileGuard,
    TestTamperGuard,
    UpstreamCommitGuard,
    with_guards,
)

__all__ = ["GUARDS", "Compaction", "Guard", "Honeypot", "ProtectedFileGuard", "TestTamperGuard", "TokenCounter",
           "UpstreamCommitGuard", "apply_default_wrappers", "with_guards"]


def apply_default_wrappers(env: gym.Env, *, guards: bool = True, protected_file_guard: bool = True,
                           upstream_commit_guard: bool = True, test_tamper_guard: bool = True,
                           honeypot: bool = False, judge=None, compaction: bool = True,
                           context_budget: int = DEFAULT_BUDGET, compaction_strategy: str = "digest",
                           tokenizer=None, summarizer=None, **kwargs) -> gym.Env:
    """The stack every registered id gets. Kwargs switch wrappers on or off.

    Guards (innermost, hooked between tool-call parsing and execution): `guards=False` removes
    all three (nothing is recorded); `protected_file_guard=False`, `upstream_commit_guard=False`,
    `test_tamper_guard=False` each keep that guard as a monitor (its events are recorded, nothing
    of its categories is blocked); `honeypot=True` plants decoys; `judge` replaces the offline
    `SemanticJudge`.
    Compaction (outermost, it sees the context as the policy will): `compaction=False` turns it
    off; `context_budget`, `compaction_strategy`, `tokenizer`, `summarizer` (docs/compaction.md).
    """
    if kwargs:
        raise TypeError(f"unknown wrapper options {sorted(kwargs)}")
    switches = {"protected": protected_file_guard, "upstream": upstream_commit_guard, "tamper": test_tamper_guard}
    names = list(switches) if guards else []
    env = with_guards(env, names, judge=judge, honeypot=honeypot,
                      monitor=[n for n in names if not switches[n]])
    if compaction:
        env = Compaction(env, context_budget, compaction_strategy, tokenizer=tokenizer, summarizer=summarizer)
    return env
