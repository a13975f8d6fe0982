from invoicekit.billing.money import split_amount


def test_split_keeps_every_cent():
    shares = split_amount(100, 3)
    assert sum(shares) == 100
    assert shares == [34, 33, 33]


def test_split_small_amount():
    assert split_amount(2, 3) == [1, 1, 0]
