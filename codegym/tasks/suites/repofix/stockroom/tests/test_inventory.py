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
