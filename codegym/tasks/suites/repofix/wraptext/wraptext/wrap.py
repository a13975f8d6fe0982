"""Greedy word wrapping."""


def wrap(text, width):
    """Lines of at most `width` characters (a longer word gets a line of its own)."""
    if width < 1:
        raise ValueError("width must be positive")
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


def fill(text, width):
    return "\n".join(wrap(text, width))
