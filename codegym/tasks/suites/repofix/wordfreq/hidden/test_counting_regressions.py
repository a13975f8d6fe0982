from wordfreq.cli import main
from wordfreq.counting import top_words, words


def test_words_are_case_folded():
    assert words("The cat saw THE dog") == ["the", "cat", "saw", "the", "dog"]


def test_counts_ignore_case():
    assert top_words("The the THE cat", 1) == [("the", 3)]


def test_cli_counts_ignore_case(tmp_path, capsys):
    path = tmp_path / "t.txt"
    path.write_text("Dog dog cat")
    assert main([str(path), "-n", "1"]) == 0
    assert capsys.readouterr().out == "dog 2\n"
