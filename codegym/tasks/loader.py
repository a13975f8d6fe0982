"""Load tasks from a built-in suite or a JSONL file.

Each JSONL line is one task in SWE-bench's field names plus codegym's own:

    {"instance_id": "calc-1", "repo": "repos/calc.git", "base_commit": "<sha>",
     "problem_statement": "...", "patch": "diff --git ...", "test_patch": "diff --git ...",
     "FAIL_TO_PASS": ["tests/test_calc.py::test_add"], "PASS_TO_PASS": "[]",
     "upstream_refs": ["v1.0.1"], "protected_paths": ["tests/test_calc.py"]}

Test lists may be JSON lists or JSON-encoded strings (as in SWE-bench's files). Unknown
fields go to `metadata`. SWE-bench, SWE-Gym and SWE-smith rows load as they are (a SWE-smith
row's `patch` introduces the bug: see `codegym.tasks.swesmith`).

`repo` is a path (relative: to the JSONL file's folder) or, as in SWE-bench, "owner/name",
found in a repos directory laid out as `<dir>/<owner>/<name>` (a clone or a bare repository),
`<dir>/<owner>/<name>.git` or `<dir>/<owner>/<name>.bundle`; the directory is `repos_dir=` or
the environment variable `CODEGYM_REPOS_DIR`. A task with `repo_location: "image"` needs no
local repository: its `image` holds it at `workdir`.

A broken line becomes a `TaskLoadError` naming the file, line and field; the other lines
still load:

    tasks = load_tasks("my_tasks.jsonl")          # good lines; tasks.errors lists the rest
    tasks = load_tasks("my_tasks.jsonl", strict=True)  # raises TaskLoadErrors if any line is bad
    tasks = load_tasks("swe-bench.jsonl", repos_dir="~/repos")  # django/django -> ~/repos/django/django
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from codegym.tasks.gitrepo import GIT_ENV
from codegym.tasks.task import DEFAULT_WORKDIR, REPO_LOCATIONS, Task, node_file

log = logging.getLogger(__name__)

#: the environment variable naming the repos directory when `repos_dir` is not given.
REPOS_DIR_ENV = "CODEGYM_REPOS_DIR"

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
    "repo_location",
    "test_cmd",
    "log_parser",
)
_KNOWN = set(REQUIRED_FIELDS) | set(_LIST_FIELDS) | set(_STR_FIELDS) | {"image", "metadata", "environment"}


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


def repos_dir_from_env(repos_dir: str | Path | None = None) -> Path | None:
    """`repos_dir` if given, else `$CODEGYM_REPOS_DIR`, else None."""
    value = repos_dir if repos_dir is not None else os.environ.get(REPOS_DIR_ENV) or None
    return Path(value).expanduser() if value is not None else None


def repo_candidates(
    repo: str, *, base: Path | None = None, repos_dir: str | Path | None = None
) -> list[Path]:
    """Where `repo` may live, in the order they are tried: the path itself (relative to `base`,
    the JSONL file's folder), then `<repos_dir>/<repo>`, `<repo>.git` and `<repo>.bundle`."""
    path = Path(repo).expanduser()
    found = [path] if path.is_absolute() else ([base / path] if base is not None else [Path.cwd() / path])
    root = repos_dir_from_env(repos_dir)
    if root is not None and not path.is_absolute():
        found += [root / repo, root / f"{repo}.git", root / f"{repo}.bundle"]
    return list(dict.fromkeys(found))


def resolve_repo(repo: str, *, base: Path | None = None, repos_dir: str | Path | None = None) -> Path:
    """The local repository or bundle `repo` names (see `repo_candidates`); a `FileNotFoundError`
    naming every path it looked for when there is none."""
    candidates = repo_candidates(repo, base=base, repos_dir=repos_dir)
    for candidate in candidates:
        if candidate.exists():
            return candidate.resolve()
    looked = ", ".join(str(c) for c in candidates)
    hint = (
        ""
        if repos_dir_from_env(repos_dir) is not None
        else (
            f"; for an 'owner/name' repo set a repos directory laid out as <dir>/<owner>/<name> (repos_dir=..., "
            f"${REPOS_DIR_ENV} or --repos-dir)"
        )
    )
    raise FileNotFoundError(
        f"repository {repo!r} not found: looked for {looked}{hint}; a task whose image holds "
        'the repository sets repo_location: "image"'
    )


def task_from_dict(
    data: Any,
    *,
    file: str | Path = "<dict>",
    line: int = 0,
    suite: str | None = None,
    repos_dir: str | Path | None = None,
) -> Task:
    """Build a `Task` from one decoded JSONL object; raises `TaskLoadError` naming the field.

    `repos_dir` (default `$CODEGYM_REPOS_DIR`) is where an "owner/name" `repo` is looked up."""
    file = Path(file)
    if not isinstance(data, dict):
        raise TaskLoadError(file, line, None, f"expected a JSON object, got {type(data).__name__}")
    from codegym.tasks.swesmith import is_swesmith_row, swesmith_row_to_task_dict

    if is_swesmith_row(data):
        source = _resolve_repo_field(data, file, line, repos_dir)
        try:
            data = swesmith_row_to_task_dict(data, source)
        except (ValueError, RuntimeError) as e:
            raise TaskLoadError(file, line, "patch", f"SWE-smith row: {e}") from None
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
    spec = _environment_field(data, file, line)
    if spec is not None and spec.bakes_repo:  # the install runs in the repository: it is in the image
        from codegym.tasks.environment import BAKED_WORKDIR

        kwargs["repo_location"] = "image"
        kwargs["workdir"] = kwargs.get("workdir") or BAKED_WORKDIR
    location = kwargs.get("repo_location") or "upload"
    if location not in REPO_LOCATIONS:
        raise TaskLoadError(
            file, line, "repo_location", f"{location!r} is not one of {', '.join(REPO_LOCATIONS)}"
        )
    if spec is not None and spec.bakes_repo:
        repo = _baked_repo(kwargs, file, line, repos_dir)
    elif location == "image":
        if not image and spec is None:
            raise TaskLoadError(
                file, line, "image", "repo_location 'image' needs the image that holds the repository"
            )
        if not kwargs.get("workdir"):
            raise TaskLoadError(
                file, line, "workdir", "repo_location 'image' needs the workdir the image holds it at"
            )
        repo = kwargs["repo"]  # the upstream name; nothing to resolve on this machine
    else:
        repo = str(_resolve_repo_field(kwargs, file, line, repos_dir))
    kwargs.update(
        repo=repo,
        repo_location=location,
        image=image or None,
        workdir=kwargs.get("workdir") or DEFAULT_WORKDIR,
        suite=kwargs.get("suite") or suite or file.stem,
        metadata=metadata,
    )
    if spec is not None:  # the image is the environment's content tag (any `image` given is replaced)
        from codegym.sandbox.task_images import environment_image_tag

        try:
            tag = environment_image_tag(spec, kwargs["repo"], kwargs["base_commit"], kwargs["workdir"])
        except Exception as e:  # an unknown base commit, no sandbox image definitions, an unreadable file
            raise TaskLoadError(file, line, "environment", f"cannot compute its image tag: {e}") from None
        kwargs.update(environment=spec, image=tag)
    return Task(**kwargs)


def _environment_field(data: dict, file: Path, line: int):
    """The row's `environment` as an `EnvironmentSpec` (a Dockerfile path is relative to the file)."""
    if data.get("environment") is None:
        return None
    from codegym.tasks.environment import parse_environment

    named = file.name != "<dict>"
    try:
        return parse_environment(data["environment"], base_dir=file.parent if named else None,
                                 source=str(file) if named else None)
    except ValueError as e:
        raise TaskLoadError(file, line, "environment", str(e)) from None


def _baked_repo(kwargs: dict, file: Path, line: int, repos_dir: str | Path | None) -> str:
    """The repository an environment bakes into its image: the local one when there is one (the
    build needs it), else the name as given when base_commit is a full sha (an image built elsewhere)."""
    try:
        return str(_resolve_repo_field(kwargs, file, line, repos_dir))
    except TaskLoadError:
        if len(kwargs["base_commit"]) in (40, 64):
            return kwargs["repo"]
        raise


def missing_node_files(tasks: Sequence[Task]) -> dict[str, tuple[str, str, str]]:
    """The tasks that name a test whose file is neither at base_commit nor created by test_patch
    (such a test can never run): instance_id -> (field, node id, file). One `git cat-file
    --batch-check` per repository for all its tasks; tasks whose repository is held in an image
    or a bundle, non-pytest ids (`test_cmd`) and base commits git cannot read (the workspace
    build reports those) are not checked."""
    queries: dict[Path, list[tuple[Task, str, str, str]]] = {}
    for task in tasks:
        repo = Path(task.repo)
        if task.repo_in_image or task.test_cmd or not repo.is_dir():
            continue
        created = set(task.test_files())
        fields = [("FAIL_TO_PASS", n) for n in task.FAIL_TO_PASS] + [("PASS_TO_PASS", n) for n in task.PASS_TO_PASS]
        fields += [("visible_tests", n) for n in task.visible_tests]
        seen = set()
        for name, node in fields:
            path = node_file(node).rstrip("/")
            if not path or "\n" in path or path in created or path in seen or \
                    any(f.startswith(path + "/") for f in created):
                continue
            seen.add(path)
            queries.setdefault(repo, []).append((task, name, node, path))
    missing: dict[str, tuple[str, str, str]] = {}
    for repo, items in queries.items():
        asks = [f"{task.base_commit}^{{commit}}" for task, *_ in items] + [f"{t.base_commit}:{p}" for t, _, _, p in items]
        proc = subprocess.run(["git", "-c", "safe.directory=*", "cat-file", "--batch-check"], cwd=repo,
                              input="\n".join(asks) + "\n", capture_output=True, text=True,
                              env={**os.environ, **GIT_ENV})
        answers = proc.stdout.splitlines()
        if proc.returncode != 0 or len(answers) != len(asks):
            continue
        has_base, found = answers[: len(items)], answers[len(items):]
        for (task, name, node, path), base, answer in zip(items, has_base, found, strict=True):
            if not base.endswith(" missing") and answer.endswith(" missing"):
                missing.setdefault(task.instance_id, (name, node, path))
    return missing


def _resolve_repo_field(data: dict, file: Path, line: int, repos_dir: str | Path | None) -> Path:
    repo = data.get("repo")
    if not isinstance(repo, str) or not repo:
        raise TaskLoadError(
            file,
            line,
            "repo",
            "missing required field"
            if repo is None
            else f"expected a non-empty string, got {type(repo).__name__}",
        )
    base = file.parent if file.name != "<dict>" else None
    try:
        return resolve_repo(repo, base=base, repos_dir=repos_dir)
    except FileNotFoundError as e:
        raise TaskLoadError(file, line, "repo", str(e)) from None


def read_tasks_jsonl(
    path: str | Path, *, suite: str | None = None, repos_dir: str | Path | None = None
) -> TaskList:
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
                task = task_from_dict(data, file=path, line=lineno, suite=suite, repos_dir=repos_dir)
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
    missing = missing_node_files(tasks)
    for task in [t for t in tasks if t.instance_id in missing]:
        name, node, file = missing[task.instance_id]
        errors.append(TaskLoadError(path, seen[task.instance_id], name,
                                    f"test {node!r} names {file}, a file that is neither in the repository at "
                                    f"base_commit {task.base_commit[:12]} nor created by test_patch"))
        tasks.remove(task)
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


def load_tasks(source: str | Path, *, strict: bool = False, repos_dir: str | Path | None = None) -> TaskList:
    """Tasks from a built-in suite name (`humaneval`, `repofix`, `toy`), a JSONL path or a folder of
    Harbor tasks (`codegym.tasks.harbor`).

    Bad lines are logged and collected in the result's `.errors`; with `strict=True` any bad
    line raises `TaskLoadErrors` instead (its `.tasks` holds the lines that loaded). An
    "owner/name" `repo` is looked up in `repos_dir` (default `$CODEGYM_REPOS_DIR`).
    """
    from codegym.tasks.suites import SUITES, suite_jsonl

    name = str(source)
    if name in SUITES:
        result = read_tasks_jsonl(suite_jsonl(name), suite=name)
    else:
        path = Path(name).expanduser()
        if path.is_dir():  # Harbor task folders (codegym.tasks.harbor)
            from codegym.tasks.harbor import load_harbor

            result = load_harbor(path)
        elif not path.is_file():
            raise FileNotFoundError(
                f"task source {name!r} is neither a built-in suite ({', '.join(sorted(SUITES))}), a JSONL file "
                "nor a folder of Harbor tasks"
            )
        else:
            result = read_tasks_jsonl(path, repos_dir=repos_dir)
    for err in result.errors:
        log.warning("skipped task line: %s", err)
    if strict and result.errors:
        raise TaskLoadErrors(f"{len(result.errors)} bad task line(s) in {name}", result.errors, list(result))
    return result
