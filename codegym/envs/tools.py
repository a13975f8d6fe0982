"""The agent's tools: schemas the model sees, and how each call runs in the sandbox.

Argument names follow the editor tools models already know:
`bash(command, timeout?)`, `view(path, start_line?, end_line?)`, `create(path, file_text)`,
`str_replace(path, old_str, new_str)`, `run_tests(paths?)` (visible tests only), `submit()`.
"""

from __future__ import annotations

import posixpath
import shlex
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from codegym.sandbox import ExecResult, Sandbox
from codegym.sandbox.output import escape, printable
from codegym.toolcall import ToolCall

_STR = {"type": "string"}
_INT = {"type": "integer"}

TOOL_SPECS: dict[str, dict[str, Any]] = {
    "bash": {
        "description": "Run a bash command in the repository root and return its output and exit code.",
        "parameters": {"type": "object", "properties": {
            "command": {**_STR, "description": "The command to run."},
            "timeout": {**_INT, "description": "Seconds before the command is killed (default 60)."}},
            "required": ["command"]},
    },
    "view": {
        "description": "Show a file with line numbers (optionally a line range), or list a directory.",
        "parameters": {"type": "object", "properties": {
            "path": {**_STR, "description": "File or directory, relative to the repository root."},
            "start_line": {**_INT, "description": "First line to show (1-based)."},
            "end_line": {**_INT, "description": "Last line to show (inclusive)."}},
            "required": ["path"]},
    },
    "create": {
        "description": "Create a file (or overwrite it) with the given text.",
        "parameters": {"type": "object", "properties": {
            "path": {**_STR, "description": "File path, relative to the repository root."},
            "file_text": {**_STR, "description": "The whole content of the file."}},
            "required": ["path", "file_text"]},
    },
    "str_replace": {
        "description": "Replace the one exact occurrence of old_str in a file with new_str.",
        "parameters": {"type": "object", "properties": {
            "path": {**_STR, "description": "File path, relative to the repository root."},
            "old_str": {**_STR, "description": "Text to replace; must occur exactly once."},
            "new_str": {**_STR, "description": "Replacement text."}},
            "required": ["path", "old_str", "new_str"]},
    },
    "run_tests": {
        "description": "Run the repository's visible tests with pytest (all of them, or the given ones).",
        "parameters": {"type": "object", "properties": {
            "paths": {"type": "array", "items": _STR,
                      "description": "Visible test files or node ids to run (default: all visible tests)."}},
            "required": []},
    },
    "submit": {
        "description": "Submit the current state of the repository as your solution and end the episode.",
        "parameters": {"type": "object", "properties": {}, "required": []},
    },
}

DEFAULT_TOOLS: tuple[str, ...] = tuple(TOOL_SPECS)
_PY_TYPES = {"string": str, "integer": int, "array": list, "object": dict}


def tool_schemas(names: Sequence[str] = DEFAULT_TOOLS) -> list[dict[str, Any]]:
    """OpenAI-style function schemas, the format chat templates render."""
    return [{"type": "function", "function": {"name": n, **TOOL_SPECS[n]}} for n in names]


def validate_call(call: ToolCall, names: Sequence[str] = DEFAULT_TOOLS) -> str | None:
    """None when `call` matches its schema, else what is wrong with it."""
    if call.name not in names:
        return f"unknown tool {call.name!r}; the tools are: {', '.join(names)}"
    params = TOOL_SPECS[call.name]["parameters"]
    args = call.arguments
    missing = [k for k in params["required"] if k not in args]
    if missing:
        return f"{call.name}: missing required argument(s) {', '.join(missing)}"
    unknown = [k for k in args if k not in params["properties"]]
    if unknown:
        return f"{call.name}: unknown argument(s) {', '.join(unknown)}; allowed: {', '.join(params['properties'])}"
    for key, value in args.items():
        want = _PY_TYPES[params["properties"][key]["type"]]
        if want is int and isinstance(value, str) and value.strip().lstrip("-").isdigit():
            continue  # models often quote numbers; accepted and converted when run
        if not isinstance(value, want) or (want is int and isinstance(value, bool)):
            return f"{call.name}: argument {key!r} must be {params['properties'][key]['type']}, got {type(value).__name__}"
    return None


@dataclass
class ToolResult:
    output: str
    exit_code: int | None = None
    error: bool = False  # the call was invalid (bad path, no match, ...)
    submitted: bool = False
    exec_s: float = 0.0
    timed_out: bool = False


class ToolRunner:
    """Runs validated calls against one sandbox."""

    def __init__(self, sandbox: Sandbox, workdir: str, visible_tests: Sequence[str] = (),
                 default_timeout: float = 60.0, max_timeout: float = 600.0, test_timeout: float = 300.0):
        self.sandbox = sandbox
        self.workdir = workdir
        self.visible_tests = tuple(visible_tests)
        self.default_timeout, self.max_timeout, self.test_timeout = default_timeout, max_timeout, test_timeout

    def run(self, call: ToolCall) -> ToolResult:
        t0 = time.monotonic()
        result = getattr(self, f"_{call.name}")(**call.arguments)
        result.exec_s = time.monotonic() - t0
        return result

    def _path(self, path: str) -> str:
        return posixpath.normpath(posixpath.join(self.workdir, path))

    def _bash(self, command: str, timeout: int | str | None = None) -> ToolResult:
        limit = min(float(timeout) if timeout is not None else self.default_timeout, self.max_timeout)
        r = self.sandbox.exec(command, timeout=max(limit, 1.0), workdir=self.workdir)
        text = command_output(r)
        if r.timed_out:
            text += f"\n[command timed out after {limit:.0f} s and was killed]"
        return ToolResult(text if text else "(no output)", r.exit_code, timed_out=r.timed_out)

    def _view(self, path: str, start_line: int | str | None = None, end_line: int | str | None = None) -> ToolResult:
        full = self._path(path)
        try:
            data = self.sandbox.read_file(full)
        except IsADirectoryError:
            r = self.sandbox.exec(f"cd {shlex.quote(full)} && find . -maxdepth 2 -not -path './.git' "
                                  "-not -path './.git/*' -not -name '__pycache__' | sort | head -500", timeout=30)
            return ToolResult(r.output or "(empty directory)", r.exit_code)
        except FileNotFoundError:
            return ToolResult(f"Error: {path}: No such file or directory", error=True)
        except PermissionError:
            return ToolResult(f"Error: {path}: Permission denied", error=True)
        text = data.decode("utf-8", errors="replace")
        if "\0" in text or "\ufffd" in text:  # a binary file: a notice, not raw bytes
            return ToolResult(printable(text, len(data)))
        lines = escape(text).splitlines()  # a stray ESC shows as \x1b
        start = max(1, int(start_line)) if start_line is not None else 1
        end = min(len(lines), int(end_line)) if end_line is not None and int(end_line) > 0 else len(lines)
        if lines and start > len(lines):
            return ToolResult(f"Error: start_line {start} is past the end of {path} ({len(lines)} lines)", error=True)
        width = len(str(end))
        body = "\n".join(f"{i:>{width}}\t{lines[i - 1]}" for i in range(start, end + 1))
        return ToolResult(body if body else f"({path} is empty)")

    def _create(self, path: str, file_text: str) -> ToolResult:
        full = self._path(path)
        existed = self.sandbox.exec(f"test -e {shlex.quote(full)}", timeout=10).exit_code == 0
        try:
            self.sandbox.write_file(full, file_text)
        except (PermissionError, IsADirectoryError, NotADirectoryError) as exc:
            return ToolResult(f"Error: cannot write {path}: {exc}", error=True)
        return ToolResult(f"{'Overwrote' if existed else 'Created'} {path} ({len(file_text.splitlines())} lines)")

    def _str_replace(self, path: str, old_str: str, new_str: str) -> ToolResult:
        full = self._path(path)
        try:
            text = self.sandbox.read_file(full).decode("utf-8")
        except FileNotFoundError:
            return ToolResult(f"Error: {path}: No such file or directory", error=True)
        except (IsADirectoryError, PermissionError, UnicodeDecodeError) as exc:
            return ToolResult(f"Error: cannot edit {path}: {exc}", error=True)
        count = text.count(old_str) if old_str else 0
        if count == 0:
            return ToolResult(f"Error: no replacement was made: old_str does not appear verbatim in {path}.", error=True)
        if count > 1:
            lines = [text[: i].count("\n") + 1 for i in _find_all(text, old_str)]
            return ToolResult(f"Error: old_str occurs {count} times in {path} (lines {lines}); make it unique.",
                              error=True)
        new_text = text.replace(old_str, new_str, 1)
        self.sandbox.write_file(full, new_text)
        line = text[: text.index(old_str)].count("\n") + 1
        snippet = new_text.splitlines()[max(0, line - 3): line + new_str.count("\n") + 3]
        shown = "\n".join(f"{max(1, line - 2) + i:>5}\t{s}" for i, s in enumerate(snippet))
        return ToolResult(f"Edited {path}. The changed region now reads:\n{shown}")

    def _run_tests(self, paths: list[str] | None = None) -> ToolResult:
        if not self.visible_tests:
            return ToolResult("Error: this task has no visible tests to run.", error=True)
        chosen = list(paths) if paths else list(self.visible_tests)
        hidden = [p for p in chosen if not self._is_visible(p)]
        if hidden:
            return ToolResult(f"Error: run_tests runs the visible tests only; not visible: {', '.join(hidden)}. "
                              f"Visible tests: {', '.join(self.visible_tests)}", error=True)
        cmd = "python3 -m pytest -q -p no:cacheprovider " + " ".join(shlex.quote(p) for p in chosen)
        r = self.sandbox.exec(cmd, timeout=self.test_timeout, workdir=self.workdir)
        text = command_output(r) + (f"\n[tests timed out after {self.test_timeout:.0f} s]" if r.timed_out else "")
        return ToolResult(text, r.exit_code, timed_out=r.timed_out)

    def _is_visible(self, path: str) -> bool:
        norm = posixpath.normpath(path.split("::", 1)[0])
        for v in self.visible_tests:
            vfile = posixpath.normpath(v.split("::", 1)[0])
            if "::" in v and path == v:
                return True
            if "::" not in v and (norm == vfile or norm.startswith(vfile.rstrip("/") + "/")):
                return True
        return False

    def _submit(self) -> ToolResult:
        return ToolResult("Submitted. Your changes will now be graded.", submitted=True)


def command_output(r: ExecResult) -> str:
    """What the agent sees of a command's output: the text, or for binary output a notice
    with its true size and an escaped excerpt (`codegym.sandbox.output.printable`)."""
    return printable(r.output, r.output_bytes)


def _find_all(text: str, sub: str):
    i = text.find(sub)
    while i != -1:
        yield i
        i = text.find(sub, i + 1)
