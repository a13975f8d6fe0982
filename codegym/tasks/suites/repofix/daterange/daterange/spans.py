"""Counting and listing days between dates."""

from datetime import timedelta


def days_between(start, end, inclusive=True):
    """Days from `start` to `end`; `end` itself counts only when `inclusive` is true."""
    if end < start:
        raise ValueError("end is before start")
    days = (end - start).days
    return days + 1 if inclusive else days


def each_day(start, end, inclusive=False):
    """The dates from `start` up to `end` (excluded unless `inclusive`)."""
    count = days_between(start, end, inclusive=inclusive)
    return [start + timedelta(days=i) for i in range(count)]


def business_days(start, end):
    """Weekdays from `start` up to but not including `end`."""
    return sum(1 for day in each_day(start, end) if day.weekday() < 5)
