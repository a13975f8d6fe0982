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


from semverlite.core.version import compare, newest, parse


def test_numeric_comparison():
    assert compare("1.10.0", "1.9.0") == 1
    assert compare("0.2.10", "0.2.9") == 1
    assert compare("10.0.0", "9.9.9") == 1


def test_parse_gives_numbers():
    assert parse("v1.20.3") == (1, 20, 3)


def test_newest_with_two_digit_parts():
    assert newest(["1.9.0", "1.10.0", "1.2.0"]) == "1.10.0"
