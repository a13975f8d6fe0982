"""`codegym.sandbox.output`: elision markers that state the true size, binary made printable."""

from __future__ import annotations

from codegym.sandbox.output import elide, human_size, is_binary, marker, printable, represented_bytes


def test_elide_keeps_head_and_tail_and_states_the_true_size():
    text = "".join(f"{i}\n" for i in range(20_000))
    out = elide(text, 1_000)
    assert out.startswith("0\n1\n2\n") and out.endswith("19999\n") and len(out) < 1_100
    assert f"[... {len(text):,} bytes of output; {len(text) - 1_000:,} bytes (105.4 KiB) elided ...]" in out
    assert represented_bytes(out) == len(text)
    assert elide("short", 1_000) == "short"


def test_eliding_an_elided_output_still_states_the_original_size():
    # What the sandbox kept of a 50 MB stream (its marker), cut again for the context.
    sandbox_kept = "a" * 32_768 + marker(52_428_800, 52_428_800 - 65_536) + "a" * 32_768
    out = elide(sandbox_kept + "tail\n", 10_000)
    assert "[... 52,428,805 bytes of output; 52,418,805 bytes (50 MiB) elided ...]" in out
    assert out.count("bytes of output") == 1 and represented_bytes(out) == 52_428_805


def test_elide_never_cuts_through_a_marker():
    text = "h" * 10 + marker(1_000_000, 999_980) + "t" * 10
    for limit in range(2, len(text)):
        out = elide(text, limit)
        assert represented_bytes(out) == 1_000_000, (limit, out)
        assert out.count("bytes of output") == 1


def test_human_size():
    assert [human_size(n) for n in (0, 1023, 1536, 52_428_800, 3 << 30)] == [
        "0 B", "1023 B", "1.5 KiB", "50 MiB", "3 GiB"]


def test_binary_output_becomes_a_notice_and_an_escaped_excerpt():
    raw = "PNG\x00\x00\x1b[31m" + "\ufffd" * 3 + "x" * 5_000
    out = printable(raw, total_bytes=123_456)
    first, _, excerpt = out.partition("\n")
    assert first.startswith("[binary output: 123,456 bytes with NUL, ESC, invalid UTF-8;")
    assert excerpt.startswith("PNG\\x00\\x00\\x1b[31m\\ufffd\\ufffd\\ufffdxxx") and len(out) < 1_600
    assert not is_binary(out.split("\n", 1)[1]), "the excerpt itself holds no raw control byte"
    assert printable("plain text\twith tabs\r\n") == "plain text\twith tabs\r\n"
