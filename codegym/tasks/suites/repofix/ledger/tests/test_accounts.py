import pytest

from ledger.accounts import Account, InsufficientFunds, transfer


def test_transfer_moves_money():
    a, b = Account("a", 100), Account("b", 0)
    transfer(a, b, 30)
    assert (a.balance, b.balance) == (70, 30)


def test_insufficient_funds_changes_nothing():
    a, b = Account("a", 10), Account("b", 0)
    with pytest.raises(InsufficientFunds):
        transfer(a, b, 30)
    assert (a.balance, b.balance) == (10, 0)
