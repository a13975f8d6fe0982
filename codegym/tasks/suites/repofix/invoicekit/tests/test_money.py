import pytest

from invoicekit.billing.money import format_cents, split_amount, to_cents


def test_to_cents():
    assert to_cents("12.34") == 1234
    assert to_cents(0.1) == 10


def test_format_cents():
    assert format_cents(1234) == "12.34"
    assert format_cents(-5) == "-0.05"


def test_split_even_amount():
    assert split_amount(900, 3) == [300, 300, 300]


def test_split_needs_parts():
    with pytest.raises(ValueError):
        split_amount(100, 0)
