from wordfreq.cli import main


def test_cli(tmp_path, capsys):
    path = tmp_path / "t.txt"
    path.write_text("a b a")
    assert main([str(path), "-n", "1"]) == 0
    assert capsys.readouterr().out == "a 2\n"
