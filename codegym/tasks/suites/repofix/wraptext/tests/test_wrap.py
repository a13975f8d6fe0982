import pytest

from wraptext.wrap import fill, wrap


def test_short_text_stays_on_one_line():
    assert wrap("hello world", 40) == ["hello world"]


def test_long_word_has_own_line():
    assert wrap("a extraordinarily b", 5) == ["a", "extraordinarily", "b"]


def test_fill_joins_lines():
    assert fill("", 5) == ""
    with pytest.raises(ValueError):
        wrap("x", 0)
