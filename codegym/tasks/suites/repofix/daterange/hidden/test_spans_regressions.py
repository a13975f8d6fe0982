from datetime import date

from daterange.spans import days_between, each_day


def test_end_is_excluded_by_default():
    assert days_between(date(2024, 1, 1), date(2024, 1, 3)) == 2
    assert days_between(date(2024, 1, 1), date(2024, 1, 1)) == 0


def test_default_agrees_with_each_day():
    start, end = date(2024, 2, 27), date(2024, 3, 2)
    assert days_between(start, end) == len(each_day(start, end)) == 4
    assert days_between(start, end, inclusive=True) == 5
