import pytest

from tempconv.conversions import from_celsius, to_celsius


def test_from_celsius():
    assert from_celsius(100, "F") == 212
    assert from_celsius(0, "k") == 273.15


def test_kelvin_to_celsius():
    assert to_celsius(273.15, "K") == 0


def test_unknown_unit():
    with pytest.raises(ValueError):
        to_celsius(1, "X")
