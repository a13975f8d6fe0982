"""`Task`: one coding problem, in SWE-bench's vocabulary.

A task names a git repository (a local repository or a bundle) and the commit the agent
starts from; the reference solution (`patch`) and the hidden tests (`test_patch`) are diffs
against that commit. Grading applies the agent's diff, resets the test files, applies
`test_patch` and runs `FAIL_TO_PASS` and `PASS_TO_PASS` (pytest node ids relative to the
repository root): the task is solved when all of them pass.

    task = load_tasks("toy")[0]
    task.test_files()        # ('tests/test_hidden.py',)
    task.tests_to_run()      # FAIL_TO_PASS then PASS_TO_PASS, without duplicates
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_WORKDIR = "/workspace"

#: where the agent's repository comes from: "upload" (codegym builds the scrubbed workspace from
#: `repo` on the host and uploads it) or "image" (the task's `image` holds it at `workdir`; the env
#: checks out `base_commit` and scrubs its history in the container).
REPO_LOCATIONS = ("upload", "image")

_DIFF_GIT = re.compile(r'^diff --git (?:"?a/)(.+?)"? (?:"?b/)(.+?)"?$')


def _unquote(path: str) -> str:
    """Undo git's C-style quoting of unusual path names ("a/t\\303\\251st.py")."""
    if "\\" not in path:
        return path
    raw = path.encode("latin-1", "backslashreplace").decode("unicode_escape")
    return raw.encode("latin-1").decode("utf-8", "replace")


def patch_files(patch: str, *, added_only: bool = False) -> tuple[str, ...]:
    """Repository-relative paths a unified diff touches, in order of appearance.

    Understands `git diff` output (including renames, deletions and quoted names) and plain
    `---`/`+++` diffs. With `added_only`, only files the diff creates.
    """
    found: list[str] = []
    added: set[str] = set()
    current: str | None = None
    old: str | None = None
    for line in patch.splitlines():
        if line.startswith("diff --git "):
            m = _DIFF_GIT.match(line)
            current = _unquote(m.group(2)) if m else None
            if current and current not in found:
                found.append(current)
            old = None
        elif line.startswith("new file mode") and current:
            added.add(current)
        elif line.startswith("rename from "):
            source = _unquote(line[len("rename from ") :].strip('"'))
            if source not in found:
                found.append(source)
        elif line.startswith("--- "):
            old = line[4:].split("\t")[0]
        elif line.startswith("+++ ") and old is not None:
            new = line[4:].split("\t")[0]
            name = new if new != "/dev/null" else old
            name = _unquote(name.strip('"'))
            name = name[2:] if name[:2] in ("a/", "b/") else name
            if name not in found:
                found.append(name)
            if old == "/dev/null":
                added.add(name)
            old = None
    if added_only:
        return tuple(p for p in found if p in added)
    return tuple(found)


def node_file(node_id: str) -> str:
    """The file (or directory) part of a pytest node id: `tests/test_a.py::T::t[x]` -> `tests/test_a.py`."""
    return node_id.split("::", 1)[0]


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


#: how graded outcomes are read: codegym's streaming pytest runner, or a task command's log
LOG_PARSER_NAMES = ("pytest", "unittest", "passfail", "harbor")


@dataclass(frozen=True)
class Task:
    """One coding task. Field names follow SWE-bench's where they overlap.

    Attributes:
        instance_id: unique id, safe in file and container names (no `/`).
        repo: path to a local git repository or git bundle holding `base_commit` (and, in
            the source, the upstream fix). For a task whose `image` already holds the
            repository at `workdir` (`repo_location="image"`), the upstream name.
        base_commit: full sha of the commit the agent starts from.
        problem_statement: what the agent is told.
        test_patch: diff against `base_commit` adding the hidden tests; applied at grading only.
        FAIL_TO_PASS: node ids that fail at `base_commit` and must pass after the fix.
        PASS_TO_PASS: node ids that pass at `base_commit` and must keep passing.
        patch: the reference solution, a diff of source files only ("" when unknown).
        upstream_refs: commits, tags or versions that contain the answer; must be
            unreachable from the agent's workspace.
        protected_paths: repository-relative paths the agent must not read (hidden test
            files, reference solution files).
        visible_tests: test files or node ids the agent's `run_tests` tool may run.
        image: container image to run in; None means codegym's default Python image.
        workdir: where the repository lives in the sandbox.
        suite: the suite the task came from (a built-in name or the JSONL file's stem).
        repo_location: "upload" (the workspace is built from `repo` on the host) or "image"
            (`image` holds the repository at `workdir`; it is checked out at `base_commit` and
            scrubbed in the container at reset).
        test_cmd: for a suite pytest cannot run: the command that runs the graded tests in
            `workdir`, with `{tests}` standing for the graded ids (shell-quoted); None runs pytest
            with codegym's streaming runner.
        log_parser: how `test_cmd`'s output becomes per-test outcomes: "unittest" (unittest or
            Django verbose lines, ids like `test_x (tests.test_parse.TestParse)`) or "passfail"
            (`PASSED id` / `FAILED id` lines); see `codegym.tasks.log_parsers`.
        environment: the task's own environment (`codegym.tasks.environment.EnvironmentSpec`),
            built by `codegym images build --tasks FILE`; `image` is then its content tag.
        metadata: anything else (SWE-bench's `version`, `hints_text`, bug kinds, ...).
    """

    instance_id: str
    repo: str
    base_commit: str
    problem_statement: str
    test_patch: str
    FAIL_TO_PASS: tuple[str, ...]
    PASS_TO_PASS: tuple[str, ...] = ()
    patch: str = ""
    upstream_refs: tuple[str, ...] = ()
    protected_paths: tuple[str, ...] = ()
    visible_tests: tuple[str, ...] = ()
    image: str | None = None
    workdir: str = DEFAULT_WORKDIR
    suite: str = "custom"
    repo_location: str = "upload"
    test_cmd: str | None = None
    log_parser: str = "pytest"
    environment: Any = field(default=None, compare=False, hash=False)
    metadata: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.repo_location not in REPO_LOCATIONS:
            raise ValueError(
                f"task {self.instance_id}: repo_location {self.repo_location!r} is not one of "
                f"{', '.join(map(repr, REPO_LOCATIONS))}"
            )
        if self.log_parser not in LOG_PARSER_NAMES:
            raise ValueError(f"task {self.instance_id}: log_parser {self.log_parser!r} is not one of "
                             f"{', '.join(map(repr, LOG_PARSER_NAMES))}")
        if (self.log_parser == "pytest") != (self.test_cmd is None):
            raise ValueError(f"task {self.instance_id}: a test_cmd needs a log_parser ('unittest' or 'passfail') "
                             "and a log_parser other than 'pytest' needs a test_cmd")
        if self.repo_location == "image" and not self.image:
            raise ValueError(
                f"task {self.instance_id}: repo_location 'image' needs an image that holds the "
                "repository at workdir"
            )

    def test_files(self) -> tuple[str, ...]:
        """Files `test_patch` touches."""
        return patch_files(self.test_patch)

    def hidden_test_files(self) -> tuple[str, ...]:
        """Files `test_patch` creates: absent from the workspace until grading."""
        return patch_files(self.test_patch, added_only=True)

    def patch_files(self) -> tuple[str, ...]:
        """Files the reference solution touches."""
        return patch_files(self.patch)

    def tests_to_run(self) -> tuple[str, ...]:
        """FAIL_TO_PASS then PASS_TO_PASS, duplicates removed: what grading runs."""
        return _unique([*self.FAIL_TO_PASS, *self.PASS_TO_PASS])

    def reset_paths(self) -> tuple[str, ...]:
        """Paths grading restores to `base_commit` (or deletes when absent there) before
        `test_patch` is applied: the hidden test files, the files of the graded node ids and
        the visible test files. The agent may edit them; its edits never count."""
        visible = (node_file(v) for v in self.visible_tests)
        graded = (node_file(n) for n in self.tests_to_run())
        return _unique([*self.test_files(), *graded, *visible])

    @property
    def repo_is_local(self) -> bool:
        """True when `repo` is a git repository or bundle on this machine."""
        return Path(self.repo).exists()

    @property
    def repo_in_image(self) -> bool:
        """True when the task's image holds the repository at `workdir` (`repo_location="image"`)."""
        return self.repo_location == "image"

    def replace(self, **changes: Any) -> Task:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict in the JSONL format `load_tasks` reads."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        out["metadata"] = dict(self.metadata)
        if self.environment is None:
            del out["environment"]
        else:
            out["environment"] = self.environment.to_dict()
        return out
