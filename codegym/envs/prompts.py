"""The system prompt (tools and how to call them) and the task prompt."""

from __future__ import annotations

import json
from collections.abc import Sequence

from codegym.tasks.task import Task

from .tools import tool_schemas

SYSTEM_TEMPLATE = """You are a software engineer working in a sandboxed repository at {workdir}.
Solve the task by calling tools, one tool call per message, in this format:

<tool_call>{{"name": "<tool name>", "arguments": {{...}}}}</tool_call>

Available tools (JSON schemas):
{tools}

When you are done, call submit. Hidden tests decide whether the task is solved."""


def render_system_prompt(tools: Sequence[str], task: Task) -> str:
    schemas = "\n".join(json.dumps(s["function"]) for s in tool_schemas(tools))
    return SYSTEM_TEMPLATE.format(workdir=task.workdir, tools=schemas)


def render_task_prompt(task: Task) -> str:
    text = f"<task>\n{task.problem_statement.strip()}\n</task>"
    if task.visible_tests:
        text += "\n\nVisible tests you can run with run_tests: " + ", ".join(task.visible_tests)
    return text
