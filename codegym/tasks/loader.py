"""Load tasks from a built-in suite or a JSONL file.

Each JSONL line is one task in SWE-bench's field names plus codegym's own:

    {"instance_id": "calc-1", "repo": "repos/calc.git", "base_commit": "<sha>",
     "problem_statement": "...", "patch": "diff --git ...", "test_patch": "diff --git ...",
     "FAIL_TO_PASS": ["tests/test_calc.py::test_add"], "PASS_TO_PASS": "[]",
     "upstream_refs": ["v1.0.1"], "protected_paths": ["tests/test_calc.py"]}

Test lists may be JSON lists or JSON-encoded strings (as in SWE-bench's files). A relative
`repo` is resolved against the JSONL file's folder. Unknown fields go to `metadata`. A broken
line becomes a `TaskLoadError` naming the file, line and field; the other lines still load:

    tasks = load_tasks("my_tasks.jsonl")          # good lines; tasks.errors lists the rest
    tasks = load_tasks("my_tasks.jsonl", strict=True)  # raises TaskLoadErrors if any line is bad
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from codegym.tasks.task import DEFAULT_WORKDIR, Task

log = logging.getLogger(__name__)

REQUIRED_FIELDS = ("instance_id", "repo", "base_commit", "problem_statement", "test_patch", "FAIL_TO_PASS")
_LIST_FIELDS = ("FAIL_TO_PASS", "PASS_TO_PASS", "upstream_refs", "protected_paths", "visible_tests")
_STR_FIELDS = (
    "instance_id",
    "repo",
    "base_commit",
    "problem_statement",
    "test_patch",
    "patch",
    "suite",
    "workdir",
)
_KNOWN = set(REQUIRED_FIELDS) | set(_LIST_FIELDS) | set(_STR_FIELDS) | {"image", "metadata"}


class TaskLoadError(ValueError):
    """One line that could not become a task."""

    def __init__(self, file: str | Path, line: int, field: str | None, message: str):
        self.file = str(file)
        self.line = line
        self.field = field
        self.message = message
        where = f"{self.file}:{line}" + (f": field {field!r}" if field else "")
        super().__init__(f"{where}: {message}")


class TaskLoadErrors(ExceptionGroup):
    """Raised by `load_tasks(..., strict=True)`; `.tasks` still holds the lines that loaded."""

    def __new__(cls, message: str, errors: Sequence[TaskLoadError], tasks: Sequence[Task] = ()):
        self = super().__new__(cls, message, list(errors))
        self.tasks = list(tasks)
        return self

    def __init__(self, message: str, errors: Sequence[TaskLoadError], tasks: Sequence[Task] = ()):
        super().__init__(message, list(errors))

    def derive(self, excs):  # keep the type and the loaded tasks when split or subgrouped
        return TaskLoadErrors(self.message, excs, self.tasks)


class TaskList(list):
    """A list of `Task`s that also carries the `errors` of the lines that did not load."""

    def __init__(self, tasks: Iterable[Task] = (), errors: Iterable[TaskLoadError] = ()):
        super().__init__(tasks)
        self.errors: list[TaskLoadError] = list(errors)

    def by_id(self, instance_id: str) -> Task:
        for task in self:
            if task.instance_id == instance_id:
                return task
        raise KeyError(f"no task {instance_id!r}; ids start with {[t.instance_id for t in self[:5]]}")


def _as_str_list(value: Any, file: Path, line: int, field: str) -> tuple[str, ...]:
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else []
        except json.JSONDecodeError as e:
            raise TaskLoadError(file, line, field, f"a string that is not a JSON list ({e.msg})") from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TaskLoadError(file, line, field, f"expected a list of strings, got {type(value).__name__}")
    return tuple(value)


def task_from_dict(
    data: Any, *, file: str | Path = "<dict>", line: int = 0, suite: str | None = None
) -> Task:
    """Build a `Task` from one decoded JSONL object; raises `TaskLoadError` naming the field."""
    file = Path(file)
    if not isinstance(data, dict):
        raise TaskLoadError(file, line, None, f"expected a JSON object, got {type(data).__name__}")
    for name in REQUIRED_FIELDS:
        if name not in data or data[name] is None:
            raise TaskLoadError(file, line, name, "missing required field")
    kwargs: dict[str, Any] = {}
    for name in _STR_FIELDS:
        if name in data and data[name] is not None:
            if not isinstance(data[name], str):
                raise TaskLoadError(file, line, name, f"expected a string, got {type(data[name]).__name__}")
            kwargs[name] = data[name]
    for name in _LIST_FIELDS:
        if name in data and data[name] is not None:
            kwargs[name] = _as_str_list(data[name], file, line, name)
    if not kwargs["instance_id"] or "/" in kwargs["instance_id"]:
        raise TaskLoadError(file, line, "instance_id", "must be non-empty and contain no '/'")
    if not kwargs["FAIL_TO_PASS"]:
        raise TaskLoadError(file, line, "FAIL_TO_PASS", "must list at least one test")
    image = data.get("image")
    if image is not None and not isinstance(image, str):
        raise TaskLoadError(file, line, "image", f"expected a string or null, got {type(image).__name__}")
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise TaskLoadError(file, line, "metadata", f"expected an object, got {type(metadata).__name__}")
    metadata = {**{k: v for k, v in data.items() if k not in _KNOWN}, **metadata}
    repo = kwargs["repo"]
    if file.name != "<dict>" and not Path(repo).is_absolute():
        candidate = (file.parent / repo).resolve()
        if candidate.exists():  # else it is an upstream name for a task that ships an image
            repo = str(candidate)
    kwargs.update(
        repo=repo,
        image=image or None,
        workdir=kwargs.get("workdir") or DEFAULT_WORKDIR,
        suite=kwargs.get("suite") or suite or file.stem,
        metadata=metadata,
    )
    return Task(**kwargs)


def read_tasks_jsonl(path: str | Path, *, suite: str | None = None) -> TaskList:
    """Every good line of a JSONL file as a `Task`; bad lines end up in `.errors`."""
    path = Path(path)
    tasks, errors, seen = [], [], {}
    with path.open(encoding="utf-8") as fh:
        for lineno, text in enumerate(fh, start=1):
            if not text.strip():
                continue
            try:
                data = json.loads(text)
            except json.JSONDecodeError as e:
                errors.append(TaskLoadError(path, lineno, None, f"invalid JSON: {e.msg} at column {e.colno}"))
                continue
            try:
                task = task_from_dict(data, file=path, line=lineno, suite=suite)
            except TaskLoadError as e:
                errors.append(e)
                continue
            if task.instance_id in seen:
                errors.append(
                    TaskLoadError(
                        path,
                        lineno,
                        "instance_id",
                        f"duplicate of line {seen[task.instance_id]}: {task.instance_id!r}",
                    )
                )
                continue
            seen[task.instance_id] = lineno
            tasks.append(task)
    return TaskList(tasks, errors)


def write_tasks_jsonl(
    tasks: Iterable[Task], path: str | Path, *, relative_to: str | Path | None = None
) -> None:
    """Write tasks one per line; with `relative_to`, repo paths under it are made relative."""
    path = Path(path)
    with path.open("w", encoding="utf-8") as fh:
        for task in tasks:
            data = task.to_dict()
            if relative_to is not None:
                try:
                    data["repo"] = str(Path(task.repo).relative_to(relative_to))
                except ValueError:
                    pass
            fh.write(json.dumps(data, sort_keys=False) + "\n")


def load_tasks(source: str | Path, *, strict: bool = False) -> TaskList:
    """Tasks from a built-in suite name (`humaneval`, `repofix`, `toy`) or a JSONL path.

    Bad lines are logged and collected in the result's `.errors`; with `strict=True` any bad
    line raises `TaskLoadErrors` instead (its `.tasks` holds the lines that loaded).
    """
    from codegym.tasks.suites import SUITES, suite_jsonl

    name = str(source)
    if name in SUITES:
        result = read_tasks_jsonl(suite_jsonl(name), suite=name)
    else:
        path = Path(name).expanduser()
        if not path.is_file():
            raise FileNotFoundError(
                f"task source {name!r} is neither a built-in suite ({', '.join(sorted(SUITES))}) nor a JSONL file"
            )
        result = read_tasks_jsonl(path)
    for err in result.errors:
        log.warning("skipped task line: %s", err)
    if strict and result.errors:
        raise TaskLoadErrors(f"{len(result.errors)} bad task line(s) in {name}", result.errors, list(result))
    return result
