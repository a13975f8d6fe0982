"""Run a project's own test suite in the codegym sandbox: collect it, grade a diff, read failures.

Outcomes come from codegym's grading (`SandboxGrader`, the same preparation, streaming runner
and collector that grade an agent): the pristine tree is a throwaway measurement repository
whose task grades every collected test as PASS_TO_PASS, and a mutant is graded as the "agent
diff" against it. `inspect` checks that a mutant still collects (`pytest --collect-only`) and
reads the failure messages from a plain pytest run's JUnit report (for the problem statement).

    with SuiteRunner(tree, pool) as runner:
        ids = runner.collect()                    # pytest node ids, from pytest --collect-only
        run = runner.run(mutation_diff)           # SuiteRun: outcomes per id, status, seconds
        collected, messages = runner.inspect(mutation_diff, ["tests/test_a.py::test_x"])
"""

from __future__ import annotations

import shlex
import shutil
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from codegym.envs.grader import SandboxGrader, workspace_bytes
from codegym.sandbox import SandboxPool
from codegym.tasks.grading import GradingError, GradingOptions
from codegym.tasks.mutate.repo import write_orphan_repo
from codegym.tasks.mutate.sources import SourceTree
from codegym.tasks.task import Task

_PYTEST = "python3 -m pytest -p no:cacheprovider -o addopts= --rootdir=. -W ignore"
_ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}


class SuiteError(RuntimeError):
    """The project's suite cannot be collected or run in the sandbox."""


@dataclass(frozen=True)
class SuiteRun:
    """One graded run of the suite: an outcome per collected id ("passed", "failed", "error",
    "skipped", "missing"), the grading status and the wall time."""

    outcomes: dict[str, str]
    status: dict[str, str]
    seconds: float

    @property
    def complete(self) -> bool:
        """The run streamed to its end and collected every test (a module that no longer imports
        leaves its tests uncollected, reported as errors: the suite does not collect)."""
        return (
            self.status.get("stream") == "complete"
            and "uncollected" not in self.status
            and "missing" not in self.outcomes.values()
        )


class SuiteRunner:
    """Measurement of one source tree's suite (see the module docstring). A context manager:
    the measurement repository is deleted on exit."""

    def __init__(self, tree: SourceTree, pool: SandboxPool, *, timeout_s: float = 300.0):
        self.tree, self.pool, self.timeout_s = tree, pool, timeout_s
        self._tmp = Path(tempfile.mkdtemp(prefix="codegym-measure-"))
        repo = self._tmp / "pristine.git"
        sha = write_orphan_repo(
            repo, tree.files, message=f"{tree.pin} (measurement only)", executable=tree.executable
        )
        self.task = Task(
            instance_id=f"measure-{sha[:12]}",
            repo=str(repo),
            base_commit=sha,
            problem_statement="",
            test_patch="",
            FAIL_TO_PASS=(),
        )
        self._workspace = workspace_bytes(self.task)
        self.collected: list[str] = []
        # a src/ layout imports from src/ in the plain pytest runs too, as the grader's runner
        # puts it on sys.path (`grade_runner._arrange_sys_path`)
        self._env = {**_ENV, "PYTHONPATH": "src"} if any(p.startswith("src/") for p in tree.files) else _ENV

    def __enter__(self) -> SuiteRunner:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        shutil.rmtree(self._tmp, ignore_errors=True)

    def _exec(self, cmd: str, diff: str = "", timeout: float | None = None, read: str = ""):
        sandbox = self.pool.acquire(self._workspace)
        try:
            if diff:
                sandbox.write_file("/tmp/codegym-mutant.diff", diff.encode())
                cmd = f"git apply /tmp/codegym-mutant.diff && {{ {cmd}; }}"
            result = sandbox.exec(cmd, timeout=timeout or self.timeout_s, env=self._env)
            report = None
            if read:
                try:
                    report = sandbox.read_file(read).decode("utf-8", "replace")
                except Exception:  # noqa: BLE001 - no report: the run died; nothing was collected
                    report = None
            return result, report
        finally:
            self.pool.release(sandbox)

    def collect(self) -> list[str]:
        """The suite's node ids, as `pytest --collect-only -q` lists them in the sandbox."""
        result, _ = self._exec(f"{_PYTEST} --collect-only -q")
        ids = _collected(result.stdout)
        if not ids:
            raise SuiteError(
                f"{self.tree.pin}: pytest collected no test in the sandbox (exit {result.exit_code}): "
                f"{(result.stdout + result.stderr).strip()[-800:]}"
            )
        self.task = self.task.replace(PASS_TO_PASS=tuple(ids))
        self.collected = ids
        return ids

    def run(self, diff: str = "", timeout_s: float | None = None) -> SuiteRun:
        """Grade `diff` (the pristine tree when empty) against every collected test."""
        if not self.task.PASS_TO_PASS:
            self.collect()
        options = GradingOptions(timeout_s=timeout_s or self.timeout_s, isolate_f2p=0)
        start = time.monotonic()
        try:
            grade = SandboxGrader(self.pool, options=options).grade(self.task, diff)
        except GradingError as e:  # e.g. a mutant that breaks a conftest.py: pytest refuses to start
            if not diff:
                raise
            outcomes = dict.fromkeys(self.task.PASS_TO_PASS, "error")
            return SuiteRun(outcomes, {"stream": f"grading error: {e}"[:300]}, time.monotonic() - start)
        return SuiteRun(dict(grade.result.outcomes), dict(grade.result.status), time.monotonic() - start)

    def inspect(self, diff: str, ids: list[str]) -> tuple[list[str], dict[str, str]]:
        """With `diff` applied, in one sandbox: the ids `pytest --collect-only` lists (a module that
        no longer imports drops its tests) and id -> the exception message pytest reports for it
        (JUnit `message`; "" for a test that did not fail)."""
        args = " ".join(shlex.quote(i) for i in ids)
        cmd = (
            f"{_PYTEST} --collect-only -q > /tmp/codegym-collected.txt 2>&1; "
            f"{_PYTEST} -q --junitxml=/tmp/codegym-junit.xml -- {args} > /dev/null 2>&1; "
            "cat /tmp/codegym-collected.txt"
        )
        result, report = self._exec(cmd, diff, read="/tmp/codegym-junit.xml")
        return _collected(result.stdout), junit_messages(report or "", ids)


def _collected(output: str) -> list[str]:
    return [line.strip() for line in output.splitlines() if "::" in line and not line.startswith(" ")]


def _junit_key(node_id: str) -> tuple[str, str]:
    parts = node_id.split("::")
    module = parts[0].removesuffix(".py").replace("/", ".")
    return ".".join([module, *parts[1:-1]]), parts[-1]


def junit_messages(report: str, ids: list[str]) -> dict[str, str]:
    """id -> failure or error message in a JUnit XML report ("" when it passed or is absent)."""
    found: dict[tuple[str, str], str] = {}
    if report.strip():
        try:
            root = ET.fromstring(report)
        except ET.ParseError:
            root = None
        for case in root.iter("testcase") if root is not None else ():
            for child in case:
                if child.tag in ("failure", "error"):
                    text = (child.text or "").strip().splitlines()
                    message = child.get("message") or (text[-1] if text else child.tag)
                    found[(case.get("classname", ""), case.get("name", ""))] = message
    return {i: found.get(_junit_key(i), "") for i in ids}
