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
- `harbor`: a Harbor task's reward (`codegym.tasks.harbor_foreign`): the last
  `codegym-harbor-result rc=.. threshold=.. txt=<base64|-> json=<base64|->` line, which its
  test_cmd prints after test.sh, holds /logs/verifier/reward.txt (or reward.json's `reward`, or
  its one number); every wanted id is `passed` when reward >= threshold, else `failed`. No
  reward file, or one that is not a finite number, raises `GradingError` (the verifier, not the
  submission, failed: masked), except after test.sh timed out (exit 124: `failed`); no result
  line at all (the graded code ended the run) is `error`.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
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


_HARBOR = re.compile(
    r"^codegym-harbor-result rc=(?P<rc>-?\d+) threshold=(?P<threshold>\S+) "
    r"txt=(?P<txt>[A-Za-z0-9+/=]*|-) json=(?P<json>[A-Za-z0-9+/=]*|-)$"
)


def harbor_reward(txt: str | None, data: str | None) -> float:
    """The reward of reward.txt's text (preferred) or reward.json's; ValueError when neither is a
    finite number (`{"reward": x}`, or a JSON object holding exactly one number)."""
    if txt is not None:
        value = float(txt.strip())  # ValueError for anything but a number
    elif data is not None:
        obj = json.loads(data)
        if isinstance(obj, dict) and "reward" in obj:
            value = obj["reward"]
        elif isinstance(obj, dict) and len(obj) == 1:
            (value,) = obj.values()
        else:
            value = obj
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"reward.json holds no reward number: {data.strip()[:200]!r}")
    else:
        raise ValueError("test.sh wrote neither /logs/verifier/reward.txt nor reward.json")
    if not math.isfinite(value):
        raise ValueError(f"the reward is {value}")
    return float(value)


def parse_harbor(log: str, wanted: Iterable[str]) -> dict[str, Outcome]:
    from codegym.tasks.grading import GradingError

    wanted = list(wanted)
    found = [m for m in map(_HARBOR.match, log.splitlines()) if m]
    if not found:
        return dict.fromkeys(wanted, "error")
    m = found[-1]

    def text(field: str) -> str | None:
        raw = m.group(field)
        return None if raw == "-" else base64.b64decode(raw).decode("utf-8", errors="replace")

    try:
        reward = harbor_reward(text("txt"), text("json"))
    except (ValueError, binascii.Error) as e:
        if m.group("rc") == "124":  # test.sh ran out of time: the graded code's doing
            return dict.fromkeys(wanted, "failed")
        raise GradingError(
            f"the Harbor verifier gave no usable reward ({e}; test.sh exit {m.group('rc')}): "
            f"the environment or the task is broken, not the submission. {log[-600:]}"
        ) from None
    outcome: Outcome = "passed" if reward >= float(m.group("threshold")) else "failed"
    return dict.fromkeys(wanted, outcome)


LOG_PARSERS: dict[str, Callable[[str, Iterable[str]], dict[str, Outcome]]] = {
    "unittest": parse_unittest,
    "passfail": parse_passfail,
    "harbor": parse_harbor,
}
