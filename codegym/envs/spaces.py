"""Gymnasium spaces for chat: unicode text and lists of chat messages.

Gymnasium's `Text` space samples and accepts only alphanumerics by default; a coding
agent's messages hold any unicode. `UnicodeText` accepts any `str` up to a length, and
`ChatMessages` a list of `{"role", "content", ...}` dicts, which is what `CodingEnv`
observes.

    space = ChatMessages()
    space.contains([{"role": "user", "content": "fix the bug 🐛"}])   # True
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

ROLES = ("system", "user", "assistant", "tool")
_SAMPLE_CHARS = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_{}<>\"':,./\n\tλ→✓"


class UnicodeText(spaces.Space[str]):
    """Any Python `str` of at most `max_length` characters."""

    def __init__(self, max_length: int = 1_000_000, seed: int | np.random.Generator | None = None):
        super().__init__(shape=None, dtype=None, seed=seed)
        self.max_length = max_length

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        n = int(self.np_random.integers(0, min(self.max_length, 64) + 1))
        idx = self.np_random.integers(0, len(_SAMPLE_CHARS), size=n)
        return "".join(_SAMPLE_CHARS[i] for i in idx)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"UnicodeText(max_length={self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, UnicodeText) and other.max_length == self.max_length


class _TextBacked(spaces.Space):
    """A non-flattenable space that samples text from its `self.text` (seeded from its own rng)."""

    text: UnicodeText

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def seed(self, seed: int | None = None) -> list[int]:
        out = super().seed(seed)
        self.text.seed(int(self.np_random.integers(2**31)))
        return out


class ChatMessages(_TextBacked):
    """A list of chat messages: dicts with a `role` in ROLES and a `content` str."""

    def __init__(self, max_messages: int = 100_000, max_content: int = 10_000_000,
                 seed: int | np.random.Generator | None = None):
        super().__init__(shape=None, dtype=None, seed=seed)
        self.max_messages = max_messages
        self.text = UnicodeText(max_content)

    def sample(self, mask: Any = None, probability: Any = None) -> list[dict[str, str]]:
        n = int(self.np_random.integers(1, 5))
        return [{"role": ROLES[int(self.np_random.integers(len(ROLES)))], "content": self.text.sample()}
                for _ in range(n)]

    def contains(self, x: Any) -> bool:
        if not isinstance(x, list) or len(x) > self.max_messages:
            return False
        return all(isinstance(m, dict) and m.get("role") in ROLES and self.text.contains(m.get("content"))
                   for m in x)

    def __repr__(self) -> str:
        return f"ChatMessages(max_messages={self.max_messages})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ChatMessages) and other.max_messages == self.max_messages


class ToolAction(_TextBacked):
    """The action: a completion text (str) or an already-structured tool call.

    A structured call is a dict `{"name": ..., "arguments": {...}}` or a `ToolCall`.
    """

    def __init__(self, max_length: int = 1_000_000, seed: int | np.random.Generator | None = None):
        super().__init__(shape=None, dtype=None, seed=seed)
        self.text = UnicodeText(max_length)

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        return self.text.sample()

    def contains(self, x: Any) -> bool:
        if isinstance(x, str):
            return self.text.contains(x)
        if isinstance(x, dict):
            return isinstance(x.get("name"), str) and isinstance(x.get("arguments", {}), dict)
        return hasattr(x, "name") and hasattr(x, "arguments")

    def __repr__(self) -> str:
        return "ToolAction()"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ToolAction)
