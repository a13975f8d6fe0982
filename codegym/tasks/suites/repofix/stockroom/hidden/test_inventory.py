import pytest

from stockroom.inventory import InsufficientStock, Inventory


def test_receive_and_remove():
    inv = Inventory()
    inv.receive("apple", 10)
    assert inv.remove("apple", 4) == 6


def test_cannot_remove_more_than_available():
    inv = Inventory()
    inv.receive("pear", 2)
    with pytest.raises(InsufficientStock):
        inv.remove("pear", 3)


def test_can_sell_the_last_units():
    inv = Inventory()
    inv.receive("plum", 5)
    assert inv.remove("plum", 5) == 0
    assert inv.available("plum") == 0


def test_last_single_unit():
    inv = Inventory()
    inv.receive("fig", 1)
    assert inv.remove("fig", 1) == 0
