import pytest

from slotbook.booking import Calendar, Conflict


def test_overlapping_booking_is_refused():
    cal = Calendar()
    cal.book("standup", 9, 11)
    with pytest.raises(Conflict):
        cal.book("review", 10, 12)


def test_free_hours():
    cal = Calendar()
    cal.book("lunch", 12, 13)
    assert 12 not in cal.free_hours() and 13 in cal.free_hours()


def test_invalid_hours():
    with pytest.raises(ValueError):
        Calendar().book("x", 5, 5)
