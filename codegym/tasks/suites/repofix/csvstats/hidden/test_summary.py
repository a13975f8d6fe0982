import pytest

from csvstats.summary import read_rows, summarize


def test_summarize(tmp_path):
    path = tmp_path / "prices.csv"
    path.write_text("item,price\na,1.5\nb,2.5\nc,5\n")
    assert summarize(read_rows(path), "price") == {"count": 3, "min": 1.5, "max": 5.0, "mean": 3.0}


def test_unknown_column():
    with pytest.raises(KeyError):
        summarize([{"a": "1"}], "b")


def test_no_rows():
    assert summarize([], "price")["count"] == 0


def test_blank_cells_are_skipped(tmp_path):
    path = tmp_path / "prices.csv"
    path.write_text("item,price\na,1\nb,\nc,3\nd, \n")
    assert summarize(read_rows(path), "price") == {"count": 2, "min": 1.0, "max": 3.0, "mean": 2.0}


def test_all_blank_column():
    assert summarize([{"price": ""}], "price")["count"] == 0
