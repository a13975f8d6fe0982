"""`Compaction`: keep the context within a token budget, in segments.

    env = Compaction(CodingEnv("toy"), budget=8192, strategy="digest")
    obs, info = env.reset()                 # info["segment"] == 0
    obs, r, term, trunc, info = env.step(action)   # info["segment"] bumps when compacted

Before an observation would leave less than `reserve_tokens` of the budget for the next
completion, the older turns are replaced (by a digest, a summary, or a masked window; see
`compaction_strategies`) and a new segment begins. Every context keeps the system prompt and
the task verbatim. `env.history` keeps every message uncompacted; each turn belongs to the
segment whose context the policy acted on, so a trainer turns each segment into one token
sequence. Tool outputs are already capped per turn by `CodingEnv(max_output_chars=...)`.
On the step that compacts, `info["compaction"]` says what was dropped and the token counts;
`info["segment"]` is always the segment of the observation returned. `docs/compaction.md`
has the details.
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import gymnasium as gym

from .compaction_strategies import (
    Block,
    CompactionInput,
    CompactionOutput,
    Message,
    flatten,
    get_strategy,
    shrink_to_fit,
)

DEFAULT_BUDGET = 32_768
MIN_ROOM = 64  # tokens the budget must leave beyond head and reserve, for a summary to fit


class TokenCounter:
    """Tokens of a list of chat messages, as the policy will see them.

    - a Hugging Face tokenizer: `len(apply_chat_template(messages, tokenize=True,
      add_generation_prompt=True))` when it has a chat template, else the `encode`d contents
      joined by newlines plus `per_message` tokens each for the role markers;
    - a callable `(messages) -> int`;
    - `None`: the estimate `ceil(chars / 3.5) + 4 * len(messages)`. BPE tokenizers of current
      code models give about 3.5-4.5 characters per token on code and English, so 3.5
      overestimates a little, which keeps the budget on the safe side.
    """

    CHARS_PER_TOKEN = 3.5
    PER_MESSAGE = 4

    def __init__(self, tokenizer: Any = None, per_message: int = PER_MESSAGE):
        self.tokenizer, self.per_message = tokenizer, per_message
        if tokenizer is None:
            self.kind = "estimate"
        elif hasattr(tokenizer, "apply_chat_template") or hasattr(tokenizer, "encode"):
            self.kind = "chat_template" if getattr(tokenizer, "chat_template", None) else "encode"
        elif callable(tokenizer):
            self.kind = "callable"
        else:
            raise TypeError(f"tokenizer must be a Hugging Face tokenizer, a callable (messages) -> int, or None; "
                            f"got {type(tokenizer).__name__}")

    def __call__(self, messages: Sequence[Message]) -> int:
        messages = list(messages)
        if self.kind == "estimate":
            chars = sum(len(_text(m.get("content"))) for m in messages)
            return math.ceil(chars / self.CHARS_PER_TOKEN) + self.per_message * len(messages)
        if self.kind == "callable":
            return int(self.tokenizer(messages))
        if self.kind == "chat_template":
            try:
                ids = self.tokenizer.apply_chat_template(messages, tokenize=True, add_generation_prompt=True)
                return len(ids["input_ids"] if isinstance(ids, Mapping) else ids)
            except Exception as exc:  # a template that rejects our roles must not end the rollout
                warnings.warn(f"the tokenizer's chat template failed ({exc}); counting encoded contents instead",
                              stacklevel=2)
                self.kind = "encode"
        text = "\n".join(_text(m.get("content")) for m in messages)
        return len(self.tokenizer.encode(text, add_special_tokens=False)) + self.per_message * len(messages)


def _text(content: Any) -> str:
    return content if isinstance(content, str) else "" if content is None else str(content)


@dataclass
class CompactionState:
    """The wrapper's part of an episode (goes into `EnvSnapshot.extra["compaction"]`)."""

    n_head: int = 2  # system prompt and task
    n_prefix: int = 0  # messages the last compaction put after the head
    context_turns: list[list[int]] = field(default_factory=list)  # [turn, messages] in context order
    segment: int = 0
    segments: list[dict[str, Any]] = field(default_factory=list)
    compactions: list[dict[str, Any]] = field(default_factory=list)
    turn_log: list[dict[str, Any]] = field(default_factory=list)


class Compaction(gym.Wrapper):
    """Compacts the context before it outgrows `budget` tokens, starting a new segment.

    Args:
        budget: tokens a context may take, the next completion included.
        strategy: 'digest' (default), 'summarize', 'window', or a callable
            `(CompactionInput) -> CompactionOutput`.
        tokenizer: the policy's Hugging Face tokenizer, a callable `(messages) -> int`, or
            None for the estimate (see `TokenCounter`).
        summarizer: for 'summarize': a callable `(messages) -> str` or an agent with `act`.
        reserve_tokens: room left for the next completion (default `budget // 8`, 4096 at the
            default budget); set it to at least the policy's max new tokens.
        keep_turns: newest turns kept verbatim when compacting (default: the strategy's,
            1 for digest and summarize, 4 for window).

    The room is the budget less reserve, system prompt and task. A compaction aims to leave
    half of it free (the kept turns take at most a quarter, the newest cut to fit), so that
    a segment holds several turns; the budget itself is never exceeded.
    """

    def __init__(self, env: gym.Env, budget: int = DEFAULT_BUDGET,
                 strategy: str | Callable[[CompactionInput], CompactionOutput] = "digest", *,
                 tokenizer: Any = None, summarizer: Any = None, reserve_tokens: int | None = None,
                 keep_turns: int | None = None):
        super().__init__(env)
        self.budget = int(budget)
        self.reserve_tokens = self.budget // 8 if reserve_tokens is None else int(reserve_tokens)
        if self.budget <= 0 or not 0 <= self.reserve_tokens < self.budget:
            raise ValueError(f"need budget > 0 and 0 <= reserve_tokens < budget; got budget={budget}, "
                             f"reserve_tokens={self.reserve_tokens}")
        self.count = tokenizer if isinstance(tokenizer, TokenCounter) else TokenCounter(tokenizer)
        self.strategy = get_strategy(strategy, summarizer)
        self.strategy_name = getattr(self.strategy, "name", getattr(strategy, "__name__", "custom"))
        self.keep_turns = getattr(self.strategy, "keep_turns", 1) if keep_turns is None else int(keep_turns)
        self.state = CompactionState()

    # ---- what consumers read ---------------------------------------------------------------

    @property
    def limit(self) -> int:
        """Tokens an observation may take: the budget less the reserve for the next completion."""
        return self.budget - self.reserve_tokens

    @property
    def segment(self) -> int:
        return self.state.segment

    @property
    def segments(self) -> list[dict[str, Any]]:
        """One dict per segment: `index`, `turns` (turn indices), `start_turn`, `start_tokens`,
        `max_tokens` (the largest observation the policy acted on in it)."""
        return copy.deepcopy(self.state.segments)

    @property
    def compactions(self) -> list[dict[str, Any]]:
        return copy.deepcopy(self.state.compactions)

    @property
    def history(self) -> list[Message]:
        """Every message of the episode, uncompacted (the env's own list)."""
        return self.env.get_wrapper_attr("history")

    def segment_of(self, turn: int) -> int:
        return next(s["index"] for s in self.state.segments if turn in s["turns"])

    # ---- Gymnasium API -----------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        tokens = self.count(obs)
        if tokens + self.reserve_tokens + MIN_ROOM > self.budget:
            raise ValueError(f"context budget {self.budget} is too small: the system prompt and task take {tokens} "
                             f"tokens, reserve_tokens={self.reserve_tokens}, and compaction needs {MIN_ROOM} more; "
                             "raise the budget or lower reserve_tokens")
        self.state = CompactionState(n_head=len(obs), segments=[_segment(0, 1, tokens)])
        info["segment"], info["context_tokens"] = 0, tokens
        return obs, info

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(action)
        st = self.state
        base = self.unwrapped
        turn = int(info.get("turn", getattr(base, "turn", len(st.turn_log) + 1)))
        new = info.get("new_messages", [])
        end = len(self.history)
        st.turn_log.append({"turn": turn, "tool_call": info.get("tool_call"), "exit_code": info.get("exit_code"),
                            "parse_error": info.get("parse_error"), "span": (end - len(new), end)})
        st.segments[-1]["turns"].append(turn)
        st.context_turns.append([turn, len(new)])
        tokens = self.count(obs)
        if not (terminated or truncated):  # after the end nothing acts on the observation
            if tokens > self.limit:
                obs, info["compaction"] = self._compact(obs, tokens, turn)
                tokens = info["compaction"]["tokens_after"]
            seg = st.segments[-1]
            seg["max_tokens"] = max(seg["max_tokens"], tokens)
        info["segment"], info["context_tokens"] = st.segment, tokens
        return obs, reward, terminated, truncated, info

    # ---- compaction ----------------------------------------------------------------------------

    def _blocks(self, messages: list[Message]) -> tuple[list[Message], list[Message], list[Block]]:
        st = self.state
        n = st.n_head + st.n_prefix + sum(k for _, k in st.context_turns)
        if n != len(messages):  # something else rewrote the context: regroup it by assistant turns
            st.n_prefix, st.context_turns = _regroup(messages, st.n_head, st.turn_log[-1]["turn"])
        head, i = messages[: st.n_head], st.n_head + st.n_prefix
        prefix, blocks = messages[st.n_head: i], []
        for turn, k in st.context_turns:
            blocks.append((turn, messages[i: i + k]))
            i += k
        return head, prefix, blocks

    def _keep(self, blocks: list[Block], room: int) -> tuple[list[Block], list[int]]:
        """(the newest `keep_turns` turns that fit in `room` tokens, turns cut): the newest is cut to fit."""
        kept: list[Block] = []
        for turn, msgs in reversed(blocks[max(0, len(blocks) - self.keep_turns):] if self.keep_turns > 0 else []):
            if self.count(flatten([(turn, msgs), *kept])) <= room:
                kept.insert(0, (turn, msgs))
            elif not kept:
                return [_shrink_block((turn, msgs), lambda b: self.count(b[1]) <= room)], [turn]
            else:
                break
        return kept, []

    def _compact(self, messages: list[Message], tokens: int, turn: int) -> tuple[list[Message], dict[str, Any]]:
        st = self.state
        head, prefix, blocks = self._blocks(messages)
        room = self.limit - self.count(head)
        kept, cut = self._keep(blocks, room // 4)
        dropped = blocks[: len(blocks) - len(kept)]
        inp = CompactionInput(head, prefix, dropped, kept, self.limit, self.limit - room // 2, self.count,
                              self.unwrapped, copy.deepcopy(st.turn_log))
        out = self.strategy(inp)
        new_msgs, carried = self._enforce(head, list(out.messages), list(out.carried), kept)
        context = head + new_msgs + flatten(carried) + flatten(kept)
        after = self.count(context)
        self.unwrapped.messages = copy.deepcopy(context)
        remaining = [t for t, _ in carried] + [t for t, _ in kept]
        st.n_prefix, st.context_turns = len(new_msgs), [[t, len(m)] for t, m in carried + kept]
        st.segment += 1
        st.segments.append(_segment(st.segment, turn + 1, after))
        record = {"strategy": self.strategy_name, "turn": turn, "from_segment": st.segment - 1,
                  "segment": st.segment, "dropped_turns": [t for t, _ in blocks if t not in remaining],
                  "carried_turns": [t for t, _ in carried], "kept_turns": [t for t, _ in kept], "cut_turns": cut,
                  "summary": out.summary, "tokens_before": tokens, "tokens_after": after, "budget": self.budget,
                  "reserve_tokens": self.reserve_tokens, **out.details}
        st.compactions.append(copy.deepcopy(record))
        return copy.deepcopy(context), record

    def _enforce(self, head: list[Message], msgs: list[Message], carried: list[Block],
                 kept: list[Block]) -> tuple[list[Message], list[Block]]:
        """Safety net for strategies that overshoot the limit: drop carried turns, then cut their last message."""
        def size(strategy_msgs: list[Message]) -> int:
            return self.count(head + strategy_msgs + flatten(carried) + flatten(kept))

        while size(msgs) > self.limit and carried:
            carried.pop(0)
        if size(msgs) > self.limit and msgs:
            last = msgs[-1]
            text = shrink_to_fit(_text(last.get("content")),
                                 lambda t: size([*msgs[:-1], {**last, "content": t}]) <= self.limit)
            msgs = [*msgs[:-1], {**last, "content": text}]
        return msgs, carried

    # ---- forking --------------------------------------------------------------------------------

    def snapshot(self):
        """The inner env's `EnvSnapshot`, with this wrapper's state in `extra["compaction"]`."""
        snap = self.env.get_wrapper_attr("snapshot")()
        snap.extra["compaction"] = asdict(self.state)
        return snap

    def restore(self, snap) -> None:
        """Continue a snapshotted episode here: same context, segment index and records."""
        self.env.get_wrapper_attr("restore")(snap)
        saved = snap.extra.get("compaction")
        if saved is not None:
            self.state = CompactionState(**copy.deepcopy(saved))
        else:  # a snapshot of an env without this wrapper: one segment so far
            n_prefix, turns = _regroup(snap.messages, 2, snap.turn)
            self.state = CompactionState(n_head=2, n_prefix=n_prefix, context_turns=turns,
                                         segments=[_segment(0, 1, self.count(snap.messages))])
            self.state.segments[0]["turns"] = list(range(1, snap.turn + 1))


def _segment(index: int, start_turn: int, tokens: int) -> dict[str, Any]:
    return {"index": index, "turns": [], "start_turn": start_turn, "start_tokens": tokens, "max_tokens": tokens}


def _regroup(messages: Sequence[Message], n_head: int, last_turn: int) -> tuple[int, list[list[int]]]:
    """(prefix length, [turn, messages] per turn) from the roles: a turn starts at an assistant message."""
    starts = [i for i in range(n_head, len(messages)) if messages[i].get("role") == "assistant"]
    if not starts:
        return len(messages) - n_head, []
    bounds = [*starts, len(messages)]
    turns = [[last_turn - len(starts) + 1 + j, bounds[j + 1] - bounds[j]] for j in range(len(starts))]
    return starts[0] - n_head, turns


def _shrink_block(block: Block, fits: Callable[[Block], bool]) -> Block:
    """`block` with its observations (then, if need be, its assistant message) cut until it fits."""
    turn, msgs = block[0], list(block[1])

    def with_content(i: int, text: str) -> Block:
        return turn, [*msgs[:i], {**msgs[i], "content": text}, *msgs[i + 1:]]

    for observations_only in (True, False):
        for i in range(len(msgs)):
            if (msgs[i].get("role") != "assistant" or not observations_only) and not fits((turn, msgs)):
                text = shrink_to_fit(_text(msgs[i].get("content")), lambda t, i=i: fits(with_content(i, t)))
                msgs = with_content(i, text)[1]
    return turn, msgs
