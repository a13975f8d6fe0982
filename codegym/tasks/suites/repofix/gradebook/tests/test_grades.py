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
