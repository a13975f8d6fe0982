from pagekit.pagination import page_count, paginate


def test_partial_last_page_is_counted():
    assert page_count(25, 10) == 3
    assert page_count(1, 10) == 1


def test_last_partial_page_is_reachable():
    assert paginate(list(range(25)), 3, 10) == [20, 21, 22, 23, 24]
