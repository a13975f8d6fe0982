"""Coding tasks as Gymnasium multi-turn environments.

    import gymnasium as gym
    import codegym  # registers the ids
    env = gym.make("codegym/Toy-v0")
"""

from .env import CodingEnv, EnvSnapshot
from .parsing import parse_tool_calls
from .registration import ENV_IDS, register_envs
from .runner import EpisodeRecord, run_episode, run_episodes
from .tools import tool_schemas

register_envs()

__all__ = ["ENV_IDS", "CodingEnv", "EnvSnapshot", "EpisodeRecord", "parse_tool_calls", "register_envs",
           "run_episode", "run_episodes", "tool_schemas"]
