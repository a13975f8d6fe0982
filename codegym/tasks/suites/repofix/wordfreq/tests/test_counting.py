from wordfreq.counting import top_words


def test_top_words_lowercase_text():
    assert top_words("b a b c b a", 2) == [("b", 3), ("a", 2)]


def test_ties_are_alphabetical():
    assert top_words("z y x", 3) == [("x", 1), ("y", 1), ("z", 1)]
