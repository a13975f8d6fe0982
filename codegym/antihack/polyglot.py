"""Written source and test configuration in languages other than Python: the shared pieces.

The rule stage is recall-first and has no parser for JavaScript/TypeScript, Go, Rust, Makefiles,
``package.json``, jest/mocha/Cargo configuration; a reading by patterns is enough to raise flags
that the judge then settles. Three questions, by surface, each in its own module:

- `codegym.antihack.polyglot_tests.edit_to_tests`: what an edit of a test file (any language) does
  to its tests (skip markers added, tests removed, assertions removed or weakened, expected values
  rewritten).
- `codegym.antihack.polyglot_harness.harness_edit`: what a write does to the test runner's
  configuration (jest, mocha, ``package.json``, Makefile, Cargo, Go ``TestMain``, tox).
- `codegym.antihack.polyglot_source.source_probes`: code written into library source (any
  language) that detects the test run or returns keyed on literal inputs.

This module holds what they share: the `language` of a path, whether a path is a
`foreign_test_file`, and the `Probe` each of them returns.

>>> language("src/app.test.ts"), language("Cargo.toml"), foreign_test_file("pkg/x_test.go")
('js', 'config', True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .paths import basename

_JS = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts")


#: Languages by file extension beyond the ones `language` names first (JVM, PHP, C/C++, .NET, Elixir).
_MORE_LANGUAGES = {
    **dict.fromkeys(("java", "kt", "scala", "groovy"), "java"),
    "php": "php",
    **dict.fromkeys(("c", "cc", "cpp", "cxx", "h", "hh", "hpp", "hxx"), "c"),
    **dict.fromkeys(("cs", "fs", "vb"), "csharp"),
    **dict.fromkeys(("ex", "exs"), "elixir"),
}


def language(path: str) -> str:
    """``js``, ``go``, ``rust``, ``python``, ``ruby``, ``java`` (JVM), ``php``, ``c`` (C/C++),
    ``csharp`` (.NET), ``elixir``, ``make``, ``config`` or ``""`` (by file name)."""
    base = basename(path)
    if base.endswith((".rb", ".rake", ".gemspec")) or base in ("Rakefile", "Gemfile"):
        return "ruby"
    if base.endswith(_JS):
        return "js"
    if base.endswith(".go"):
        return "go"
    if base.endswith(".rs"):
        return "rust"
    if base.endswith((".py", ".pyi")):
        return "python"
    lang = _MORE_LANGUAGES.get(base.rsplit(".", 1)[-1] if "." in base else "")
    if lang:
        return lang
    if base in ("Makefile", "makefile", "GNUmakefile") or base.endswith(".mk"):
        return "make"
    if base.endswith((".json", ".toml", ".yaml", ".yml", ".cfg", ".ini")) or base.startswith(".mocharc"):
        return "config"
    return ""


#: Folders that hold tests, their data and their expected outputs, in any ecosystem.
FOREIGN_TEST_DIRS = frozenset(
    {
        "test",
        "tests",
        "Tests",
        "__tests__",
        "spec",
        "specs",
        "testdata",
        "fixtures",
        "__snapshots__",
        "golden",
        "e2e",
    }
)
#: Test files by name in any ecosystem: jest/vitest/mocha, Go, JUnit/Kotest/ScalaTest, PHPUnit, xUnit/NUnit,
#: GoogleTest/Catch2/ctest sources, ExUnit, rspec/minitest.
_FOREIGN_TEST_NAME = re.compile(
    r"\.(test|spec)\.[cm]?[jt]sx?$|_test\.go$"
    r"|^\w*(Test|Tests|IT|Spec|TestCase|Suite)\.(java|kt|scala|groovy|php|cs|fs|vb)$"
    r"|^test_\w+\.(c|cc|cpp|cxx)$|_(test|tests|unittest)\.(c|cc|cpp|cxx|exs|rb)$|_spec\.rb$"
    r"|^\w*(Test|Tests|Spec)\.(swift|hs)$|_spec\.lua$|^test[-_][\w-]+\.lua$"  # XCTest, hspec/tasty, busted
)
#: Folders of test projects (.NET ``Foo.Tests``, Gradle ``androidTest``/``integrationTest``).
_TEST_PROJECT = re.compile(
    r"^[\w.-]*[.-](Tests?|UnitTests|IntegrationTests|Specs?)$|^(androidTest|integrationTest|testFixtures)$"
)
_TEST_DATA = re.compile(r"\.(snap|golden|expected|out|approved)$|(^|[._-])(expected|golden)([._-]|$)")


def foreign_test_file(rel: str) -> bool:
    """A non-Python file that belongs to the tests: in a test folder (sources, fixtures,
    snapshots, golden files) or named like a test (``*.test.ts``, ``*_test.go``)."""
    base = basename(rel)
    if base.endswith((".py", ".pyi")) or not base:
        return False
    parts = rel.split("/")[:-1]
    if any(p in FOREIGN_TEST_DIRS for p in parts):
        return "node_modules" not in parts
    if any(_TEST_PROJECT.search(p) for p in parts):
        return True
    return bool(_TEST_DATA.search(base)) or _FOREIGN_TEST_NAME.search(base) is not None


@dataclass(frozen=True)
class Probe:
    """One finding: `kind` (``skip``, ``removed``, ``weakened``, ``expected``, ``config``,
    ``detect``, ``literal``), what it is (`why`), and facts for the judge."""

    kind: str
    why: str
    facts: dict[str, Any] = field(default_factory=dict)
