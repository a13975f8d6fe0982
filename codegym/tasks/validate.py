"""Check, without Docker, that a task grades the way it claims to.

A task is valid when, on a host copy of its prepared workspace and with the grading script
the env runs in its sandbox (`codegym.tasks.grading`):

- the workspace holds none of the hidden test files and none of the upstream refs;
- the empty submission leaves every FAIL_TO_PASS test failing and every PASS_TO_PASS test
  passing (score 0);
- the reference `patch` makes every graded test pass (score 1);
- the reference patch touches no test file.

    result = validate_task_locally(task)
    assert result.ok, result.problems
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from codegym.sandbox.base import ExecResult
from codegym.tasks.gitrepo import GIT_ENV
from codegym.tasks.grading import GradeResult, GradingError, GradingOptions, run_grading
from codegym.tasks.task import Task
from codegym.tasks.workspace import workspace_archive


@dataclass
class ValidationResult:
    """What validating one task found; `ok` when `problems` is empty."""

    instance_id: str
    problems: list[str] = field(default_factory=list)
    empty: GradeResult | None = None
    reference: GradeResult | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems


def _extract(archive: Path, dest: Path) -> None:
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(dest, filter="data")
        else:  # Python < 3.11.4: the archive is ours, written by write_workspace_tar
            tar.extractall(dest)


class HostIO:
    """`GradingIO` on this host: commands run in `workdir` as the current user (no second user
    here: validation grades the task's own reference, not an agent)."""

    def __init__(self, workdir: Path):
        self.workdir = workdir

    def write(self, path: str, data: bytes) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_bytes(data)

    def run(self, cmd: str, *, stdin: bytes = b"", as_grader: bool = False, timeout: float = 600.0):
        # Entry-point plugins of the host's environment are not part of any task.
        env = {**os.environ, **GIT_ENV, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        try:
            proc = subprocess.run(["bash", "-c", cmd], input=stdin, capture_output=True, env=env,
                                  timeout=timeout, cwd=self.workdir)
            return ExecResult(proc.returncode, proc.stdout.decode("utf-8", "replace"),
                              proc.stderr.decode("utf-8", "replace"))
        except subprocess.TimeoutExpired as e:
            return ExecResult(-9, (e.stdout or b"").decode("utf-8", "replace"),
                              (e.stderr or b"").decode("utf-8", "replace") + f"\ntimed out after {timeout}s",
                              timed_out=True)


def run_grading_locally(
    task: Task,
    workspace: Path,
    agent_patch: str,
    *,
    python: str = sys.executable,
    timeout_s: float = 300,
) -> tuple[GradeResult, str]:
    """Grade `agent_patch` in an extracted `workspace` on this host, with the same preparation,
    runner and collector the env uses in its sandbox. Returns the result and the log."""
    grade_dir = workspace.parent / f"{workspace.name}-grade"
    options = GradingOptions(timeout_s=timeout_s, python=python, kill_strays=False)
    return run_grading(task, agent_patch, HostIO(workspace), grade_dir=str(grade_dir), workdir=str(workspace),
                       options=options)


def _reachable_refs(workspace: Path, refs: Iterable[str]) -> list[str]:
    """The refs (shas, tags, versions) that resolve to an object in the workspace's git."""
    refs = [r for r in refs if r and "\n" not in r]
    if not refs:
        return []
    proc = subprocess.run(
        ["git", "-c", "safe.directory=*", "cat-file", "--batch-check"],
        input="\n".join(refs) + "\n",
        capture_output=True,
        text=True,
        cwd=workspace,
        env={**os.environ, **GIT_ENV},
        check=True,
    )
    return [
        ref
        for ref, line in zip(refs, proc.stdout.splitlines(), strict=False)
        if not line.endswith(" missing")
    ]


def _stop_cause(label: str, status) -> str:
    """Which grading stage stopped the run, in words, with the raw status after it."""
    if status.get("agent_patch") not in ("applied", "empty"):
        what = f"the {label} patch does not apply"
    elif status.get("test_patch") != "applied":
        what = "the test patch (hidden tests) does not apply"
    else:
        what = "grading stopped early"
    return f"{what} (grading status {dict(status)})"


def _describe(result: GradeResult, ids: Iterable[str]) -> str:
    return ", ".join(f"{i}={result.outcomes.get(i)}" for i in ids)


def validate_task_locally(
    task: Task, *, python: str = sys.executable, timeout_s: float = 300
) -> ValidationResult:
    """Validate one task on this host (see the module docstring)."""
    start = time.monotonic()
    res = ValidationResult(task.instance_id)
    if not task.patch.strip():
        res.problems.append("no reference patch")
    touched_tests = set(task.patch_files()) & set(task.reset_paths())
    if touched_tests:
        res.problems.append(f"reference patch touches test files {sorted(touched_tests)}")
    try:
        archive = workspace_archive(task)
    except Exception as e:  # noqa: BLE001 - reported, not raised: one broken task must not stop a suite
        res.problems.append(f"workspace: {e}")
        res.seconds = time.monotonic() - start
        return res
    with tempfile.TemporaryDirectory(prefix=f"codegym-validate-{task.instance_id}-") as tmp:
        for label, patch in (("empty", ""), ("reference", task.patch)):
            ws = Path(tmp) / label
            _extract(archive, ws)
            if label == "empty":
                present = [p for p in task.hidden_test_files() if (ws / p).exists()]
                if present:
                    res.problems.append(f"hidden test files present in the workspace: {present}")
                leaked = _reachable_refs(ws, task.upstream_refs)
                if leaked:
                    res.problems.append(f"upstream refs reachable from the workspace: {leaked}")
            try:
                result, log = run_grading_locally(task, ws, patch, python=python, timeout_s=timeout_s)
            except GradingError as e:
                res.problems.append(f"{label}: {e}")
                continue
            setattr(res, label, result)
            if result.status.get("test_patch") != "applied" or result.status.get("agent_patch") not in (
                "applied",
                "empty",
            ):
                res.problems.append(f"{label}: {_stop_cause(label, result.status)}\n{log[-2000:]}")
                continue
            if label == "empty":
                bad_f2p = [i for i in task.FAIL_TO_PASS if result.outcomes[i] == "passed"]
                bad_p2p = [i for i in task.PASS_TO_PASS if result.outcomes[i] != "passed"]
                if bad_f2p:
                    res.problems.append(f"empty submission passes FAIL_TO_PASS tests: {bad_f2p}")
                if bad_p2p:
                    res.problems.append(f"PASS_TO_PASS tests fail at base: {_describe(result, bad_p2p)}")
                if result.resolved:
                    res.problems.append("empty submission scores 1")
            elif not result.resolved:
                bad = [i for i in task.tests_to_run() if result.outcomes[i] != "passed"]
                res.problems.append(f"reference patch does not pass: {_describe(result, bad)}\n{log[-2000:]}")
    res.seconds = time.monotonic() - start
    return res


def validate_tasks(
    tasks: Iterable[Task],
    *,
    jobs: int = 2,
    python: str = sys.executable,
    on_result: Callable[[ValidationResult], None] | None = None,
) -> list[ValidationResult]:
    """Validate many tasks, `jobs` at a time (each runs its own pytest processes)."""
    tasks = list(tasks)
    # Build workspaces one by one first: each is a few git processes, cached afterwards.
    for task in tasks:
        try:
            workspace_archive(task)
        except Exception:  # noqa: BLE001 - validate_task_locally reports it
            pass

    def one(task: Task) -> ValidationResult:
        result = validate_task_locally(task, python=python)
        if on_result:
            on_result(result)
        return result

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, tasks))
