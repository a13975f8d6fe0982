"""Building blocks of the `repofix` suite: the bug-free helper modules every package carries.

A `Part` is an ordinary module with passing tests that a generated package carries besides
its buggy module, so that repositories have several files and several test files, as real
ones do. `PKGNAME` in a part's text is replaced by the package's name.
"""

from __future__ import annotations

from dataclasses import dataclass

from codegym.tasks.suites._common import dedent


@dataclass(frozen=True)
class Part:
    """A bug-free helper module and its tests."""

    module: str
    feature: str
    source: str
    test_source: str

    @property
    def stem(self) -> str:
        return self.module.removesuffix(".py")

    def code(self, package: str) -> str:
        return dedent(self.source).replace("PKGNAME", package)

    def tests(self, package: str) -> str:
        return dedent(self.test_source).replace("PKGNAME", package)


PARTS = [
    Part(
        "textutil.py",
        "Add text helpers",
        '''
        """Small text helpers."""

        import re

        _NON_WORD = re.compile(r"[^a-z0-9]+")


        def slugify(text):
            """Lower-case `text` and join its words with dashes: "Hello World" -> "hello-world"."""
            return _NON_WORD.sub("-", text.lower()).strip("-")


        def truncate(text, width, suffix="..."):
            """Cut `text` to at most `width` characters, ending with `suffix` when cut."""
            if len(text) <= width:
                return text
            return text[: max(0, width - len(suffix))] + suffix
        ''',
        """
        from PKGNAME.textutil import slugify, truncate


        def test_slugify():
            assert slugify("Hello World") == "hello-world"
            assert slugify("  Already-slugged  ") == "already-slugged"


        def test_truncate_short_text_unchanged():
            assert truncate("abc", 5) == "abc"


        def test_truncate_long_text():
            assert truncate("abcdefghij", 6) == "abc..."
        """,
    ),
    Part(
        "validators.py",
        "Add argument validators",
        '''
        """Argument checks that raise ValueError with a message naming the argument."""


        def require_positive(name, value):
            """Return `value` if it is a number greater than zero."""
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"{name} must be a positive number, got {value!r}")
            return value


        def require_one_of(name, value, choices):
            """Return `value` if it is one of `choices`."""
            if value not in choices:
                options = ", ".join(sorted(map(str, choices)))
                raise ValueError(f"{name} must be one of {options}, got {value!r}")
            return value
        ''',
        """
        import pytest

        from PKGNAME.validators import require_one_of, require_positive


        def test_require_positive_accepts_numbers():
            assert require_positive("size", 3) == 3
            assert require_positive("ratio", 0.5) == 0.5


        def test_require_positive_rejects_zero_and_bools():
            with pytest.raises(ValueError, match="size"):
                require_positive("size", 0)
            with pytest.raises(ValueError):
                require_positive("flag", True)


        def test_require_one_of():
            assert require_one_of("mode", "a", {"a", "b"}) == "a"
            with pytest.raises(ValueError, match="a, b"):
                require_one_of("mode", "c", {"a", "b"})
        """,
    ),
    Part(
        "jsonio.py",
        "Add JSON file helpers",
        '''
        """Read and write JSON files the same way everywhere."""

        import json
        from pathlib import Path


        def load_json(path, default=None):
            """The decoded content of `path`, or `default` when the file does not exist."""
            path = Path(path)
            if not path.exists():
                return default
            return json.loads(path.read_text(encoding="utf-8"))


        def dump_json(obj, path):
            """Write `obj` to `path` with sorted keys and a trailing newline."""
            Path(path).write_text(json.dumps(obj, indent=2, sort_keys=True) + "\\n", encoding="utf-8")
        ''',
        """
        from PKGNAME.jsonio import dump_json, load_json


        def test_round_trip(tmp_path):
            path = tmp_path / "data.json"
            dump_json({"b": 1, "a": [1, 2]}, path)
            assert load_json(path) == {"a": [1, 2], "b": 1}
            assert path.read_text().endswith("\\n")


        def test_missing_file_gives_default(tmp_path):
            assert load_json(tmp_path / "nope.json", default={}) == {}
        """,
    ),
    Part(
        "registry.py",
        "Add a plugin registry",
        '''
        """A name -> object registry, filled with a decorator."""


        class Registry:
            def __init__(self, kind):
                self.kind = kind
                self._items = {}

            def register(self, name):
                """Decorator: `@registry.register("csv")` adds the decorated object."""

                def add(obj):
                    if name in self._items:
                        raise KeyError(f"{self.kind} {name!r} is already registered")
                    self._items[name] = obj
                    return obj

                return add

            def get(self, name):
                try:
                    return self._items[name]
                except KeyError:
                    raise KeyError(f"unknown {self.kind} {name!r}; known: {sorted(self._items)}") from None

            def names(self):
                return sorted(self._items)
        ''',
        """
        import pytest

        from PKGNAME.registry import Registry


        def test_register_and_get():
            formats = Registry("format")

            @formats.register("upper")
            def upper(text):
                return text.upper()

            assert formats.get("upper")("a") == "A"
            assert formats.names() == ["upper"]


        def test_duplicate_and_unknown_names():
            formats = Registry("format")
            formats.register("x")(len)
            with pytest.raises(KeyError):
                formats.register("x")(len)
            with pytest.raises(KeyError, match="unknown format"):
                formats.get("y")
        """,
    ),
    Part(
        "clock.py",
        "Add a stopwatch with an injectable clock",
        '''
        """A stopwatch whose clock can be replaced in tests."""

        import time


        class Stopwatch:
            def __init__(self, clock=time.monotonic):
                self._clock = clock
                self._started = None
                self.elapsed = 0.0

            def start(self):
                self._started = self._clock()
                return self

            def stop(self):
                if self._started is None:
                    raise RuntimeError("stopwatch was not started")
                self.elapsed += self._clock() - self._started
                self._started = None
                return self.elapsed
        ''',
        """
        import pytest

        from PKGNAME.clock import Stopwatch


        def test_elapsed_accumulates():
            ticks = iter([1.0, 3.5, 10.0, 11.0])
            watch = Stopwatch(clock=lambda: next(ticks))
            watch.start()
            assert watch.stop() == 2.5
            watch.start()
            assert watch.stop() == 3.5


        def test_stop_without_start():
            with pytest.raises(RuntimeError):
                Stopwatch().stop()
        """,
    ),
    Part(
        "logs.py",
        "Add logger helper",
        '''
        """Loggers named under the package, quiet unless configured."""

        import logging

        logging.getLogger("PKGNAME").addHandler(logging.NullHandler())


        def get_logger(name):
            """The logger `PKGNAME.<name>`."""
            return logging.getLogger(f"PKGNAME.{name}")
        ''',
        """
        import logging

        from PKGNAME.logs import get_logger


        def test_logger_is_namespaced():
            assert get_logger("io").name == "PKGNAME.io"


        def test_logger_propagates(caplog):
            with caplog.at_level(logging.INFO, logger="PKGNAME"):
                get_logger("core").info("hello")
            assert "hello" in caplog.text
        """,
    ),
]
