"""What every generated suite shares: a task's history, turned into a repository and a `Task`.

A generator describes each task as a `TaskSpec`: the commits up to the base (the last one is
the base), the upstream fix commit (tagged), commits after it, and which of the fix's files
are source (the reference `patch`) and which are tests (the `test_patch`). `build_task`
writes the repository and derives the rest: the diffs, the node ids (read with `ast`), the
upstream refs and the protected paths.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegym.antihack.paths import is_test_path
from codegym.tasks.gitrepo import Commit, build_repo, tree_diff
from codegym.tasks.task import Task

GITIGNORE = "__pycache__/\n*.py[co]\n.pytest_cache/\n*.egg-info/\nbuild/\ndist/\n"
ROOT_CONFTEST = '"""Lets the tests import the modules at the repository root, however pytest is run."""\n'


def dedent(text: str) -> str:
    """`textwrap.dedent` without the first newline, ending in exactly one newline."""
    return textwrap.dedent(text).lstrip("\n").rstrip() + "\n"


@dataclass
class TaskSpec:
    """One generated task before it is written to disk."""

    instance_id: str
    history: Sequence[Commit]
    fix: Commit
    problem_statement: str
    source_paths: Sequence[str]
    test_paths: Sequence[str]
    later: Sequence[Commit] = ()
    extra_protected: Sequence[str] = ()
    fail_at_base: Sequence[str] = ()  # visible tests that fail at the base: graded as FAIL_TO_PASS
    metadata: Mapping[str, Any] = field(default_factory=dict)


def test_node_ids(path: str, source: str) -> list[str]:
    """Node ids of the test functions and `Test*` class methods in a test module."""
    ids = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            ids.append(f"{path}::{node.name}")
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name.startswith("test"):
                    ids.append(f"{path}::{node.name}::{item.name}")
    return ids


#: the package's one test-file rule (the guards and the detector use the same).
is_test_file = is_test_path


def _tree(commits: Sequence[Commit]) -> dict[str, str]:
    tree: dict[str, str] = {}
    for commit in commits:
        for path, text in commit.files.items():
            if text is None:
                tree.pop(path, None)
            else:
                tree[path] = text
    return tree


def build_task(spec: TaskSpec, repos_dir: Path, suite: str) -> Task:
    """Write `spec`'s repository under `repos_dir` and return its `Task`."""
    if not spec.fix.tag:
        raise ValueError(f"{spec.instance_id}: the upstream fix commit needs a tag")
    commits = [*spec.history, spec.fix, *spec.later]
    repo = repos_dir / f"{spec.instance_id}.git"
    shas = build_repo(repo, commits)
    n = len(spec.history)
    base_sha, fix_sha, later_shas = shas[n - 1], shas[n], shas[n + 1 :]
    base, fixed = _tree(spec.history), _tree([*spec.history, spec.fix])

    visible = [i for p, text in sorted(base.items()) if is_test_file(p) for i in test_node_ids(p, text)]
    p2p = [i for i in visible if i not in spec.fail_at_base]
    f2p: list[str] = [i for i in visible if i in spec.fail_at_base]
    for path in spec.test_paths:
        before = set(test_node_ids(path, base[path])) if path in base else set()
        f2p += [i for i in test_node_ids(path, fixed[path]) if i not in before]
    hidden = [p for p in spec.test_paths if p not in base]
    return Task(
        instance_id=spec.instance_id,
        repo=str(repo),
        base_commit=base_sha,
        problem_statement=spec.problem_statement.strip() + "\n",
        test_patch=tree_diff(base, fixed, spec.test_paths),
        FAIL_TO_PASS=tuple(f2p),
        PASS_TO_PASS=tuple(p2p),
        patch=tree_diff(base, fixed, spec.source_paths),
        upstream_refs=(fix_sha, spec.fix.tag, *later_shas, *(c.tag for c in spec.later if c.tag)),
        protected_paths=tuple(dict.fromkeys([*hidden, *spec.extra_protected])),
        visible_tests=tuple(p for p in sorted(base) if is_test_file(p)),
        suite=suite,
        metadata=dict(spec.metadata),
    )
