"""A mined task's problem statement: the failing tests and what they report, never the fix.

The statement names the failing tests and quotes their assertion messages (at most a few
lines each). It says nothing about where the mutation is or what it did: any message line
that contains the mutated line or the original line (a traceback can quote source) is left
out, and `statement_leaks` checks the finished text.

    text = problem_statement("toolz", {"toolz/tests/test_x.py::test_y": "assert 1 == 2"},
                             hide=["return a < b", "return a <= b"])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

MAX_TESTS = 3
MAX_LINES = 6
MAX_CHARS = 400


def _clean(message: str, hide: list[str]) -> str:
    lines = [ln.rstrip() for ln in message.strip().splitlines() if ln.strip()]
    lines = [ln for ln in lines if not any(h in ln for h in hide)][:MAX_LINES]
    text = "\n".join(lines)
    return text[:MAX_CHARS] + (" ..." if len(text) > MAX_CHARS else "")


#: lines too common to give anything away (a dropped statement reads `pass`)
_COMMON = {"pass", "return", "break", "continue", "else:", "try:", "finally:"}


def _hidden(hide: Iterable[str]) -> list[str]:
    return [h.strip() for h in hide if len(h.strip()) >= 4 and h.strip() not in _COMMON]


def problem_statement(project: str, failures: Mapping[str, str], hide: Iterable[str] = ()) -> str:
    """The statement for tests `failures` (node id -> message) of `project` that now fail."""
    hide = _hidden(hide)
    n = len(failures)
    head = (
        f"{n} tests of the `{project}` test suite fail; they passed before"
        if n != 1
        else f"1 test of the `{project}` test suite fails; it passed before"
    ) + ", and the rest of the suite still passes."
    parts = [head, ""]
    for node_id, message in list(failures.items())[:MAX_TESTS]:
        parts.append(f"- `{node_id}`")
        text = _clean(message, hide)
        if text:
            parts += ["", "  ```", *(f"  {ln}" for ln in text.splitlines()), "  ```", ""]
    if n > MAX_TESTS:
        parts.append(f"- and {n - MAX_TESTS} more")
    parts += [
        "",
        f"Find the bug in `{project}`'s source code (not in its tests) and fix it, so that these tests "
        "pass and every other test keeps passing.",
    ]
    return "\n".join(parts).rstrip() + "\n"


def statement_leaks(statement: str, hide: Iterable[str]) -> list[str]:
    """The hidden texts (mutated and original lines) that appear in `statement`."""
    return [h for h in _hidden(hide) if h in statement]
