"""Compaction strategies: what stands in for the turns that leave an overfull context.

A strategy is a callable `(CompactionInput) -> CompactionOutput`. The `Compaction` wrapper
has already chosen the newest turns to keep verbatim (`kept`) and the older ones that leave
(`dropped`); the strategy returns the messages that go between the head (system prompt and
task, always kept) and the kept turns, and should fit the new context within `target` tokens
(about half the room the budget leaves, so the new segment has room to grow):

    context = head + output.messages + output.carried turns + kept turns

- `digest` (default): deterministic, no model. The files changed since the base commit with
  their diff stat, every tool call so far with its exit code, and the last test results.
- `summarize`: a summarizer (the policy through an agent backend, or any callable) writes a
  summary of the dropped turns; its request and answer are recorded for training.
- `window`: keeps the older turns' assistant messages with their outputs masked, dropping
  the oldest turns entirely when even that does not fit.

    out = Digest()(inp)
    out = Summarize(lambda request: my_model(request))(inp)
    out = Window()(inp)
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

Message = dict[str, Any]
Block = tuple[int, list[Message]]  # (turn index, that turn's messages in the context)
Counter = Callable[[Sequence[Message]], int]

_MASKED = re.compile(r"^\[output of turn \d+ elided")
_DIFF_STAT = ("export GIT_INDEX_FILE=/tmp/.codegym-digest-index; rm -f $GIT_INDEX_FILE; "
              "git -c core.hooksPath=/dev/null -c core.fsmonitor=false add -A -- . "
              "':(exclude,glob)**/__pycache__/**' ':(exclude,glob)**/*.py[co]' >/dev/null 2>&1 && "
              "git -c core.quotepath=off diff --cached --stat=120 {base}; rc=$?; rm -f $GIT_INDEX_FILE; exit $rc")

SUMMARY_PROMPT = (
    "Your context window is full: the conversation above will be replaced by your summary of it. "
    "Write the summary you need to continue the task: what you learned about the repository, which "
    "files you changed and why, the commands and test results that matter, and what is left to do. "
    "Be specific (paths, names, error messages). Do not call any tools.")


@dataclass
class CompactionInput:
    """What a strategy sees.

    `limit` is the budget less the reserve for the next completion: no context (and no
    summary request) may exceed it. `target` is what a compacted context should stay within.
    """

    head: list[Message]
    prefix: list[Message]  # the previous compaction's messages (summary, digest or note), if any
    dropped: list[Block]  # turns leaving the context, oldest first
    kept: list[Block]  # the newest turns, staying verbatim
    limit: int
    target: int
    count: Counter
    env: Any = None  # the unwrapped `CodingEnv` (sandbox, task, history)
    turn_log: list[dict[str, Any]] = field(default_factory=list)  # one entry per turn so far

    def room(self, extra: Sequence[Message] = ()) -> int:
        """Tokens left within `target` for the strategy's messages besides head, kept turns and `extra`."""
        return self.target - self.count([*self.head, *extra, *flatten(self.kept)])

    def fits(self, messages: Sequence[Message], carried: Sequence[Block] = ()) -> bool:
        """Whether head + `messages` + `carried` + kept turns stay within `target`."""
        return self.count([*self.head, *messages, *flatten(carried), *flatten(self.kept)]) <= self.target


@dataclass
class CompactionOutput:
    messages: list[Message]
    carried: list[Block] = field(default_factory=list)  # older turns kept in a reduced form
    summary: str = ""
    details: dict[str, Any] = field(default_factory=dict)  # recorded in info["compaction"]


# ---- helpers -------------------------------------------------------------------------------

def flatten(blocks: Sequence[Block]) -> list[Message]:
    return [m for _, msgs in blocks for m in msgs]


def cap_text(text: str, max_chars: int) -> str:
    """Head and tail of `text` within about `max_chars`, saying how much was elided."""
    if len(text) <= max_chars:
        return text
    half = max(0, max_chars // 2)
    marker = f"[... {len(text) - 2 * half} characters elided ...]"
    return f"{text[:half]}\n{marker}\n{text[len(text) - half:]}" if half else marker


def shrink_to_fit(text: str, fits: Callable[[str], bool]) -> str:
    """The longest head-and-tail cut of `text` (see `cap_text`) for which `fits` holds."""
    if fits(text):
        return text
    lo, hi = 0, len(text)  # fits(cap_text(text, lo)) is assumed; hi does not fit
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(cap_text(text, mid)):
            lo = mid
        else:
            hi = mid
    return cap_text(text, lo)


def mask_block(block: Block) -> Block:
    """The turn with its observations (tool outputs, error messages) replaced by a marker."""
    turn, msgs = block
    return turn, [m if m.get("role") == "assistant" or _MASKED.match(str(m.get("content", "")))
                  else {**m, "content": f"[output of turn {turn} elided: {len(str(m.get('content', '')))} "
                                        "characters]"}
                  for m in msgs]


def turn_ranges(turns: Sequence[int]) -> str:
    """`[1, 2, 3, 5]` -> `'1-3, 5'`."""
    out: list[str] = []
    for t in sorted(turns):
        if out and int(out[-1].split("-")[-1]) == t - 1:
            out[-1] = f"{out[-1].split('-')[0]}-{t}"
        else:
            out.append(str(t))
    return ", ".join(out)


def _one_line(text: str, limit: int = 120) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe_call(entry: dict[str, Any]) -> str:
    """One line for a turn of the turn log: tool, exit code and the call's main argument."""
    if entry.get("parse_error"):
        return f"(malformed call: {_one_line(entry['parse_error'], 80)})"
    call = entry.get("tool_call") or {}
    name, args = call.get("name", "?"), call.get("arguments", {}) or {}
    code = entry.get("exit_code")
    status = f"exit {code}" if code is not None else "-"
    if name == "bash":
        what = args.get("command", "")
    elif name == "view":
        span = f" [{args.get('start_line', 1)}-{args.get('end_line', 'end')}]" if (
            "start_line" in args or "end_line" in args) else ""
        what = f"{args.get('path', '')}{span}"
    elif name in ("create", "str_replace"):
        what = args.get("path", "")
    elif name == "run_tests":
        what = " ".join(args.get("paths") or []) or "(all visible tests)"
    else:
        what = ""
    return f"{name:<11} {status:<8} {_one_line(what)}".rstrip()


def _is_test_run(entry: dict[str, Any]) -> bool:
    call = entry.get("tool_call") or {}
    if call.get("name") == "run_tests":
        return True
    return call.get("name") == "bash" and bool(re.search(r"\bpytest\b", call.get("arguments", {}).get("command", "")))


# ---- digest ----------------------------------------------------------------------------------

class Digest:
    """Deterministic digest of the work so far; no model involved.

    Args:
        max_calls: the newest tool calls listed (older ones are counted, not listed).
        test_tail_lines: lines kept from the end of the last test run's output.
    """

    name = "digest"
    keep_turns = 1

    def __init__(self, max_calls: int = 40, test_tail_lines: int = 20):
        self.max_calls, self.test_tail_lines = max_calls, test_tail_lines

    def __call__(self, inp: CompactionInput) -> CompactionOutput:
        text = self.render(inp)
        body = shrink_to_fit(text, lambda t: inp.fits([{"role": "user", "content": t}]))
        return CompactionOutput([{"role": "user", "content": body}], summary=body,
                                details={"digest_truncated": body != text})

    def render(self, inp: CompactionInput) -> str:
        kept = {t for t, _ in inp.kept}
        gone = [e for e in inp.turn_log if e["turn"] not in kept]
        lines = [f'<context_digest turns="{turn_ranges([e["turn"] for e in gone])}">',
                 "Earlier turns were compacted to fit the context window; the task above is unchanged.",
                 "", "Files changed since the start (git diff --stat against the base commit):",
                 self.diff_stat(inp.env), "", "Tool calls so far (turn, tool, exit code, argument):"]
        if len(gone) > self.max_calls:
            lines.append(f"  ({len(gone) - self.max_calls} earlier calls not listed)")
        lines += [f"  {e['turn']:>3}  {describe_call(e)}" for e in gone[-self.max_calls:]]
        lines += ["", *self.last_tests(inp, kept), "</context_digest>"]
        return "\n".join(lines)

    @staticmethod
    def diff_stat(env: Any) -> str:
        sandbox, task = getattr(env, "sandbox", None), getattr(env, "task", None)
        if sandbox is None or task is None:
            return "  (unavailable: no sandbox)"
        try:
            r = sandbox.exec(_DIFF_STAT.format(base=shlex.quote(task.base_commit)), timeout=60,
                             workdir=task.workdir)
        except Exception as exc:  # a broken sandbox must not break compaction
            return f"  (unavailable: {_one_line(exc, 200)})"
        if r.exit_code != 0:
            return f"  (unavailable: {_one_line(r.output, 200) or f'exit {r.exit_code}'})"
        return r.stdout.rstrip("\n") or "  (no changes)"

    def last_tests(self, inp: CompactionInput, kept: set[int]) -> list[str]:
        runs = [e for e in inp.turn_log if _is_test_run(e)]
        if not runs:
            return ["Last test results: no tests run yet."]
        last = runs[-1]
        head = f"Last test results (turn {last['turn']}: {' '.join(describe_call(last).split())}):"
        if last["turn"] in kept:
            return [head, "  (shown in full below)"]
        history = getattr(inp.env, "history", None) or []
        start, end = last.get("span", (0, 0))
        output = "\n".join(str(m.get("content", "")) for m in history[start:end] if m.get("role") != "assistant")
        tail = output.rstrip("\n").splitlines()[-self.test_tail_lines:]
        return [head, *tail]


# ---- summarize --------------------------------------------------------------------------------

class Summarize:
    """A summary of the dropped turns written by `summarizer` (e.g. the policy itself).

    `summarizer` is a callable `(messages) -> str` or an agent with `act(messages, info) -> str`.
    Its request is the context being compacted (older outputs masked, or oldest turns left out,
    until it fits the budget) plus `prompt`; the request and the answer go to
    `info["compaction"]` so the summary can be trained on. If the summarizer raises, the
    `fallback` strategy (a `Digest`) is used and the error recorded.
    """

    name = "summarize"
    keep_turns = 1

    def __init__(self, summarizer: Callable[[list[Message]], str] | Any, prompt: str = SUMMARY_PROMPT,
                 fallback: Callable[[CompactionInput], CompactionOutput] | None = None):
        if summarizer is None or not (callable(summarizer) or hasattr(summarizer, "act")):
            raise ValueError("strategy 'summarize' needs summarizer=<callable (messages) -> str, or an agent "
                             "with act(messages, info)>")
        self.summarizer, self.prompt = summarizer, prompt
        self.fallback = fallback or Digest()

    def request(self, inp: CompactionInput) -> tuple[list[Message], list[int], list[int]]:
        """(request messages, turns whose outputs were masked, turns left out) within `inp.limit`."""
        ask = {"role": "user", "content": self.prompt}
        prefix = list(inp.prefix)
        blocks = list(inp.dropped)
        masked: list[int] = []
        left_out: list[int] = []

        def size() -> int:
            return inp.count([*inp.head, *prefix, *flatten(blocks), ask])

        while size() > inp.limit and blocks:
            i = next((i for i, b in enumerate(blocks) if mask_block(b) != b), None)
            if i is None:
                left_out.append(blocks.pop(0)[0])
            else:
                blocks[i] = mask_block(blocks[i])
                masked.append(blocks[i][0])
        if size() > inp.limit and prefix:
            text = str(prefix[-1].get("content", ""))
            prefix[-1] = {**prefix[-1], "content": shrink_to_fit(text, lambda t: inp.count(
                [*inp.head, *prefix[:-1], {**prefix[-1], "content": t}, ask]) <= inp.limit)}
        return [*inp.head, *prefix, *flatten(blocks), ask], masked, left_out

    def __call__(self, inp: CompactionInput) -> CompactionOutput:
        if not inp.dropped:  # nothing new leaves: the previous summary (if any) still holds
            return CompactionOutput(list(inp.prefix), summary="".join(str(m.get("content", "")) for m in inp.prefix))
        request, masked, left_out = self.request(inp)
        details: dict[str, Any] = {"summary_request": request, "request_masked_turns": masked,
                                   "request_left_out_turns": left_out}
        try:
            if hasattr(self.summarizer, "act"):
                answer = self.summarizer.act(request, {"compaction_request": True})
            else:
                answer = self.summarizer(request)
            if not isinstance(answer, str):
                raise TypeError(f"the summarizer returned {type(answer).__name__}, not str")
        except Exception as exc:  # the rollout goes on with a digest instead
            out = self.fallback(inp)
            out.details.update(details, summary_error=f"{type(exc).__name__}: {exc}", summary_answer=None)
            return out
        kept = {t for t, _ in inp.kept}
        covered = [e["turn"] for e in inp.turn_log if e["turn"] not in kept] or [t for t, _ in inp.dropped]
        text = f'<summary turns="{turn_ranges(covered)}">\n{answer.strip()}\n</summary>'
        body = shrink_to_fit(text, lambda t: inp.fits([{"role": "user", "content": t}]))
        details.update(summary_answer=answer, summary_truncated=body != text)
        return CompactionOutput([{"role": "user", "content": body}], summary=body, details=details)


# ---- window -----------------------------------------------------------------------------------

class Window:
    """Keep the last K turns verbatim (the wrapper's `keep_turns`, default 4); older turns stay
    with their outputs masked, and the oldest go entirely when even that does not fit."""

    name = "window"
    keep_turns = 4

    def __call__(self, inp: CompactionInput) -> CompactionOutput:
        carried = [mask_block(b) for b in inp.dropped]
        first_kept = inp.kept[0][0] if inp.kept else None

        next_turn = inp.turn_log[-1]["turn"] + 1 if inp.turn_log else 1

        def note() -> list[Message]:
            first = carried[0][0] if carried else first_kept if first_kept is not None else next_turn
            if first <= 1:
                return []
            return [{"role": "user", "content": f"[Turns {turn_ranges(range(1, first))} were removed from "
                                                "the context to fit the context window; the task above is "
                                                "unchanged.]"}]

        while carried and not inp.fits(note(), carried):
            carried.pop(0)
        messages = note()
        return CompactionOutput(messages, carried=carried, summary=messages[0]["content"] if messages else "",
                                details={"masked_turns": [t for t, _ in carried]})


STRATEGIES: dict[str, type] = {"digest": Digest, "summarize": Summarize, "window": Window}


def get_strategy(strategy: str | Callable[[CompactionInput], CompactionOutput],
                 summarizer: Any = None) -> Callable[[CompactionInput], CompactionOutput]:
    """A strategy by name ('digest', 'summarize', 'window') or your own callable."""
    if callable(strategy) and not isinstance(strategy, str):
        return strategy
    if strategy == "summarize":
        return Summarize(summarizer)
    if strategy in STRATEGIES:
        return STRATEGIES[strategy]()
    raise ValueError(f"unknown compaction strategy {strategy!r}; use one of {', '.join(STRATEGIES)} "
                     "or a callable (CompactionInput) -> CompactionOutput")
