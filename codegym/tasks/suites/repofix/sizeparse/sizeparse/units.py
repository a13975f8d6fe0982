"""Byte sizes with decimal (kB, MB, GB) and binary (KiB, MiB, GiB) units."""

UNITS = [
    ("B", 1),
    ("kB", 1000),
    ("MB", 1000**2),
    ("GB", 1000**3),
    ("KiB", 1024),
    ("MiB", 1024**2),
    ("GiB", 1024**3),
]


def parse_size(text):
    """"1.5 MB" -> 1500000; "2KiB" -> 2048; "512" -> 512."""
    text = text.strip()
    for suffix, factor in UNITS:
        if text.endswith(suffix):
            number = text[: -len(suffix)].strip()
            return int(float(number) * factor)
    return int(text)


def format_size(n):
    for suffix, factor in reversed(UNITS[1:4]):
        if n >= factor:
            return f"{n / factor:.1f} {suffix}"
    return f"{n} B"
