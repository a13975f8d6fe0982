"""`OracleAgent`: applies the task's reference patch through the bash tool, then submits.

It proves a task is solvable through the env's own tools (and scores 1.0 on every valid
task); the grader never sees anything but the resulting diff.

    agent = OracleAgent(load_tasks("repofix"))
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import Any

from codegym.tasks.task import Task
from codegym.toolcall import ToolCall


class OracleAgent:
    def __init__(self, tasks: Iterable[Task]):
        self.tasks = {t.instance_id: t for t in tasks}
        self._task: Task | None = None
        self._step = 0

    def reset(self, info: dict[str, Any]) -> None:
        self._task = self.tasks[info["task_id"]]
        self._step = 0

    def act(self, messages: list[dict[str, Any]], info: dict[str, Any]) -> ToolCall:
        if self._task is None:
            self.reset(info)
        self._step += 1
        harbor = self._task.metadata.get("harbor") or {}
        if self._step == 1 and harbor.get("oracle_command"):  # a Harbor task's solution/solve.sh
            return ToolCall("bash", {"command": harbor["oracle_command"]})
        if self._step == 1 and self._task.patch.strip():
            tag = "ORACLE_" + secrets.token_hex(4).upper()
            patch = self._task.patch if self._task.patch.endswith("\n") else self._task.patch + "\n"
            command = f"cat > /tmp/oracle.diff <<'{tag}'\n{patch}{tag}\ngit apply --whitespace=nowarn /tmp/oracle.diff"
            return ToolCall("bash", {"command": command})
        return ToolCall("submit", {})
