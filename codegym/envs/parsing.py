"""Tool-call parsers: completion text in, `ToolCall`s (or a precise error) out.

Formats:
- `hermes`: Hermes/Qwen ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``;
- `json`: an OpenAI-style JSON object, bare or in a fenced ```json block:
  ``{"name", "arguments"}``, ``{"function": {...}}`` or ``{"tool_calls": [...]}``, where
  `arguments` may be an object or a JSON-encoded string;
- `bash`: a fenced block with any language tag (```bash, ```sh, mini-swe-agent's
  ```mswea_bash_command, ...) or none, run with the `bash` tool; ```json blocks are left to `json`;
- `any` (default): the first of the above that the text looks like.

    parse_tool_calls('<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>')
    # ParseResult(calls=[ToolCall(name='bash', arguments={'command': 'ls'})], error=None)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from codegym.toolcall import ToolCall

_HERMES = re.compile(r"<tool_call>(.*?)(</tool_call>|$)", re.S)
_FENCE = re.compile(r"```([A-Za-z0-9_+-]*)[ \t]*\n(.*?)```", re.S)


@dataclass
class ParseResult:
    calls: list[ToolCall] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and bool(self.calls)


Parser = Callable[[str], ParseResult]


def _json_error(text: str, exc: json.JSONDecodeError) -> str:
    snippet = text[max(0, exc.pos - 20): exc.pos + 20].replace("\n", "\\n")
    return f"invalid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}, near {snippet!r})"


def _call_from_obj(obj: Any) -> ToolCall:
    """One call from a decoded JSON object in any of the accepted shapes."""
    if not isinstance(obj, dict):
        raise ValueError(f"a tool call must be a JSON object, got {type(obj).__name__}")
    if "function" in obj and isinstance(obj["function"], dict):
        obj = obj["function"]
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError('the tool call has no "name" string')
    args = obj.get("arguments", obj.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError as exc:
            raise ValueError(f'"arguments" of {name!r} is a string but not JSON: {_json_error(args, exc)}') from exc
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ValueError(f'"arguments" of {name!r} must be an object, got {type(args).__name__}')
    return ToolCall(name, args)


def _calls_from_json(text: str) -> list[ToolCall]:
    obj = json.loads(text)
    if isinstance(obj, dict) and isinstance(obj.get("tool_calls"), list):
        return [_call_from_obj(c) for c in obj["tool_calls"]]
    if isinstance(obj, list):
        return [_call_from_obj(c) for c in obj]
    return [_call_from_obj(obj)]


def parse_hermes(text: str) -> ParseResult:
    blocks = _HERMES.findall(text)
    if not blocks:
        return ParseResult(error="no <tool_call>...</tool_call> block found")
    calls = []
    for body, close in blocks:
        if not close:
            return ParseResult(error="a <tool_call> block is not closed with </tool_call>")
        body = body.strip()
        try:
            calls.extend(_calls_from_json(body))
        except json.JSONDecodeError as exc:
            return ParseResult(error=f"<tool_call> holds {_json_error(body, exc)}")
        except ValueError as exc:
            return ParseResult(error=str(exc))
    return ParseResult(calls)


def parse_json(text: str) -> ParseResult:
    candidates = [body for lang, body in _FENCE.findall(text) if lang.lower() in ("json", "")]
    stripped = text.strip()
    if stripped.startswith(("{", "[")):
        candidates.insert(0, stripped)
    if not candidates:
        return ParseResult(error="no JSON tool call found")
    last_error = ""
    for body in candidates:
        try:
            return ParseResult(_calls_from_json(body.strip()))
        except json.JSONDecodeError as exc:
            last_error = f"the tool call is {_json_error(body, exc)}"
        except ValueError as exc:
            last_error = str(exc)
    return ParseResult(error=last_error)


def parse_bash_block(text: str) -> ParseResult:
    """Every fenced block, whatever its language tag (harnesses name their own: mini-swe-agent
    writes ```mswea_bash_command), except ```json ones, which hold JSON tool calls."""
    blocks = [body for lang, body in _FENCE.findall(text) if lang.lower() != "json"]
    if not blocks:
        return ParseResult(error="no fenced ```bash block found")
    return ParseResult([ToolCall("bash", {"command": b.strip("\n")}) for b in blocks])


def parse_any(text: str) -> ParseResult:
    """Hermes tags, else JSON, else a bash block; the error names what was expected."""
    if "<tool_call>" in text:
        return parse_hermes(text)
    if text.strip().startswith(("{", "[")) or "```json" in text:
        return parse_json(text)
    if "```" in text:
        # An untagged block may hold a JSON tool call: JSON first, then any block as bash.
        for parse in (parse_json, parse_bash_block):
            result = parse(text)
            if result.ok:
                return result
    return ParseResult(error=(
        'no tool call found. Call a tool with <tool_call>{"name": "bash", "arguments": '
        '{"command": "ls"}}</tool_call>, a JSON object {"name": ..., "arguments": {...}}, '
        "or a ```bash block."))


PARSERS: dict[str, Parser] = {"any": parse_any, "hermes": parse_hermes, "json": parse_json, "bash": parse_bash_block}


def get_parser(parser: str | Parser) -> Parser:
    if callable(parser):
        return parser
    try:
        return PARSERS[parser]
    except KeyError:
        raise ValueError(f"unknown tool-call parser {parser!r}; known: {', '.join(PARSERS)}") from None


def parse_tool_calls(text: str, parser: str | Parser = "any") -> ParseResult:
    return get_parser(parser)(text)


def format_tool_call(call: ToolCall) -> str:
    """The Hermes rendering of a call (what scripted agents emit as text)."""
    return "<tool_call>" + json.dumps({"name": call.name, "arguments": dict(call.arguments)}) + "</tool_call>"
