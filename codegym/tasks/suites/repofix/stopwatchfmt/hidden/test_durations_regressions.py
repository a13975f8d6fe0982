from stopwatchfmt.durations import format_duration, parse_duration


def test_minutes_are_zero_padded_after_hours():
    assert format_duration(3725) == "1:02:05"
    assert format_duration(7200) == "2:00:00"


def test_long_durations_have_a_fixed_width():
    for seconds in range(3600, 36000, 397):
        text = format_duration(seconds)
        assert len(text) == 7, text
        assert parse_duration(text) == seconds
