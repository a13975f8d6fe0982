"""`LLMAgent`: a model behind an engine, acting in a codegym env, keeping exact token ids.

    agent = LLMAgent(TransformersEngine(model, tokenizer), tokenizer, max_new_tokens=128)
    obs, info = env.reset()
    agent.reset(info)
    obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
    agent.turns      # per turn: prompt ids (or the observation delta), completion ids, logprobs, ...

The env's messages are rendered with the tokenizer's chat template (with the tool schemas of
``info["tools"]``). The agent never re-tokenizes its own completions: a segment's token
sequence is the first prompt's ids, then for each turn the ids the engine returned, then the
ids of the rendered text that the template appended after them (the tool result, the next
generation prompt). That holds while each new rendering extends the previous rendering plus the
completion text exactly. When it does not (a compaction wrapper rewrote the history:
``info["segment"]`` changed, or a template that rewrites past turns), the whole new prompt is
tokenized and a new segment starts. The engine always gets the segment's ids as the prompt, so
what the trainer sees is exactly what the model saw.

For batched generation across many envs, a collector calls ``prepare(messages, info)`` on
every agent, runs one ``engine.generate`` over the requests, then ``finish(completion)``;
``act`` is those three for one agent.

Without a tokenizer the agent runs in chat mode (`engine.chat(messages, tools)`, e.g. a hosted
model through `OpenAIEngine`): fine for evaluation, and its turns carry no token ids.
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field
from typing import Any

from codegym.envs.parsing import get_parser

from .engines.base import Completion, GenerationRequest

#: Stop strings that end one tool call, per parser, for ``stop_at_call=True``.
CALL_STOPS = {"hermes": ("</tool_call>",), "any": ("</tool_call>",)}


class ContextLimitError(RuntimeError):
    """The segment no longer fits the model's context."""


@dataclass
class Turn:
    """One model call. `prompt_ids` is the whole prompt when the turn starts a segment
    (`start_reason` set), else only the ids appended since the previous completion."""

    segment: int
    start_reason: str | None
    prompt_ids: list[int]
    completion_ids: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    policy_version: int = 0
    finish_reason: str = ""
    text: str = ""
    state_key: str | None = None
    env_segment: int | None = None
    hack_events: list[dict[str, Any]] = field(default_factory=list)
    parse_error: str | None = None
    tool_call: dict[str, Any] | None = None
    observed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class LLMAgent:
    """Renders, generates, keeps token ids. See the module docstring.

    Args:
        engine: any engine (`codegym.agents.engines`).
        tokenizer: a HF tokenizer with a chat template; None for chat mode.
        parser: the tool-call format the model writes (for `stop_at_call`).
        max_new_tokens, temperature, top_p: sampling per turn (keep top_p=1 for RL).
        tools: render ``info["tools"]`` through the chat template.
        stop_at_call: stop generating at the end of the first tool call.
        max_context: prompt + completion limit (default: the engine's, else unlimited).
        seed: base seed; turn t of an episode uses ``seed + t`` (reproducible batches).
    """

    def __init__(self, engine: Any, tokenizer: Any = None, parser: str = "any", *, max_new_tokens: int = 256,
                 temperature: float = 1.0, top_p: float = 1.0, tools: bool = True, stop_at_call: bool = False,
                 stop: tuple[str, ...] = (), max_context: int | None = None, seed: int | None = None,
                 chat_template_kwargs: dict[str, Any] | None = None):
        self.engine, self.tokenizer = engine, tokenizer
        self.parser_name = parser if isinstance(parser, str) else getattr(parser, "__name__", "custom")
        self.parse = get_parser(parser)
        self.max_new_tokens, self.temperature, self.top_p = max_new_tokens, temperature, top_p
        self.tools = tools
        self.stop = tuple(stop) + (CALL_STOPS.get(self.parser_name, ()) if stop_at_call else ())
        self.max_context = max_context or getattr(engine, "max_context", None)
        self.seed = seed
        self.chat_template_kwargs = dict(chat_template_kwargs or {})
        eos = list(getattr(engine, "eos_token_ids", []) or [])
        if tokenizer is not None and tokenizer.eos_token_id is not None and tokenizer.eos_token_id not in eos:
            eos.append(int(tokenizer.eos_token_id))
        self.eos_token_ids = eos
        self.reset()

    # ---- copies share the engine ---------------------------------------------------------------

    def clone(self) -> LLMAgent:
        """A fresh agent with the same engine, tokenizer and settings."""
        other = copy.copy(self)
        other.reset()
        return other

    def __deepcopy__(self, memo) -> LLMAgent:  # `run_episodes` copies agents per worker thread
        return self.clone()

    def reset(self, info: dict[str, Any] | None = None) -> None:
        self.turns: list[Turn] = []
        self._ids: list[int] = []
        self._text = ""
        self._env_segment: int | None = None
        self._pending: Turn | None = None
        self._pending_chat: tuple | None = None
        self._tools = (info or {}).get("tools")

    def snapshot(self) -> dict[str, Any]:
        """The agent's state mid-episode (to continue a branch elsewhere, Tree-GRPO)."""
        if self._pending is not None:
            raise RuntimeError("snapshot() between prepare() and finish()")
        return copy.deepcopy({"turns": self.turns, "ids": self._ids, "text": self._text,
                              "env_segment": self._env_segment, "tools": self._tools})

    def restore(self, state: dict[str, Any]) -> None:
        state = copy.deepcopy(state)
        self.reset()
        self.turns, self._ids, self._text = state["turns"], state["ids"], state["text"]
        self._env_segment, self._tools = state["env_segment"], state["tools"]

    # ---- one turn --------------------------------------------------------------------------------

    def render(self, messages: list[dict[str, Any]], info: dict[str, Any]) -> str:
        """The chat template over `messages`, with the episode's tools (`info["tools"]` at reset)."""
        if info.get("tools") is not None:
            self._tools = info["tools"]
        tools = self._tools if self.tools else None
        return self.tokenizer.apply_chat_template(list(messages), tools=tools or None, tokenize=False,
                                                  add_generation_prompt=True, **self.chat_template_kwargs)

    def prepare(self, messages: list[dict[str, Any]], info: dict[str, Any]) -> GenerationRequest | None:
        """The next request (None in chat mode: `act` calls the engine's `chat`)."""
        if self._pending is not None:
            raise RuntimeError("prepare() called twice without finish()")
        if self.turns and not self.turns[-1].observed:
            self.observe(info)
        segment = self.turns[-1].segment if self.turns else -1
        env_segment = info.get("segment")
        if self.tokenizer is None:
            self._pending = Turn(max(segment, 0), "start" if not self.turns else None, [],
                                 state_key=info.get("state_key"), env_segment=env_segment)
            if info.get("tools") is not None:
                self._tools = info["tools"]
            self._pending_chat = (list(messages), self._tools if self.tools else None)
            return None
        text = self.render(messages, info)
        reason = None
        if not self._ids:
            reason = "start"
        elif env_segment is not None and env_segment != self._env_segment:
            reason = "compaction"
        elif not text.startswith(self._text):
            reason = "rewrite"
        if reason is not None:
            ids = self.tokenizer.encode(text, add_special_tokens=False)
            self._ids, segment = list(ids), segment + 1
        else:
            ids = self.tokenizer.encode(text[len(self._text):], add_special_tokens=False) if len(text) > len(
                self._text) else []
            self._ids.extend(ids)
        self._text, self._env_segment = text, env_segment
        max_new = self.max_new_tokens
        if self.max_context:
            room = self.max_context - len(self._ids)
            if room < 1:
                raise ContextLimitError(f"segment {segment} has {len(self._ids)} tokens: no room left in the "
                                        f"{self.max_context}-token context (compact the context or lower max_turns)")
            max_new = min(max_new, room)
        self._pending = Turn(segment, reason, list(ids), state_key=info.get("state_key"), env_segment=env_segment)
        seed = None if self.seed is None else self.seed + len(self.turns)
        return GenerationRequest(list(self._ids), max_new, self.temperature, self.top_p, self.stop, seed)

    def finish(self, completion: Completion) -> str:
        """Record the completion; return its text (the action for `env.step`)."""
        turn, self._pending = self._pending, None
        if turn is None:
            raise RuntimeError("finish() without prepare()")
        turn.completion_ids, turn.logprobs = list(completion.token_ids), list(completion.logprobs)
        turn.policy_version, turn.finish_reason = completion.policy_version, completion.finish_reason
        if self.tokenizer is None:
            turn.text = completion.text or ""
        else:
            ids = list(completion.token_ids)
            self._ids.extend(ids)
            self._text += self.tokenizer.decode(ids, skip_special_tokens=False)
            while ids and ids[-1] in self.eos_token_ids:
                ids = ids[:-1]
            turn.text = self.tokenizer.decode(ids, skip_special_tokens=False)
        self.turns.append(turn)
        return turn.text

    def act(self, messages: list[dict[str, Any]], info: dict[str, Any]) -> str:
        request = self.prepare(messages, info)
        if request is None:
            chat_messages, tools = self._pending_chat
            completion = self.engine.chat(chat_messages, tools=tools, max_tokens=self.max_new_tokens,
                                          temperature=self.temperature, top_p=self.top_p)
        else:
            [completion] = self.engine.generate([request])
        return self.finish(completion)

    def observe(self, info: dict[str, Any]) -> None:
        """Attach what the env said about the last turn's action (hack events, parse error)."""
        if not self.turns:
            return
        last = self.turns[-1]
        last.hack_events = list(info.get("hack_events", []))
        last.parse_error, last.tool_call = info.get("parse_error"), info.get("tool_call")
        last.observed = True

    def abort(self) -> None:
        """Drop a prepared request that will not be finished (the engine failed)."""
        self._pending = None
