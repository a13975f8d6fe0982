"""The built-in suites: their size, shape and history, and that generation is deterministic."""

from __future__ import annotations

import pytest
from calc_fixtures import git

from codegym.tasks.loader import load_tasks
from codegym.tasks.suites import generate_suite, suite_jsonl
from codegym.tasks.suites._common import is_test_file


@pytest.fixture(scope="module")
def suites(codegym_cache):
    return {name: load_tasks(name, strict=True) for name in ("toy", "repofix", "humaneval")}


def test_sizes(suites):
    assert len(suites["humaneval"]) == 164
    assert len(suites["repofix"]) >= 24
    assert 10 <= len(suites["toy"]) <= 20
    for name, tasks in suites.items():
        assert {t.suite for t in tasks} == {name}
        assert len({t.instance_id for t in tasks}) == len(tasks)


def test_every_task_is_well_formed(suites):
    for tasks in suites.values():
        for task in tasks:
            assert task.repo_is_local and len(task.base_commit) == 40
            assert task.FAIL_TO_PASS and task.patch and task.test_patch and task.problem_statement
            assert all(is_test_file(p) for p in task.test_files()), task.instance_id
            assert not set(task.patch_files()) & set(task.reset_paths()), task.instance_id
            assert set(task.hidden_test_files()) <= set(task.protected_paths)
            assert task.upstream_refs and task.upstream_refs[1].startswith("v")
            assert task.image is None and task.workdir == "/workspace"


def test_upstream_fix_is_a_later_tagged_commit_of_the_source(suites):
    for task in suites["repofix"][:6] + suites["humaneval"][:2] + suites["toy"][:2]:
        fix_sha, tag = task.upstream_refs[:2]
        assert git("rev-parse", f"{tag}^{{commit}}", cwd=task.repo).stdout.strip() == fix_sha
        assert git("merge-base", "--is-ancestor", task.base_commit, fix_sha, cwd=task.repo).returncode == 0
        assert git("merge-base", "--is-ancestor", fix_sha, task.base_commit, cwd=task.repo).returncode == 1


def test_repofix_varies_bugs_and_shapes(suites):
    tasks = suites["repofix"]
    kinds = {t.metadata["bug_kind"] for t in tasks}
    assert len(kinds) >= 15
    assert {t.metadata["layout"] for t in tasks} == {"flat", "src"}
    assert {t.metadata["hidden_tests"] for t in tasks} == {"new file", "appended"}
    assert sum(t.metadata["cli"] for t in tasks) >= 3
    assert any("/" in p.split("/", 1)[1] for t in tasks for p in t.patch_files() if p.count("/") >= 2)
    for task in tasks:
        history = git("log", "--format=%s", task.base_commit, cwd=task.repo).stdout.splitlines()
        assert len(history) >= 4 and history[-1] == "Initial commit", task.instance_id
        assert len(task.PASS_TO_PASS) >= 4
        files = git("ls-tree", "-r", "--name-only", task.base_commit, cwd=task.repo).stdout.split()
        assert sum(f.endswith(".py") and not is_test_file(f) for f in files) >= 3


def test_humaneval_layout(suites):
    task = suites["humaneval"].by_id("humaneval-0")
    assert task.metadata["task_id"] == "HumanEval/0" and task.metadata["entry_point"] == "has_close_elements"
    assert task.protected_paths == ("tests/test_check.py", "reference/canonical_solution.py")
    assert "tests/test_check.py::test_check" in task.FAIL_TO_PASS
    assert task.PASS_TO_PASS == ("tests/test_solution.py::test_importable",)
    assert task.patch_files() == ("solution.py",)
    assert "has_close_elements" in task.problem_statement


def test_generation_is_deterministic(codegym_cache, tmp_path):
    first = generate_suite("toy", tmp_path / "a")
    second = generate_suite("toy", tmp_path / "b")
    assert [t.base_commit for t in first] == [t.base_commit for t in second]
    assert [t.upstream_refs[0] for t in first] == [t.upstream_refs[0] for t in second]
    assert (tmp_path / "a" / "tasks.jsonl").read_text() == (tmp_path / "b" / "tasks.jsonl").read_text()
    assert suite_jsonl("toy").parent.name.startswith("toy-")
