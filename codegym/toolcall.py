"""`ToolCall`: one parsed tool call of the env, the type envs, agents, trainer and guards share.

It lives below both the envs and the anti-hack detector (which reads calls but does not own them);
`codegym.antihack.types` re-exports it.

    >>> call = ToolCall.from_dict({"name": "bash", "arguments": {"command": "ls"}})
    >>> call.to_dict()
    {'name': 'bash', 'arguments': {'command': 'ls'}}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolCall:
    """One parsed tool call of the env: `bash`, `view`, `create`, `str_replace`, `run_tests`, `submit`.

    >>> ToolCall("view", {"path": "src/app.py"}).arguments["path"]
    'src/app.py'
    """

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": dict(self.arguments)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ToolCall:
        return cls(str(d["name"]), dict(d.get("arguments") or {}))
