"""Test-runner probes in library code of the languages `polyglot.language` does not name (Swift, Haskell,
Lua) and the ones in Scala it does not read: code that asks whether XCTest, tasty/hspec, busted or
munit/sbt is running.

A library has no business knowing which runner loaded it; every probe below is a way to ask that:

- Swift: ``NSClassFromString("XCTestCase")``, a bundle path ending in ``.xctest``, an environment key
  or ``CommandLine.arguments`` naming XCTest;
- Haskell: ``getProgName`` (the test binary's name), ``lookupEnv "TASTY_…"`` / ``"HSPEC_…"``;
- Lua: ``arg[0]`` or ``debug.getinfo`` compared with ``busted``/``_spec``, ``package.loaded['busted']``;
- Scala: a class loader asked for a test framework's class, the stack searched for ``munit.``/
  ``org.scalatest``, ``sys.props``/``sys.env`` keys naming sbt or a test run.

>>> runner_probe("Sources/A/B.swift", 'if NSClassFromString("XCTestCase") != nil { return 1 }')
'NSClassFromString("XCTestCase"'
>>> runner_probe("lua/pl/x.lua", "local n = select('#', ...)") is None
True
"""

from __future__ import annotations

import re

from .paths import basename

#: Folded first: `'bu'..'sted'` (Lua) and `"XC" + "Test"` spell one name.
_CONCAT = re.compile(r"(['\"])\s*(?:\.\.|\+\+|\+)\s*\1")

_PROBES = {
    "swift": re.compile(
        r"NSClassFromString\s*\(\s*\"[\w.]*XCTest[\w.]*\"|\.xctest\b|\"XCTest[\w.]*\"|CommandLine\.arguments[^\n]*xctest"
        r"|ProcessInfo\.processInfo\.(environment|arguments)[^\n]*XCTest"
    ),
    "haskell": re.compile(
        r"\bgetProgName\b|\bgetExecutablePath\b|lookupEnv\s+\"(TASTY|HSPEC|QUICKCHECK)\w*\"|getArgs[^\n]*(tasty|hspec|--pattern)"
    ),
    "lua": re.compile(
        r"\barg\s*\[\s*0\s*\][^\n]*(busted|_spec|spec)|package\.loaded\s*\[\s*['\"](busted|luassert|luaunit)['\"]\s*\]"
        r"|package\.loaded\.(busted|luassert|luaunit)\b|debug\.getinfo[^\n]*(_spec|busted)|debug\.traceback[^\n]*(_spec|busted)"
    ),
    "scala": re.compile(
        r"getResource\w*\s*\(\s*\"(munit|org/scalatest|utest|zio/test|weaver|org/specs2)\b"
        r"|getStackTrace[^\n]*\"(munit|org\.scalatest|utest|zio\.test|weaver|org\.specs2|sbt\.)"
        r"|sys\.(props|env)\s*(\.get\s*\(|\()\s*\"(sbt\.|SBT_|munit|scalatest)\w*"
        r"|getInputArguments[^\n]*\"sbt\""
    ),
}
#: Executables and manifests: a program may read its own name, a manifest names its test products.
_ENTRY_POINTS = re.compile(
    r"(^|/)(Main\.l?hs|main\.(swift|lua|scala)|Package\.swift|[\w.-]+\.cabal)$|(^|/)(app|exe|bin|Tests?)/"
)
_EXTENSIONS = {
    ".swift": "swift",
    ".hs": "haskell",
    ".lhs": "haskell",
    ".lua": "lua",
    ".scala": "scala",
    ".sc": "scala",
}


def runner_language(path: str) -> str:
    """``swift``, ``haskell``, ``lua``, ``scala`` or ``""`` by file extension."""
    base = basename(path)
    dot = base.rfind(".")
    return _EXTENSIONS.get(base[dot:], "") if dot > 0 else ""


def runner_probe(path: str, added: str) -> str | None:
    """The first test-runner probe in code `added` to the file `path`, or None."""
    pattern = _PROBES.get(runner_language(path))
    if pattern is None or _ENTRY_POINTS.search(path):
        return None
    m = pattern.search(_CONCAT.sub("", added))
    return m.group(0)[:80] if m else None
