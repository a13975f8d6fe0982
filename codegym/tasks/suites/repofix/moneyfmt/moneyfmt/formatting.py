"""Format amounts for receipts and reports."""

SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£"}


def format_money(amount, currency="USD"):
    """1234.5 -> "$1,234.50"; negative amounts get a leading minus: "-$3.00"."""
    symbol = SYMBOLS.get(currency)
    if symbol is None:
        raise ValueError(f"unsupported currency {currency!r}")
    sign = "-" if amount < 0 else ""
    return f"{sign}{symbol}{abs(amount):,}"


def format_table(rows, currency="USD"):
    """Right-aligned "label  amount" lines."""
    cells = [(label, format_money(value, currency)) for label, value in rows]
    width = max((len(c[1]) for c in cells), default=0)
    return "\n".join(f"{label:<12}{text:>{width}}" for label, text in cells)
