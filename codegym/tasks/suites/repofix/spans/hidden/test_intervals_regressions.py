from spans.intervals import merge, total_length


def test_merge_unsorted_input():
    assert merge([(8, 10), (1, 3), (2, 6)]) == [(1, 6), (8, 10)]


def test_total_length_of_unsorted_bookings():
    assert total_length([(5, 7), (0, 2), (1, 6)]) == 7
