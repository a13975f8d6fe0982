"""Format and parse durations given in seconds."""


def format_duration(seconds):
    """3725 -> "1:02:05"; under an hour -> "2:05"."""
    seconds = int(round(seconds))
    sign = "-" if seconds < 0 else ""
    hours, rest = divmod(abs(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{sign}{hours}:{minutes}:{secs:02d}"
    return f"{sign}{minutes}:{secs:02d}"


def parse_duration(text):
    """Inverse of format_duration: "1:02:05" -> 3725."""
    sign = -1 if text.startswith("-") else 1
    total = 0
    for field in text.lstrip("-").split(":"):
        total = total * 60 + int(field)
    return sign * total
