"""Agents: what produces actions. LLM agents over rollout engines; scripted and oracle agents.

An agent has `act(messages, info) -> str | ToolCall | dict` and optionally `reset(info)`.
`LLMAgent` renders the env's messages with a chat template, generates with an engine
(`codegym.agents.engines`: transformers, vLLM, OpenAI-compatible) and keeps exact token ids;
`build_tiny_tokenizer`/`build_tiny_model` make a local tiny model for tests and CI.
"""

from .base import Agent
from .llm import ContextLimitError, LLMAgent, Turn
from .oracle import OracleAgent
from .scripted import ScriptedAgent


def __getattr__(name: str):
    if name in ("build_tiny_model", "build_tiny_tokenizer"):
        from . import tiny

        return getattr(tiny, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Agent", "ContextLimitError", "LLMAgent", "OracleAgent", "ScriptedAgent", "Turn", "build_tiny_model",
           "build_tiny_tokenizer"]
