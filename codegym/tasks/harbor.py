"""Harbor task directories: codegym tasks written in Harbor's layout, and read back.

Harbor (the Terminal-Bench harness) keeps one task per folder:

    <instance_id>/
      instruction.md           what the agent is told (the problem statement)
      task.toml                configuration; codegym's task fields under [metadata.codegym]
      environment/Dockerfile   the agent's container, with the repository at base_commit baked
                               in at the workdir (environment/codegym-workspace.tar: the scrubbed
                               workspace, no future history)
      tests/test.patch         the hidden tests (the task's test_patch), uploaded at verification only
      tests/test.sh            Harbor's verifier: applies them, runs the graded tests and writes
                               1 or 0 to /logs/verifier/reward.txt
      solution/fix.patch       the reference fix; solution/solve.sh applies it (Harbor's oracle)

`export_harbor(tasks, out)` writes such folders; `load_harbor(path)` (and `load_tasks(path)` on a
folder) reads one task folder or a folder of them back into `Task`s whose `environment` is the
Dockerfile (build its image with `codegym images build --tasks PATH`), graded by codegym's own
grader from the node ids in task.toml (test.sh is for Harbor itself).

A Harbor task written elsewhere (no [metadata.codegym] table) loads too (`codegym.tasks.harbor_foreign`):
its environment is its own Dockerfile, made a git repository at its WORKDIR; its tests/ reach the
grading sandbox only, at /tests, and its single graded outcome `reward` is the reward test.sh
writes to /logs/verifier/reward.txt (or reward.json); solution/solve.sh is its oracle.

    paths = export_harbor(load_tasks("toy"), Path("harbor-toy"))   # codegym tasks export toy --format harbor --out harbor-toy
    tasks = load_tasks("harbor-toy")                                 # codegym images build --tasks harbor-toy
"""

from __future__ import annotations

import json
import shlex
import shutil
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from codegym.tasks.environment import BASE_ARG, GET_PIP, GET_PIP_FILE, WORKSPACE_FILE, render_dockerfile
from codegym.tasks.loader import TaskList, TaskLoadError, task_from_dict
from codegym.tasks.task import Task

#: the image an exported Dockerfile derives from when codegym does not pass its own content tag.
DEFAULT_BASE = "codegym/python:latest"
_LIST_FIELDS = ("FAIL_TO_PASS", "PASS_TO_PASS", "upstream_refs", "protected_paths", "visible_tests")
_STR_FIELDS = ("instance_id", "repo", "base_commit", "workdir", "suite", "log_parser", "test_cmd")


def is_harbor_task_dir(path: Path) -> bool:
    return (path / "task.toml").is_file()


# ---- TOML (the few shapes task.toml needs; tomllib reads it back) ------------------------------


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):  # JSON's escapes are TOML's; DEL must be escaped too
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def _toml(tables: dict[str, dict[str, Any]], top: dict[str, Any]) -> str:
    lines = [f"{k} = {_toml_value(v)}" for k, v in top.items()]
    for name, table in tables.items():
        lines += ["", f"[{name}]"] + [f"{k} = {_toml_value(v)}" for k, v in table.items() if v is not None]
    return "\n".join(lines) + "\n"


# ---- export ------------------------------------------------------------------------------------


def _repo_lines(workdir: str) -> str:
    return (
        f"USER root\nRUN mkdir -p {workdir} && chown 1000:1000 {workdir}\n"
        f"ADD {WORKSPACE_FILE} {workdir}/\nWORKDIR {workdir}\n"
    )


def _environment(task: Task, dest: Path) -> None:
    """environment/: a Dockerfile holding the task's environment and its repository at workdir."""
    from codegym.tasks.workspace import workspace_archive

    dest.mkdir(parents=True)
    spec = task.environment
    needs_repo = not task.repo_in_image
    if spec is not None and spec.dockerfile is not None:
        if spec.context is not None:
            shutil.copytree(spec.context, dest, dirs_exist_ok=True)
        text = spec.dockerfile.rstrip("\n") + "\n"
    elif spec is not None:  # SWE-bench fields
        text = render_dockerfile(spec, DEFAULT_BASE, workdir=task.workdir, has_ca=False)
        if spec.needs_pip:
            (dest / GET_PIP_FILE).write_text(GET_PIP)
        if spec.bakes_repo:
            needs_repo = False
            source = task.replace(repo_location="upload", image=None, environment=None)
            shutil.copyfile(workspace_archive(source), dest / WORKSPACE_FILE)
    elif task.image is not None:
        text = f"FROM {task.image}\n"
    else:
        text = f"ARG {BASE_ARG}={DEFAULT_BASE}\nFROM ${{{BASE_ARG}}}\n"
    if needs_repo:
        shutil.copyfile(workspace_archive(task), dest / WORKSPACE_FILE)
        text += _repo_lines(task.workdir)
    (dest / "Dockerfile").write_text(text)


def _test_sh(task: Task) -> str:
    q = shlex.quote
    ids = " ".join(q(t) for t in task.tests_to_run())
    run = (
        task.test_cmd.replace("{tests}", ids)
        if task.test_cmd
        else f"python3 -m pytest -q -p no:cacheprovider {ids}"
    )
    resets = " ".join(q(p) for p in task.reset_paths())
    return f"""#!/bin/bash
# Harbor's verifier for codegym task {task.instance_id}: restore the test files, apply the hidden
# tests, run the graded tests, write the reward (codegym itself grades from task.toml's node ids).
set -u
TESTS_DIR="$(cd "$(dirname "$0")" && pwd)"
mkdir -p /logs/verifier
cd {q(task.workdir)}
for p in {resets}; do
  git checkout -q {task.base_commit} -- "$p" 2>/dev/null || rm -rf -- "$p"
done
if ! git apply --whitespace=nowarn "$TESTS_DIR/test.patch"; then echo 0 > /logs/verifier/reward.txt; exit 0; fi
{run}
if [ $? -eq 0 ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
"""


def _solve_sh(task: Task) -> str:
    return f"""#!/bin/bash
# The reference fix of codegym task {task.instance_id} (Harbor's oracle runs this).
set -eu
SOLUTION_DIR="$(cd "$(dirname "$0")" && pwd)"
cd {shlex.quote(task.workdir)}
git apply --whitespace=nowarn "$SOLUTION_DIR/fix.patch"
"""


def _task_toml(task: Task) -> str:
    fields: dict[str, Any] = {name: getattr(task, name) for name in _STR_FIELDS}
    fields.update({name: list(getattr(task, name)) for name in _LIST_FIELDS})
    fields["metadata_json"] = json.dumps(dict(task.metadata), default=str, sort_keys=True)
    return _toml(
        {
            "metadata": {"source": "codegym", "category": "programming", "tags": ["codegym", task.suite]},
            "metadata.codegym": fields,
            "verifier": {"timeout_sec": 600.0},
            "agent": {"timeout_sec": 1800.0},
            "environment": {
                "build_timeout_sec": 1800.0,
                "cpus": 1,
                "memory_mb": 1024,
                "allow_internet": False,
            },
        },
        {"version": "1.0"},
    )


def export_harbor(tasks: Iterable[Task], out: str | Path) -> list[Path]:
    """Write each task as a Harbor task folder `out/<instance_id>/` (see the module docstring);
    the folders written. An existing folder is replaced only if it is an earlier export."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for task in tasks:
        d = out / task.instance_id
        if d.exists():
            if not is_harbor_task_dir(d):
                raise FileExistsError(f"{d} exists and is not a Harbor task folder: not overwriting it")
            shutil.rmtree(d)
        d.mkdir()
        (d / "instruction.md").write_text(task.problem_statement, encoding="utf-8")
        _environment(task, d / "environment")
        (d / "tests").mkdir()
        (d / "tests" / "test.patch").write_text(task.test_patch, encoding="utf-8")
        (d / "tests" / "test.sh").write_text(_test_sh(task))
        (d / "tests" / "test.sh").chmod(0o755)
        (d / "solution").mkdir()
        (d / "solution" / "fix.patch").write_text(task.patch, encoding="utf-8")
        (d / "solution" / "solve.sh").write_text(_solve_sh(task))
        (d / "solution" / "solve.sh").chmod(0o755)
        (d / "task.toml").write_text(_task_toml(task), encoding="utf-8")
        written.append(d)
    return written


# ---- load --------------------------------------------------------------------------------------


def _task_dict(d: Path) -> dict[str, Any]:
    toml = d / "task.toml"
    try:
        config = tomllib.loads(toml.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise TaskLoadError(toml, 1, None, f"invalid TOML: {e}") from None
    metadata = config.get("metadata", {})
    fields = metadata.get("codegym") if isinstance(metadata, dict) else None
    if fields is None:  # a Harbor task written elsewhere: graded by its test.sh reward
        from codegym.tasks.harbor_foreign import foreign_task_dict

        return foreign_task_dict(d, config)
    if not isinstance(fields, dict):
        raise TaskLoadError(toml, 1, "metadata.codegym", "expected a table of codegym's task fields")
    data = {k: v for k, v in fields.items() if k != "metadata_json"}
    try:
        data["metadata"] = json.loads(fields.get("metadata_json") or "{}")
    except json.JSONDecodeError as e:
        raise TaskLoadError(toml, 1, "metadata.codegym.metadata_json", f"not JSON: {e.msg}") from None
    for name, path in (
        ("problem_statement", d / "instruction.md"),
        ("test_patch", d / "tests" / "test.patch"),
    ):
        if not path.is_file():
            raise TaskLoadError(toml, 1, name, f"{path.relative_to(d)} is missing")
        data[name] = path.read_text(encoding="utf-8")
    fix = d / "solution" / "fix.patch"
    data["patch"] = fix.read_text(encoding="utf-8") if fix.is_file() else ""
    if not (d / "environment" / "Dockerfile").is_file():
        raise TaskLoadError(toml, 1, "environment", "environment/Dockerfile is missing")
    data["environment"] = {"dockerfile": "environment/Dockerfile"}
    data["repo_location"] = "image"  # the Dockerfile holds the repository at workdir
    data.setdefault("instance_id", d.name)
    return data


def load_harbor(path: str | Path) -> TaskList:
    """The tasks of one Harbor task folder, or of every task folder directly inside `path`;
    folders that do not load end up in `.errors` (a `TaskLoadError` naming task.toml)."""
    path = Path(path)
    dirs = [path] if is_harbor_task_dir(path) else sorted(d for d in path.iterdir() if is_harbor_task_dir(d))
    if not dirs:
        raise FileNotFoundError(f"{path}: no Harbor task (a folder with task.toml) in it")
    tasks, errors = [], []
    for d in dirs:
        try:
            tasks.append(task_from_dict(_task_dict(d), file=d / "task.toml", line=1))
        except TaskLoadError as e:
            errors.append(e)
    seen: set[str] = set()
    for task in list(tasks):
        if task.instance_id in seen:
            errors.append(
                TaskLoadError(path, 1, "instance_id", f"two task folders hold {task.instance_id!r}")
            )
            tasks.remove(task)
        seen.add(task.instance_id)
    return TaskList(tasks, errors)
