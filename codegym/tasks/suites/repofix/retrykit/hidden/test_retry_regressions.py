import pytest

from retrykit.retry import retry


def test_last_error_is_raised_when_all_attempts_fail():
    calls = []

    def always_fails():
        calls.append(1)
        raise OSError(f"failure {len(calls)}")

    with pytest.raises(OSError, match="failure 3"):
        retry(always_fails, attempts=3, sleep=lambda s: None)
    assert len(calls) == 3


def test_single_attempt_raises():
    with pytest.raises(ValueError):
        retry(lambda: int("x"), attempts=1)
