import pytest

from pagekit.pagination import page_count, paginate


def test_page_count_exact_multiple():
    assert page_count(20, 10) == 2


def test_paginate_first_page():
    assert paginate(list(range(30)), 1, 10) == list(range(10))


def test_invalid_arguments():
    with pytest.raises(ValueError):
        page_count(10, 0)
    with pytest.raises(ValueError):
        paginate([1], 0, 10)
