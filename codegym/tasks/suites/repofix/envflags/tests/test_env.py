from envflags.env import get_bool, get_int, get_str


def test_get_str_and_int():
    env = {"NAME": "x", "PORT": "8080"}
    assert get_str("NAME", environ=env) == "x"
    assert get_int("PORT", environ=env) == 8080
    assert get_int("MISSING", 5, environ=env) == 5


def test_bool_default_and_true():
    assert get_bool("DEBUG", default=True, environ={}) is True
    assert get_bool("DEBUG", environ={"DEBUG": "1"}) is True
