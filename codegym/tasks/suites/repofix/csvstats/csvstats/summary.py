"""Summaries of one numeric column of CSV rows (dicts from csv.DictReader)."""

import csv


def read_rows(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def column_values(rows, column):
    """The numeric values of `column`; blank cells are skipped."""
    values = []
    for row in rows:
        if column not in row:
            raise KeyError(f"no column {column!r}")
        values.append(float(row[column]))
    return values


def summarize(rows, column):
    """count, min, max and mean of `column`."""
    values = column_values(rows, column)
    if not values:
        return {"count": 0, "min": None, "max": None, "mean": None}
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }
