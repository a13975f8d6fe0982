from sizeparse.units import format_size, parse_size


def test_plain_numbers_and_bytes():
    assert parse_size("512") == 512
    assert parse_size("10 B") == 10


def test_format():
    assert format_size(1500000) == "1.5 MB"
    assert format_size(12) == "12 B"
