"""A mutant as a SWE-bench-form `Task`, its repository rebuilt from the pristine `SourceTree`.

The base commit is the mutated tree without the files of the FAIL_TO_PASS tests, as one
orphan commit (`repo.write_orphan_repo`); `patch` reverses the mutation, `test_patch` restores
the removed test files (hidden until grading, and the protected paths), and `upstream_refs`
name the release (`name==version`, the version): installing it is the answer.

    task = build_mutant_task(tree, mutation, f2p, p2p, statement, repos_dir, suite="realmutants")
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path

from codegym.antihack.paths import is_test_path
from codegym.tasks.gitrepo import file_diff
from codegym.tasks.mutate.operators import Mutation
from codegym.tasks.mutate.repo import write_orphan_repo
from codegym.tasks.mutate.sources import SourceTree
from codegym.tasks.task import Task, node_file


def mutant_id(tree: SourceTree, mutation: Mutation) -> str:
    """`mut-<project>-<version>-<hash>`: stable, and it says nothing about the mutation."""
    key = json.dumps([tree.pin, mutation.to_dict()], sort_keys=True)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{tree.name}-{tree.version}".lower()).strip("-")
    return f"mut-{name}-{hashlib.sha256(key.encode()).hexdigest()[:8]}"


def mutation_diff(tree: SourceTree, mutation: Mutation) -> str:
    """The mutation as a diff against the pristine tree."""
    pristine = tree.text(mutation.path)
    return file_diff(mutation.path, pristine, mutation.apply(pristine))


def build_mutant_task(
    tree: SourceTree,
    mutation: Mutation,
    fail_to_pass: Sequence[str],
    pass_to_pass: Sequence[str],
    statement: str,
    repos_dir: Path,
    *,
    suite: str,
    instance_id: str | None = None,
) -> Task:
    """Write the task's repository under `repos_dir` and return the task (module docstring)."""
    instance_id = instance_id or mutant_id(tree, mutation)
    pristine = tree.text(mutation.path)
    mutated = mutation.apply(pristine)
    hidden = sorted({node_file(i) for i in fail_to_pass})
    missing = [h for h in hidden if h not in tree.files]
    if missing:
        raise ValueError(f"{instance_id}: FAIL_TO_PASS files {missing} are not in {tree.pin}")
    files = {p: data for p, data in tree.files.items() if p not in hidden}
    files[mutation.path] = mutated.encode()
    repo = Path(repos_dir) / f"{instance_id}.git"
    base = write_orphan_repo(
        repo, files, message=f"{tree.name} {tree.version}".strip(), executable=tree.executable
    )
    return Task(
        instance_id=instance_id,
        repo=str(repo),
        base_commit=base,
        problem_statement=statement,
        test_patch="".join(file_diff(h, None, tree.text(h)) for h in hidden),
        FAIL_TO_PASS=tuple(fail_to_pass),
        PASS_TO_PASS=tuple(pass_to_pass),
        patch=file_diff(mutation.path, mutated, pristine),
        upstream_refs=tuple(dict.fromkeys(r for r in (tree.pin, tree.version, *tree.refs) if r)),
        protected_paths=tuple(hidden),
        visible_tests=tuple(sorted(p for p in files if is_test_path(p) and p.endswith(".py"))),
        suite=suite,
        metadata={
            "project": tree.name,
            "version": tree.version,
            "sdist_sha256": tree.sha256,
            "mutation": mutation.to_dict(),
        },
    )
