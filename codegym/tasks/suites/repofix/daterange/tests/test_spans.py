from datetime import date

import pytest

from daterange.spans import business_days, each_day


def test_each_day_excludes_end():
    assert each_day(date(2024, 1, 1), date(2024, 1, 3)) == [date(2024, 1, 1), date(2024, 1, 2)]


def test_business_days_skip_weekend():
    # Friday 2024-01-05 to Tuesday 2024-01-09: Fri, Mon
    assert business_days(date(2024, 1, 5), date(2024, 1, 9)) == 2


def test_end_before_start():
    with pytest.raises(ValueError):
        each_day(date(2024, 1, 2), date(2024, 1, 1))
