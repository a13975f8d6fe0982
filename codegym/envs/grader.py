"""Grading in a pristine sandbox that the agent never touched.

    grader = SandboxGrader(pool)
    diff = grader.agent_diff(agent_sandbox, task)     # git diff against base_commit
    result = grader.grade(task, diff)                 # hidden tests run only now

The agent's diff is taken from its sandbox with a private git index; then a fresh sandbox
from the pool gets the task's workspace, the diff, and the hidden tests, and runs the
grading script of `codegym.tasks.grading` (test files and pytest configuration reset to
`base_commit`, listed node ids only, outcomes read per test from JUnit XML).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from codegym.sandbox import Sandbox, SandboxError, SandboxPool
from codegym.tasks.grading import (
    GRADE_DIR,
    GradeResult,
    build_diff_script,
    build_grading_script,
    grade,
    parse_junit_xml,
)
from codegym.tasks.task import Task
from codegym.tasks.workspace import workspace_archive

from .grade_cache import grade_key

_DIFF_PATH = "/tmp/codegym-agent.diff"
_WORKSPACES: dict[str, bytes] = {}


def workspace_bytes(task: Task) -> bytes:
    """The task's scrubbed workspace tar, read once per process."""
    key = f"{task.instance_id}@{task.base_commit}"
    if key not in _WORKSPACES:
        _WORKSPACES[key] = workspace_archive(task).read_bytes()
    return _WORKSPACES[key]


@dataclass
class Grade:
    result: GradeResult
    log: str
    seconds: float
    outcomes: dict[str, str] = field(default_factory=dict)


class SandboxGrader:
    def __init__(self, pool: SandboxPool, timeout_s: float = 600.0):
        self.pool = pool
        self.timeout_s = timeout_s

    def agent_diff(self, sandbox: Sandbox, task: Task) -> str:
        """The agent's changes against `base_commit` (new files included, bytecode not)."""
        r = sandbox.exec(build_diff_script(task.base_commit, task.workdir, _DIFF_PATH), timeout=120)
        if r.exit_code != 0:
            # A broken repository (e.g. the agent deleted .git) cannot give a diff: nothing is graded.
            return ""
        return sandbox.read_file(_DIFF_PATH).decode("utf-8", errors="surrogateescape")

    @staticmethod
    def _check_runner(sandbox: Sandbox, task: Task) -> None:
        """No report: the agent's code may have killed pytest (a 0 it earned), or the sandbox has
        no pytest (the environment's fault: masked). Checked outside the workspace, where the
        agent's files cannot shadow anything, and only in this rare case (it costs a process)."""
        r = sandbox.exec("cd / && python3 -I -c 'import pytest'", timeout=60)
        if r.exit_code != 0:
            raise SandboxError(f"cannot grade {task.instance_id}: python3 in the {type(sandbox).__name__} cannot "
                               f"import pytest ({r.output.strip()[-200:]}); the local backend uses the host's "
                               "python3: install python3-pytest, or use the Docker backend")

    def script(self, task: Task) -> str:
        """The grading script this grader runs for `task` (a disposable sandbox: strays are killed)."""
        return build_grading_script(task, python="python3", timeout_s=self.timeout_s, kill_strays=True)

    def cache_key(self, task: Task, agent_diff: str) -> str:
        """What decides the grade, hashed (see `codegym.envs.grade_cache`)."""
        return grade_key(task.instance_id, task.base_commit, task.test_patch, "\n".join(task.tests_to_run()),
                         self.script(task), agent_diff)

    def grade(self, task: Task, agent_diff: str) -> Grade:
        t0 = time.monotonic()
        sandbox = self.pool.acquire(workspace_bytes(task))
        try:
            sandbox.write_file(f"{GRADE_DIR}/agent.diff", agent_diff.encode("utf-8", errors="surrogateescape"))
            sandbox.write_file(f"{GRADE_DIR}/test.diff", task.test_patch)
            sandbox.write_file(f"{GRADE_DIR}/grade.sh", self.script(task))
            # kill_leftovers: a process the agent's code left behind cannot rewrite the report later
            r = sandbox.exec(f"bash {GRADE_DIR}/grade.sh", timeout=self.timeout_s + 30, workdir=task.workdir,
                             kill_leftovers=True)
            try:
                xml = sandbox.read_file(f"{GRADE_DIR}/junit.xml")
            except FileNotFoundError:
                xml = None
            outcomes = parse_junit_xml(xml, task.tests_to_run())
            result = grade(task, outcomes, r.output)
            if xml is None:
                self._check_runner(sandbox, task)
            return Grade(result, r.output, time.monotonic() - t0, dict(outcomes))
        finally:
            self.pool.release(sandbox)
