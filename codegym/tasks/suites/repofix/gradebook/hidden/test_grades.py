import pytest

from gradebook.grades import average, letter


def test_letter_cutoffs():
    assert letter(95) == "A"
    assert letter(80) == "B"
    assert letter(12) == "F"


def test_average_whole_number():
    assert average([80, 90, 100]) == 90


def test_no_scores():
    with pytest.raises(ValueError):
        average([])


from gradebook.grades import average, report


def test_average_keeps_fraction():
    assert average([89, 90]) == 89.5
    assert average([1, 2]) == 1.5


def test_report_uses_exact_average():
    assert report({"ana": [89, 90, 91, 89.5]}) == {"ana": (89.875, "B")}
    assert report({"bo": [79, 80]})["bo"] == (79.5, "C")
