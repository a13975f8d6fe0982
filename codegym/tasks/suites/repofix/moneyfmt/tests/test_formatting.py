import pytest

from moneyfmt.formatting import format_money


def test_unsupported_currency():
    with pytest.raises(ValueError):
        format_money(1, "XYZ")


def test_symbol():
    assert format_money(1000.25, "EUR").startswith("€1,000")
