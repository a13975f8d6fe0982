"""Registered Gymnasium ids, each with the anti-hack guards on by default.

    gym.make("codegym/Toy-v0")
    gym.make("codegym/RepoFix-v0", max_turns=20, backend="docker")
    gym.make("codegym/Tasks-v0", tasks="my_tasks.jsonl")
    gym.make("codegym/Families-v0", split="heldout", families=["lookup"])
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

ENV_IDS = {
    "codegym/HumanEval-v0": "humaneval",
    "codegym/RepoFix-v0": "repofix",
    "codegym/Toy-v0": "toy",
    "codegym/Tasks-v0": None,
    "codegym/Families-v0": "families",
    "codegym/RealMutants-v0": "realmutants",
}

#: ids whose entry point is not `make_coding_env`
_ENTRY_POINTS = {"codegym/Families-v0": "codegym.envs.registration:make_families_env"}


def make_coding_env(tasks: Any = None, **kwargs: Any) -> gym.Env:
    """A `CodingEnv` wrapped with the default wrappers (see `codegym.envs.wrappers`)."""
    from .env import CodingEnv
    from .wrappers import apply_default_wrappers

    if tasks is None:
        raise ValueError("codegym/Tasks-v0 needs tasks=<path to a JSONL file or a suite name>")
    wrapper_kwargs = {k: kwargs.pop(k) for k in list(kwargs) if k in _WRAPPER_KWARGS}
    return apply_default_wrappers(CodingEnv(tasks, **kwargs), **wrapper_kwargs)


def make_families_env(split: str = "train", families: Any = None, **kwargs: Any) -> gym.Env:
    """`make_coding_env` over the generated task families (`codegym.tasks.suites.families`):
    `split` is train or heldout, `families` a family name or a list of them (default all)."""
    from codegym.tasks.suites.families import family_tasks

    kwargs.pop("tasks", None)  # the registered suite name: the split decides
    return make_coding_env(family_tasks(split, families), **kwargs)


_WRAPPER_KWARGS: set[str] = {"guards", "protected_file_guard", "upstream_commit_guard", "test_tamper_guard",
                              "honeypot", "judge", "compaction", "context_budget", "compaction_strategy",
                              "tokenizer", "summarizer"}


def register_envs() -> None:
    for env_id, suite in ENV_IDS.items():
        if env_id not in gym.registry:
            # No OrderEnforcing or PassiveEnvChecker: an env that continues a snapshot (`restore`)
            # steps without a reset, which both refuse. CodingEnv enforces reset-before-step
            # itself, and the tests run Gymnasium's full `check_env` on every id.
            gym.register(env_id, entry_point=_ENTRY_POINTS.get(env_id, "codegym.envs.registration:make_coding_env"),
                         kwargs={} if suite is None else {"tasks": suite}, order_enforce=False,
                         disable_env_checker=True)
