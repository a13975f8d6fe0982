from tempconv.cli import main


def test_cli_celsius_to_kelvin(capsys):
    assert main(["0C", "--to", "K"]) == 0
    assert capsys.readouterr().out.strip() == "273.15 K"
