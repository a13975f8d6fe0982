"""repofix bugs, part one: arithmetic, boundaries, defaults and state."""

from __future__ import annotations

from codegym.tasks.suites.repofix_parts import Bug

BUGS = [
    Bug(
        package="pagekit",
        kind="integer division",
        summary="Pagination helpers for lists and query results.",
        usage="from pagekit.pagination import paginate, page_count\npage = paginate(items, page=2, per_page=10)",
        module="pagination.py",
        code='''
            """Split sequences into numbered pages (pages count from 1)."""


            def page_count(total, per_page):
                """How many pages `total` items fill at `per_page` items a page."""
                if per_page <= 0:
                    raise ValueError("per_page must be positive")
                return total // per_page


            def paginate(items, page, per_page):
                """The items on `page`; an empty list past the last page."""
                if page < 1:
                    raise ValueError("pages count from 1")
                if page > page_count(len(items), per_page):
                    return []
                start = (page - 1) * per_page
                return list(items[start : start + per_page])
        ''',
        fix=(("    return total // per_page\n", "    return -(-total // per_page)\n"),),
        tests="""
            import pytest

            from pagekit.pagination import page_count, paginate


            def test_page_count_exact_multiple():
                assert page_count(20, 10) == 2


            def test_paginate_first_page():
                assert paginate(list(range(30)), 1, 10) == list(range(10))


            def test_invalid_arguments():
                with pytest.raises(ValueError):
                    page_count(10, 0)
                with pytest.raises(ValueError):
                    paginate([1], 0, 10)
        """,
        hidden="""
            from pagekit.pagination import page_count, paginate


            def test_partial_last_page_is_counted():
                assert page_count(25, 10) == 3
                assert page_count(1, 10) == 1


            def test_last_partial_page_is_reachable():
                assert paginate(list(range(25)), 3, 10) == [20, 21, 22, 23, 24]
        """,
        statement="""
            Last page of results is missing

            With 25 items and 10 items per page, `page_count(25, 10)` says there are 2 pages and
            `paginate(items, 3, 10)` returns an empty list, so the last 5 items can never be shown.
            With a total that is an exact multiple of the page size everything looks fine.
        """,
        feature="Add pagination helpers",
        fix_message="Count a partial last page in page_count",
        version="1.3.0",
    ),
    Bug(
        package="tempconv",
        kind="wrong operator",
        summary="Temperature conversions with a small command-line tool.",
        usage="from tempconv.conversions import to_celsius\nto_celsius(212, 'F')  # 100.0",
        module="conversions.py",
        code='''
            """Convert temperatures between Celsius, Fahrenheit and Kelvin."""

            UNITS = ("C", "F", "K")


            def to_celsius(value, unit):
                """`value` in `unit` ("C", "F" or "K"), converted to Celsius."""
                unit = unit.upper()
                if unit == "C":
                    return float(value)
                if unit == "F":
                    return (value - 32) * 9 / 5
                if unit == "K":
                    return value - 273.15
                raise ValueError(f"unknown unit {unit!r}; use one of {UNITS}")


            def from_celsius(value, unit):
                """`value` in Celsius, converted to `unit`."""
                unit = unit.upper()
                if unit == "C":
                    return float(value)
                if unit == "F":
                    return value * 9 / 5 + 32
                if unit == "K":
                    return value + 273.15
                raise ValueError(f"unknown unit {unit!r}; use one of {UNITS}")
        ''',
        fix=(("return (value - 32) * 9 / 5\n", "return (value - 32) * 5 / 9\n"),),
        tests="""
            import pytest

            from tempconv.conversions import from_celsius, to_celsius


            def test_from_celsius():
                assert from_celsius(100, "F") == 212
                assert from_celsius(0, "k") == 273.15


            def test_kelvin_to_celsius():
                assert to_celsius(273.15, "K") == 0


            def test_unknown_unit():
                with pytest.raises(ValueError):
                    to_celsius(1, "X")
        """,
        hidden="""
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
        """,
        statement="""
            Fahrenheit readings convert to nonsense

            `tempconv 212F --to C` prints `324.00 C` instead of `100.00 C`, and
            `to_celsius(32, "F")` is 0 but `to_celsius(50, "F")` gives 32.4 rather than 10.
            Conversions from Celsius and to/from Kelvin look right.
        """,
        feature="Add temperature conversions",
        fix_message="Fix Fahrenheit to Celsius conversion",
        version="0.4.0",
        layout="src",
        cli='''
            """`tempconv 212F --to C`: convert one reading."""

            import argparse

            from .conversions import UNITS, from_celsius, to_celsius


            def main(argv=None):
                parser = argparse.ArgumentParser(prog="tempconv", description="Convert a temperature.")
                parser.add_argument("reading", help="a number followed by a unit, e.g. 21.5C")
                parser.add_argument("--to", default="C", choices=UNITS + tuple(u.lower() for u in UNITS))
                args = parser.parse_args(argv)
                value, unit = float(args.reading[:-1]), args.reading[-1]
                result = from_celsius(to_celsius(value, unit), args.to)
                print(f"{result:.2f} {args.to.upper()}")
                return 0
        ''',
        cli_tests="""
            from tempconv.cli import main


            def test_cli_celsius_to_kelvin(capsys):
                assert main(["0C", "--to", "K"]) == 0
                assert capsys.readouterr().out.strip() == "273.15 K"
        """,
    ),
    Bug(
        package="invoicekit",
        kind="missing edge case",
        summary="Invoices, line items and money arithmetic in integer cents.",
        usage="from invoicekit.billing.money import split_amount\nsplit_amount(1000, 3)",
        module="billing/money.py",
        code='''
            """Money is kept in integer cents to avoid rounding drift."""


            def to_cents(amount):
                """"12.34" or 12.34 -> 1234."""
                return int(round(float(amount) * 100))


            def format_cents(cents):
                sign = "-" if cents < 0 else ""
                cents = abs(cents)
                return f"{sign}{cents // 100}.{cents % 100:02d}"


            def split_amount(total_cents, parts):
                """Split `total_cents` into `parts` shares that add up to the total.

                Shares differ by at most one cent; the larger shares come first.
                """
                if parts <= 0:
                    raise ValueError("parts must be positive")
                share = total_cents // parts
                return [share] * parts
        ''',
        fix=(
            (
                "    share = total_cents // parts\n    return [share] * parts\n",
                "    share, extra = divmod(total_cents, parts)\n"
                "    return [share + 1] * extra + [share] * (parts - extra)\n",
            ),
        ),
        tests="""
            import pytest

            from invoicekit.billing.money import format_cents, split_amount, to_cents


            def test_to_cents():
                assert to_cents("12.34") == 1234
                assert to_cents(0.1) == 10


            def test_format_cents():
                assert format_cents(1234) == "12.34"
                assert format_cents(-5) == "-0.05"


            def test_split_even_amount():
                assert split_amount(900, 3) == [300, 300, 300]


            def test_split_needs_parts():
                with pytest.raises(ValueError):
                    split_amount(100, 0)
        """,
        hidden="""
            from invoicekit.billing.money import split_amount


            def test_split_keeps_every_cent():
                shares = split_amount(100, 3)
                assert sum(shares) == 100
                assert shares == [34, 33, 33]


            def test_split_small_amount():
                assert split_amount(2, 3) == [1, 1, 0]
        """,
        statement="""
            Splitting an invoice loses cents

            `split_amount(100, 3)` returns `[33, 33, 33]`, which adds up to 99: one cent disappears
            and split invoices no longer match the original total. The docstring promises shares
            that add up to the total and differ by at most one cent.
        """,
        feature="Add money helpers for split billing",
        fix_message="Distribute the remainder when splitting amounts",
        version="2.1.0",
    ),
    Bug(
        package="csvstats",
        kind="exception handling",
        summary="Column statistics for CSV files.",
        usage="from csvstats.summary import summarize\nsummarize(rows, 'price')",
        module="summary.py",
        code='''
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
        ''',
        fix=(
            (
                "        values.append(float(row[column]))\n",
                '        cell = (row[column] or "").strip()\n        if cell:\n            values.append(float(cell))\n',
            ),
        ),
        tests="""
            import pytest

            from csvstats.summary import read_rows, summarize


            def test_summarize(tmp_path):
                path = tmp_path / "prices.csv"
                path.write_text("item,price\\na,1.5\\nb,2.5\\nc,5\\n")
                assert summarize(read_rows(path), "price") == {"count": 3, "min": 1.5, "max": 5.0, "mean": 3.0}


            def test_unknown_column():
                with pytest.raises(KeyError):
                    summarize([{"a": "1"}], "b")


            def test_no_rows():
                assert summarize([], "price")["count"] == 0
        """,
        hidden="""


            def test_blank_cells_are_skipped(tmp_path):
                path = tmp_path / "prices.csv"
                path.write_text("item,price\\na,1\\nb,\\nc,3\\nd, \\n")
                assert summarize(read_rows(path), "price") == {"count": 2, "min": 1.0, "max": 3.0, "mean": 2.0}


            def test_all_blank_column():
                assert summarize([{"price": ""}], "price")["count"] == 0
        """,
        statement="""
            summarize crashes on CSV files with empty cells

            Running `csvstats data.csv price` on an export where some rows have no price fails with
            `ValueError: could not convert string to float: ''`. The docs say blank cells are
            skipped; they should not count toward the statistics.
        """,
        feature="Add column summaries",
        fix_message="Skip blank cells in column summaries",
        version="0.9.0",
        hidden_in_new_file=False,
        cli='''
            """`csvstats FILE COLUMN`: print count, min, max and mean of a column."""

            import argparse
            import sys

            from .summary import read_rows, summarize


            def main(argv=None):
                parser = argparse.ArgumentParser(prog="csvstats")
                parser.add_argument("file")
                parser.add_argument("column")
                args = parser.parse_args(argv)
                try:
                    stats = summarize(read_rows(args.file), args.column)
                except KeyError as e:
                    print(f"error: {e.args[0]}", file=sys.stderr)
                    return 2
                for key in ("count", "min", "max", "mean"):
                    print(f"{key}: {stats[key]}")
                return 0
        ''',
        cli_tests="""
            from csvstats.cli import main


            def test_cli_prints_summary(tmp_path, capsys):
                path = tmp_path / "t.csv"
                path.write_text("x\\n1\\n3\\n")
                assert main([str(path), "x"]) == 0
                assert "mean: 2.0" in capsys.readouterr().out


            def test_cli_unknown_column(tmp_path, capsys):
                path = tmp_path / "t.csv"
                path.write_text("x\\n1\\n")
                assert main([str(path), "y"]) == 2
        """,
    ),
    Bug(
        package="tasklist",
        kind="mutable default argument",
        summary="A tiny to-do list with tags.",
        usage="from tasklist.model import TaskList\ntodo = TaskList()\ntodo.add('write docs', tags=['docs'])",
        module="model.py",
        code='''
            """To-do items and the list that holds them."""

            from dataclasses import dataclass, field


            @dataclass
            class Item:
                title: str
                tags: list = field(default_factory=list)
                done: bool = False


            class TaskList:
                def __init__(self):
                    self.items = []

                def add(self, title, tags=[]):
                    """Add an item; `tags` may be extended later with `tag()`."""
                    item = Item(title, tags)
                    self.items.append(item)
                    return item

                def tag(self, title, tag):
                    for item in self.items:
                        if item.title == title:
                            item.tags.append(tag)
                            return item
                    raise KeyError(title)

                def with_tag(self, tag):
                    return [item.title for item in self.items if tag in item.tags]

                def complete(self, title):
                    for item in self.items:
                        if item.title == title:
                            item.done = True
                            return item
                    raise KeyError(title)
        ''',
        fix=(
            (
                "    def add(self, title, tags=[]):\n"
                '        """Add an item; `tags` may be extended later with `tag()`."""\n'
                "        item = Item(title, tags)\n",
                "    def add(self, title, tags=None):\n"
                '        """Add an item; `tags` may be extended later with `tag()`."""\n'
                "        item = Item(title, list(tags or []))\n",
            ),
        ),
        tests="""
            import pytest

            from tasklist.model import TaskList


            def test_add_with_tags():
                todo = TaskList()
                todo.add("write docs", tags=["docs"])
                assert todo.with_tag("docs") == ["write docs"]


            def test_complete():
                todo = TaskList()
                todo.add("ship")
                assert todo.complete("ship").done
                with pytest.raises(KeyError):
                    todo.complete("nothing")
        """,
        hidden="""
            from tasklist.model import TaskList


            def test_tagging_one_item_leaves_others_alone():
                todo = TaskList()
                todo.add("a")
                todo.add("b")
                todo.tag("a", "urgent")
                assert todo.with_tag("urgent") == ["a"]


            def test_separate_lists_do_not_share_tags():
                first, second = TaskList(), TaskList()
                first.add("x")
                first.tag("x", "home")
                assert second.add("y").tags == []


            def test_caller_list_is_not_modified():
                tags = ["work"]
                todo = TaskList()
                todo.add("report", tags=tags)
                todo.tag("report", "q3")
                assert tags == ["work"]
        """,
        statement="""
            Tagging one task tags all of them

            After `todo.add("a")`, `todo.add("b")` and `todo.tag("a", "urgent")`,
            `todo.with_tag("urgent")` returns `["a", "b"]`. Even a brand-new `TaskList` starts
            with items that already carry the tags of an earlier list. Items added with an
            explicit `tags=` list also change the caller's list when tagged later.
        """,
        feature="Add task list model",
        fix_message="Give every task its own tag list",
        version="0.3.0",
        layout="src",
    ),
    Bug(
        package="stopwatchfmt",
        kind="string formatting",
        summary="Human-friendly formatting of durations and timestamps.",
        usage="from stopwatchfmt.durations import format_duration\nformat_duration(3725)  # '1:02:05'",
        module="durations.py",
        code='''
            """Format and parse durations given in seconds."""


            def format_duration(seconds):
                """3725 -> "1:02:05"; under an hour -> "2:05"."""
                seconds = int(round(seconds))
                sign = "-" if seconds < 0 else ""
                hours, rest = divmod(abs(seconds), 3600)
                minutes, secs = divmod(rest, 60)
                if hours:
                    return f"{sign}{hours}:{minutes}:{secs:02d}"
                return f"{sign}{minutes}:{secs:02d}"


            def parse_duration(text):
                """Inverse of format_duration: "1:02:05" -> 3725."""
                sign = -1 if text.startswith("-") else 1
                total = 0
                for field in text.lstrip("-").split(":"):
                    total = total * 60 + int(field)
                return sign * total
        ''',
        fix=(
            (
                '        return f"{sign}{hours}:{minutes}:{secs:02d}"\n',
                '        return f"{sign}{hours}:{minutes:02d}:{secs:02d}"\n',
            ),
        ),
        tests="""
            from stopwatchfmt.durations import format_duration, parse_duration


            def test_short_durations():
                assert format_duration(125) == "2:05"
                assert format_duration(59.6) == "1:00"


            def test_long_duration_with_two_digit_minutes():
                assert format_duration(3600 + 25 * 60 + 1) == "1:25:01"


            def test_parse():
                assert parse_duration("1:02:05") == 3725
                assert parse_duration("-0:30") == -30
        """,
        hidden="""
            from stopwatchfmt.durations import format_duration, parse_duration


            def test_minutes_are_zero_padded_after_hours():
                assert format_duration(3725) == "1:02:05"
                assert format_duration(7200) == "2:00:00"


            def test_long_durations_have_a_fixed_width():
                for seconds in range(3600, 36000, 397):
                    text = format_duration(seconds)
                    assert len(text) == 7, text
                    assert parse_duration(text) == seconds
        """,
        statement="""
            Durations over an hour are printed ambiguously

            `format_duration(3725)` returns `"1:2:05"` where `"1:02:05"` is expected, and two
            hours prints as `"2:0:00"`. Durations under an hour and those with ten or more
            minutes look fine.
        """,
        feature="Add duration formatting",
        fix_message="Zero-pad minutes in long durations",
        version="1.1.0",
    ),
    Bug(
        package="leaderboard",
        kind="sorting key",
        summary="Scoreboards for small games and competitions.",
        usage="from leaderboard.ranking import Player, rank\nrank([Player('ann', 30), Player('bob', 50)])",
        module="ranking.py",
        code='''
            """Rank players: highest score first, ties broken by name."""

            from dataclasses import dataclass


            @dataclass(frozen=True)
            class Player:
                name: str
                score: int


            def rank(players):
                """Players ordered best first, as (position, player); equal scores share a position."""
                ordered = sorted(players, key=lambda p: (p.score, p.name))
                result = []
                for index, player in enumerate(ordered):
                    if result and result[-1][1].score == player.score:
                        position = result[-1][0]
                    else:
                        position = index + 1
                    result.append((position, player))
                return result


            def podium(players):
                return [p.name for position, p in rank(players) if position <= 3]
        ''',
        fix=(
            (
                "ordered = sorted(players, key=lambda p: (p.score, p.name))",
                "ordered = sorted(players, key=lambda p: (-p.score, p.name))",
            ),
        ),
        tests="""
            from leaderboard.ranking import Player, rank


            def test_single_player():
                assert rank([Player("ann", 3)]) == [(1, Player("ann", 3))]


            def test_empty():
                assert rank([]) == []
        """,
        hidden="""
            from leaderboard.ranking import Player, podium, rank


            def test_highest_score_first():
                players = [Player("ann", 30), Player("bob", 50), Player("cy", 40)]
                assert [p.name for _, p in rank(players)] == ["bob", "cy", "ann"]


            def test_ties_share_position_and_sort_by_name():
                players = [Player("zed", 10), Player("amy", 10), Player("max", 5)]
                assert [(pos, p.name) for pos, p in rank(players)] == [(1, "amy"), (1, "zed"), (3, "max")]


            def test_podium():
                players = [Player(n, s) for n, s in [("a", 1), ("b", 9), ("c", 7), ("d", 8)]]
                assert podium(players) == ["b", "d", "c"]
        """,
        statement="""
            Leaderboard is upside down

            `rank()` puts the player with the lowest score in first place, and `podium()` shows the
            three worst players. Ties should share a position and be listed alphabetically.
        """,
        feature="Add ranking",
        fix_message="Rank higher scores first",
        version="0.2.0",
        layout="src",
    ),
    Bug(
        package="semverlite",
        kind="wrong comparison",
        summary="Parse and compare semantic version strings.",
        usage="from semverlite.core.version import compare\ncompare('1.10.0', '1.9.0')  # 1",
        module="core/version.py",
        code='''
            """MAJOR.MINOR.PATCH versions."""

            import re

            _VERSION = re.compile(r"^v?(\\d+)\\.(\\d+)\\.(\\d+)$")


            def parse(text):
                """"v1.2.3" -> ("1", "2", "3")."""
                match = _VERSION.match(text.strip())
                if not match:
                    raise ValueError(f"not a version: {text!r}")
                return match.groups()


            def compare(a, b):
                """-1, 0 or 1 as version `a` is older than, equal to or newer than `b`."""
                left, right = parse(a), parse(b)
                return (left > right) - (left < right)


            def newest(versions):
                best = None
                for version in versions:
                    if best is None or compare(version, best) > 0:
                        best = version
                return best
        ''',
        fix=(
            (
                "    return match.groups()\n",
                "    return tuple(int(part) for part in match.groups())\n",
            ),
            ('""""v1.2.3" -> ("1", "2", "3")."""', '""""v1.2.3" -> (1, 2, 3)."""'),
        ),
        tests="""
            import pytest

            from semverlite.core.version import compare, newest, parse


            def test_parse_rejects_garbage():
                with pytest.raises(ValueError):
                    parse("1.2")


            def test_compare_simple():
                assert compare("1.2.3", "1.2.4") == -1
                assert compare("v2.0.0", "2.0.0") == 0


            def test_newest():
                assert newest(["0.1.0", "0.3.0", "0.2.0"]) == "0.3.0"
        """,
        hidden="""
            from semverlite.core.version import compare, newest, parse


            def test_numeric_comparison():
                assert compare("1.10.0", "1.9.0") == 1
                assert compare("0.2.10", "0.2.9") == 1
                assert compare("10.0.0", "9.9.9") == 1


            def test_parse_gives_numbers():
                assert parse("v1.20.3") == (1, 20, 3)


            def test_newest_with_two_digit_parts():
                assert newest(["1.9.0", "1.10.0", "1.2.0"]) == "1.10.0"
        """,
        statement="""
            1.10.0 is considered older than 1.9.0

            `compare("1.10.0", "1.9.0")` returns -1 and `newest(["1.9.0", "1.10.0"])` picks
            1.9.0, so our update check keeps telling people on 1.10 to "upgrade" to 1.9.
        """,
        feature="Add version parsing and comparison",
        fix_message="Compare version parts as numbers",
        version="0.5.0",
        hidden_in_new_file=False,
    ),
    Bug(
        package="retrykit",
        kind="exception handling",
        summary="Retry flaky calls with backoff.",
        usage="from retrykit.retry import retry\nretry(fetch, attempts=3, delay=0.5)",
        module="retry.py",
        code='''
            """Call a function again when it raises, waiting longer each time."""

            import time


            def retry(func, attempts=3, delay=0.0, backoff=2.0, exceptions=(Exception,), sleep=time.sleep):
                """Call `func()` up to `attempts` times and return its result.

                Only `exceptions` are retried. When every attempt fails, the last exception is
                raised.
                """
                if attempts < 1:
                    raise ValueError("attempts must be at least 1")
                wait = delay
                for attempt in range(1, attempts + 1):
                    try:
                        return func()
                    except exceptions:
                        if attempt == attempts:
                            return None
                        sleep(wait)
                        wait *= backoff
        ''',
        fix=(("                return None\n", "                raise\n"),),
        tests="""
            import pytest

            from retrykit.retry import retry


            def test_succeeds_after_failures():
                calls = []

                def flaky():
                    calls.append(1)
                    if len(calls) < 3:
                        raise OSError("try again")
                    return "ok"

                waits = []
                assert retry(flaky, attempts=3, delay=1, sleep=waits.append) == "ok"
                assert waits == [1, 2]


            def test_other_exceptions_are_not_retried():
                def broken():
                    raise KeyError("no")

                with pytest.raises(KeyError):
                    retry(broken, exceptions=(OSError,), sleep=lambda s: None)
        """,
        hidden="""
            import pytest

            from retrykit.retry import retry


            def test_last_error_is_raised_when_all_attempts_fail():
                calls = []

                def always_fails():
                    calls.append(1)
                    raise OSError(f"failure {len(calls)}")

                with pytest.raises(OSError, match="failure 3"):
                    retry(always_fails, attempts=3, sleep=lambda s: None)
                assert len(calls) == 3


            def test_single_attempt_raises():
                with pytest.raises(ValueError):
                    retry(lambda: int("x"), attempts=1)
        """,
        statement="""
            retry() hides the error when every attempt fails

            When the wrapped call fails on every attempt, `retry()` returns `None` instead of
            raising, so callers continue with a `None` result and crash somewhere unrelated.
            The docstring says the last exception is raised.
        """,
        feature="Add retry helper",
        fix_message="Raise the last error when retries are exhausted",
        version="1.0.0",
    ),
    Bug(
        package="stockroom",
        kind="boundary comparison",
        summary="Inventory tracking for a small shop.",
        usage="from stockroom.inventory import Inventory\ninv = Inventory()\ninv.receive('apple', 10)\ninv.remove('apple', 4)",
        module="inventory.py",
        code='''
            """Stock levels per SKU."""


            class InsufficientStock(Exception):
                pass


            class Inventory:
                def __init__(self):
                    self._stock = {}

                def receive(self, sku, quantity):
                    if quantity <= 0:
                        raise ValueError("quantity must be positive")
                    self._stock[sku] = self._stock.get(sku, 0) + quantity

                def available(self, sku):
                    return self._stock.get(sku, 0)

                def remove(self, sku, quantity):
                    """Take `quantity` units out; raise InsufficientStock if there are fewer."""
                    if quantity <= 0:
                        raise ValueError("quantity must be positive")
                    if quantity >= self.available(sku):
                        raise InsufficientStock(f"only {self.available(sku)} of {sku} left")
                    self._stock[sku] -= quantity
                    return self._stock[sku]
        ''',
        fix=(
            ("        if quantity >= self.available(sku):\n", "        if quantity > self.available(sku):\n"),
        ),
        tests="""
            import pytest

            from stockroom.inventory import InsufficientStock, Inventory


            def test_receive_and_remove():
                inv = Inventory()
                inv.receive("apple", 10)
                assert inv.remove("apple", 4) == 6


            def test_cannot_remove_more_than_available():
                inv = Inventory()
                inv.receive("pear", 2)
                with pytest.raises(InsufficientStock):
                    inv.remove("pear", 3)
        """,
        hidden="""


            def test_can_sell_the_last_units():
                inv = Inventory()
                inv.receive("plum", 5)
                assert inv.remove("plum", 5) == 0
                assert inv.available("plum") == 0


            def test_last_single_unit():
                inv = Inventory()
                inv.receive("fig", 1)
                assert inv.remove("fig", 1) == 0
        """,
        statement="""
            Cannot sell the last items in stock

            With 5 plums in stock, `inventory.remove("plum", 5)` raises
            `InsufficientStock: only 5 of plum left`. Removing 4 works. We can never sell out.
        """,
        feature="Add inventory tracking",
        fix_message="Allow removing all remaining stock",
        version="3.2.0",
        hidden_in_new_file=False,
    ),
    Bug(
        package="daterange",
        kind="wrong default",
        summary="Date ranges and business-day arithmetic.",
        usage="from datetime import date\nfrom daterange.spans import days_between\ndays_between(date(2024, 1, 1), date(2024, 1, 3))  # 2",
        module="spans.py",
        code='''
            """Counting and listing days between dates."""

            from datetime import timedelta


            def days_between(start, end, inclusive=True):
                """Days from `start` to `end`; `end` itself counts only when `inclusive` is true."""
                if end < start:
                    raise ValueError("end is before start")
                days = (end - start).days
                return days + 1 if inclusive else days


            def each_day(start, end, inclusive=False):
                """The dates from `start` up to `end` (excluded unless `inclusive`)."""
                count = days_between(start, end, inclusive=inclusive)
                return [start + timedelta(days=i) for i in range(count)]


            def business_days(start, end):
                """Weekdays from `start` up to but not including `end`."""
                return sum(1 for day in each_day(start, end) if day.weekday() < 5)
        ''',
        fix=(
            (
                "def days_between(start, end, inclusive=True):",
                "def days_between(start, end, inclusive=False):",
            ),
        ),
        tests="""
            from datetime import date

            import pytest

            from daterange.spans import business_days, each_day


            def test_each_day_excludes_end():
                assert each_day(date(2024, 1, 1), date(2024, 1, 3)) == [date(2024, 1, 1), date(2024, 1, 2)]


            def test_business_days_skip_weekend():
                # Friday 2024-01-05 to Tuesday 2024-01-09: Fri, Mon
                assert business_days(date(2024, 1, 5), date(2024, 1, 9)) == 2


            def test_end_before_start():
                with pytest.raises(ValueError):
                    each_day(date(2024, 1, 2), date(2024, 1, 1))
        """,
        hidden="""
            from datetime import date

            from daterange.spans import days_between, each_day


            def test_end_is_excluded_by_default():
                assert days_between(date(2024, 1, 1), date(2024, 1, 3)) == 2
                assert days_between(date(2024, 1, 1), date(2024, 1, 1)) == 0


            def test_default_agrees_with_each_day():
                start, end = date(2024, 2, 27), date(2024, 3, 2)
                assert days_between(start, end) == len(each_day(start, end)) == 4
                assert days_between(start, end, inclusive=True) == 5
        """,
        statement="""
            days_between counts one day too many

            `days_between(date(2024, 1, 1), date(2024, 1, 3))` returns 3; the README and the
            rest of the library treat the end date as excluded unless `inclusive=True` is
            passed, so this should be 2 (and 0 for the same start and end date).
        """,
        feature="Add day counting helpers",
        fix_message="Exclude the end date by default in days_between",
        version="1.4.0",
        layout="src",
    ),
    Bug(
        package="iniparse",
        kind="string parsing",
        summary="A forgiving reader for key = value configuration files.",
        usage="from iniparse.reader import parse\nparse('[db]\\nurl = postgres://u:p@h/db?sslmode=require')",
        module="reader.py",
        code='''
            """Read `key = value` lines grouped in [sections]."""


            class ParseError(ValueError):
                pass


            def parse(text):
                """{section: {key: value}}; keys before any section go to "DEFAULT"."""
                data = {"DEFAULT": {}}
                section = "DEFAULT"
                for number, raw in enumerate(text.splitlines(), start=1):
                    line = raw.strip()
                    if not line or line.startswith(("#", ";")):
                        continue
                    if line.startswith("[") and line.endswith("]"):
                        section = line[1:-1].strip()
                        data.setdefault(section, {})
                        continue
                    if "=" not in line:
                        raise ParseError(f"line {number}: expected key = value")
                    key, value = line.split("=")[:2]
                    data[section][key.strip()] = value.strip()
                return data
        ''',
        fix=(('        key, value = line.split("=")[:2]\n', '        key, value = line.split("=", 1)\n'),),
        tests="""
            import pytest

            from iniparse.reader import ParseError, parse


            def test_sections_and_comments():
                text = "name = demo\\n# comment\\n[db]\\nhost = localhost\\n"
                assert parse(text) == {"DEFAULT": {"name": "demo"}, "db": {"host": "localhost"}}


            def test_bad_line():
                with pytest.raises(ParseError, match="line 2"):
                    parse("[a]\\nnot a pair\\n")
        """,
        hidden="""
            from iniparse.reader import parse


            def test_value_may_contain_equals_signs():
                text = "[db]\\nurl = postgres://u:p@h/db?sslmode=require&x=1\\n"
                assert parse(text)["db"]["url"] == "postgres://u:p@h/db?sslmode=require&x=1"


            def test_base64_padding_is_kept():
                assert parse("token = YWJjZA==\\n")["DEFAULT"]["token"] == "YWJjZA=="
        """,
        statement="""
            Values containing "=" are cut off

            A database URL like `url = postgres://u:p@h/db?sslmode=require` comes back as
            `postgres://u:p@h/db?sslmode`, and a base64 token `YWJjZA==` comes back as `YWJjZA`.
            Everything after the second `=` in a line is lost.
        """,
        feature="Add configuration reader",
        fix_message="Keep '=' inside configuration values",
        version="0.7.0",
    ),
    Bug(
        package="gridmath",
        kind="wrong index bounds",
        summary="Plain-Python matrix helpers for small grids.",
        usage="from gridmath.ops.matrix import transpose\ntranspose([[1, 2, 3], [4, 5, 6]])",
        module="ops/matrix.py",
        code='''
            """Matrices as lists of rows."""


            def shape(m):
                return (len(m), len(m[0]) if m else 0)


            def transpose(m):
                """Rows become columns: a 2x3 matrix becomes 3x2."""
                rows, cols = shape(m)
                return [[m[r][c] for r in range(rows)] for c in range(rows)]


            def multiply(a, b):
                rows, inner = shape(a)
                inner_b, cols = shape(b)
                if inner != inner_b:
                    raise ValueError(f"cannot multiply {shape(a)} by {shape(b)}")
                return [[sum(a[r][k] * b[k][c] for k in range(inner)) for c in range(cols)] for r in range(rows)]
        ''',
        fix=(
            (
                "    return [[m[r][c] for r in range(rows)] for c in range(rows)]\n",
                "    return [[m[r][c] for r in range(rows)] for c in range(cols)]\n",
            ),
        ),
        tests="""
            import pytest

            from gridmath.ops.matrix import multiply, shape, transpose


            def test_transpose_square():
                assert transpose([[1, 2], [3, 4]]) == [[1, 3], [2, 4]]


            def test_multiply():
                assert multiply([[1, 2], [3, 4]], [[5], [6]]) == [[17], [39]]
                with pytest.raises(ValueError):
                    multiply([[1, 2]], [[1, 2]])


            def test_shape():
                assert shape([[1, 2, 3]]) == (1, 3)
        """,
        hidden="""
            from gridmath.ops.matrix import multiply, shape, transpose


            def test_transpose_wide_matrix():
                assert transpose([[1, 2, 3], [4, 5, 6]]) == [[1, 4], [2, 5], [3, 6]]


            def test_transpose_tall_matrix():
                assert transpose([[1], [2], [3]]) == [[1, 2, 3]]


            def test_gram_matrix_of_wide_matrix():
                a = [[1, 2, 3]]
                assert shape(multiply(transpose(a), a)) == (3, 3)
        """,
        statement="""
            transpose() breaks on non-square matrices

            `transpose([[1, 2, 3], [4, 5, 6]])` returns `[[1, 4], [2, 5]]`, dropping the last
            column, and `transpose([[1], [2], [3]])` raises `IndexError`. Square matrices work.
        """,
        feature="Add matrix operations",
        fix_message="Transpose non-square matrices correctly",
        version="0.1.0",
        layout="src",
    ),
    Bug(
        package="batchpipe",
        kind="off-by-one",
        summary="Batch records through small processing pipelines.",
        usage="from batchpipe.batching import chunks\nlist(chunks(range(7), 3))",
        module="batching.py",
        code='''
            """Cut sequences into fixed-size batches."""


            def chunks(seq, size):
                """Consecutive slices of `seq` with `size` items; the last one may be shorter."""
                if size < 1:
                    raise ValueError("size must be at least 1")
                seq = list(seq)
                for start in range(0, len(seq) - size + 1, size):
                    yield seq[start : start + size]


            def run_batches(records, size, handler):
                """Call `handler` on each batch; return how many records were handled."""
                handled = 0
                for batch in chunks(records, size):
                    handler(batch)
                    handled += len(batch)
                return handled
        ''',
        fix=(
            (
                "    for start in range(0, len(seq) - size + 1, size):\n",
                "    for start in range(0, len(seq), size):\n",
            ),
        ),
        tests="""
            import pytest

            from batchpipe.batching import chunks, run_batches


            def test_even_chunks():
                assert list(chunks(range(6), 3)) == [[0, 1, 2], [3, 4, 5]]


            def test_run_batches_even():
                seen = []
                assert run_batches(list(range(4)), 2, seen.append) == 4
                assert seen == [[0, 1], [2, 3]]


            def test_bad_size():
                with pytest.raises(ValueError):
                    list(chunks([1], 0))
        """,
        hidden="""
            from batchpipe.batching import chunks, run_batches


            def test_last_short_chunk_is_kept():
                assert list(chunks(range(7), 3)) == [[0, 1, 2], [3, 4, 5], [6]]
                assert list(chunks([1, 2], 5)) == [[1, 2]]


            def test_every_record_is_handled():
                seen = []
                assert run_batches(list(range(5)), 2, seen.append) == 5
                assert seen[-1] == [4]
        """,
        statement="""
            Records at the end are silently dropped

            `run_batches(records, 100, save)` saves only 900 of 950 records: the final, shorter
            batch never reaches the handler. `list(chunks(range(7), 3))` gives
            `[[0, 1, 2], [3, 4, 5]]` and `chunks([1, 2], 5)` yields nothing at all.
        """,
        feature="Add batching",
        fix_message="Yield the final partial batch",
        version="2.0.0",
    ),
]
