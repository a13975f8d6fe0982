"""`ScriptedAgent`: plays a fixed list of actions, then submits. Deterministic, for tests.

    agent = ScriptedAgent(['<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>',
                           {"name": "submit", "arguments": {}}])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from codegym.toolcall import ToolCall

SUBMIT = ToolCall("submit", {})


class ScriptedAgent:
    def __init__(self, actions: Sequence[Any], then: Any = SUBMIT):
        self.actions = list(actions)
        self.then = then
        self._i = 0

    def reset(self, info: dict[str, Any] | None = None) -> None:
        self._i = 0

    def act(self, messages: list[dict[str, Any]], info: dict[str, Any]) -> Any:
        self._i += 1
        return self.actions[self._i - 1] if self._i <= len(self.actions) else self.then
