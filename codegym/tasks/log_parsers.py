"""Per-test outcomes from the log of a task's own test command (`Task.test_cmd`), for suites
pytest cannot run. pytest suites use codegym's streaming runner instead (`grade_runner`).

    outcomes = LOG_PARSERS["unittest"](log, ["test_add (tests.test_calc.TestCalc)"])

A log is text the graded code can also print to, so these grades are weaker than the streamed
ones: a line that appears twice with different outcomes keeps the worst, and an id the log
never names is `missing`.

- `unittest`: unittest's and Django's verbose lines, `test_add (tests.test_calc.TestCalc) ... ok`
  (Django also writes `test_add (tests.test_calc.TestCalc.test_add)`), with `ok`, `FAIL`,
  `ERROR`, `skipped ...`, `expected failure`, `unexpected success`.
- `passfail`: lines `PASSED <id>`, `FAILED <id>`, `ERROR <id>`, `SKIPPED <id>` (any order of
  the two words, `:` after the status allowed).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from codegym.tasks.grade_stream import SEVERITY, Outcome

_UNITTEST = re.compile(r"^(?P<name>\w+) \((?P<where>[\w.]+)\)(?: \.\.\.|\n)?\s*(?P<status>.*)$")
_UNITTEST_STATUS = {"ok": "passed", "fail": "failed", "error": "error", "skipped": "skipped",
                    "expected failure": "skipped", "unexpected success": "failed"}
_PASSFAIL = re.compile(r"^\s*(?:(?P<s1>PASSED|FAILED|ERROR|SKIPPED):?\s+(?P<id1>\S.*?)|"
                       r"(?P<id2>\S.*?)\s+(?P<s2>PASSED|FAILED|ERROR|SKIPPED))\s*$")
_PASSFAIL_STATUS = {"PASSED": "passed", "FAILED": "failed", "ERROR": "error", "SKIPPED": "skipped"}


def _keep_worst(found: dict[str, Outcome], key: str, outcome: Outcome) -> None:
    if key not in found or SEVERITY[outcome] > SEVERITY[found[key]]:
        found[key] = outcome


def _unittest_id(name: str, where: str) -> str:
    # Django names the method again at the end: `test_x (pkg.mod.Class.test_x)`.
    if where.endswith("." + name):
        where = where[: -len(name) - 1]
    return f"{name} ({where})"


def parse_unittest(log: str, wanted: Iterable[str]) -> dict[str, Outcome]:
    found: dict[str, Outcome] = {}
    for line in log.splitlines():
        m = _UNITTEST.match(line.strip())
        if not m:
            continue
        status = m.group("status").strip().lower()
        outcome = next((o for key, o in _UNITTEST_STATUS.items() if status.startswith(key)), None)
        if outcome is not None:
            _keep_worst(found, _unittest_id(m.group("name"), m.group("where")), outcome)
    return {w: found.get(_normalize_unittest(w), "missing") for w in wanted}


def _normalize_unittest(node_id: str) -> str:
    m = re.match(r"^(\w+) \(([\w.]+)\)$", node_id.strip())
    return _unittest_id(m.group(1), m.group(2)) if m else node_id


def parse_passfail(log: str, wanted: Iterable[str]) -> dict[str, Outcome]:
    found: dict[str, Outcome] = {}
    for line in log.splitlines():
        m = _PASSFAIL.match(line)
        if m:
            status, test_id = (m.group("s1"), m.group("id1")) if m.group("s1") else (m.group("s2"), m.group("id2"))
            _keep_worst(found, test_id.strip(), _PASSFAIL_STATUS[status])  # type: ignore[arg-type]
    return {w: found.get(w, "missing") for w in wanted}


LOG_PARSERS: dict[str, Callable[[str, Iterable[str]], dict[str, Outcome]]] = {
    "unittest": parse_unittest,
    "passfail": parse_passfail,
}
