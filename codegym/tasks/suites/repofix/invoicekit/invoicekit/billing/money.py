"""Money is kept in integer cents to avoid rounding drift."""


def to_cents(amount):
    """"12.34" or 12.34 -> 1234."""
    return int(round(float(amount) * 100))


def format_cents(cents):
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"


def split_amount(total_cents, parts):
    """Split `total_cents` into `parts` shares that add up to the total.

    Shares differ by at most one cent; the larger shares come first.
    """
    if parts <= 0:
        raise ValueError("parts must be positive")
    share = total_cents // parts
    return [share] * parts
