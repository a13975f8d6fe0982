"""`ScriptedEngine`: a deterministic engine that "samples" given texts, for tests and demos.

    engine = ScriptedEngine(tokenizer, lambda prompt_text: '<tool_call>{"name": "submit", "arguments": {}}</tool_call>')

`respond` maps the decoded prompt to the completion text (or is a list of texts, used in turn).
The text is tokenized and the eos appended; every token has logprob 0 (probability 1 under a
deterministic policy). Like `ScriptedAgent`, it makes token-level pipelines testable with
chosen actions; training on its completions is meaningless.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from typing import Any

from .base import Completion, GenerationRequest


class ScriptedEngine:
    probe_tolerance = float("inf")

    def __init__(self, tokenizer: Any, respond: Callable[[str], str] | Sequence[str]):
        self.tokenizer = tokenizer
        if callable(respond):
            self._respond = respond
        else:
            texts = itertools.cycle(list(respond))
            self._respond = lambda _prompt: next(texts)
        self.eos_token_ids = [int(tokenizer.eos_token_id)]
        self.policy_version = 0
        self._lock = threading.Lock()

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        out = []
        for r in requests:
            prompt = self.tokenizer.decode(r.prompt_ids, skip_special_tokens=False)
            with self._lock:
                text = self._respond(prompt)
            ids = self.tokenizer.encode(text, add_special_tokens=False)
            reason = "length" if len(ids) >= r.max_new_tokens else "stop"
            ids = ids[: r.max_new_tokens] if reason == "length" else ids + self.eos_token_ids
            out.append(Completion(ids, [0.0] * len(ids), reason, self.policy_version,
                                  self.tokenizer.decode(ids, skip_special_tokens=False)))
        return out

    def load_adapter(self, path_or_state: Any, version: int) -> None:
        self.policy_version = int(version)
