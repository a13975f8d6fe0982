"""Grading in a pristine sandbox that the agent never touched.

    grader = SandboxGrader(pool)
    diff = grader.agent_diff(agent_sandbox, task)     # git diff against base_commit
    result = grader.grade(task, diff)                 # hidden tests run only now

The agent's diff is taken from its sandbox with a private git index; then a fresh sandbox
from the pool gets the task's workspace and `codegym.tasks.grading.run_grading` runs there:
the sandbox's own user prepares a pristine tree (agent diff, base test tree, hidden tests,
fresh test names) from inputs in its private home, and the graded pytest run happens as
`SandboxConfig.grader_user`, streaming outcomes back to this process. When PASS_TO_PASS tests
cannot be collected, a second pristine sandbox collects them at the base: uncollectable there
too masks the episode (`GradingError`), else the submission broke them and scores 0.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field

from codegym.sandbox import Sandbox, SandboxError, SandboxPool
from codegym.tasks.grading import (
    EVENTS_LIMIT,
    GradeResult,
    GradingError,
    GradingOptions,
    build_diff_script,
    run_grading,
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


class SandboxIO:
    """`GradingIO` over a sandbox: preparation as the sandbox's user, the graded run as its
    grader user (Docker; the bubblewrap backend has one user)."""

    def __init__(self, sandbox: Sandbox, workdir: str):
        self.sandbox, self.workdir = sandbox, workdir

    def write(self, path: str, data: bytes) -> None:
        self.sandbox.write_file(path, data, mode=0o600)

    def run(self, cmd: str, *, stdin: bytes = b"", as_grader: bool = False, timeout: float = 600.0):
        config = self.sandbox.config
        env = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        if as_grader:
            env["HOME"] = "/tmp"
        return self.sandbox.exec(cmd, timeout=timeout + 30, workdir=self.workdir, env=env,
                                 kill_leftovers=True, user=config.grader_user if as_grader else None,
                                 stdin=stdin, output_limit=EVENTS_LIMIT)


class SandboxGrader:
    def __init__(self, pool: SandboxPool, timeout_s: float = 600.0, options: GradingOptions | None = None):
        self.pool = pool
        self.timeout_s = timeout_s
        self.options = options or GradingOptions(timeout_s=timeout_s)

    def agent_diff(self, sandbox: Sandbox, task: Task) -> str:
        """The agent's changes against `base_commit` (new files included, bytecode not)."""
        r = sandbox.exec(build_diff_script(task.base_commit, task.workdir, _DIFF_PATH), timeout=120)
        if r.exit_code != 0:
            # A broken repository (e.g. the agent deleted .git) cannot give a diff: nothing is graded.
            return ""
        return sandbox.read_file(_DIFF_PATH).decode("utf-8", errors="surrogateescape")

    @staticmethod
    def _check_runner(sandbox: Sandbox, task: Task) -> None:
        """No events at all: the sandbox may have no pytest (the environment's fault). Checked
        outside the workspace, where the agent's files cannot shadow anything."""
        r = sandbox.exec("cd / && python3 -I -c 'import pytest'", timeout=60)
        if r.exit_code != 0:
            raise GradingError(f"cannot grade {task.instance_id}: python3 in the {type(sandbox).__name__} cannot "
                               f"import pytest ({r.output.strip()[-200:]}); the local backend uses the host's "
                               "python3: install python3-pytest, or use the Docker backend")

    def cache_key(self, task: Task, agent_diff: str) -> str:
        """What decides the grade, hashed (see `codegym.envs.grade_cache`)."""
        return grade_key(task.instance_id, task.base_commit, task.test_patch, "\n".join(task.tests_to_run()),
                         self.options.fingerprint(), agent_diff)

    @contextlib.contextmanager
    def _base_sandbox(self, task: Task):
        """A second pristine sandbox with the unchanged workspace: where PASS_TO_PASS tests the
        submission's run could not collect are collected at the base (`run_grading`'s `base_io`)."""
        sandbox = self.pool.acquire(workspace_bytes(task))
        try:
            yield SandboxIO(sandbox, task.workdir), task.workdir
        finally:
            self.pool.release(sandbox)

    def grade(self, task: Task, agent_diff: str) -> Grade:
        t0 = time.monotonic()
        sandbox = self.pool.acquire(workspace_bytes(task))
        try:
            io = SandboxIO(sandbox, task.workdir)
            result, log = run_grading(task, agent_diff, io, grade_dir=f"{sandbox.config.home}/.codegym-grade",
                                      options=self.options, check_runner=lambda: self._check_runner(sandbox, task),
                                      base_io=lambda: self._base_sandbox(task))
            return Grade(result, log, time.monotonic() - t0, dict(result.outcomes))
        finally:
            self.pool.release(sandbox)


__all__ = ["Grade", "SandboxError", "SandboxGrader", "SandboxIO", "workspace_bytes"]
