import pytest

from tempconv.cli import main
from tempconv.conversions import from_celsius, to_celsius


def test_fahrenheit_to_celsius():
    assert to_celsius(212, "F") == pytest.approx(100)
    assert to_celsius(32, "F") == pytest.approx(0)


def test_round_trip_through_fahrenheit():
    assert to_celsius(from_celsius(37, "F"), "F") == pytest.approx(37)


def test_cli_converts_fahrenheit(capsys):
    assert main(["212F", "--to", "C"]) == 0
    assert capsys.readouterr().out.strip() == "100.00 C"
