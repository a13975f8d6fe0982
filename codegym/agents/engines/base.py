"""The rollout-engine contract: token ids in, token ids (with logprobs and a policy version) out.

    engine.generate([GenerationRequest(prompt_ids, max_new_tokens=64, temperature=1.0)])
    # -> [Completion(token_ids=[...], logprobs=[...], finish_reason="stop", policy_version=3)]
    engine.load_adapter("runs/x/adapter-v4", version=4)

**Logprobs** are those of the sampled tokens under the temperature-scaled distribution,
``log_softmax(logits / temperature)``, before top-p/top-k truncation; with ``temperature == 0``
(greedy) they are the raw ``log_softmax(logits)``. The trainer recomputes its logprobs the same
way (temperature-scaled logits), so keep ``top_p = 1`` for on-policy RL: with ``top_p < 1`` the
sampling distribution is the truncated one and neither side models it.

Every backend (`TransformersEngine`, `VLLMEngine`, `OpenAIEngine`, `ScriptedEngine`) has
``generate``, ``load_adapter`` and a ``policy_version`` attribute; a completion carries the
version of the weights that made it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


class EngineError(RuntimeError):
    """A backend failed to produce a completion (server down, out of memory, bad request)."""


@dataclass
class GenerationRequest:
    """One prompt to complete. `stop` strings end generation and are kept in the output."""

    prompt_ids: list[int]
    max_new_tokens: int = 256
    temperature: float = 1.0
    top_p: float = 1.0
    stop: Sequence[str] = ()
    seed: int | None = None


@dataclass
class Completion:
    """What the engine sampled: ids, their logprobs (see module docstring), why it stopped.

    `finish_reason` is ``"stop"`` (eos or a stop string) or ``"length"`` (`max_new_tokens`).
    `text` is the decoded completion when the backend has it.
    """

    token_ids: list[int]
    logprobs: list[float]
    finish_reason: str
    policy_version: int
    text: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.token_ids) != len(self.logprobs):
            raise ValueError(f"{len(self.token_ids)} token ids but {len(self.logprobs)} logprobs")


@runtime_checkable
class Engine(Protocol):
    policy_version: int

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        """One completion per request, in order."""

    def load_adapter(self, path_or_state: Any, version: int) -> None:
        """Serve the given adapter from now on, as policy `version`."""
