import pytest

from sizeparse.units import format_size, parse_size


def test_decimal_units():
    assert parse_size("1.5 MB") == 1_500_000
    assert parse_size("2kB") == 2000
    assert parse_size("3 GB") == 3_000_000_000


def test_binary_units():
    assert parse_size("2KiB") == 2048
    assert parse_size("1 MiB") == 1024**2


@pytest.mark.parametrize("n", [1, 999, 1000, 123456, 10**9])
def test_round_trip_is_close(n):
    assert parse_size(format_size(n)) == pytest.approx(n, rel=0.05)
