import pytest

from iniparse.reader import ParseError, parse


def test_sections_and_comments():
    text = "name = demo\n# comment\n[db]\nhost = localhost\n"
    assert parse(text) == {"DEFAULT": {"name": "demo"}, "db": {"host": "localhost"}}


def test_bad_line():
    with pytest.raises(ParseError, match="line 2"):
        parse("[a]\nnot a pair\n")
