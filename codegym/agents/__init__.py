"""Agents: what produces actions. Scripted and oracle agents for tests and evaluation.

An agent has `act(messages, info) -> str | ToolCall | dict` and optionally `reset(info)`.
"""

from .base import Agent
from .oracle import OracleAgent
from .scripted import ScriptedAgent

__all__ = ["Agent", "OracleAgent", "ScriptedAgent"]
