"""`HackEvent`: the record of one flagged call, as a guard wrapper writes it into `info["hack_events"]`.

>>> from codegym.antihack import GuardContext, ToolCall, detect
>>> call = ToolCall("bash", {"command": "git log --all"})
>>> ev = HackEvent.from_detection(detect(call, GuardContext()), call, turn=3, blocked=True)
>>> HackEvent.from_json(ev.to_json()) == ev
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from codegym.toolcall import ToolCall

from .types import Detection, Flag


@dataclass(frozen=True)
class HackEvent:
    """One flagged tool call and what happened to it.

    `verdict` is the final is-hack decision, `blocked` whether the sandbox was spared the call,
    `dummy_result` the text the agent saw instead. `label_is_hack`/`label_category` are optional
    ground truth (a red-team agent knows which calls were meant as hacks); the report computes
    agreement from them where present.
    """

    turn: int
    tool: str
    arguments: Mapping[str, Any]
    flags: tuple[Flag, ...]
    verdict: bool
    category: str | None
    judge: str
    blocked: bool
    dummy_result: str | None = None
    rationale: str = ""
    fallback: str = ""
    episode_id: str = ""
    label_is_hack: bool | None = None
    label_category: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_detection(
        cls,
        det: Detection,
        call: ToolCall,
        turn: int,
        blocked: bool | None = None,
        episode_id: str = "",
        label_is_hack: bool | None = None,
        label_category: str | None = None,
    ) -> HackEvent:
        return cls(
            turn=turn,
            tool=call.name,
            arguments=dict(call.arguments),
            flags=tuple(det.flags),
            verdict=det.is_hack,
            category=det.category,
            judge=det.judge,
            blocked=det.is_hack if blocked is None else blocked,
            dummy_result=None if det.dummy is None else det.dummy.output,
            rationale=det.rationale,
            fallback=det.fallback,
            episode_id=episode_id,
            label_is_hack=label_is_hack,
            label_category=label_category,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "tool": self.tool,
            "arguments": dict(self.arguments),
            "flags": [f.to_dict() for f in self.flags],
            "verdict": self.verdict,
            "category": self.category,
            "judge": self.judge,
            "blocked": self.blocked,
            "dummy_result": self.dummy_result,
            "rationale": self.rationale,
            "fallback": self.fallback,
            "episode_id": self.episode_id,
            "label_is_hack": self.label_is_hack,
            "label_category": self.label_category,
            "extra": dict(self.extra),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), default=str)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> HackEvent:
        return cls(
            turn=int(d["turn"]),
            tool=d["tool"],
            arguments=dict(d.get("arguments") or {}),
            flags=tuple(Flag.from_dict(f) for f in d.get("flags", ())),
            verdict=bool(d["verdict"]),
            category=d.get("category"),
            judge=d.get("judge", ""),
            blocked=bool(d.get("blocked", False)),
            dummy_result=d.get("dummy_result"),
            rationale=d.get("rationale", ""),
            fallback=d.get("fallback", ""),
            episode_id=d.get("episode_id", ""),
            label_is_hack=d.get("label_is_hack"),
            label_category=d.get("label_category"),
            extra=dict(d.get("extra") or {}),
        )

    @classmethod
    def from_json(cls, s: str) -> HackEvent:
        return cls.from_dict(json.loads(s))
