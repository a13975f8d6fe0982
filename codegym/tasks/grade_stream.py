"""The collector: per-test outcomes from the graded run's event stream, checked for consistency.

The runner (`codegym.tasks.grade_runner`) writes one JSON event per line to a private
channel; this module reads that channel on the host, outside the sandbox, so nothing the
graded code does after an event was sent can change it. The stream must follow

    hello  collected(ids)  [collect_error]*  (start(id) phase(id)+ end(id))*  finish

with the run's nonce on every line. Anything else (a line that is not an event, a wrong
nonce, an event out of order, a test started twice or never collected, anything after
`finish`) makes the whole stream inconsistent: every test is then an `error`. A stream that
stops before `finish` (the process died or exited early) leaves the unfinished tests
`missing`. A lone `usage_error` event means pytest refused the task's own configuration
before anything ran (an environment failure). Nothing is ever a pass by default.

    outcomes, status = collect(stdout, nonce, wanted_ids)
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

Outcome = Literal["passed", "failed", "error", "skipped", "missing"]
SEVERITY = {"passed": 0, "skipped": 1, "missing": 2, "failed": 3, "error": 4}


class StreamError(ValueError):
    """The event stream broke its grammar."""


@dataclass
class _Test:
    phases: list[dict] = field(default_factory=list)
    ended: bool = False

    def outcome(self) -> Outcome:
        if not self.ended:
            return "missing"
        if any(p.get("tampered") for p in self.phases):
            return "failed"
        if any(p.get("skip") for p in self.phases):
            return "skipped"
        by_when = {p["when"]: p for p in self.phases}
        for when in ("setup", "teardown"):
            if by_when.get(when, {}).get("exc"):
                return "error"
        call = by_when.get("call")
        if call is None:
            return "error"
        return "failed" if call.get("exc") else "passed"


@dataclass
class StreamReport:
    """What one graded run reported: per collected id, and what the stream looked like."""

    tests: dict[str, _Test] = field(default_factory=dict)
    collected: list[str] | None = None
    collect_errors: list[str] = field(default_factory=list)
    started: bool = False
    finished: bool = False
    exitstatus: int | None = None
    tampering: list[str] = field(default_factory=list)
    usage_error: bool = False


def parse_stream(text: str, nonce: str) -> StreamReport:
    """Replay the events; raises `StreamError` on the first violation of the grammar."""
    rep = StreamReport()
    current: str | None = None
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            ev = json.loads(line)
        except ValueError:
            raise StreamError(f"line {lineno} is not an event") from None
        if not isinstance(ev, dict) or ev.get("n") != nonce:
            raise StreamError(f"line {lineno} lacks the run's nonce")
        kind = ev.get("e")
        if rep.finished:
            raise StreamError(f"{kind!r} after finish")
        if kind == "usage_error" and not rep.started and not rep.usage_error:
            rep.usage_error = True  # pytest refused the task's configuration: nothing ran
            continue
        if rep.usage_error:
            raise StreamError(f"{kind!r} after a usage error")
        if kind == "hello":
            if rep.started:
                raise StreamError("hello twice")
            rep.started = True
            continue
        if not rep.started:
            raise StreamError(f"{kind!r} before hello")
        if kind == "collect_error":
            rep.collect_errors.append(str(ev.get("path", "")))
        elif kind == "collected":
            if rep.collected is not None:
                raise StreamError("collected twice")
            ids = ev.get("ids")
            if not isinstance(ids, list) or len(set(ids)) != len(ids):
                raise StreamError("malformed collected list")
            rep.collected = [str(i) for i in ids]
        elif kind == "start":
            tid = ev.get("id")
            if current is not None or rep.collected is None or tid not in rep.collected or tid in rep.tests:
                raise StreamError(f"unexpected start of {tid!r}")
            rep.tests[tid] = _Test()
            current = tid
        elif kind == "phase":
            if current is None or ev.get("id") != current or ev.get("when") not in ("setup", "call", "teardown"):
                raise StreamError(f"unexpected phase event for {ev.get('id')!r}")
            if any(p["when"] == ev["when"] for p in rep.tests[current].phases):
                raise StreamError(f"phase {ev['when']} of {current!r} twice")
            rep.tests[current].phases.append(ev)
            if ev.get("tampered"):
                rep.tampering.append(f"{current}: {ev['tampered']}")
        elif kind == "end":
            if current is None or ev.get("id") != current:
                raise StreamError(f"unexpected end of {ev.get('id')!r}")
            rep.tests[current].ended = True
            current = None
        elif kind == "finish":
            if current is not None:
                raise StreamError(f"finish while {current!r} runs")
            rep.finished = True
            rep.exitstatus = ev.get("exitstatus")
        else:
            raise StreamError(f"unknown event {kind!r}")
    return rep


def _selectors(collected_id: str) -> set[str]:
    """Every wanted id that selects `collected_id`: itself, and each prefix of it that ends right
    before a `[` or a `::` (its function without parameters, its class, its file)."""
    keys = {collected_id}
    for sep in ("[", "::"):
        at = collected_id.find(sep)
        while at != -1:
            keys.add(collected_id[:at])
            at = collected_id.find(sep, at + 1)
    return keys


def collect(text: str, nonce: str, wanted: Iterable[str]) -> tuple[dict[str, Outcome], dict[str, str]]:
    """Outcomes for exactly the `wanted` ids, and status notes (`stream`, `pytest_exit`,
    `tampering`, and `uncollected`: a JSON list of the wanted ids that select no collected test,
    when there are any). A wanted id stands for every collected test it selects (a parametrized
    function, a class, a file): the worst of their outcomes."""
    wanted = list(wanted)
    try:
        rep = parse_stream(text, nonce)
    except StreamError as exc:
        return dict.fromkeys(wanted, "error"), {"stream": f"inconsistent: {exc}"}
    if rep.usage_error:
        return dict.fromkeys(wanted, "missing"), {"stream": "usage_error"}
    status = {"stream": "complete" if rep.finished else ("empty" if not rep.started else "incomplete")}
    if rep.exitstatus is not None:
        status["pytest_exit"] = str(rep.exitstatus)
    if rep.tampering:
        status["tampering"] = "; ".join(rep.tampering)
    outcomes: dict[str, Outcome] = {}
    selected: dict[str, list[Outcome]] = {}
    for c in rep.collected or []:
        outcome = rep.tests[c].outcome() if c in rep.tests else "missing"
        for key in _selectors(c):
            selected.setdefault(key, []).append(outcome)
    for wid in wanted:
        found = selected.get(wid)
        if found:
            outcomes[wid] = max(found, key=SEVERITY.__getitem__)
        elif any(wid.split("::", 1)[0] == err.split("::", 1)[0] for err in rep.collect_errors):
            outcomes[wid] = "error"
        else:
            outcomes[wid] = "missing"
    uncollected = [wid for wid in wanted if not selected.get(wid)]
    if uncollected:
        status["uncollected"] = json.dumps(uncollected)
    return outcomes, status
