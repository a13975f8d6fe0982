from stopwatchfmt.durations import format_duration, parse_duration


def test_short_durations():
    assert format_duration(125) == "2:05"
    assert format_duration(59.6) == "1:00"


def test_long_duration_with_two_digit_minutes():
    assert format_duration(3600 + 25 * 60 + 1) == "1:25:01"


def test_parse():
    assert parse_duration("1:02:05") == 3725
    assert parse_duration("-0:30") == -30
