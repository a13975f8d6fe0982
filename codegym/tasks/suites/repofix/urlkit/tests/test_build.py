from urlkit.build import join_url, with_query


def test_join_plain_segments():
    assert join_url("https://h/api", "users", 7) == "https://h/api/users/7"


def test_query():
    assert with_query("https://h/x", b=2, a=1, c=None) == "https://h/x?a=1&b=2"
    assert with_query("https://h/x?a=1", z=0) == "https://h/x?a=1&z=0"
    assert with_query("https://h/x") == "https://h/x"
