import pytest

from statskit.describe import describe, mean, median


def test_median_odd():
    assert median([5, 1, 3]) == 3


def test_mean():
    assert mean([1, 2, 3, 4]) == 2.5
    with pytest.raises(ValueError):
        mean([])


def test_describe_odd_sample():
    assert describe([2, 9, 4]) == {"n": 3, "mean": 5, "median": 4, "min": 2, "max": 9}
