"""Tool-call parsing: every accepted format, and precise errors for malformed calls."""

from __future__ import annotations

import pytest

from codegym.envs.parsing import format_tool_call, parse_any, parse_bash_block, parse_hermes, parse_json
from codegym.envs.tools import validate_call
from codegym.toolcall import ToolCall


def test_hermes_with_surrounding_thoughts():
    text = 'Let me look.\n<tool_call>\n{"name": "view", "arguments": {"path": "a.py"}}\n</tool_call>'
    assert parse_any(text).calls == [ToolCall("view", {"path": "a.py"})]


def test_hermes_arguments_as_json_string():
    text = '<tool_call>{"name": "bash", "arguments": "{\\"command\\": \\"ls\\"}"}</tool_call>'
    assert parse_hermes(text).calls == [ToolCall("bash", {"command": "ls"})]


@pytest.mark.parametrize("text", [
    '{"name": "bash", "arguments": {"command": "ls"}}',
    '```json\n{"function": {"name": "bash", "arguments": "{\\"command\\": \\"ls\\"}"}}\n```',
    '{"tool_calls": [{"type": "function", "function": {"name": "bash", "arguments": {"command": "ls"}}}]}',
])
def test_openai_style_json(text):
    assert parse_json(text).calls == [ToolCall("bash", {"command": "ls"})]
    assert parse_any(text).calls == [ToolCall("bash", {"command": "ls"})]


def test_fenced_bash_block():
    text = "I'll run the tests.\n```bash\npython -m pytest -q\n```"
    assert parse_bash_block(text).calls == [ToolCall("bash", {"command": "python -m pytest -q"})]
    assert parse_any(text).calls == [ToolCall("bash", {"command": "python -m pytest -q"})]


def test_round_trip_of_the_rendered_format():
    call = ToolCall("str_replace", {"path": "x.py", "old_str": "a\n", "new_str": "é 🐛"})
    assert parse_any(format_tool_call(call)).calls == [call]


@pytest.mark.parametrize("text, message", [
    ("just chatting, no call", "no tool call found"),
    ('<tool_call>{"name": "bash", "arguments": {"command": "ls"}', "not closed"),
    ('<tool_call>{"name": "bash", "arguments": {"command": "ls"</tool_call>', "invalid JSON"),
    ('<tool_call>{"arguments": {}}</tool_call>', 'no "name"'),
    ('<tool_call>["bash"]</tool_call>', "must be a JSON object"),
    ('<tool_call>{"name": "bash", "arguments": "not json"}</tool_call>', "not JSON"),
    ('{"name": "bash", "arguments": [1, 2]}', "must be an object"),
])
def test_malformed_calls_say_what_is_wrong(text, message):
    result = parse_any(text)
    assert not result.ok and message in result.error


@pytest.mark.parametrize("call, message", [
    (ToolCall("rm_rf", {}), "unknown tool"),
    (ToolCall("bash", {}), "missing required argument(s) command"),
    (ToolCall("view", {"path": "a", "line": 3}), "unknown argument(s) line"),
    (ToolCall("bash", {"command": ["ls"]}), "must be string"),
    (ToolCall("view", {"path": "a", "start_line": "x"}), "must be integer"),
])
def test_schema_validation(call, message):
    assert message in validate_call(call)


def test_quoted_integers_are_accepted():
    assert validate_call(ToolCall("view", {"path": "a", "start_line": "3"})) is None


@pytest.mark.parametrize("lang", ["bash", "sh", "mswea_bash_command", "python", "console", ""])
def test_fenced_blocks_with_any_language_tag_are_bash(lang):
    # mini-swe-agent's own output format is a ```mswea_bash_command block.
    text = f"THOUGHT: fix the typo.\n\n```{lang}\nsed -i 's/a - b/a + b/' calc.py\n```"
    want = [ToolCall("bash", {"command": "sed -i 's/a - b/a + b/' calc.py"})]
    assert parse_bash_block(text).calls == want
    assert parse_any(text).calls == want


def test_an_untagged_block_holding_a_json_call_stays_json():
    text = '```\n{"name": "view", "arguments": {"path": "a.py"}}\n```'
    assert parse_any(text).calls == [ToolCall("view", {"path": "a.py"})]
    assert parse_bash_block('```json\n{"name": "view"}\n```').error == "no fenced ```bash block found"
