"""How a command's output reads: its true size where it was cut, binary made printable.

The executor keeps the head and the tail of a long stream and puts a marker between them
that states the stream's true size (`marker`). `elide` cuts text the same way and counts
what earlier markers stood for, so the marker a reader finally sees states the true size of
the whole output, not of the text that was left after the first cut:

    elide("x" * 100_000, 1_000)
    # 'xxx...\\n[... 100,000 bytes of output; 99,000 bytes (96.7 KiB) elided ...]\\nxxx...'

Output with control bytes or bytes that are not UTF-8 (an image, a compiled file, a stray
`cat` of a binary) is shown by `printable` as a one-line notice and an escaped excerpt.
"""

from __future__ import annotations

import re

# The executor writes the same marker (it cannot import codegym): keep the two in step.
MARKER_RE = re.compile(r"\n\[\.\.\. ([\d,]+) bytes of output; ([\d,]+) bytes \([^)\n]*\) elided \.\.\.\]\n")

# C0 controls but tab, newline and carriage return; DEL; C1 controls; U+FFFD, which the host
# decodes bytes that are not UTF-8 into.
_ODD = re.compile("[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\ufffd]")
_NAMES = {"\x00": "NUL", "\x1b": "ESC", "\ufffd": "invalid UTF-8"}
EXCERPT_CHARS = 600  # of the escaped output, head and tail


def human_size(n: int) -> str:
    """`1536` -> `'1.5 KiB'`, `52428800` -> `'50 MiB'`."""
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{n} B" if unit == "B" else f"{size:.1f}".removesuffix(".0") + f" {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def marker(total: int, elided: int) -> str:
    """What stands in for `elided` of an output's `total` bytes."""
    return f"\n[... {total:,} bytes of output; {elided:,} bytes ({human_size(elided)}) elided ...]\n"


def represented_bytes(text: str) -> int:
    """The size in bytes of the output `text` stands for: its own bytes, with every marker
    counted as the bytes it replaced."""
    total = len(text.encode("utf-8", "replace"))
    for m in MARKER_RE.finditer(text):
        total += int(m[2].replace(",", "")) - len(m[0].encode())
    return total


def elide(text: str, max_chars: int) -> str:
    """Keep the head and the tail of `text` (`max_chars` in all), with a marker stating the
    true size of the output and how much of it is not shown. Never cuts through a marker."""
    if len(text) <= max_chars:
        return text
    half = max(max_chars // 2, 0)
    head_end, tail_start = half, len(text) - half
    for m in MARKER_RE.finditer(text):
        if m.start() < head_end < m.end():
            head_end = m.start()
        if m.start() < tail_start < m.end():
            tail_start = m.end()
    head, tail = text[:head_end], text[tail_start:] if half else ""
    total = represented_bytes(text)
    return head + marker(total, total - represented_bytes(head) - represented_bytes(tail)) + tail


def is_binary(text: str) -> bool:
    """True when `text` holds control characters (other than tab, newline, carriage return)
    or bytes that were not UTF-8."""
    return _ODD.search(text) is not None


def escape(text: str) -> str:
    """`text` with every control character as `\\xNN` and undecodable bytes as `\\ufffd`."""
    return _ODD.sub(lambda m: "\\ufffd" if m[0] == "\ufffd" else f"\\x{ord(m[0]):02x}", text)


def printable(text: str, total_bytes: int | None = None) -> str:
    """`text` unchanged if it is plain text, else a notice and an escaped excerpt of it.

    The notice says how big the output was (`total_bytes`, default the text's own size),
    which odd bytes it holds, and how to look at it instead.
    """
    if not is_binary(text):
        return text
    found = {_NAMES.get(c, "other control bytes") for c in _ODD.findall(text)}
    kinds = ", ".join(k for k in ("NUL", "ESC", "other control bytes", "invalid UTF-8") if k in found)
    size = represented_bytes(text) if total_bytes is None else total_bytes
    escaped = escape(text)
    if len(escaped) > 2 * EXCERPT_CHARS:
        escaped = f"{escaped[:EXCERPT_CHARS]}\n[...]\n{escaped[-EXCERPT_CHARS:]}"
    return (f"[binary output: {size:,} bytes with {kinds}; escaped excerpt below (\\xNN: a control byte, "
            f"\\ufffd: bytes that are not UTF-8). To inspect it, write it to a file and use `od -c` or "
            f"`head -c`.]\n{escaped}")
