import pytest

from spans.intervals import merge, overlaps, total_length


def test_merge_sorted_input():
    assert merge([(1, 3), (2, 6), (8, 10)]) == [(1, 6), (8, 10)]


def test_touching_intervals_merge():
    assert merge([(1, 2), (2, 3)]) == [(1, 3)]


def test_overlaps_and_length():
    assert overlaps((1, 5), (5, 9))
    assert not overlaps((1, 2), (3, 4))
    assert total_length([(0, 2), (1, 4)]) == 4


def test_bad_interval():
    with pytest.raises(ValueError):
        merge([(3, 1)])
