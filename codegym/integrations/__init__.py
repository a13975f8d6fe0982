"""Glue between codegym envs and the trainers and agent harnesses people already use.

Each module is a thin layer over codegym's public API and imports its own package
(install them with the `integrations` extra: ``pip install -e ".[integrations]"``):

- `codegym.integrations.mini_swe_agent`: `CodegymEnvironment`, mini-swe-agent's `Environment`;
- `codegym.integrations.skyrl`: registers ``"codegym"`` in `skyrl_gym`;
- `codegym.integrations.trl`: `environment_factory` and `rollout_func` for TRL's `GRPOTrainer`;
- `codegym.integrations.serve`: `codegym serve`, an OpenAI-compatible server recording token ids;
- `codegym.integrations.capture`: a recorded session as an `Episode`.

See docs/integrations.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["episode_result"]


def episode_result(reward: float, info: Mapping[str, Any],
                   hack_events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The outcome of a finished episode as plain data, from its last `step()`'s reward and info:
    ``reward``, ``rewards`` (the named components), ``tests`` (per-test outcomes),
    ``stop_reason``, ``train_mask``, ``diff``, ``turns`` and ``hack_events`` (the episode's, when
    given, else the last step's)."""
    return {"reward": float(reward), "rewards": dict(info.get("rewards", {})), "tests": dict(info.get("tests", {})),
            "stop_reason": info.get("stop_reason", ""), "train_mask": bool(info.get("train_mask", True)),
            "diff": info.get("diff", ""), "turns": int(info.get("turn", 0)),
            "hack_events": list(info.get("hack_events", []) if hack_events is None else hack_events)}
