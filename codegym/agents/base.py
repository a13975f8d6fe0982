"""The `Agent` protocol: chat messages in, a completion text (or a structured call) out."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Agent(Protocol):
    def act(self, messages: list[dict[str, Any]], info: dict[str, Any]) -> Any:
        """The next action: completion text, a `ToolCall`, or `{"name", "arguments"}`."""
