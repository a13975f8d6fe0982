"""SWE-smith rows as codegym tasks.

A SWE-smith row (`instance_id`, `repo` = "swesmith/<owner>__<name>.<commit>", `patch`,
`FAIL_TO_PASS`, `PASS_TO_PASS`, `image_name`, `problem_statement`; no `test_patch`) describes a
bug *introduced* into a clean repository: `patch` is the bug, so the gold fix is its reverse.
The row's repository is clean code at its default branch (or at the row's `base_commit`).

codegym turns such a row into an ordinary task. In a cache repository
(`$CODEGYM_CACHE/swesmith/<key>.git`) it writes one orphan commit per row whose tree is the
clean tree with the bug applied and the FAIL_TO_PASS test files removed (as SWE-smith's own
"Remove F2P Tests" commit does). That commit is the task's `base_commit`, and it has no parent,
so the clean code (the answer) is in no history the agent can reach. Then:

- `patch` = the diff from the bug tree back to the clean code (the bug reversed);
- `test_patch` = the diff that restores the FAIL_TO_PASS test files (hidden until grading);
- `protected_paths` = those test files; the original row is kept in `metadata`.

    data = swesmith_row_to_task_dict(row, Path("repos/swesmith/oauthlib__oauthlib.1fd52536"))
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from codegym.tasks.cache import cache_subdir
from codegym.tasks.gitrepo import git_env, run_git
from codegym.tasks.task import node_file, patch_files

#: the author and date of every derived base commit: the same sha on every machine.
_IDENTITY = {
    "GIT_AUTHOR_NAME": "codegym",
    "GIT_AUTHOR_EMAIL": "codegym@codegym.invalid",
    "GIT_COMMITTER_NAME": "codegym",
    "GIT_COMMITTER_EMAIL": "codegym@codegym.invalid",
    "GIT_AUTHOR_DATE": "1700000000 +0000",
    "GIT_COMMITTER_DATE": "1700000000 +0000",
}


def is_swesmith_row(data: Any) -> bool:
    """A row in SWE-smith's format: no `test_patch`, and SWE-smith's `image_name` or repo prefix."""
    return (
        isinstance(data, dict)
        and "test_patch" not in data
        and isinstance(data.get("patch"), str)
        and ("image_name" in data or str(data.get("repo", "")).startswith("swesmith/"))
    )


def _git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """git on the bare `repo`, with extra environment variables (an index, a work tree)."""
    proc = subprocess.run(
        ["git", "--git-dir", str(repo), *args],
        capture_output=True,
        check=False,
        env={**git_env(), **(env or {})},
    )
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args[:2])} failed: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout.decode("utf-8", "surrogateescape")


def _derived_repo(source: Path) -> Path:
    key = hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:16]
    path = cache_subdir("swesmith") / f"{source.name.removesuffix('.bundle').removesuffix('.git')}-{key}.git"
    if not (path / "HEAD").exists():
        run_git("init", "--bare", "-q", str(path))
    return path


def swesmith_row_to_task_dict(row: dict[str, Any], source: Path) -> dict[str, Any]:
    """The row as a task dict in codegym's JSONL fields (see the module docstring); `source` is
    the row's repository on this machine (a clone, a bare repository or a bundle)."""
    bug = row["patch"]
    if not bug.strip():
        raise ValueError("empty patch: a SWE-smith row's patch is the bug it introduces")
    f2p = row.get("FAIL_TO_PASS")
    if isinstance(f2p, str):
        f2p = json.loads(f2p) if f2p.strip() else []
    test_files = sorted({node_file(n) for n in f2p or []})
    repo = _derived_repo(source)
    # Everything of the source, under a private namespace; only the derived orphan commit ever
    # reaches a workspace.
    run_git(
        "--git-dir",
        str(repo),
        "fetch",
        "-q",
        "--no-tags",
        str(source.resolve()),
        "+refs/*:refs/source/*",
        "+HEAD:refs/source/HEAD",
    )
    clean = row.get("base_commit") or "refs/source/HEAD"
    clean = _git(repo, "rev-parse", "--verify", f"{clean}^{{commit}}").strip()
    key = hashlib.sha256("\0".join([clean, bug, *test_files]).encode()).hexdigest()[:12]
    ref = f"refs/codegym/{row['instance_id']}-{key}"
    try:
        base = _git(repo, "rev-parse", "--verify", "-q", ref).strip()
    except RuntimeError:
        base = _write_bug_commit(repo, clean, bug, test_files, row["instance_id"], ref)
    diff = ("diff-tree", "-p", "--binary", "--no-renames", "--full-index", base, clean, "--")
    fix_files = [f for f in patch_files(bug) if f not in test_files]
    out = {k: v for k, v in row.items() if k not in ("patch", "repo", "base_commit")}
    out.update(
        repo=str(repo),
        base_commit=base,
        patch=_git(repo, *diff, *fix_files) if fix_files else "",
        test_patch=_git(repo, *diff, *test_files) if test_files else "",
        protected_paths=test_files,
        metadata={
            **(row.get("metadata") or {}),
            "dataset": "swe-smith",
            "swesmith_repo": row.get("repo"),
            "bug_patch": bug,
            "clean_commit": clean,
        },
    )
    return out


def _write_bug_commit(
    repo: Path, clean: str, bug: str, test_files: list[str], instance_id: str, ref: str
) -> str:
    with tempfile.TemporaryDirectory(prefix="codegym-swesmith-") as tmp:
        env = {"GIT_INDEX_FILE": f"{tmp}/index", "GIT_WORK_TREE": f"{tmp}/empty"}
        Path(env["GIT_WORK_TREE"]).mkdir()
        patch = Path(tmp) / "bug.diff"
        patch.write_text(bug)
        _git(repo, "read-tree", clean, env=env)
        try:
            _git(repo, "apply", "--cached", "--whitespace=nowarn", str(patch), env=env)
        except RuntimeError as e:
            raise ValueError(f"the bug patch does not apply to {clean[:12]}: {e}") from None
        if test_files:
            _git(repo, "update-index", "--force-remove", "--", *test_files, env=env)
        tree = _git(repo, "write-tree", env=env).strip()
        base = _git(repo, "commit-tree", tree, "-m", f"{instance_id}\n", env={**env, **_IDENTITY}).strip()
    _git(repo, "update-ref", ref, base)
    return base
