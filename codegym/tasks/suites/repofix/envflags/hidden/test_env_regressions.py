import pytest

from envflags.env import get_bool


def test_false_spellings():
    for text in ("0", "false", "False", "no", "off", ""):
        assert get_bool("DEBUG", environ={"DEBUG": text}) is False


def test_unknown_value_is_an_error():
    with pytest.raises(ValueError, match="DEBUG"):
        get_bool("DEBUG", environ={"DEBUG": "maybe"})
