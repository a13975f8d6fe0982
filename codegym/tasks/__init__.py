"""codegym.tasks: what a task is, where tasks come from, and how a submission is graded.

    from codegym.tasks import load_tasks, prepare_workspace, run_grading

    tasks = load_tasks("repofix")              # or "humaneval", "toy", or a JSONL path
    tar_bytes = prepare_workspace(tasks[0])    # the repo at base_commit, history scrubbed

See docs/tasks.md for the JSONL format and the guarantees.
"""

from codegym.tasks.grading import (
    GradeResult,
    GradingError,
    GradingOptions,
    Outcome,
    build_diff_script,
    grade,
    run_grading,
)
from codegym.tasks.loader import (
    TaskList,
    TaskLoadError,
    TaskLoadErrors,
    load_tasks,
    read_tasks_jsonl,
    task_from_dict,
    write_tasks_jsonl,
)
from codegym.tasks.suites import SUITES, suite_jsonl
from codegym.tasks.task import DEFAULT_WORKDIR, Task, patch_files
from codegym.tasks.validate import ValidationResult, validate_task_locally, validate_tasks
from codegym.tasks.workspace import (
    AGENT_GID,
    AGENT_UID,
    WorkspaceError,
    build_scrub_script,
    prepare_workspace,
    workspace_archive,
)

__all__ = [
    "AGENT_GID",
    "AGENT_UID",
    "DEFAULT_WORKDIR",
    "SUITES",
    "GradeResult",
    "GradingError",
    "GradingOptions",
    "Outcome",
    "Task",
    "TaskList",
    "TaskLoadError",
    "TaskLoadErrors",
    "ValidationResult",
    "WorkspaceError",
    "build_diff_script",
    "build_scrub_script",
    "grade",
    "load_tasks",
    "run_grading",
    "patch_files",
    "prepare_workspace",
    "read_tasks_jsonl",
    "suite_jsonl",
    "task_from_dict",
    "validate_task_locally",
    "validate_tasks",
    "workspace_archive",
    "write_tasks_jsonl",
]
