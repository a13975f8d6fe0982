import pytest

from semverlite.core.version import compare, newest, parse


def test_parse_rejects_garbage():
    with pytest.raises(ValueError):
        parse("1.2")


def test_compare_simple():
    assert compare("1.2.3", "1.2.4") == -1
    assert compare("v2.0.0", "2.0.0") == 0


def test_newest():
    assert newest(["0.1.0", "0.3.0", "0.2.0"]) == "0.3.0"
