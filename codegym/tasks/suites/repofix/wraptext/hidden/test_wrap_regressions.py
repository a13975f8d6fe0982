from wraptext.wrap import wrap


def test_no_line_exceeds_width():
    text = "the quick brown fox jumps over the lazy dog"
    for width in range(3, 20):
        for line in wrap(text, width):
            assert len(line) <= width or " " not in line


def test_exact_fit():
    assert wrap("aaaa bbbb cc", 9) == ["aaaa bbbb", "cc"]
    assert wrap("aaaa bbbb", 8) == ["aaaa", "bbbb"]
