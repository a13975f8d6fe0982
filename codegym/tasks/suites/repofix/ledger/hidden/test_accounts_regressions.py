import pytest

from ledger.accounts import Account, transfer


def test_rejected_deposit_restores_source():
    a, b = Account("a", 100), Account("b", 0, limit=50)
    with pytest.raises(ValueError):
        transfer(a, b, 80)
    assert (a.balance, b.balance) == (100, 0)


def test_money_is_conserved():
    accounts = [Account("a", 100), Account("b", 0, limit=10)]
    for amount in (5, 20, 10):
        try:
            transfer(accounts[0], accounts[1], amount)
        except ValueError:
            pass
    assert sum(acc.balance for acc in accounts) == 100
