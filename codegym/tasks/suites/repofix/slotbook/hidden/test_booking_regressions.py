from slotbook.booking import Calendar


def test_back_to_back_bookings_are_allowed():
    cal = Calendar()
    cal.book("standup", 9, 10)
    cal.book("planning", 10, 11)
    cal.book("early", 8, 9)
    assert [b[0] for b in cal.bookings] == ["standup", "planning", "early"]


def test_conflicts_ignores_adjacent():
    cal = Calendar()
    cal.book("a", 9, 10)
    assert cal.conflicts(10, 12) == []
    assert cal.conflicts(9, 10) == [("a", 9, 10)]
