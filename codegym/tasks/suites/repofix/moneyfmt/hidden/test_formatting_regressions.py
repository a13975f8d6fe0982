from moneyfmt.formatting import format_money, format_table


def test_always_two_decimals():
    assert format_money(1234.5) == "$1,234.50"
    assert format_money(3) == "$3.00"
    assert format_money(-3) == "-$3.00"


def test_table_alignment():
    table = format_table([("coffee", 3), ("cake", 12.5)])
    assert table.splitlines() == ["coffee       $3.00", "cake        $12.50"]
