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
