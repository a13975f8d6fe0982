import pytest

from retrykit.retry import retry


def test_succeeds_after_failures():
    calls = []

    def flaky():
        calls.append(1)
        if len(calls) < 3:
            raise OSError("try again")
        return "ok"

    waits = []
    assert retry(flaky, attempts=3, delay=1, sleep=waits.append) == "ok"
    assert waits == [1, 2]


def test_other_exceptions_are_not_retried():
    def broken():
        raise KeyError("no")

    with pytest.raises(KeyError):
        retry(broken, exceptions=(OSError,), sleep=lambda s: None)
