"""repofix bugs, part two: classes and state, parsing, formatting and data processing."""

from __future__ import annotations

from codegym.tasks.suites.repofix_parts import Bug

BUGS = [
    Bug(
        package="eventbus",
        kind="mutation during iteration",
        summary="A synchronous publish/subscribe event bus.",
        usage="from eventbus.bus import EventBus\nbus = EventBus()\nbus.subscribe('saved', print)\nbus.emit('saved', 42)",
        module="bus.py",
        code='''
            """Publish/subscribe within one process."""

            from collections import defaultdict


            class EventBus:
                def __init__(self):
                    self._handlers = defaultdict(list)

                def subscribe(self, event, handler):
                    self._handlers[event].append(handler)
                    return handler

                def unsubscribe(self, event, handler):
                    self._handlers[event].remove(handler)

                def once(self, event, handler):
                    """Subscribe `handler` for the next `event` only."""

                    def wrapper(*args):
                        self.unsubscribe(event, wrapper)
                        return handler(*args)

                    return self.subscribe(event, wrapper)

                def emit(self, event, *args):
                    """Call every handler subscribed to `event`, in subscription order."""
                    results = []
                    for handler in self._handlers[event]:
                        results.append(handler(*args))
                    return results
        ''',
        fix=(
            (
                "        for handler in self._handlers[event]:\n",
                "        for handler in list(self._handlers[event]):\n",
            ),
        ),
        tests="""
            from eventbus.bus import EventBus


            def test_emit_calls_handlers_in_order():
                bus = EventBus()
                bus.subscribe("x", lambda v: v + 1)
                bus.subscribe("x", lambda v: v * 10)
                assert bus.emit("x", 2) == [3, 20]


            def test_unsubscribe():
                bus = EventBus()
                handler = bus.subscribe("x", lambda: "hi")
                bus.unsubscribe("x", handler)
                assert bus.emit("x") == []


            def test_once_alone():
                bus = EventBus()
                bus.once("x", lambda: "first")
                assert bus.emit("x") == ["first"]
                assert bus.emit("x") == []
        """,
        hidden="""
            from eventbus.bus import EventBus


            def test_once_does_not_skip_the_next_handler():
                bus = EventBus()
                calls = []
                bus.once("saved", lambda: calls.append("once"))
                bus.subscribe("saved", lambda: calls.append("always"))
                bus.emit("saved")
                assert calls == ["once", "always"]


            def test_handler_unsubscribing_itself():
                bus = EventBus()
                calls = []

                def a():
                    calls.append("a")
                    bus.unsubscribe("e", a)

                bus.subscribe("e", a)
                bus.subscribe("e", lambda: calls.append("b"))
                bus.subscribe("e", lambda: calls.append("c"))
                bus.emit("e")
                bus.emit("e")
                assert calls == ["a", "b", "c", "b", "c"]
        """,
        statement="""
            Handlers are skipped after a `once` handler fires

            If a handler registered with `bus.once("saved", ...)` runs, the handler subscribed
            right after it is not called for that event. The same happens whenever a handler
            unsubscribes itself during `emit`. Every subscribed handler should run.
        """,
        feature="Add event bus",
        fix_message="Do not skip handlers when one unsubscribes during emit",
        version="0.6.0",
        layout="src",
    ),
    Bug(
        package="moneyfmt",
        kind="string formatting",
        summary="Locale-free formatting of currency amounts for receipts.",
        usage="from moneyfmt.formatting import format_money\nformat_money(1234.5)  # '$1,234.50'",
        module="formatting.py",
        code='''
            """Format amounts for receipts and reports."""

            SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£"}


            def format_money(amount, currency="USD"):
                """1234.5 -> "$1,234.50"; negative amounts get a leading minus: "-$3.00"."""
                symbol = SYMBOLS.get(currency)
                if symbol is None:
                    raise ValueError(f"unsupported currency {currency!r}")
                sign = "-" if amount < 0 else ""
                return f"{sign}{symbol}{abs(amount):,}"


            def format_table(rows, currency="USD"):
                """Right-aligned "label  amount" lines."""
                cells = [(label, format_money(value, currency)) for label, value in rows]
                width = max((len(c[1]) for c in cells), default=0)
                return "\\n".join(f"{label:<12}{text:>{width}}" for label, text in cells)
        ''',
        fix=(
            (
                '    return f"{sign}{symbol}{abs(amount):,}"\n',
                '    return f"{sign}{symbol}{abs(amount):,.2f}"\n',
            ),
        ),
        tests="""
            import pytest

            from moneyfmt.formatting import format_money


            def test_unsupported_currency():
                with pytest.raises(ValueError):
                    format_money(1, "XYZ")


            def test_symbol():
                assert format_money(1000.25, "EUR").startswith("€1,000")
        """,
        hidden="""
            from moneyfmt.formatting import format_money, format_table


            def test_always_two_decimals():
                assert format_money(1234.5) == "$1,234.50"
                assert format_money(3) == "$3.00"
                assert format_money(-3) == "-$3.00"


            def test_table_alignment():
                table = format_table([("coffee", 3), ("cake", 12.5)])
                assert table.splitlines() == ["coffee       $3.00", "cake        $12.50"]
        """,
        statement="""
            Receipts show amounts like "$3" and "$1,234.5"

            `format_money(3)` returns `"$3"` and `format_money(1234.5)` returns `"$1,234.5"`.
            Amounts on receipts must always show cents, e.g. `"$3.00"` and `"$1,234.50"`, so the
            columns of `format_table` line up.
        """,
        feature="Add money formatting",
        fix_message="Always show two decimals in money amounts",
        version="1.0.0",
    ),
    Bug(
        package="gradebook",
        kind="integer division",
        summary="Course grade calculations.",
        usage="from gradebook.grades import average, letter\nletter(average([90, 85, 77]))",
        module="grades.py",
        code='''
            """Averages and letter grades."""

            CUTOFFS = [(90, "A"), (80, "B"), (70, "C"), (60, "D")]


            def average(scores):
                """The mean score, not rounded."""
                if not scores:
                    raise ValueError("no scores")
                return sum(scores) // len(scores)


            def letter(score):
                for cutoff, grade in CUTOFFS:
                    if score >= cutoff:
                        return grade
                return "F"


            def report(students):
                """{name: (average, letter)} for {name: [scores]}."""
                return {name: (average(s), letter(average(s))) for name, s in students.items()}
        ''',
        fix=(("    return sum(scores) // len(scores)\n", "    return sum(scores) / len(scores)\n"),),
        tests="""
            import pytest

            from gradebook.grades import average, letter


            def test_letter_cutoffs():
                assert letter(95) == "A"
                assert letter(80) == "B"
                assert letter(12) == "F"


            def test_average_whole_number():
                assert average([80, 90, 100]) == 90


            def test_no_scores():
                with pytest.raises(ValueError):
                    average([])
        """,
        hidden="""
            from gradebook.grades import average, report


            def test_average_keeps_fraction():
                assert average([89, 90]) == 89.5
                assert average([1, 2]) == 1.5


            def test_report_uses_exact_average():
                assert report({"ana": [89, 90, 91, 89.5]}) == {"ana": (89.875, "B")}
                assert report({"bo": [79, 80]})["bo"] == (79.5, "C")
        """,
        statement="""
            Averages are rounded down

            `average([89, 90])` returns 89 instead of 89.5, and `average([1, 2])` gives 1. The
            docstring says the mean is not rounded; reports show truncated averages.
        """,
        feature="Add grade calculations",
        fix_message="Use true division for averages",
        version="2.3.0",
        hidden_in_new_file=False,
    ),
    Bug(
        package="wraptext",
        kind="off-by-one",
        summary="Word wrapping for terminal output.",
        usage="from wraptext.wrap import wrap\nwrap('the quick brown fox', 10)",
        module="wrap.py",
        code='''
            """Greedy word wrapping."""


            def wrap(text, width):
                """Lines of at most `width` characters (a longer word gets a line of its own)."""
                if width < 1:
                    raise ValueError("width must be positive")
                lines, line = [], ""
                for word in text.split():
                    if line and len(line) + len(word) > width:
                        lines.append(line)
                        line = word
                    else:
                        line = f"{line} {word}" if line else word
                if line:
                    lines.append(line)
                return lines


            def fill(text, width):
                return "\\n".join(wrap(text, width))
        ''',
        fix=(
            (
                "        if line and len(line) + len(word) > width:\n",
                "        if line and len(line) + 1 + len(word) > width:\n",
            ),
        ),
        tests="""
            import pytest

            from wraptext.wrap import fill, wrap


            def test_short_text_stays_on_one_line():
                assert wrap("hello world", 40) == ["hello world"]


            def test_long_word_has_own_line():
                assert wrap("a extraordinarily b", 5) == ["a", "extraordinarily", "b"]


            def test_fill_joins_lines():
                assert fill("", 5) == ""
                with pytest.raises(ValueError):
                    wrap("x", 0)
        """,
        hidden="""
            from wraptext.wrap import wrap


            def test_no_line_exceeds_width():
                text = "the quick brown fox jumps over the lazy dog"
                for width in range(3, 20):
                    for line in wrap(text, width):
                        assert len(line) <= width or " " not in line


            def test_exact_fit():
                assert wrap("aaaa bbbb cc", 9) == ["aaaa bbbb", "cc"]
                assert wrap("aaaa bbbb", 8) == ["aaaa", "bbbb"]
        """,
        statement="""
            Wrapped lines are one character too long

            `wrap("aaaa bbbb", 8)` returns `["aaaa bbbb"]`, a 9-character line, although `width`
            is 8. Our terminal tables break because lines spill over the column width by one.
        """,
        feature="Add word wrapping",
        fix_message="Count the separating space when wrapping",
        version="0.2.0",
    ),
    Bug(
        package="memokit",
        kind="missing state update",
        summary="Small caches and memoization decorators.",
        usage="from memokit.lru import LRUCache\ncache = LRUCache(2)\ncache.put('a', 1)",
        module="lru.py",
        code='''
            """A least-recently-used cache."""

            from collections import OrderedDict


            class LRUCache:
                def __init__(self, capacity):
                    if capacity < 1:
                        raise ValueError("capacity must be at least 1")
                    self.capacity = capacity
                    self._data = OrderedDict()

                def get(self, key, default=None):
                    """The cached value (which becomes the most recently used), or `default`."""
                    if key not in self._data:
                        return default
                    return self._data[key]

                def put(self, key, value):
                    """Store `value`; evict the least recently used entry when full."""
                    if key in self._data:
                        self._data.move_to_end(key)
                    self._data[key] = value
                    if len(self._data) > self.capacity:
                        self._data.popitem(last=False)

                def __len__(self):
                    return len(self._data)

                def keys(self):
                    return list(self._data)
        ''',
        fix=(
            (
                "            return default\n        return self._data[key]\n",
                "            return default\n        self._data.move_to_end(key)\n        return self._data[key]\n",
            ),
        ),
        tests="""
            from memokit.lru import LRUCache


            def test_put_get():
                cache = LRUCache(2)
                cache.put("a", 1)
                assert cache.get("a") == 1
                assert cache.get("zz", 0) == 0


            def test_evicts_oldest_when_full():
                cache = LRUCache(2)
                cache.put("a", 1)
                cache.put("b", 2)
                cache.put("c", 3)
                assert cache.keys() == ["b", "c"]


            def test_put_refreshes_existing_key():
                cache = LRUCache(2)
                cache.put("a", 1)
                cache.put("b", 2)
                cache.put("a", 10)
                cache.put("c", 3)
                assert cache.keys() == ["a", "c"]
        """,
        hidden="""
            from memokit.lru import LRUCache


            def test_get_marks_entry_as_recently_used():
                cache = LRUCache(2)
                cache.put("a", 1)
                cache.put("b", 2)
                cache.get("a")
                cache.put("c", 3)
                assert cache.get("a") == 1
                assert cache.get("b") is None


            def test_hot_key_survives_many_inserts():
                cache = LRUCache(3)
                cache.put("hot", 0)
                for i in range(10):
                    cache.put(i, i)
                    assert cache.get("hot") == 0
        """,
        statement="""
            LRU cache evicts entries that were just used

            With `LRUCache(2)`: put "a", put "b", get "a", put "c" — now "a" is gone and "b" is
            still cached, although "b" was the least recently used. Reading a key should count
            as using it.
        """,
        feature="Add LRU cache",
        fix_message="Refresh recency on cache hits",
        version="0.8.0",
        layout="src",
    ),
    Bug(
        package="urlkit",
        kind="string edge case",
        summary="Helpers for building URLs for REST clients.",
        usage="from urlkit.build import join_url\njoin_url('https://api.example.com/v1/', '/users')",
        module="build.py",
        code='''
            """Build URLs from a base and path segments."""

            from urllib.parse import urlencode


            def join_url(base, *segments):
                """"https://h/api" + "users" + "7" -> "https://h/api/users/7"."""
                url = base
                for segment in segments:
                    url = url + "/" + str(segment)
                return url


            def with_query(url, **params):
                """Append `params` (None values dropped) as a query string."""
                params = {k: v for k, v in params.items() if v is not None}
                if not params:
                    return url
                sep = "&" if "?" in url else "?"
                return url + sep + urlencode(sorted(params.items()))
        ''',
        fix=(
            (
                '        url = url + "/" + str(segment)\n',
                '        url = url.rstrip("/") + "/" + str(segment).lstrip("/")\n',
            ),
        ),
        tests="""
            from urlkit.build import join_url, with_query


            def test_join_plain_segments():
                assert join_url("https://h/api", "users", 7) == "https://h/api/users/7"


            def test_query():
                assert with_query("https://h/x", b=2, a=1, c=None) == "https://h/x?a=1&b=2"
                assert with_query("https://h/x?a=1", z=0) == "https://h/x?a=1&z=0"
                assert with_query("https://h/x") == "https://h/x"
        """,
        hidden="""
            from urlkit.build import join_url


            def test_no_double_slashes():
                assert join_url("https://api.example.com/v1/", "/users") == "https://api.example.com/v1/users"
                assert join_url("https://h/", "a/", "/b") == "https://h/a/b"


            def test_trailing_slashes_between_segments():
                assert join_url("https://h/", "x/", "y") == "https://h/x/y"
        """,
        statement="""
            Requests fail with 404 because of double slashes

            `join_url("https://api.example.com/v1/", "/users")` returns
            `"https://api.example.com/v1//users"`. Our API gateway answers 404 for such paths.
            A trailing slash on the base or a leading slash on a segment should not produce `//`.
        """,
        feature="Add URL building helpers",
        fix_message="Avoid double slashes when joining URLs",
        version="1.2.0",
        hidden_in_new_file=False,
    ),
    Bug(
        package="spans",
        kind="missing sort",
        summary="Operations on sets of numeric intervals (bookings, ranges, time slots).",
        usage="from spans.intervals import merge\nmerge([(1, 3), (2, 6), (8, 10)])",
        module="intervals.py",
        code='''
            """Closed intervals as (start, end) tuples."""


            def merge(intervals):
                """Merge overlapping or touching intervals; the result is sorted by start."""
                merged = []
                for start, end in intervals:
                    if start > end:
                        raise ValueError(f"bad interval ({start}, {end})")
                    if merged and start <= merged[-1][1]:
                        merged[-1] = (merged[-1][0], max(merged[-1][1], end))
                    else:
                        merged.append((start, end))
                return merged


            def total_length(intervals):
                return sum(end - start for start, end in merge(intervals))


            def overlaps(a, b):
                return a[0] <= b[1] and b[0] <= a[1]
        ''',
        fix=(("    for start, end in intervals:\n", "    for start, end in sorted(intervals):\n"),),
        tests="""
            import pytest

            from spans.intervals import merge, overlaps, total_length


            def test_merge_sorted_input():
                assert merge([(1, 3), (2, 6), (8, 10)]) == [(1, 6), (8, 10)]


            def test_touching_intervals_merge():
                assert merge([(1, 2), (2, 3)]) == [(1, 3)]


            def test_overlaps_and_length():
                assert overlaps((1, 5), (5, 9))
                assert not overlaps((1, 2), (3, 4))
                assert total_length([(0, 2), (1, 4)]) == 4


            def test_bad_interval():
                with pytest.raises(ValueError):
                    merge([(3, 1)])
        """,
        hidden="""
            from spans.intervals import merge, total_length


            def test_merge_unsorted_input():
                assert merge([(8, 10), (1, 3), (2, 6)]) == [(1, 6), (8, 10)]


            def test_total_length_of_unsorted_bookings():
                assert total_length([(5, 7), (0, 2), (1, 6)]) == 7
        """,
        statement="""
            merge() gives overlapping results for unsorted input

            `merge([(8, 10), (1, 3), (2, 6)])` returns `[(8, 10)]`: the interval (1, 6) is swallowed
            by (8, 10). `total_length([(5, 7), (0, 2), (1, 6)])` returns 2 instead of 7. Bookings come
            from the API in no particular order; the docstring says the result is sorted and merged.
        """,
        feature="Add interval merging",
        fix_message="Sort intervals before merging",
        version="0.4.0",
    ),
    Bug(
        package="envflags",
        kind="type conversion",
        summary="Typed access to environment variables.",
        usage="from envflags.env import get_bool\nDEBUG = get_bool('DEBUG', default=False)",
        module="env.py",
        code='''
            """Read settings from environment variables with types and defaults."""

            import os

            TRUE = {"1", "true", "yes", "on"}
            FALSE = {"0", "false", "no", "off", ""}


            def get_str(name, default=None, environ=None):
                environ = os.environ if environ is None else environ
                return environ.get(name, default)


            def get_int(name, default=0, environ=None):
                value = get_str(name, None, environ)
                return default if value is None else int(value)


            def get_bool(name, default=False, environ=None):
                """"1", "true", "yes", "on" -> True; "0", "false", "no", "off", "" -> False."""
                value = get_str(name, None, environ)
                if value is None:
                    return default
                return bool(value)
        ''',
        fix=(
            (
                "    return bool(value)\n",
                "    value = value.strip().lower()\n"
                "    if value in TRUE:\n"
                "        return True\n"
                "    if value in FALSE:\n"
                "        return False\n"
                '    raise ValueError(f"{name}={value!r} is not a boolean")\n',
            ),
        ),
        tests="""
            from envflags.env import get_bool, get_int, get_str


            def test_get_str_and_int():
                env = {"NAME": "x", "PORT": "8080"}
                assert get_str("NAME", environ=env) == "x"
                assert get_int("PORT", environ=env) == 8080
                assert get_int("MISSING", 5, environ=env) == 5


            def test_bool_default_and_true():
                assert get_bool("DEBUG", default=True, environ={}) is True
                assert get_bool("DEBUG", environ={"DEBUG": "1"}) is True
        """,
        hidden="""
            import pytest

            from envflags.env import get_bool


            def test_false_spellings():
                for text in ("0", "false", "False", "no", "off", ""):
                    assert get_bool("DEBUG", environ={"DEBUG": text}) is False


            def test_unknown_value_is_an_error():
                with pytest.raises(ValueError, match="DEBUG"):
                    get_bool("DEBUG", environ={"DEBUG": "maybe"})
        """,
        statement="""
            DEBUG=false turns debugging on

            `get_bool("DEBUG")` returns True when the variable is set to `false`, `0`, `no` or
            `off`. Only an empty or unset variable gives False. Values that are not one of the
            documented spellings should be rejected with an error naming the variable rather
            than silently treated as true.
        """,
        feature="Add environment variable helpers",
        fix_message="Parse boolean environment variables properly",
        version="0.3.0",
        layout="src",
    ),
    Bug(
        package="wordfreq",
        kind="normalization",
        summary="Word frequency counts for text files.",
        usage="from wordfreq.counting import top_words\ntop_words(open('book.txt').read(), 10)",
        module="counting.py",
        code='''
            """Count words in text."""

            import re
            from collections import Counter

            WORD = re.compile(r"[A-Za-z']+")


            def words(text):
                """The words of `text`, case-folded: "The cat" -> ["the", "cat"]."""
                return WORD.findall(text)


            def top_words(text, n=10):
                """The `n` most common words as (word, count), most common first, ties alphabetical."""
                counts = Counter(words(text))
                return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:n]
        ''',
        fix=(("    return WORD.findall(text)\n", "    return [w.lower() for w in WORD.findall(text)]\n"),),
        tests="""
            from wordfreq.counting import top_words


            def test_top_words_lowercase_text():
                assert top_words("b a b c b a", 2) == [("b", 3), ("a", 2)]


            def test_ties_are_alphabetical():
                assert top_words("z y x", 3) == [("x", 1), ("y", 1), ("z", 1)]
        """,
        hidden="""
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
                assert capsys.readouterr().out == "dog 2\\n"
        """,
        statement="""
            "The" and "the" are counted as different words

            `wordfreq book.txt` lists `the` and `The` as two separate entries, and
            `top_words("The the THE cat", 1)` returns `[("The", 1)]`. The documentation says
            words are case-folded.
        """,
        feature="Add word counting",
        fix_message="Case-fold words before counting",
        version="1.0.0",
        cli='''
            """`wordfreq FILE [-n N]`: print the most common words."""

            import argparse
            from pathlib import Path

            from .counting import top_words


            def main(argv=None):
                parser = argparse.ArgumentParser(prog="wordfreq")
                parser.add_argument("file")
                parser.add_argument("-n", type=int, default=10)
                args = parser.parse_args(argv)
                for word, count in top_words(Path(args.file).read_text(encoding="utf-8"), args.n):
                    print(f"{word} {count}")
                return 0
        ''',
        cli_tests="""
            from wordfreq.cli import main


            def test_cli(tmp_path, capsys):
                path = tmp_path / "t.txt"
                path.write_text("a b a")
                assert main([str(path), "-n", "1"]) == 0
                assert capsys.readouterr().out == "a 2\\n"
        """,
    ),
    Bug(
        package="shapes2d",
        kind="off-by-one (wrap-around)",
        summary="2D geometry primitives: points, polygons, bounding boxes.",
        usage="from shapes2d.geometry.polygon import Polygon\nPolygon([(0, 0), (4, 0), (4, 3)]).perimeter()",
        module="geometry/polygon.py",
        code='''
            """Simple polygons given by their vertices in order."""

            import math


            class Polygon:
                def __init__(self, vertices):
                    if len(vertices) < 3:
                        raise ValueError("a polygon needs at least 3 vertices")
                    self.vertices = [tuple(v) for v in vertices]

                def edges(self):
                    """Consecutive vertex pairs, including the closing edge back to the start."""
                    return [(self.vertices[i], self.vertices[i + 1]) for i in range(len(self.vertices) - 1)]

                def perimeter(self):
                    return sum(math.dist(a, b) for a, b in self.edges())

                def area(self):
                    """Shoelace formula."""
                    n = len(self.vertices)
                    twice = sum(
                        self.vertices[i][0] * self.vertices[(i + 1) % n][1]
                        - self.vertices[(i + 1) % n][0] * self.vertices[i][1]
                        for i in range(n)
                    )
                    return abs(twice) / 2

                def bounding_box(self):
                    xs = [x for x, _ in self.vertices]
                    ys = [y for _, y in self.vertices]
                    return (min(xs), min(ys), max(xs), max(ys))
        ''',
        fix=(
            (
                "        return [(self.vertices[i], self.vertices[i + 1]) for i in range(len(self.vertices) - 1)]\n",
                "        n = len(self.vertices)\n"
                "        return [(self.vertices[i], self.vertices[(i + 1) % n]) for i in range(n)]\n",
            ),
        ),
        tests="""
            import pytest

            from shapes2d.geometry.polygon import Polygon


            def test_area_of_triangle():
                assert Polygon([(0, 0), (4, 0), (4, 3)]).area() == 6


            def test_bounding_box():
                assert Polygon([(1, 2), (5, -1), (3, 7)]).bounding_box() == (1, -1, 5, 7)


            def test_needs_three_vertices():
                with pytest.raises(ValueError):
                    Polygon([(0, 0), (1, 1)])
        """,
        hidden="""
            import pytest

            from shapes2d.geometry.polygon import Polygon


            def test_triangle_perimeter_includes_closing_edge():
                assert Polygon([(0, 0), (4, 0), (4, 3)]).perimeter() == pytest.approx(12)


            def test_square_has_four_edges():
                square = Polygon([(0, 0), (1, 0), (1, 1), (0, 1)])
                assert len(square.edges()) == 4
                assert square.perimeter() == pytest.approx(4)
        """,
        statement="""
            Polygon perimeter is too short

            `Polygon([(0, 0), (4, 0), (4, 3)]).perimeter()` returns 7 instead of 12, and a unit
            square has only 3 edges according to `edges()`. Area and bounding boxes are fine.
        """,
        feature="Add polygons",
        fix_message="Include the closing edge of polygons",
        version="0.9.0",
        layout="src",
    ),
    Bug(
        package="ledger",
        kind="exception safety",
        summary="Accounts and transfers for a toy bank ledger.",
        usage="from ledger.accounts import Account, transfer\ntransfer(alice, bob, 25)",
        module="accounts.py",
        code='''
            """Accounts with balances in cents and transfers between them."""


            class InsufficientFunds(Exception):
                pass


            class Account:
                def __init__(self, owner, balance=0, limit=None):
                    self.owner = owner
                    self.balance = balance
                    self.limit = limit  # the most this account may receive in one transfer

                def withdraw(self, amount):
                    if amount <= 0:
                        raise ValueError("amount must be positive")
                    if amount > self.balance:
                        raise InsufficientFunds(f"{self.owner} has {self.balance}, needs {amount}")
                    self.balance -= amount

                def deposit(self, amount):
                    if amount <= 0:
                        raise ValueError("amount must be positive")
                    if self.limit is not None and amount > self.limit:
                        raise ValueError(f"{self.owner} cannot receive more than {self.limit} at once")
                    self.balance += amount


            def transfer(source, target, amount):
                """Move `amount` from `source` to `target`: both balances change, or neither does."""
                source.withdraw(amount)
                target.deposit(amount)
        ''',
        fix=(
            (
                "    source.withdraw(amount)\n    target.deposit(amount)\n",
                "    source.withdraw(amount)\n"
                "    try:\n"
                "        target.deposit(amount)\n"
                "    except Exception:\n"
                "        source.balance += amount\n"
                "        raise\n",
            ),
        ),
        tests="""
            import pytest

            from ledger.accounts import Account, InsufficientFunds, transfer


            def test_transfer_moves_money():
                a, b = Account("a", 100), Account("b", 0)
                transfer(a, b, 30)
                assert (a.balance, b.balance) == (70, 30)


            def test_insufficient_funds_changes_nothing():
                a, b = Account("a", 10), Account("b", 0)
                with pytest.raises(InsufficientFunds):
                    transfer(a, b, 30)
                assert (a.balance, b.balance) == (10, 0)
        """,
        hidden="""
            import pytest

            from ledger.accounts import Account, transfer


            def test_rejected_deposit_restores_source():
                a, b = Account("a", 100), Account("b", 0, limit=50)
                with pytest.raises(ValueError):
                    transfer(a, b, 80)
                assert (a.balance, b.balance) == (100, 0)


            def test_money_is_conserved():
                accounts = [Account("a", 100), Account("b", 0, limit=10)]
                for amount in (5, 20, 10):
                    try:
                        transfer(accounts[0], accounts[1], amount)
                    except ValueError:
                        pass
                assert sum(acc.balance for acc in accounts) == 100
        """,
        statement="""
            Money disappears when a transfer is rejected

            When the receiving account refuses a deposit (for example because it is over its
            per-transfer limit), `transfer()` raises, but the amount has already been taken
            from the source account and is gone. The docstring promises both balances change or
            neither does.
        """,
        feature="Add accounts and transfers",
        fix_message="Roll back the withdrawal when a deposit fails",
        version="1.5.0",
    ),
    Bug(
        package="sizeparse",
        kind="matching order",
        summary="Parse and format human-readable byte sizes.",
        usage="from sizeparse.units import parse_size\nparse_size('1.5 MB')  # 1500000",
        module="units.py",
        code='''
            """Byte sizes with decimal (kB, MB, GB) and binary (KiB, MiB, GiB) units."""

            UNITS = [
                ("B", 1),
                ("kB", 1000),
                ("MB", 1000**2),
                ("GB", 1000**3),
                ("KiB", 1024),
                ("MiB", 1024**2),
                ("GiB", 1024**3),
            ]


            def parse_size(text):
                """"1.5 MB" -> 1500000; "2KiB" -> 2048; "512" -> 512."""
                text = text.strip()
                for suffix, factor in UNITS:
                    if text.endswith(suffix):
                        number = text[: -len(suffix)].strip()
                        return int(float(number) * factor)
                return int(text)


            def format_size(n):
                for suffix, factor in reversed(UNITS[1:4]):
                    if n >= factor:
                        return f"{n / factor:.1f} {suffix}"
                return f"{n} B"
        ''',
        fix=(
            (
                "    for suffix, factor in UNITS:\n",
                "    for suffix, factor in sorted(UNITS, key=lambda unit: -len(unit[0])):\n",
            ),
        ),
        tests="""
            from sizeparse.units import format_size, parse_size


            def test_plain_numbers_and_bytes():
                assert parse_size("512") == 512
                assert parse_size("10 B") == 10


            def test_format():
                assert format_size(1500000) == "1.5 MB"
                assert format_size(12) == "12 B"
        """,
        hidden="""
            import pytest

            from sizeparse.units import format_size, parse_size


            def test_decimal_units():
                assert parse_size("1.5 MB") == 1_500_000
                assert parse_size("2kB") == 2000
                assert parse_size("3 GB") == 3_000_000_000


            def test_binary_units():
                assert parse_size("2KiB") == 2048
                assert parse_size("1 MiB") == 1024**2


            @pytest.mark.parametrize("n", [1, 999, 1000, 123456, 10**9])
            def test_round_trip_is_close(n):
                assert parse_size(format_size(n)) == pytest.approx(n, rel=0.05)
        """,
        statement="""
            parse_size rejects every unit except plain bytes

            `parse_size("1.5 MB")` raises `ValueError: could not convert string to float: '1.5 M'`
            and `parse_size("2KiB")` fails the same way. Only bare numbers and `"10 B"` work, so
            `parse_size(format_size(n))` cannot read back our own output.
        """,
        feature="Add byte size parsing and formatting",
        fix_message="Match longer unit suffixes first",
        version="0.5.0",
    ),
    Bug(
        package="statskit",
        kind="missing edge case",
        summary="Descriptive statistics without dependencies.",
        usage="from statskit.describe import median, describe\nmedian([3, 1, 4, 2])  # 2.5",
        module="describe.py",
        code='''
            """Summary statistics of numeric samples."""


            def mean(values):
                if not values:
                    raise ValueError("mean of an empty sample")
                return sum(values) / len(values)


            def median(values):
                """The middle value; for an even count, the mean of the two middle values."""
                if not values:
                    raise ValueError("median of an empty sample")
                ordered = sorted(values)
                return ordered[len(ordered) // 2]


            def describe(values):
                return {"n": len(values), "mean": mean(values), "median": median(values),
                        "min": min(values), "max": max(values)}
        ''',
        fix=(
            (
                "    ordered = sorted(values)\n    return ordered[len(ordered) // 2]\n",
                "    ordered = sorted(values)\n"
                "    middle = len(ordered) // 2\n"
                "    if len(ordered) % 2:\n"
                "        return ordered[middle]\n"
                "    return (ordered[middle - 1] + ordered[middle]) / 2\n",
            ),
        ),
        tests="""
            import pytest

            from statskit.describe import describe, mean, median


            def test_median_odd():
                assert median([5, 1, 3]) == 3


            def test_mean():
                assert mean([1, 2, 3, 4]) == 2.5
                with pytest.raises(ValueError):
                    mean([])


            def test_describe_odd_sample():
                assert describe([2, 9, 4]) == {"n": 3, "mean": 5, "median": 4, "min": 2, "max": 9}
        """,
        hidden="""


            def test_median_even():
                assert median([3, 1, 4, 2]) == 2.5
                assert median([10, 20]) == 15


            def test_describe_even_sample():
                assert describe([1, 2, 3, 10])["median"] == 2.5
        """,
        statement="""
            Median of an even-sized sample is wrong

            `median([3, 1, 4, 2])` returns 3, and `median([10, 20])` returns 20. For an even
            number of values the median should be the mean of the two middle values (2.5 and 15
            here), as the docstring says.
        """,
        feature="Add descriptive statistics",
        fix_message="Average the two middle values for even-sized medians",
        version="0.2.0",
        hidden_in_new_file=False,
        layout="src",
    ),
    Bug(
        package="slotbook",
        kind="wrong operator",
        summary="Room booking with conflict detection.",
        usage="from slotbook.booking import Calendar\ncal = Calendar()\ncal.book('standup', 9, 10)",
        module="booking.py",
        code='''
            """Book rooms in whole hours; bookings are half-open [start, end) intervals."""


            class Conflict(Exception):
                pass


            class Calendar:
                def __init__(self):
                    self.bookings = []

                def conflicts(self, start, end):
                    """Bookings that overlap [start, end)."""
                    return [b for b in self.bookings if b[1] <= end and start <= b[2]]

                def book(self, title, start, end):
                    if not 0 <= start < end <= 24:
                        raise ValueError("bookings are whole hours within one day")
                    clash = self.conflicts(start, end)
                    if clash:
                        raise Conflict(f"{title!r} overlaps {clash[0][0]!r}")
                    self.bookings.append((title, start, end))
                    return (title, start, end)

                def free_hours(self):
                    taken = {h for _, s, e in self.bookings for h in range(s, e)}
                    return [h for h in range(24) if h not in taken]
        ''',
        fix=(
            (
                "        return [b for b in self.bookings if b[1] <= end and start <= b[2]]\n",
                "        return [b for b in self.bookings if b[1] < end and start < b[2]]\n",
            ),
        ),
        tests="""
            import pytest

            from slotbook.booking import Calendar, Conflict


            def test_overlapping_booking_is_refused():
                cal = Calendar()
                cal.book("standup", 9, 11)
                with pytest.raises(Conflict):
                    cal.book("review", 10, 12)


            def test_free_hours():
                cal = Calendar()
                cal.book("lunch", 12, 13)
                assert 12 not in cal.free_hours() and 13 in cal.free_hours()


            def test_invalid_hours():
                with pytest.raises(ValueError):
                    Calendar().book("x", 5, 5)
        """,
        hidden="""
            from slotbook.booking import Calendar


            def test_back_to_back_bookings_are_allowed():
                cal = Calendar()
                cal.book("standup", 9, 10)
                cal.book("planning", 10, 11)
                cal.book("early", 8, 9)
                assert [b[0] for b in cal.bookings] == ["standup", "planning", "early"]


            def test_conflicts_ignores_adjacent():
                cal = Calendar()
                cal.book("a", 9, 10)
                assert cal.conflicts(10, 12) == []
                assert cal.conflicts(9, 10) == [("a", 9, 10)]
        """,
        statement="""
            Back-to-back meetings are reported as conflicts

            After booking 9-10, booking 10-11 raises `Conflict: 'planning' overlaps 'standup'`.
            Bookings are half-open intervals, so a meeting ending at 10 and one starting at 10
            do not overlap.
        """,
        feature="Add room calendar",
        fix_message="Treat adjacent bookings as non-overlapping",
        version="0.1.0",
    ),
]
