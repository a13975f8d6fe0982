"""`codegym.tasks.mutate`: the operators, the miner's keep rule, the orphan repositories, the
statements and `codegym tasks mutate`, on real git, the real Docker sandbox and real pytest."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from codegym.tasks.mutate.operators import OPERATORS, Mutation, MutationError, find_sites
from codegym.tasks.mutate.sources import directory_tree
from codegym.tasks.mutate.statement import problem_statement, statement_leaks


def _mutate(operator: str, source: str, seed: int = 0) -> list[Mutation]:
    sites = [s for s in find_sites("m.py", source) if s.operator == operator]
    return [m for s in sites if (m := s.mutation(source, random.Random(seed)))]


@pytest.mark.parametrize(
    ("operator", "source", "expected"),
    [
        ("flip_comparison", "def f(a, b):\n    return a < b\n", "    return a <= b"),
        ("flip_comparison", "ok = x >= 1\n", "ok = x > 1"),
        ("flip_comparison", "ok = x is not None\n", "ok = x is None"),
        ("flip_comparison", "ok = k not in d\n", "ok = k in d"),
        ("swap_arithmetic", "y = a + b\n", "y = a - b"),
        ("swap_arithmetic", "y = a * b\n", "y = a // b"),
        ("boolean_operator", "ok = a and b\n", "ok = a or b"),
        ("wrong_constant", "flag = True\n", "flag = False"),
        ("wrong_constant", "sep = ','\n", 'sep = ""'),
        ("wrong_constant", "v = None\n", "v = 0"),
        ("invert_condition", "if x > 0:\n    y = 1\n", "if not (x > 0):"),
        ("invert_condition", "while not done:\n    step()\n", "while done:"),
        ("invert_condition", "y = a if c else b\n", "y = a if not (c) else b"),
        ("drop_statement", "def f(xs):\n    total = 0\n    total += 1\n    return total\n", "    pass"),
        ("swap_arguments", "z = f(a, b, c)\n", "z = f(b, a, c)"),
    ],
)
def test_each_operator_makes_its_documented_one_line_change(operator, source, expected):
    mutations = _mutate(operator, source)
    assert expected in [m.after for m in mutations]
    for m in mutations:
        before, after = source.splitlines(), m.apply(source).splitlines()
        changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
        assert changed == [m.line - 1] and before[m.line - 1] == m.before and after[m.line - 1] == m.after


def test_off_by_one_moves_an_integer_by_one_either_way_by_seed():
    afters = {m.after for seed in range(20) for m in _mutate("off_by_one", "x = items[3]\n", seed)}
    assert afters == {"x = items[2]", "x = items[4]"}
    assert {m.after for m in _mutate("off_by_one", "x = items[0]\n")} == {"x = items[1]"}


def test_operators_leave_docstrings_bools_in_identity_tests_and_multiline_nodes_alone():
    source = (
        '"""Doc."""\n\n\ndef f(a):\n    """Return a."""\n    if a is None:\n        return 1\n'
        "    return g(a,\n             2)\n"
    )
    mutations = [m for op in OPERATORS for m in _mutate(op, source)]
    assert all('"""' not in m.before for m in mutations)
    assert "    if a is 0:" not in [m.after for m in mutations]
    assert not [m for m in mutations if m.operator == "swap_arguments"]  # g(a, 2) spans two lines


def test_a_mutation_refuses_a_source_it_was_not_made_for():
    m = _mutate("swap_arithmetic", "y = a + b\n")[0]
    assert Mutation.from_dict(m.to_dict()) == m
    with pytest.raises(MutationError, match="the line is not"):
        m.apply("y = a * b\n")


def test_statement_names_tests_and_messages_and_hides_the_mutated_line():
    hide = ["    return a - b", "    return a + b"]
    text = problem_statement(
        "calc", {"tests/test_calc.py::test_add": "assert -1 == 5\nin add: return a - b"}, hide
    )
    assert "tests/test_calc.py::test_add" in text and "assert -1 == 5" in text
    assert statement_leaks(text, hide) == [] and "return a" not in text


# ---- the miner on a small real project, in the real sandbox ----------------------------------------

CALC = '''"""A tiny library for the miner's tests."""

LIMIT = 3


def add(a, b):
    return a + b


def is_positive(x):
    return x > 0


def clamp(x):
    return min(x, LIMIT)
'''
HELPER = "FLAG = True\nif FLAG:\n    VALUE = 7\n"
TEST_CALC = """import pytest

from calc import add, clamp, is_positive


def test_add():
    assert add(2, 3) == 5


def test_is_positive():
    assert is_positive(1)


def test_zero_is_not_positive():
    assert not is_positive(0)


@pytest.mark.parametrize("x", range(10))
def test_clamp(x):
    assert clamp(x) == min(x, 3)
"""
TEST_HELPER = "from helper import VALUE\n\n\ndef test_value():\n    assert VALUE == 7\n"


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("calcproj")
    files = {
        "calc.py": CALC,
        "helper.py": HELPER,
        "tests/test_calc.py": TEST_CALC,
        "tests/test_helper.py": TEST_HELPER,
        "conftest.py": "",
        "setup.py": "X = 1 + 2\n",
    }
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


@pytest.fixture(scope="module")
def mined(project, pool, tmp_path_factory, codegym_cache):
    from codegym.tasks.mutate.miner import mine

    lines: list[str] = []
    report = mine(
        directory_tree(project, name="calc", version="1.0"),
        tmp_path_factory.mktemp("mined"),
        pool,
        max_tasks=100,
        seed=0,
        max_broken=5,
        log=lines.append,
    )
    return report, lines


def _tried(report, path: str, before: str, after: str):
    found = [
        t
        for t in report.tried
        if t.mutation.path == path
        and t.mutation.before.strip() == before
        and t.mutation.after.strip() == after
    ]
    assert len(found) == 1, [(t.mutation.before, t.mutation.after) for t in report.tried]
    return found[0]


def test_a_mutant_is_kept_only_when_one_to_k_tests_break_and_the_suite_collects(mined):
    report, lines = mined
    assert len(report.baseline) == 14 and len(report.tried) == report.candidates
    assert not any(t.mutation.path == "setup.py" for t in report.tried)  # packaging is not mutated
    for t in report.tried:  # the rule, on every mutant tried
        collects = "suite broken" not in t.verdict and "no longer collects" not in t.verdict
        assert t.kept == (collects and 1 <= len(t.broken) <= 5 and "dropped" not in t.verdict), t
    add = _tried(report, "calc.py", "return a + b", "return a - b")
    assert add.kept and add.broken == ["tests/test_calc.py::test_add"]
    zero = _tried(report, "calc.py", "return x > 0", "return x >= 0")
    assert zero.kept and zero.broken == ["tests/test_calc.py::test_zero_is_not_positive"]
    assert not _tried(report, "calc.py", "return min(x, LIMIT)", "return min(LIMIT, x)").broken  # survives
    limit = _tried(report, "calc.py", "LIMIT = 3", "pass")
    assert len(limit.broken) == 10 and not limit.kept and "too many" in limit.verdict
    # helper's VALUE undefined: one test breaks, but its module no longer collects
    value = _tried(report, "helper.py", "VALUE = 7", "pass")
    assert value.broken == ["tests/test_helper.py::test_value"] and not value.kept
    assert "the suite no longer collects (1 test(s) lost)" in value.verdict
    assert len(lines) == len(report.tried) + 2 and lines[-1] == report.summary()
    assert f"yield {len(report.tasks) / len(report.tried):.2f}" in lines[-1]


def test_mined_repositories_hold_only_the_mutated_code(mined):
    from codegym.tasks.workspace import workspace_archive

    report, _ = mined
    assert report.tasks
    for task in report.tasks:
        git = ["git", "--git-dir", task.repo]
        assert subprocess.run([*git, "rev-list", "--all"], capture_output=True, text=True).stdout.split() == [
            task.base_commit
        ]
        assert subprocess.run(
            [*git, "rev-list", "--parents", "-1", task.base_commit], capture_output=True, text=True
        ).stdout.split() == [task.base_commit]  # an orphan
        assert (
            subprocess.run([*git, "for-each-ref"], capture_output=True, text=True).stdout.split()[-1]
            == "refs/heads/main"
        )
        mutation = task.metadata["mutation"]
        pristine = (CALC if mutation["path"] == "calc.py" else HELPER).encode()
        blob = subprocess.run(
            ["git", "hash-object", "--stdin"], input=pristine, capture_output=True
        ).stdout.strip()
        assert (
            subprocess.run([*git, "cat-file", "-e", blob.decode()]).returncode != 0
        )  # pristine file: nowhere
        assert workspace_archive(task).exists()
        assert task.upstream_refs == ("calc==1.0", "1.0")
        assert set(task.protected_paths) == {f.split("::")[0] for f in task.FAIL_TO_PASS}


def test_fail_to_pass_fails_at_base_and_passes_with_the_fix_when_graded(mined, pool):
    from codegym.envs.grader import SandboxGrader

    report, _ = mined
    grader = SandboxGrader(pool)
    for task in report.tasks[:2]:
        empty, fixed = grader.grade(task, "").result, grader.grade(task, task.patch).result
        assert empty.f2p_passed == 0 and empty.p2p_passed == len(task.PASS_TO_PASS) and not empty.resolved
        assert fixed.resolved, fixed.outcomes


def test_statements_quote_the_failures_not_the_mutation(mined):
    report, _ = mined
    for task in report.tasks:
        mutation = task.metadata["mutation"]
        assert mutation["before"].strip() not in task.problem_statement
        assert mutation["after"].strip() not in task.problem_statement
        assert all(f in task.problem_statement for f in task.FAIL_TO_PASS)
        assert mutation["operator"] not in task.problem_statement


def test_the_miner_is_deterministic_given_the_seed(project):
    from codegym.tasks.mutate.miner import candidate_mutations

    tree = directory_tree(project, name="calc", version="1.0")
    assert candidate_mutations(tree, 3) == candidate_mutations(tree, 3)
    assert candidate_mutations(tree, 3) != candidate_mutations(tree, 4)


def test_cli_mines_a_directory_into_a_loadable_task_file(project, tmp_path, codegym_cache):
    from codegym.tasks.loader import load_tasks

    out = tmp_path / "out"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "codegym.tasks",
            "mutate",
            str(project),
            "--out",
            str(out),
            "--max-tasks",
            "1",
            "--seed",
            "0",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "CODEGYM_CACHE": str(codegym_cache)},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "-> kept" in proc.stdout and "task(s) from" in proc.stdout and "yield" in proc.stdout
    tasks = load_tasks(str(out / "tasks.jsonl"), strict=True)
    rows = [json.loads(line) for line in (out / "mined.jsonl").read_text().splitlines()]
    assert len(tasks) == len(rows) == 1 and rows[0]["patch"] == tasks[0].patch
    bad = subprocess.run(
        [sys.executable, "-m", "codegym.tasks", "mutate", "--pypi", "toolz", "--out", str(tmp_path / "x")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and "expected NAME==VERSION" in bad.stderr
