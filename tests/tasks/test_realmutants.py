"""The `realmutants` suite (`codegym/RealMutants-v0`): pinned real releases from the sdist cache
(filled by scripts/setup.sh), rebuilt into orphan repositories, graded in the real sandbox."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from codegym.tasks.suites import realmutants

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tasks(codegym_cache):
    from codegym.tasks.loader import load_tasks

    return load_tasks("realmutants", strict=True)


def test_the_suite_has_at_least_100_tasks_from_at_least_five_pinned_real_projects():
    data = realmutants.data()
    assert len(data["tasks"]) >= 100 and len(data["projects"]) >= 5
    assert len({t["instance_id"] for t in data["tasks"]}) == len(data["tasks"])
    assert {t["project"] for t in data["tasks"]} == {p["name"] for p in data["projects"]}
    docs = (ROOT / "docs" / "tasks.md").read_text(encoding="utf-8")
    for project in data["projects"]:
        assert re.fullmatch(r"[0-9a-f]{64}", project["sha256"]) and project["version"]
        tree = realmutants.cached_tree(project)  # the cached sdist, hash checked
        assert tree.sha256 == project["sha256"] and any(p.endswith(".py") for p in tree.files)
        assert sum(t["project"] == project["name"] for t in data["tasks"]) >= 3
        pin = f"| {project['name']} | {project['version']} | `{project['sha256']}` |"
        assert pin in docs, f"docs/tasks.md does not list the shipped pin {pin}"


def test_setup_fetches_every_pin_once():
    setup = (ROOT / "scripts" / "setup.sh").read_text(encoding="utf-8")
    assert "-m codegym.tasks.suites.realmutants fetch" in setup  # fetch() reads the pins from the data
    assert realmutants.fetch() == [
        realmutants.cached_sdist(p["name"], p["version"]) for p in realmutants.data()["projects"]
    ]


def test_every_task_is_a_mutation_of_the_release_in_an_orphan_repository(tasks):
    data = realmutants.data()
    assert [t.instance_id for t in tasks] == [t["instance_id"] for t in data["tasks"]]
    trees = {p["name"]: realmutants.cached_tree(p) for p in data["projects"]}
    for task in tasks[:: max(1, len(tasks) // 12)]:  # a dozen, across the projects
        tree, mutation = trees[task.metadata["project"]], task.metadata["mutation"]
        git = ["git", "--git-dir", task.repo]
        assert subprocess.run([*git, "rev-list", "--all"], capture_output=True, text=True).stdout.split() == [
            task.base_commit
        ]
        blob = subprocess.run(
            ["git", "hash-object", "--stdin"], input=tree.files[mutation["path"]], capture_output=True
        ).stdout.strip()
        assert subprocess.run([*git, "cat-file", "-e", blob.decode()], capture_output=True).returncode != 0
        shown = subprocess.run(
            [*git, "show", f"{task.base_commit}:{mutation['path']}"], capture_output=True, text=True
        ).stdout
        assert shown.splitlines()[mutation["line"] - 1] == mutation["after"]
        assert f"{tree.name}=={tree.version}" in task.upstream_refs and tree.version in task.upstream_refs
        assert set(task.protected_paths) == {f.split("::")[0] for f in task.FAIL_TO_PASS}


def test_statements_never_quote_the_mutated_or_the_original_line(tasks):
    from codegym.tasks.mutate.statement import statement_leaks

    for task in tasks:
        mutation = task.metadata["mutation"]
        before = mutation["before"].strip()
        assert before not in task.problem_statement, task.instance_id  # the original line: never
        # the mutated line neither, unless it is a bare `pass` (a dropped statement), which the
        # statement's own closing sentence spells
        assert statement_leaks(task.problem_statement, [mutation["before"], mutation["after"]]) == []
        assert task.FAIL_TO_PASS[0] in task.problem_statement


def test_rebuilding_gives_the_same_commits(tasks, tmp_path):
    rebuilt = realmutants.build_suite(tmp_path / "repos")
    assert [t.base_commit for t in rebuilt] == [t.base_commit for t in tasks]


def test_fail_to_pass_fails_at_base_and_passes_with_the_fix_when_graded(tasks, pool):
    from codegym.envs.grader import SandboxGrader

    grader = SandboxGrader(pool)
    firsts = {}
    for task in tasks:
        firsts.setdefault(task.metadata["project"], task)
    for task in [*firsts.values()][:: len(firsts) - 1]:  # the first project's and the last one's
        empty, fixed = grader.grade(task, "").result, grader.grade(task, task.patch).result
        assert empty.f2p_passed == 0 and empty.p2p_fraction == 1.0 and not empty.resolved, empty.outcomes
        assert fixed.resolved, fixed.outcomes


def test_the_gym_id_loads_the_suite(tasks):
    import gymnasium as gym

    import codegym.envs  # noqa: F401 - registers the ids

    env = gym.make("codegym/RealMutants-v0", backend="docker")
    try:
        assert [t.instance_id for t in env.unwrapped.tasks] == [t.instance_id for t in tasks]
    finally:
        env.close()


def test_a_missing_sdist_cache_is_a_clear_error(tmp_path, monkeypatch):
    from codegym.tasks.mutate.sources import SdistCacheError

    monkeypatch.setenv("CODEGYM_SDIST_CACHE", str(tmp_path / "empty"))
    project = realmutants.data()["projects"][0]
    with pytest.raises(SdistCacheError, match=r"run `scripts/setup.sh`") as err:
        realmutants.build_suite(tmp_path / "repos")
    assert f"{project['name']}=={project['version']}" in str(err.value) and str(tmp_path / "empty") in str(
        err.value
    )
    assert not (tmp_path / "repos").exists() or not any((tmp_path / "repos").iterdir())
    (tmp_path / "empty" / f"{project['name']}-{project['version']}.tar.gz").write_bytes(b"not the release")
    with pytest.raises(SdistCacheError, match="is not the pinned"):
        realmutants.cached_tree(project)
