"""Parsing bash: the tree-sitter parser never raises, and plain scripts read off the text agree with it."""

import pytest

from codegym.antihack.shcommand import Memory
from codegym.antihack.shparse import parse, plain_script, shlex_join, shlex_split
from codegym.antihack.shwalk import ShellAnalyzer


def test_garbage_does_not_raise():
    for s in ["", "'''", "$(", "cat <<EOF", "\x00\x01", "((((", "if then fi", "${", "a" * 5000]:
        ShellAnalyzer().analyze(s, "/w")


@pytest.mark.parametrize(
    "script",
    ["git log --all | head -5 && echo 'a b'", "cat x; ls -la 2>&1", 'grep -rn "foo bar" tests/ >/dev/null'],
)
def test_plain_scripts_give_the_commands_the_parser_gives(script):
    plain = plain_script(script)
    assert plain is not None
    from_plain = [argv for pipeline in plain for argv, _ in pipeline]
    parsed = [c.argv for c in ShellAnalyzer(Memory()).analyze(script + "\n#", "/w")]  # a comment: not plain
    assert plain_script(script + "\n#") is None
    assert from_plain == parsed


def test_parse_masks_non_ascii_and_keeps_offsets():
    src = "echo 'é' {\U0001f600"
    tree = parse(src)
    assert tree.root_node.end_byte == len(src.encode())
    assert shlex_split("a 'b c'") == ["a", "b c"] and shlex_join(["a", "b c", ""]) == "a 'b c' ''"
