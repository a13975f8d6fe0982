from csvstats.cli import main


def test_cli_prints_summary(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("x\n1\n3\n")
    assert main([str(path), "x"]) == 0
    assert "mean: 2.0" in capsys.readouterr().out


def test_cli_unknown_column(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("x\n1\n")
    assert main([str(path), "y"]) == 2
