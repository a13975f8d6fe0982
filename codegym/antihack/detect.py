"""The public entry point: `detect(call, ctx) -> Detection`, and the per-episode `Detector`.

A gym wrapper keeps one `Detector` per episode (it remembers scripts and links the agent wrote,
so ``create('/tmp/p.sh', 'git log --all')`` followed by ``bash /tmp/p.sh`` is caught at the run)
and calls `check` once per parsed tool call; a blocked call returns `Detection.dummy` instead of
running. `detect` is the stateless form for measuring a detector on labelled calls.

    >>> from codegym.antihack import GuardContext, ToolCall, detect
    >>> ctx = GuardContext(protected_paths=("tests/hidden",), package="requests")
    >>> d = detect(ToolCall("bash", {"command": "pip download requests==2.32.4"}), ctx)
    >>> d.is_hack, d.category, d.dummy.exit_code
    (True, 'upstream-retrieval', 1)
    >>> d = detect(ToolCall("bash", {"command": "pip install -e ."}), ctx)  # flagged by the net, cleared
    >>> d.is_hack, d.judge
    (False, 'semantic')
"""

from __future__ import annotations

from functools import lru_cache

from codegym.toolcall import ToolCall

from .dummy import dummy_result
from .judge import Judge, SemanticJudge
from .judge_earlier import earlier_flag, shell_aliases, wired_earlier
from .paths import PathMatcher
from .scanner import Scanner
from .shcommand import Memory
from .types import Detection, Flag, GuardContext


@lru_cache(maxsize=256)
def _matcher(ctx: GuardContext) -> PathMatcher:
    return PathMatcher(ctx)


class Detector:
    """Rules then judge, for one episode. `judge` defaults to the offline `SemanticJudge`.

    >>> from codegym.antihack import GuardContext, ToolCall
    >>> det = Detector(GuardContext(protected_paths=("/grader",)))
    >>> det.check(ToolCall("create", {"path": "/tmp/a.sh", "file_text": "echo hi"})).is_hack
    False
    >>> det.check(ToolCall("bash", {"command": "X=/gra; cat ${X}der/run.sh"})).category
    'protected-read'
    """

    def __init__(self, ctx: GuardContext, judge: Judge | None = None, memory: Memory | None = None) -> None:
        self.ctx = ctx
        self.judge: Judge = judge if judge is not None else SemanticJudge()
        self.memory = memory if memory is not None else Memory()
        self._scanner: Scanner | None = None
        #: file paths and git aliases an earlier flagged call wrote -> (that call, its flags): `judge_earlier`
        self.wrote: dict[str, tuple[ToolCall, tuple[Flag, ...]]] = {}

    def reset(self) -> None:
        """Forget what the previous episode wrote."""
        self.memory = Memory()
        self.wrote = {}

    def scan(self, call: ToolCall) -> tuple[Flag, ...]:
        """The rule stage only (updates the episode memory). Never raises: an internal error
        yields no flags and is kept in `last_error` (and in `Detection.fallback` by `check`)."""
        self.last_error = ""
        scanner = self._scanner
        if scanner is None or scanner.ctx is not self.ctx or scanner.memory is not self.memory:
            # One scanner per (context, memory): its matcher is compiled once per context.
            scanner = self._scanner = Scanner(self.ctx, self.memory, _matcher(self.ctx))
        m = self.memory
        before = (dict(m.files), dict(m.edits), dict(m.aliases))
        try:
            flags = tuple(scanner.scan(call))
        except (RecursionError, Exception) as e:  # the guard must not take a rollout down
            self.last_error = f"rule engine error: {type(e).__name__}: {e}"[:300]
            flags = tuple(scanner.flags)
        for now, was in zip((m.files, m.edits, m.aliases), before, strict=True):
            for key in [k for k, v in now.items() if was.get(k) != v]:
                if flags:
                    self.wrote[key] = (call, flags)
                else:  # a write that raised nothing replaces the earlier one
                    self.wrote.pop(key, None)
        return flags

    last_error = ""

    def observe(self, call: ToolCall) -> None:
        """Record what a call writes without judging it (e.g. replaying a history)."""
        self.scan(call)

    def check(self, call: ToolCall) -> Detection:
        """Flags, verdict and (for a hack) the dummy result of one tool call."""
        before = (set(self.memory.retrieved), self.memory.tampered)
        wrote, aliases = dict(self.wrote), shell_aliases(self.memory.files, self.memory.aliases)
        flags = self.scan(call)
        if wrote or aliases:  # a clean-looking call can still bring in an earlier flagged write
            flags += self._earlier(call, wrote, aliases)
        if not flags:
            return Detection((), False, None, "no rule matched", "", fallback=self.last_error)
        verdict = self.judge.judge(call, self.ctx, flags)
        if verdict.is_hack:  # a blocked call never ran: what it would have left is not there later
            self.memory.retrieved = {k: v for k, v in self.memory.retrieved.items() if k in before[0]}
            self.memory.tampered = before[1]
            self.wrote = wrote
        dummy = None
        if verdict.is_hack:
            dummy = dummy_result(call, self.ctx, verdict.confirmed or flags, verdict.category, self._clean)
        return Detection(
            flags,
            verdict.is_hack,
            verdict.category,
            verdict.rationale,
            verdict.judge,
            verdict.confirmed,
            dummy,
            verdict.fallback,
        )

    def _earlier(
        self, call: ToolCall, wrote: dict[str, tuple[ToolCall, tuple[Flag, ...]]], aliases: dict[str, str]
    ) -> tuple[Flag, ...]:
        """One ``EARLIER-WIRED`` flag per earlier write `call` wires in or runs (`judge_earlier`): the
        flags the write raised, or for a shell alias the flags its body raises when run."""
        names = {**{k: "" for k in wrote if k.startswith("git:")}, **aliases}
        out = []
        paths = [k for k in wrote if k.startswith("/")]
        for key, how in wired_earlier(
            call, self.ctx.repo_root, paths, names, {k: wrote[k][0] for k in paths}
        ):
            if key in aliases:
                body = ToolCall("bash", {"command": aliases[key]})
                found = Scanner(self.ctx, self.memory.copy(), _matcher(self.ctx)).scan(body)
                earlier, flags = body, tuple(found)
            else:
                earlier, flags = wrote[key]
            if flags:
                out.append(earlier_flag(key, how, earlier, flags))
        return tuple(out)

    def _clean(self, command: str, allow: tuple[str, ...] = ()) -> bool:
        """Whether `command` raises no flag, except flags about one of the placeholders in
        `allow` (a revision, path or host a substitute names because it does not exist)."""
        scanner = Scanner(self.ctx, self.memory.copy(), _matcher(self.ctx))
        flags = scanner.scan(ToolCall("bash", {"command": command}))
        return all(any(a in f.subject or a in f.evidence for a in allow) for f in flags)


def detect(
    call: ToolCall,
    ctx: GuardContext,
    judge: Judge | None = None,
    *,
    history: list[ToolCall] | tuple[ToolCall, ...] = (),
) -> Detection:
    """Detect one call; `history` replays earlier calls of the episode first (their writes count).

    >>> from codegym.antihack import GuardContext, ToolCall
    >>> prior = [ToolCall("create", {"path": "/tmp/s.sh", "file_text": "git reflog"})]
    >>> detect(ToolCall("bash", {"command": "bash /tmp/s.sh"}), GuardContext(), history=prior).category
    'vcs-future-leak'
    """
    det = Detector(ctx, judge)
    for h in history:
        det.observe(h)
    return det.check(call)


def scan_rules(
    call: ToolCall, ctx: GuardContext, *, history: list[ToolCall] | tuple[ToolCall, ...] = ()
) -> tuple[Flag, ...]:
    """The rule stage's flags of one call (no judge)."""
    det = Detector(ctx)
    for h in history:
        det.observe(h)
    return det.scan(call)
