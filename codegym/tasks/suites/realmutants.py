"""The `realmutants` suite (`codegym/RealMutants-v0`): mutation tasks mined from real PyPI releases.

Each task is a small AST mutation (`codegym.tasks.mutate.operators`) of a pinned pure-Python
release that 1 to 5 of the project's own tests catch, mined by `codegym tasks mutate` and
validated with `codegym tasks validate realmutants --repeats 3` (docs/tasks.md lists the
projects, versions, sha256 and yields). The package ships only the descriptions
(`realmutants.json`: per project its pin, sdist sha256 and the tests that pass on the pristine
release; per task the mutation, the fix, FAIL_TO_PASS, the PASS_TO_PASS tests left out and the
statement). At load time each task's repository is rebuilt from the cached sdist: one orphan
commit holding the mutated code, the FAIL_TO_PASS test files restored by `test_patch` only.

The sdists are downloaded once, at setup, into `$CODEGYM_SDIST_CACHE` (default
`~/.cache/codegym/sdists`) and checked against their sha256; afterwards the suite builds offline:

    python -m codegym.tasks.suites.realmutants fetch     # what scripts/setup.sh runs
    tasks = load_tasks("realmutants")
    env = gym.make("codegym/RealMutants-v0")
"""

from __future__ import annotations

import hashlib
import json
import sys
from functools import cache
from pathlib import Path

from codegym.tasks.mutate.build import build_mutant_task
from codegym.tasks.mutate.operators import Mutation
from codegym.tasks.mutate.sources import (
    SdistCacheError,
    SourceTree,
    cached_sdist,
    download_sdist,
    sdist_cache_dir,
    sdist_tree,
    sha256_file,
)
from codegym.tasks.task import Task

DATA = Path(__file__).with_name("realmutants.json")
_MUTATE = Path(__file__).resolve().parent.parent / "mutate"
#: what decides the built repositories besides this module: the data and the code that builds them
DATA_VERSION = hashlib.sha256(
    b"".join(
        p.read_bytes()
        for p in [
            DATA,
            _MUTATE / "build.py",
            _MUTATE / "repo.py",
            _MUTATE / "sources.py",
            _MUTATE / "operators.py",
        ]
        if p.exists()
    )
).hexdigest()[:16]


@cache
def data() -> dict:
    """The shipped descriptions: {"projects": [...], "tasks": [...]}."""
    return json.loads(DATA.read_text(encoding="utf-8"))


def _pin(project: dict) -> str:
    return f"{project['name']}=={project['version']}"


def cached_tree(project: dict) -> SourceTree:
    """The pinned sdist of `project` from the cache, sha256 checked; a clear error when missing."""
    path = cached_sdist(project["name"], project["version"])
    if path is None:
        raise SdistCacheError(
            f"the realmutants suite needs the sdist of {_pin(project)} (sha256 {project['sha256']}) in "
            f"{sdist_cache_dir()}, which does not have it: run `scripts/setup.sh` or "
            "`python -m codegym.tasks.suites.realmutants fetch` once with network access "
            "(or set CODEGYM_SDIST_CACHE to a folder that holds the sdists)"
        )
    if sha256_file(path) != project["sha256"]:
        raise SdistCacheError(
            f"{path}: sha256 {sha256_file(path)} is not the pinned {project['sha256']} of "
            f"{_pin(project)}; delete the file and run `python -m codegym.tasks.suites.realmutants "
            "fetch`"
        )
    return sdist_tree(path, project["name"], project["version"])


def fetch() -> list[Path]:
    """Download every pinned sdist not yet cached (with pip) and check every sha256; quick when cached."""
    return [download_sdist(p["name"], p["version"], sha256=p["sha256"]) for p in data()["projects"]]


def build_suite(repos: Path, suite: str = "realmutants") -> list[Task]:
    """Every task, its repository rebuilt under `repos` from the cached sdist (module docstring)."""
    projects = {p["name"]: p for p in data()["projects"]}
    trees = {name: cached_tree(p) for name, p in projects.items()}  # all missing sdists fail before any write
    tasks = []
    for row in data()["tasks"]:
        project = projects[row["project"]]
        dropped = set(row.get("p2p_removed", ()))
        f2p = row["FAIL_TO_PASS"]
        p2p = [i for i in project["baseline"] if i not in f2p and i not in dropped]
        task = build_mutant_task(
            trees[row["project"]],
            Mutation.from_dict(row["mutation"]),
            f2p,
            p2p,
            row["problem_statement"],
            repos,
            suite=suite,
            instance_id=row["instance_id"],
        )
        if task.patch != row["patch"]:
            raise ValueError(
                f"{row['instance_id']}: the rebuilt fix differs from the shipped one; "
                f"the sdist of {_pin(project)} is not the one it was mined from"
            )
        tasks.append(task)
    return tasks


def main(argv: list[str]) -> int:
    if argv[:1] == ["fetch"]:
        try:
            paths = fetch()
        except SdistCacheError as e:
            print(f"codegym: {e}", file=sys.stderr)
            return 1
        print(f"realmutants: {len(paths)} sdists cached and verified in {sdist_cache_dir()}")
        return 0
    print("usage: python -m codegym.tasks.suites.realmutants fetch", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
