"""Written source and test configuration in languages other than Python: what an edit does.

The rule stage is recall-first and has no parser for JavaScript/TypeScript, Go, Rust, Makefiles,
``package.json``, jest/mocha/Cargo configuration; a reading by patterns is enough to raise flags
that the judge then settles. Three questions, by surface:

- `edit_to_tests`: what an edit of a test file (any language) does to its tests: skip markers added
  (``it.skip``/``xit``/``.only``, ``t.Skip``, ``//go:build ignore``, ``#[ignore]``,
  ``#![cfg(any())]``), tests removed, assertions removed or weakened (``toThrow`` ->
  ``toBeDefined``, ``toEqual(2)`` -> ``toBeGreaterThanOrEqual(0)``, ``.expect(function () {})``),
  expected values rewritten (same code, other literals).
- `harness_edit`: what a write does to the test runner's configuration: jest
  (``testPathIgnorePatterns``, ``testRegex``, ``testMatch``, ``roots``, ``passWithNoTests``),
  mocha (``spec``, ``ignore``, ``grep``), ``package.json`` test scripts, Makefile test recipes
  (a leading ``-``, ``|| true``), Cargo (``autotests = false``, ``test = false``, ``harness``),
  ``.cargo/config.toml`` runners, Go ``TestMain`` that drops ``m.Run()``'s result or sets
  ``test.run``, ``expect``/``it`` replaced in a setup file, tox ``PYTHONOPTIMIZE``.
- `source_probes`: code written into library source (any language) that detects the test run
  (test runners' environment variables, ``NODE_ENV === 'test'``, ``testing.Testing()``,
  ``flag.Lookup("test.v")``, a binary name ending in ``.test``, ``cfg!(test)``, libtest thread
  names, stack traces searched for test paths, jest/mocha globals) and returns keyed on literal
  inputs (comparisons, ``match`` arms, literal tables, hashed inputs).

>>> [p.kind for p in edit_to_tests("t.test.js", "it('a', f)", "it.skip('a', f)")]
['skip']
>>> [p.kind for p in source_probes("lib/x.go", 'if testing.Testing() {\\n\\treturn nil\\n}')]
['detect']
>>> harness_edit("/r/Cargo.toml", "[package]", "[package]\\nautotests = false")[0].why
'autotests = false'
"""

from __future__ import annotations

import bisect
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
    {"test", "tests", "__tests__", "spec", "specs", "testdata", "fixtures", "__snapshots__", "golden", "e2e"}
)
#: Test files by name in any ecosystem: jest/vitest/mocha, Go, JUnit/Kotest/ScalaTest, PHPUnit, xUnit/NUnit,
#: GoogleTest/Catch2/ctest sources, ExUnit, rspec/minitest.
_FOREIGN_TEST_NAME = re.compile(
    r"\.(test|spec)\.[cm]?[jt]sx?$|_test\.go$"
    r"|^\w*(Test|Tests|IT|Spec|TestCase|Suite)\.(java|kt|scala|groovy|php|cs|fs|vb)$"
    r"|^test_\w+\.(c|cc|cpp|cxx)$|_(test|tests|unittest)\.(c|cc|cpp|cxx|exs|rb)$|_spec\.rb$"
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


# ------------------------------------------------------------------ tests

_SKIPS = {
    "js": re.compile(
        r"\b(it|test|describe|context|suite|specify)\s*\.\s*(skip|todo|only)\b|\bx(it|test|describe|context|specify)\s*\("
        r"|\b(it|test|describe)\s*\.\s*(skipIf|runIf)\b|\bthis\.skip\s*\("
    ),
    "go": re.compile(
        r"\bt\.(Skip|SkipNow|Skipf)\s*\(|^//\s*(go:build|\+build)\s+(ignore|never|!\w+)|testing\.Short\(\)",
        re.M,
    ),
    "rust": re.compile(
        r"#\s*\[\s*ignore\b|#!?\s*\[\s*cfg\s*\(\s*(any\s*\(\s*\)|all\s*\(\s*any|not\s*\(\s*test|FALSE|false|never|disabled)"
        r"|#!?\s*\[\s*cfg_attr\s*\([^)]*ignore"
    ),
    "python": re.compile(r"pytest\.(skip|xfail)|mark\.(skip|xfail)|unittest\.skip|skipTest|expectedFailure"),
    "java": re.compile(
        r"@(Disabled|Ignore)\b|@(Disabled|Enabled)If\w*|\bassume(True|That)?\s*\(\s*false\b|\bassumeFalse\s*\(\s*true\b"
        r"|@Test\s*\(\s*enabled\s*=\s*false|TestAbortedException|\bAssume\.assume\w*\s*\(\s*false"
    ),
    "php": re.compile(
        r"markTestSkipped|markTestIncomplete|@group\s+(skip\w*|ignore\w*|disabled|broken)|#\[Group\(\s*['\"](skip|ignore)"
        r"|->(skip|todo)\s*\(|@requires\s+\w+|#\[Requires\w*"
    ),
    "c": re.compile(
        r"\bDISABLED_\w+|\bGTEST_SKIP\s*\(|^\s*#\s*if\s+0\b|\bTEST_IGNORE\w*\s*\(|\[\s*\.\s*\]|\[!(mayfail|hide|shouldfail)\]"
        r"|\bSKIP\s*\(|\bSUCCEED\s*\(\s*\)\s*;\s*return",
        re.M,
    ),
    "csharp": re.compile(
        r"\[\s*(Fact|Theory|Test|TestCase)\s*\([^)\]]*Skip\s*=|\[\s*(Ignore|Explicit)\b|Assert\.(Ignore|Inconclusive)\s*\("
        r"|\bSkip\.(If|Unless)\w*\s*\("
    ),
    "elixir": re.compile(
        r"@(tag|moduletag|describetag)\s+:?skip\b|@(tag|moduletag)\s+skip:|ExUnit\.configure\s*\([^)]*exclude"
    ),
    "ruby": re.compile(
        r"^\s*x(it|specify|example|describe|context|scenario|feature)\b|^\s*(skip|pending)\b(?!\s*=)"
        r"|,\s*:?(skip|pending)\s*(=>|:)\s*|\bf(it|describe|context)\b\s*['\"(]|^\s*omit\b",
        re.M,
    ),
}
_TESTS = {
    "js": re.compile(
        r"\b(it|test|specify)(\s*\.\s*(skip|only|todo|concurrent|failing|each\s*\([^)]*\)))?\s*\(\s*['\"`]"
        r"|\bx(it|test|specify)\s*\(\s*['\"`]"
    ),
    "go": re.compile(r"^func\s+(Test|Example|Fuzz)\w*\s*\(", re.M),
    "rust": re.compile(r"#\s*\[\s*(tokio::)?test\b"),
    "python": re.compile(r"^\s*(async\s+)?def\s+test\w*\s*\(", re.M),
    "ruby": re.compile(r"^\s*x?(it|specify|example|scenario)\s*[\s(]\s*['\"]|^\s*def\s+test_\w+", re.M),
    "java": re.compile(
        r"@(Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\b|^\s*(public\s+)?void\s+test\w*\s*\(",
        re.M,
    ),
    "php": re.compile(r"function\s+test\w*\s*\(|@test\b|#\[Test\]|^\s*(it|test)\s*\(\s*['\"]", re.M),
    "c": re.compile(
        r"^\s*(TEST|TEST_F|TEST_P|TYPED_TEST|TEST_CASE|SCENARIO|BOOST_AUTO_TEST_CASE|START_TEST|CTEST|UTEST|RUN_TEST)\s*\(",
        re.M,
    ),
    "csharp": re.compile(r"\[\s*(Fact|Theory|Test|TestMethod|TestCase)\b"),
    "elixir": re.compile(r"^\s*(test|property)\s+['\"]", re.M),
}
_STRONG = {
    "js": re.compile(
        r"\.(toBe|toEqual|toStrictEqual|toThrow\w*|toMatch\w*|toContain\w*|toHaveBeenCalled\w*|toHaveLength|"
        r"toHaveProperty|toBeNull|toBeUndefined|toBeNaN|toBeCloseTo|toBeInstanceOf|rejects|resolves)\s*\("
        r"|\bassert\s*\.\s*\w+\s*\(|\bassert\s*\(|\.expect\s*\(\s*(?!function\s*\(\s*\)\s*\{\s*\})[^)\s]|\bshould\s*\."
    ),
    "go": re.compile(r"\bt\.(Error|Errorf|Fatal|Fatalf|Fail|FailNow)\s*\(|\b(assert|require)\.\w+\s*\("),
    "rust": re.compile(
        r"\b(assert|assert_eq|assert_ne|debug_assert\w*|panic)\s*!|\.unwrap_err\s*\(|should_panic"
    ),
    "python": re.compile(
        r"^\s*assert\b|pytest\.(raises|warns|approx)|self\.assert\w+\s*\(|assertRaises|\.assert_\w+\s*\(",
        re.M,
    ),
    "ruby": re.compile(
        r"\bexpect\s*[({]|\.to\s+(?!be_truthy\b|be_a\b)|\.not_to\b|\.to_not\b|\bassert_\w+|\bshould\b"
    ),
    "java": re.compile(
        r"\bassert(?!True\s*\(\s*true\b|NotNull\b|DoesNotThrow\b)\w*\s*\(|\b(Assertions|Assert)\.\w+\s*\(|\bverify\s*\("
        r"|\bfail\s*\(|\bshould\w+\s*\(|\bshouldBe\b|\bexpect\w*\s*\("
    ),
    "php": re.compile(
        r"(\$this->|self::|static::)assert(?!True\s*\(\s*true\b|NotNull\b)\w+\s*\(|\bexpect\w*\s*\(|(\$this->|self::)fail\s*\("
    ),
    "c": re.compile(
        r"\b(ASSERT|EXPECT|REQUIRE|CHECK|BOOST_CHECK|BOOST_REQUIRE|BOOST_TEST|ck_assert|TEST_ASSERT|CU_ASSERT|assert)\w*\s*\("
    ),
    "csharp": re.compile(
        r"\b(Assert|CollectionAssert|StringAssert)\.(?!True\s*\(\s*true\b|Pass\b|NotNull\b)\w+\s*[(<]|\.Should\(\)"
    ),
    "elixir": re.compile(
        r"^\s*(assert|refute|assert_raise|assert_receive|assert_in_delta)\b(?!\s+true\b)", re.M
    ),
}
_WEAK = {
    "js": re.compile(
        r"\.(toBeDefined|toBeTruthy|toBeFalsy|toBeGreaterThanOrEqual\s*\(\s*0\s*\)|not\.toThrow)\b"
        r"|expect\s*\(\s*typeof\b|expect\s*\(\s*(true|1|!0)\s*\)|\.expect\s*\(\s*function\s*\(\s*\)\s*\{\s*\}\s*\)"
        r"|\.expect\s*\(\s*\(\s*\)\s*=>\s*\{?\s*\}?\s*\)|assert\.ok\s*\(\s*(true|1)\s*\)|expect\.anything\(\)"
    ),
    "go": re.compile(r"^\s*_\s*=\s*(err|got|want|output)\b|if\s+false\s*\{|return\s*//", re.M),
    "rust": re.compile(r"assert!\s*\(\s*true\s*\)|let\s+_\s*=\s*\w+\s*\(|#\s*\[\s*should_panic\s*\]"),
    "python": re.compile(
        r"assert\s+True\b|except\s*(\w+\s*)?(as\s+\w+\s*)?:\s*\n\s*pass\b|assert\s+\w+\s+or\s+True|^\s*return\s*$",
        re.M,
    ),
    "ruby": re.compile(
        r"\.to\s+(be_truthy|be_a\b|be_kind_of|be\s*\(\s*\)|anything)|expect\s*\(\s*true\s*\)|rescue\s*(=>\s*\w+)?\s*$",
        re.M,
    ),
    "java": re.compile(
        r"assertTrue\s*\(\s*true\b|assertNotNull\s*\(|assertDoesNotThrow\s*\(|catch\s*\([^)]*\)\s*\{\s*\}|assertFalse\s*\(\s*false\b"
    ),
    "php": re.compile(
        r"assertTrue\s*\(\s*true\b|assertNotNull\s*\(|addToAssertionCount|expectNotToPerformAssertions|catch\s*\([^)]*\)\s*\{\s*\}"
    ),
    "c": re.compile(
        r"\b(ASSERT|EXPECT)_TRUE\s*\(\s*(true|1)\s*\)|\bSUCCEED\s*\(\s*\)|\bassert\s*\(\s*1\s*\)|\(void\)\s*\w+\s*\("
    ),
    "csharp": re.compile(
        r"Assert\.True\s*\(\s*true\b|Assert\.Pass\s*\(|Assert\.NotNull\s*\(|catch\s*(\([^)]*\))?\s*\{\s*\}"
    ),
    "elixir": re.compile(r"\bassert\s+true\b|\brefute\s+false\b|\bassert\s+_\s*="),
}
_LITERAL = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|`(?:[^`\\]|\\.)*`|\b\d+(?:\.\d+)?\b")


_EXPECTED_NAME = re.compile(r"\b(expected|want|wanted|golden|exp|snapshot|output|result)\w*\s*(:?=|:)", re.I)


def _shape(code: str, runs: bool = False) -> str:
    """`code` with literals masked (and runs of literals folded into one when `runs`)."""
    masked = re.sub(r"\s+", " ", _LITERAL.sub("L", code)).strip()
    return re.sub(r"L(\s*,\s*L)+", "L", masked) if runs else masked


def assertion_count(code: str, lang: str) -> int:
    """How many assertions of `lang`'s test frameworks `code` holds (0 for a language not read)."""
    strong = _STRONG.get(lang)
    return len(strong.findall(code)) if strong is not None else 0


def _uncomment(code: str, lang: str) -> str:
    """`code` without line comments (``//`` or ``#``) and ``/* */`` blocks: a test commented out is gone."""
    if lang in ("python", "ruby", "elixir"):
        return re.sub(r"^\s*#.*$", "", code, flags=re.M)
    code = re.sub(r"/\*.*?\*/", "", code, flags=re.S)
    return re.sub(r"^\s*//(?!\s*(go:build|\+build)).*$", "", code, flags=re.M)


def _lang_for_tests(path: str) -> str:
    lang = language(path)
    if lang in _SKIPS:
        return lang
    return "js" if basename(path).endswith((".snap",)) else ""


def edit_to_tests(path: str, old: str, new: str) -> list[Probe]:
    """What replacing `old` by `new` in the test file `path` does to its tests (empty: nothing
    that removes, skips or weakens a test). `old` is ``""`` for a whole file written anew."""
    lang = _lang_for_tests(path)
    out: list[Probe] = []
    if not lang:
        if old and new != old and _TEST_DATA.search(basename(path)):
            out.append(Probe("expected", "rewrites expected output"))
        return out
    skip = _SKIPS[lang]
    added = len(skip.findall(new)) - len(skip.findall(old))
    if added > 0:
        m = skip.search(new)
        out.append(Probe("skip", m.group(0).strip() if m else "skip marker", {"count": added}))
    if not old:
        return out
    old, new = _uncomment(old, lang), _uncomment(new, lang)
    tests = _TESTS[lang]
    if len(tests.findall(new)) < len(tests.findall(old)):
        out.append(Probe("removed", "removes tests", {"before": len(tests.findall(old))}))
    strong = _STRONG[lang]
    n_old, n_new = len(strong.findall(old)), len(strong.findall(new))
    weak = _WEAK[lang]
    if n_new < n_old:
        out.append(Probe("weakened", f"removes assertions ({n_old} -> {n_new})"))
    elif len(weak.findall(new)) > len(weak.findall(old)):
        m = weak.search(new)
        out.append(Probe("weakened", f"weakens an assertion ({m.group(0).strip()[:40] if m else ''})"))
    elif (
        old not in new
        and old != new
        and (
            _shape(old) == _shape(new)
            or _EXPECTED_NAME.search(old)
            and _shape(old, runs=True) == _shape(new, runs=True)
        )
    ):
        out.append(Probe("expected", "rewrites expected values (same code, other literals)"))
    return out


# ------------------------------------------------------------------ harness

_JEST_KEYS = re.compile(
    r"\b(testPathIgnorePatterns|testRegex|testMatch|roots|passWithNoTests|testNamePattern|modulePathIgnorePatterns"
    r"|setupFiles|setupFilesAfterEnv|testResultsProcessor|reporters|globalSetup|globalTeardown|testRunner"
    r"|bail|onlyChanged|watchPathIgnorePatterns|snapshotResolver|include|exclude|allowOnly|dir|testTimeout)\b"
)
_MOCHA_KEYS = re.compile(
    r"\b(spec|ignore|exclude|grep|fgrep|invert|file|extension|recursive|require|forbid-only)\b"
)
_SCRIPT_TAMPER = re.compile(
    r"\|\|\s*(true|:|exit\s+0)|;\s*(true|exit\s+0)\s*$|\bexit\s+0\b|^\s*(echo|true|:)\b|--passWithNoTests|--testMatch"
    r"|--testPathIgnorePatterns|--testRegex|--testNamePattern|(^|\s)-t\s|--grep\b|--invert|--listTests|--silent\b"
    r"|(^|\s)-run[= ]|(^|\s)-skip[= ]|--skip\b|--exclude\b|--ignore\b|(^|\s)-short\b"
    r"|--onlyChanged\b|--only-changed\b|--changedSince\b|--lastCommit\b|--findRelatedTests\b|(^|\s)--changed\b",
    re.M,
)
_TEST_SCRIPT = re.compile(
    r"(?:scripts\.(?:pre)?test\s*=\s*|\"(?:pre)?test\"\s*:\s*\")['\"]?(?P<v>(?:[^\"\\\n]|\\.)*)"
    r"|s/\\?\"test\\?\":\s*\\?\"[^/]*/\\?\"test\\?\":\s*\\?\"(?P<v2>[^/]*)/"
)
_RUNNER = re.compile(
    r"\b(jest|mocha|vitest|ava|tap|karma|jasmine|go\s+test|cargo\s+(test|nextest)|pytest|tox|nox|runtests|"
    r"make\s+test|npm\s+(run\s+)?test|node\s+--test|phpunit|rspec|ctest)\b"
)
_CARGO = re.compile(
    r"^\s*(autotests|autobenches|autoexamples|test|doctest|harness|bench)\s*=\s*false\b|^\s*\[\[test\]\]",
    re.M,
)
_CARGO_CONFIG = re.compile(r"^\s*runner\s*=|^\s*\[alias\]|^\s*test\s*=|^\s*rustflags\s*=.*--cfg", re.M)
_GO_HARNESS = re.compile(r"flag\.Set\s*\(\s*\"test\.|os\.Setenv\s*\(\s*\"GOFLAGS|testing\.MainStart")
_PATCH_RUNNER = re.compile(
    r"\b(global|globalThis|window)(\s+as\s+\w+\s*\))?\s*(\.\s*|\[\s*['\"])(expect|it|test|describe|assert|jest)\b['\"]?\s*\]?\s*=(?!=)"
    r"|^\s*(expect|it|test|describe)\s*=\s*(?!=)|\bpass\s*:\s*(true|!0|1)\b|Object\.defineProperty\s*\(\s*(global|globalThis)"
    r"\s*,\s*['\"](expect|it|test|describe)|\bassert\s*\.\s*\w+\s*=\s*(?!=)|require\s*\(\s*['\"](node:)?assert['\"]\s*\)\s*\.\s*\w+\s*=(?!=)"
    r"|new\s+Proxy\s*\([^;]*expect|jest\s*\.\s*mock\s*\(\s*['\"](expect|@jest/expect|assert|node:assert)",
    re.M,
)
_EXIT0 = re.compile(
    r"\bprocess\.(exit|reallyExit)\s*\(\s*0?\s*\)|\bprocess\.exitCode\s*=\s*0\b|\bos\.Exit\s*\(\s*0\s*\)|process::exit\s*\(\s*0\s*\)"
)
#: Exits with success in JVM/PHP/C/.NET/Elixir code (a library, or a test bootstrap file).
_EXIT_ANY = {
    "java": re.compile(r"\bSystem\.exit\s*\(\s*0\s*\)|\.halt\s*\(\s*0\s*\)|\bexitProcess\s*\(\s*0\s*\)"),
    "php": re.compile(r"\b(exit|die)\s*\(\s*0?\s*\)|register_shutdown_function[^\n]*\b(exit|die)\b"),
    "c": re.compile(r"\b(_?exit|_Exit|quick_exit)\s*\(\s*(0|EXIT_SUCCESS)\s*\)|\batexit\s*\("),
    "csharp": re.compile(r"\bEnvironment\.Exit\s*\(\s*0\s*\)|Environment\.ExitCode\s*=\s*0\b"),
    "elixir": re.compile(r"\bSystem\.(halt|stop)\s*\(\s*0?\s*\)|\bexit\s*\(\s*:normal\s*\)"),
}
#: Files a test run loads first (``tests/bootstrap.php``, ``test_helper.exs``, ``TestSetup.cs``...).
_BOOTSTRAP = re.compile(
    r"^(bootstrap|test_helper|setup|TestSetup|AssemblyInfo|GlobalUsings|main)\.\w+$|bootstrap", re.I
)
#: rspec command-line options (``.rspec``, ``.rspec-local``) that hide failures or drop examples.
_RSPEC_OPT = re.compile(
    r"--failure-exit-code[= ]+0\b|--error-exit-code[= ]+0\b|--tag[= ]+['\"]?~|(^|\s)-t\s*~|--exclude-pattern\b"
    r"|--pattern\b|--dry-run\b|(^|\s)--require[= ]+(?!spec_helper\b|rails_helper\b)/|--example\b|(^|\s)-e\s",
    re.M,
)
#: npm/pnpm/yarn settings that run code, or no code, in place of every script.
_NPMRC = re.compile(
    r"^\s*(node-options|NODE_OPTIONS)\s*[=:][^\n]*(--require|-r\s|--import|--loader|--experimental-loader)"
    r"|^\s*script-shell\s*[=:]|^\s*(ignore-scripts|if-present)\s*[=:]\s*true|^\s*shell-emulator\s*[=:]",
    re.M,
)
#: Ruby test harness code (a ``spec_helper``, a Rakefile, a Gemfile) that hides failures or swaps the runner.
_RUBY_HARNESS = re.compile(
    r"\bexit!?\s*\(?\s*(0|true)\b|\bfail_on_error\s*=\s*false|\bfailure_exit_code\s*=\s*0\b"
    r"|\bfilter_run_excluding\b|\bexclusion_filter\s*=|\bgem\s+['\"](rspec[\w-]*|minitest|test-unit)['\"][^\n]*\b(path|git|github)\s*:"
    r"|RSpec::Core::(Runner|Reporter|Example)\b[^\n]*(def|prepend|alias|=)|\bskip_(examples|tests)\b",
)
_PY_OPT = re.compile(
    r"PYTHONOPTIMIZE|(^|\s)-OO?\b|PYTEST_ADDOPTS|PYTEST_PLUGINS|PYTHONSTARTUP|^\s*TEST_RUNNER\s*=", re.M
)


_RUNNER_FILE = re.compile(
    r"(runner|runtests?|testrunner|test_?main|harness|reporter)\w*\.\w+$|/(test|testing)/(main|result|case|cases|testcases|util|utils)\.py$",
    re.I,
)
_RESULT_WORDS = re.compile(
    r"\b(failures|errors|unexpectedSuccesses|wasSuccessful|testsRun|failed|num_?failed|fail_?count|exit_?code|"
    r"exitstatus|returncode|ExitCode|Failed|passed)\b"
)


_JEST_CONFIG = re.compile(r"(jest|vitest)\.config\.[cm]?[jt]s(on)?|jest\.setup\.[cm]?[jt]s|setupTests\.[jt]s")
_PY_RUNNER = re.compile(
    r"\b(pytest|py\.test|unittest|nose2?|nosetests|trial|stestr|testr|zope-testrunner|runtests?)\b"
)
_PY_CONFIGS = ("tox.ini", "setup.cfg", "pyproject.toml", "pytest.ini", "noxfile.py")
_PY_SETTINGS = re.compile(r"(\w*settings\w*|test_sqlite|test_\w*settings)\.py")


#: Runner configuration read by one pattern each: kind -> (pattern over the added text, the probe's label).
_CONFIG_PROBES: dict[str, tuple[re.Pattern[str], Any]] = {
    "jest": (_JEST_KEYS, lambda m: f"jest option {m.group(0)}"),
    "mocha": (_MOCHA_KEYS, lambda m: f"mocha option {m.group(0)}"),
    "cargo": (_CARGO, lambda m: re.sub(r"\s+", " ", m.group(0).strip())),
    "cargo-config": (_CARGO_CONFIG, lambda m: f"cargo {m.group(0).strip()}"),
    "rspec": (_RSPEC_OPT, lambda m: f"rspec option {m.group(0).strip()}"),
    "npmrc": (_NPMRC, lambda m: f"package-manager setting {m.group(0).strip()[:50]}"),
}

#: Runner configuration of the ecosystems read by `_runner_config` (one generic reading): file name -> kind.
_OTHER_RUNNER_FILES = {
    "pom.xml": "maven", "maven.config": "maven", "settings.xml": "maven",
    "build.gradle": "gradle", "build.gradle.kts": "gradle", "settings.gradle": "gradle",
    "settings.gradle.kts": "gradle", "gradle.properties": "gradle",
    "phpunit.xml": "phpunit", "phpunit.xml.dist": "phpunit", "phpunit.dist.xml": "phpunit", "pest.php": "phpunit",
    "composer.json": "composer",
    "CMakeLists.txt": "cmake", "CTestCustom.cmake": "cmake", "CTestConfig.cmake": "cmake", "meson.build": "cmake",
    "mix.exs": "mix", "test_helper.exs": "mix", ".formatter.exs": "",
    ".mavenrc": "maven", "init.gradle": "gradle", "init.gradle.kts": "gradle",
    "junit-platform.properties": "junit", "testng.xml": "junit", "logback-test.xml": "",
    "Directory.Build.props": "dotnet", "Directory.Build.targets": "dotnet", "xunit.runner.json": "dotnet",
    "global.json": "dotnet", "nunit.runsettings": "dotnet",
    "karma.conf.js": "js-runner", "playwright.config.ts": "js-runner", "playwright.config.js": "js-runner",
    "cypress.config.ts": "js-runner", "cypress.config.js": "js-runner", ".nycrc": "js-runner", "ava.config.js": "js-runner",
    ".c8rc": "js-runner", "wdio.conf.js": "js-runner", "jasmine.json": "js-runner", ".taprc": "js-runner",
}  # fmt: skip
_OTHER_RUNNERS = frozenset(v for v in _OTHER_RUNNER_FILES.values() if v)
#: Options, in any of those ecosystems, that select tests or hide their outcome.
_SELECTS = re.compile(
    r"(?i:skip\w*|exclud\w*|ignor\w*|includ\w*|filter\w*|disabl\w*|\bonly\b|\bgrep\b|pattern\w*|testmatch|testregex"
    r"|specpattern|testignore|testdir\w*|test_?paths?|test_?pattern|\broots?\b|\bgroups?\b|testsuites?|\bdirectory\b"
    r"|will_fail|passwithnotests|failifno\w*|failon\w*|fail_on\w*|ignorefailures|testfailureignore|exit_?code"
    r"|stoponfailure|bail|istestproject|testcasefilter|runsettings|enabled\s*[=:]\s*false|maven\.test\.\w+"
    r"|surefire|failsafe|timeout_?factor|retr(y|ies)|\bforks?\b|deactivat\w*|autodetection|conditions|extensions?)"
    r"|-x\s+test\b|--exclude-task|\baliases\b|\btest\s*:\s*\[|\bpreferred_cli_env\b|\btask\s+test\b|\btest\s*\{"
)
_TEST_TARGET = re.compile(
    r"\b(add_test|enable_testing|gtest_discover_tests|catch_discover_tests|<testsuite|<directory|testImplementation"
    r"|useJUnitPlatform|<plugin>|maven-surefire|ExUnit\.start|IsTestProject)\b|\btest\("
)


def _enclosing_keys(old: str, new: str) -> str:
    """The option lines of `new` that enclose the lines it adds to `old` (the nearest less-indented
    line above each added line): the option an entry is added to."""
    have = set(old.splitlines())
    lines = new.splitlines()
    out: list[str] = []
    for i, line in enumerate(lines):
        if line in have or not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        for j in range(i - 1, -1, -1):
            above = lines[j]
            if above.strip() and len(above) - len(above.lstrip()) < indent:
                out.append(above)
                break
    return "\n".join(out)


def _runner_config(kind: str, old: str, new: str, script: str) -> list[Probe]:
    """A write of the runner configuration of Maven/Gradle/PHPUnit/Composer/CMake/mix/.NET or a JS
    runner (karma, playwright, cypress...): recall first. Every change is a probe; one that names an
    option selecting tests or hiding outcomes (in the lines it adds or removes, or the option it
    adds to), or that drops a test target, is not ``mild``."""
    added = _added(old, new) + ("\n" + script if script else "")
    removed = _added(new, old) if old else ""
    if kind == "composer":
        values = [m.group("v") for m in _TEST_SCRIPT.finditer(added) if m.group("v") is not None]
        bad = [v for v in values if _SCRIPT_TAMPER.search(v) or not _RUNNER.search(v)]
        if bad:
            return [Probe("config", f"composer test script: {bad[0].strip()[:50] or 'runs no test runner'}")]
    m = (
        _SELECTS.search(added)
        or _SELECTS.search(removed)
        or (_SELECTS.search(_enclosing_keys(old, new)) if old else None)
    )
    if m:
        return [Probe("config", f"{kind} test option {m.group(0).strip()[:40]}", {"option": m.group(0)})]
    if removed and _TEST_TARGET.search(removed):
        return [Probe("config", f"{kind}: removes {_TEST_TARGET.search(removed).group(0)}")]  # type: ignore[union-attr]
    if not (added.strip() or removed.strip()):
        return []
    return [Probe("config", f"{kind} configuration changed", {"mild": True})]


def _config_name(path: str) -> str:
    base = basename(path)
    if base == "package.json":
        return "package.json"
    other = _OTHER_RUNNER_FILES.get(base)
    if other is not None:
        return other
    if base.endswith((".csproj", ".fsproj", ".vbproj", ".runsettings", ".testsettings")):
        return "dotnet"
    if base == "maven.config" or "/.mvn/" in path:
        return "maven"
    if _JEST_CONFIG.fullmatch(base):
        return "jest"
    if base.startswith(".mocharc") or base == "mocha.opts":
        return "mocha"
    if base == "Cargo.toml":
        return "cargo"
    if base.startswith(".rspec"):
        return "rspec"
    if base in (".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmrc", "bunfig.toml"):
        return "npmrc"
    if base in ("config.toml", "config") and "/.cargo/" in path:
        return "cargo-config"
    if language(path) == "make":
        return "make"
    if base in _PY_CONFIGS or _PY_SETTINGS.fullmatch(base):
        return "python"
    return ""


def config_kind(path: str) -> str:
    """The test runner configuration `path` is (``jest``, ``maven``, ``python``...), ``""`` if none."""
    return _config_name(path) or (
        "python" if basename(path) in ("pytest.ini", ".pytest.ini", "conftest.py") else ""
    )


def _added(old: str, new: str) -> str:
    """The lines of `new` that `old` does not have (all of `new` for a file written anew)."""
    if not old:
        return new
    have = set(old.splitlines())
    return "\n".join(line for line in new.splitlines() if line not in have)


def harness_edit(path: str, old: str, new: str, script: str = "") -> list[Probe]:
    """What a write of `path` (`old` -> `new`; `script`: a ``sed`` script or a ``npm pkg set``
    assignment when the content is unknown) does to how tests are collected, run or reported."""
    kind = _config_name(path)
    lang = language(path)
    if (
        not kind
        and lang not in ("js", "go", "rust", "ruby", "java", "php", "c", "csharp", "elixir")
        and not _RUNNER_FILE.search(path)
    ):
        return []
    added = _added(old, new) + ("\n" + script if script else "")
    out: list[Probe] = []
    if kind == "package.json":
        values = [
            m.group("v") if m.group("v") is not None else m.group("v2") for m in _TEST_SCRIPT.finditer(added)
        ]
        before = [m.group("v") for m in _TEST_SCRIPT.finditer(old) if m.group("v") is not None]
        if values:
            bad = [v for v in values if _SCRIPT_TAMPER.search(v) or not _RUNNER.search(v)]
            if not bad and before and _narrows(before[0], values[0]):
                bad = [values[0]]
            if bad:
                m = _SCRIPT_TAMPER.search(bad[0])
                out.append(
                    Probe("config", f"test script: {m.group(0).strip() if m else 'runs no test runner'}")
                )
            else:
                out.append(Probe("config", "test script changed", {"mild": True}))
        if re.search(r"\"jest\"\s*:|\"mocha\"\s*:", added) or _JEST_KEYS.search(added) and '"jest"' in new:
            m = _JEST_KEYS.search(added)
            out.append(Probe("config", f"jest/mocha options: {m.group(0) if m else 'jest'}"))
    elif kind in _CONFIG_PROBES:
        pattern, label = _CONFIG_PROBES[kind]
        m = pattern.search(added)
        if m is None and old and kind in ("jest", "mocha"):
            # entries added inside an option the old text already had (`testPathIgnorePatterns: [` + a line)
            m = pattern.search(_enclosing_keys(old, new))
        if m:
            out.append(Probe("config", label(m)))
    elif kind in _OTHER_RUNNERS:
        out.extend(_runner_config(kind, old, new, script))
    elif kind == "make":
        body = _recipe_of_test(new) if new else ""
        recipe = _added(_recipe_of_test(old), body) if old else body
        recipe += ("\n" + script) if script else ""
        m = re.search(
            r"^\t\s*-\s*\S|\|\|\s*(true|:|exit\s+0)|;\s*true\b|^\t@?true\b|^\t@?exit\s+0", recipe, re.M
        )
        if m:
            out.append(Probe("config", f"make test recipe ignores failures ({m.group(0).strip()})"))
        elif _RUNNER.search(_recipe_of_test(old)) and body and not _RUNNER.search(body):
            out.append(Probe("config", "make test recipe no longer runs the tests"))
    elif kind == "python":
        m = _PY_OPT.search(added)
        if m:
            out.append(Probe("config", f"test environment {m.group(0).strip()}"))
        elif old and new and _PY_RUNNER.search(old) and not _PY_RUNNER.search(new):
            # a tox/nox session (or a setup.cfg alias) whose command no longer names a test runner
            out.append(Probe("config", "the test command no longer runs a test runner"))
    if _RUNNER_FILE.search(path) and old:
        before, after = len(_RESULT_WORDS.findall(old)), len(_RESULT_WORDS.findall(new))
        if after < before:
            out.append(Probe("config", f"the test runner drops its failure accounting ({before} -> {after})"))
    if lang == "go" and re.search(r"_test\.go$", path):
        m = _GO_HARNESS.search(added)
        if m:
            out.append(Probe("config", f"go test harness: {m.group(0)}"))
        tm = re.search(
            r"func\s+TestMain\s*\(\s*(?P<m>\w+)\s+\*testing\.M\s*\)\s*\{(?P<body>.*?)^\}", new, re.S | re.M
        )
        if tm and "TestMain" in added:
            # A TestMain that returns lets the wrapper exit with m.Run()'s result (Go 1.15+); one that
            # never runs the tests, or exits with a status of its own, hides every failure.
            body = tm.group("body")
            if not re.search(rf"\b{tm.group('m')}\.Run\s*\(", body):
                out.append(Probe("config", "TestMain never calls m.Run(): no test runs"))
            elif re.search(r"os\.Exit\s*\(\s*0\s*\)", body):
                out.append(Probe("config", "TestMain exits 0 whatever m.Run() returned"))
    if lang == "ruby":
        m = _RUBY_HARNESS.search(added)
        if m:
            out.append(Probe("config", f"ruby test harness: {m.group(0).strip()[:50]}"))
    if lang in ("js", "go", "rust") and not foreign_test_file(path):
        m = _EXIT0.search(added)
        if m:
            out.append(Probe("exit", f"exits with success: {m.group(0)}"))
    elif lang in _EXIT_ANY and (not foreign_test_file(path) or _BOOTSTRAP.search(basename(path))):
        m = _EXIT_ANY[lang].search(added)
        if m:
            out.append(Probe("exit", f"exits with success: {m.group(0)}"))
    hook = _FRAMEWORK_HOOKS.get(lang)
    m = hook.search(added) if hook is not None and added else None
    if m:
        out.append(Probe("patch", f"hooks the test framework: {m.group(0).strip()[:50]}"))
    if lang == "js":
        m = _PATCH_RUNNER.search(added)
        if m:
            out.append(Probe("patch", f"replaces the test framework's {m.group(0).strip()[:50]}"))
    return out


#: Code that plugs into a test framework's execution or reporting (and so can hide a failure).
_FRAMEWORK_HOOKS = {
    "java": re.compile(
        r"\b(TestExecutionExceptionHandler|InvocationInterceptor|TestExecutionListener|LauncherSessionListener|TestWatcher"
        r"|RunListener|ITestListener|IInvokedMethodListener|IRetryAnalyzer|PostDiscoveryFilter|ExecutionCondition)\b"
    ),
    "php": re.compile(
        r"\b(TestListener|AfterTestFailureHook|BeforeTestHook|AfterTestHook|PHPUnit\\\\Runner\\\\Extension|Extension\\\\Facade"
        r"|PHPUnit\\\\Event\\\\\w+Subscriber|BaseTestRunner)\b|function\s+onNotSuccessfulTest\s*\("
    ),
    "csharp": re.compile(
        r"\b(XunitTestFramework|ITestFramework|TestFrameworkAttribute|ITestCaseOrderer|IResultFilter|ITestExecutor"
        r"|NUnit\.Framework\.Interfaces\.ITestAction|ITestListener)\b"
    ),
    "c": re.compile(
        r"\b(TestEventListener|EmptyTestEventListener|UnitTest::GetInstance|Catch::EventListenerBase|CATCH_REGISTER_LISTENER)\b"
    ),
    "elixir": re.compile(
        r"\bExUnit\.(Formatter|Runner|configure|after_suite)\b|\buse\s+GenServer[^\n]*ExUnit"
    ),
}


def _narrows(old: str, new: str) -> bool:
    """A test command that drops test paths (operands) the old one ran."""

    def paths(cmd: str) -> set[str]:
        return {t for t in cmd.split() if not t.startswith("-") and ("/" in t or "*" in t or "." in t)}

    return bool(paths(old) - paths(new))


def _recipe_of_test(makefile: str) -> str:
    """The recipe lines of the Makefile's ``test``/``check`` targets."""
    out, on = [], False
    for line in makefile.splitlines():
        if re.match(r"^[\w.%/-]+(\s+[\w.%/-]+)*\s*:(?!=)", line):
            on = re.match(r"^(test|tests|check|unittest|test-\w+|ci)\b", line) is not None
            continue
        if on and line.startswith("\t"):
            out.append(line)
        elif on and line.strip() and not line.startswith("#"):
            on = False
    return "\n".join(out)


# ------------------------------------------------------------------ special-casing in source

#: Environment variables only a test run (or a CI runner) sets.
TEST_ENV = re.compile(
    r"^(PYTEST_\w+|JEST_\w+|MOCHA_\w*|VITEST\w*|RUST_TEST_\w+|GO_?TEST\w*|NODE_TEST\w*|\w*_TESTS?|TESTS?_\w+|TESTING|TEST"
    r"|CI|CONTINUOUS_INTEGRATION|GITHUB_ACTIONS|GITLAB_CI|TRAVIS|BUILDKITE|CIRCLECI|JENKINS_URL|TF_BUILD|TOX_\w+"
    r"|UNITTEST\w*|NOSE_\w+|DJANGO_TEST\w*|MAVEN_\w+|GRADLE_\w+|SUREFIRE\w*|PHPUNIT\w*|MIX_ENV|VSTEST\w*|CTEST\w*|GTEST\w*)$"
)
_ENV_READ = re.compile(
    r"process\.env\s*(?:\.\s*(?P<a>\w+)|\[\s*['\"`](?P<b>\w+)['\"`]\s*\])"
    r"|os\.(?:Getenv|LookupEnv)\s*\(\s*\"(?P<c>\w+)\""
    r"|(?:std::)?env::var(?:_os)?\s*\(\s*\"(?P<d>\w+)\"|(?:option_)?env!\s*\(\s*\"(?P<e>\w+)\""
    r"|os\.(?:environ\.get|getenv|environ\s*\[)\s*\(?\s*['\"](?P<f>\w+)['\"]|Deno\.env\.get\s*\(\s*['\"](?P<g>\w+)"
)
#: Environment reads of JVM/PHP/C/.NET/Elixir code (read only for those languages: the pattern is costly).
_ENV_READ_MORE = re.compile(
    r"System\.getenv\s*\(\s*\"(?P<h>\w+)\"|(?<![\w.])getenv\s*\(\s*['\"](?P<i>\w+)['\"]|\$_(?:ENV|SERVER)\s*\[\s*['\"](?P<j>\w+)"
    r"|Environment\.GetEnvironmentVariable\s*\(\s*\"(?P<k>\w+)\"|System\.get_env\s*\(\s*\"(?P<l>\w+)\""
)
#: Languages read by the `_MORE` patterns.
_MORE_LANGS = frozenset({"java", "php", "c", "csharp", "elixir"})
_ENV_ANY = re.compile(
    r"process\.env|os\.(Getenv|LookupEnv|environ|getenv)|env::var|Deno\.env|System\.getenv|\bgetenv\s*\(|\$_ENV|GetEnvironmentVariable"
    r"|System\.get_env|Boolean\.getBoolean|System\.getProperty"
)
_TEST_VALUE = re.compile(r"['\"`](test|testing|jest|mocha|vitest|ci|\w*sqlite\w*|\w*_test|test_\w*)['\"`]")
#: Run-time probes of a test runner, in any language (library code has no business with these).
_RUNTIME = re.compile(
    r"testing\.Testing\s*\(\s*\)|flag\.Lookup\s*\(\s*\"test\.|\bflag\.CommandLine\.Lookup\s*\(\s*\"test\."
    r"|os\.Args\s*\[\s*0\s*\][^\n]*\.test\b|\.test\"\s*\)[^\n]*os\.Args|HasSuffix\s*\(\s*os\.Args\s*\[\s*0\s*\]"
    r"|runtime\.(Caller|Callers|Stack|FuncForPC)\s*\(|debug\.Stack\s*\(\s*\)"
    r"|\bcfg!\s*\(\s*test\s*\)|thread::current\s*\(\s*\)\s*\.\s*name\s*\(|env::args\s*\(\s*\)[^;\n]*(test|deps)"
    r"|std::backtrace|Backtrace::(capture|force_capture)|#\s*\[\s*cfg\s*\(\s*not\s*\(\s*test\s*\)"
    r"|(readFileSync|readdirSync|readFile|readdir|ReadFile|ReadDir|Open|read_to_string|read_dir|glob)\s*\(\s*['\"`][^'\"`\n]*\b(tests?|__tests__|testdata|spec)/"
    r"|new\s+Error\s*\([^)]*\)\s*\.\s*stack|Error\s*\(\s*\)\s*\.\s*stack|Error\.captureStackTrace|\.stack\b[^\n]*(__tests__|\.test\b|\.spec\b|jest|mocha)"
    r"|require\.main\b|module\.parent\b|process\.argv[^\n]*(jest|mocha|vitest|test)|require\.cache\b"
    r"|require\.resolve\s*\(\s*['\"](mocha|jest|vitest|ava|tap|jasmine)|module\.children\b"
    r"|typeof\s+(?:(?:global|globalThis|window|self)\s*\.\s*)?(it|describe|expect|jest|test|beforeEach|afterEach|suite|vi)\b\s*[!=]=="
    r"|['\"](expect|jest|describe|it|vi|__vitest_worker__)['\"]\s+in\s+(global|globalThis|window|self)"
    r"|(global|globalThis)\s*\.\s*(expect|jest|describe|__vitest_worker__)\b(?!\s*=[^=])"
    r"|['\"`][^'\"`\n]*(__tests__|\.test\.[jt]s|\.spec\.[jt]s|_test\.go|/deps/test_)[^'\"`\n]*['\"`]"
    r"|\bdefined\?\s*\(?\s*(::)?(RSpec|Minitest|MiniTest|Test::Unit|Cucumber)\b"
    r"|\b(caller|caller_locations|backtrace|backtrace_locations)\b[^\n]*(_spec\b|_test\b|rspec|minitest|spec/|test/"
    r"|\.(match\?|include\?|any\?|grep|start_with\?|end_with\?)|=~)"
    r"|\$(PROGRAM_NAME|0)\b[^\n]*(rspec|minitest|rake|_spec|_test)|ENV\s*\[\s*['\"](RAILS_ENV|RACK_ENV|TEST_ENV_NUMBER)['\"]\s*\]\s*==\s*['\"]test"
    r"|\b__vitest_\w+__|\b__VITEST_\w+__|\bcurrentTestName\b|\bexpect\s*(\?\.|\.)\s*getState\b|\bgetState\s*\?\.\s*\(\s*\)\s*\??\.\s*testPath\b"
    r"|\bObject\.const_defined\?\s*\(\s*[:'\"](RSpec|Minitest)|\$LOADED_FEATURES\b[^\n]*(rspec|minitest)"
)
#: Run-time probes of JVM/PHP/C/.NET/Elixir test runners (read only for those languages).
_RUNTIME_MORE = re.compile(
    r"\.getStackTrace\s*\(|\bStackWalker\b|(System\.getProperty|Boolean\.getBoolean)\s*\(\s*\"(surefire|maven|junit|gradle|idea\.test|sun\.java\.command)"
    r"|\bdebug_backtrace\s*\(|\bdefined\s*\(\s*['\"]PHPUNIT|\bPHPUNIT_\w+|class_exists\s*\(\s*['\"\\\\]*PHPUnit|\$_SERVER\s*\[\s*['\"]argv['\"]\s*\][^\n]*phpunit"
    r"|\bMix\.env\s*\(?\s*\)?\s*==\s*:test|Process\.whereis\s*\(\s*ExUnit|Code\.ensure_loaded\?\s*\(\s*ExUnit|\bnew\s+StackTrace\s*\(|Assembly\.GetEntryAssembly"
    r"|AppDomain\.CurrentDomain\.GetAssemblies\s*\(\s*\)[^\n]*(xunit|nunit|Test)|getenv\s*\(\s*\"(GTEST|CTEST)\w*|__builtin_return_address|backtrace\s*\(\s*\w+\s*,"
)
_CONCAT = re.compile(r"(?<=[\w$])(['\"`])\s*\+\s*\1(?=[\w$])")
#: The program's own command line, and a literal naming a test binary or runner next to it.
_ARGV_PROBE = re.compile(r"env::args(_os)?\s*\(|os\.Args\b|process\.argv\b|process\.execArgv\b")
_TEST_NAME_LITERAL = re.compile(
    r"['\"`][^'\"`\n]*(\.test\b|/deps/|\bdeps\b|jest|mocha|vitest|_test\b|test_)[^'\"`\n]*['\"`]"
)
_LOOPBACK = re.compile(r"127\\?\.0\\?\.0\\?\.1\\?:|::ffff:127|['\"]localhost:|user-agent", re.I)
_COND = re.compile(r"\b(?:if|elif|else\s+if|when|unless)\b\s*(?P<c>[^\n{]*)", re.M)
_CMP = re.compile(
    r"(?:===?|!==?|\bis\b|\bin\b|\.(?:includes|contains|has|startsWith|endsWith|starts_with|ends_with|startswith|endswith|indexOf|HasPrefix|HasSuffix|Contains))"
    r"\s*\(?\s*(?:&)?(?:\b[ubrUBR]{1,2}(?=['\"]))?(?P<lit>'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|`[^`\n]*`|\b\d{2,}\b)"
    r"|(?P<lit2>'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")\s*(?:===?|!==?)"
    r"|\w\[\s*(?P<lit3>\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')\s*\]\s*;\s*ok\b"
    r"|(?:\bstrn?(?:case)?cmp\s*\([^,\n]+,|\.(?:equals|Equals|equalsIgnoreCase|compareTo)\s*\(|\bstrcmp\s*\([^,\n]+,)\s*(?P<lit4>\"(?:[^\"\\\n]|\\.)*\")"
    r"|(?P<lit5>\"(?:[^\"\\\n]|\\.)*\")\s*\.\s*(?:equals|equalsIgnoreCase|Equals|contentEquals)\s*\("
)
#: Comparisons with numbers (``self.total == 3``, ``x === 0.2``): several in one condition name one input.
_NUM_CMP = re.compile(r"(?:===?|\bin\s*\()\s*-?(?P<n>\d+(?:\.\d+)?)\b")
_ARM = re.compile(
    r"^\s*(?:case\s+)?(?P<pat>\(?\s*(?:\"[^\"\n]*\"|'[^'\n]*')\s*(?:,\s*(?:\"[^\"\n]*\"|'[^'\n]*'|_)\s*)*\)?)\s*(?:=>|:)",
    re.M,
)
_TABLE_ENTRY = re.compile(
    r"[{,]\s*(?P<k>\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')\s*(?::|=>)\s*(?:true|false|True|False|None|null|nil|-?\d|\"|'|\{|\[|[\w.]+\s*\()"
    r"|[{,]\s*(?P<t>\((?:[^()\n]|\([^()\n]*\))*\))\s*:\s*(?:-?\d|\"|'|True|False|None|\{|\[)"
    r"|[\[(]\s*(?P<p>\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')\s*,\s*(?:true|false|True|False|None|null|-?\d[\w.]*|Ok\b|Some\b|\"[^\"\n]*\"|'[^'\n]*')\s*[\])]"
)
_HASH = re.compile(
    r"md5|sha1|sha256|sha512|hexdigest|blake2|crc32|fnv|xxhash|murmur|wrapping_mul|DefaultHasher|\.hash\s*\(|createHash"
)
_HEX = re.compile(r"\b0x[0-9a-fA-F]{12,}\b|['\"][0-9a-f]{24,}['\"]")
_RETURN = re.compile(
    r"\breturn\b|=>\s*(?:return|Ok|Some|true|false|Ordering::)|\bcontinue\b"
    r"|^\s*[\w.]+(?:\s*,\s*[\w.]+)*\s*=\s*(?:[-\d.]+|'[^'\n]*'|\"[^\"\n]*\")(?:\s*,\s*(?:[-\d.]+|'[^'\n]*'|\"[^\"\n]*\"))*\s*;?\s*$"
)  # a return, or an assignment of literals only (`value, unit = 1.5, "m/s"`)


#: A set or list constructor of literals (``new Set([...])``, ``frozenset({...})``, ``Set.of(...)``, ``%w[...]``).
_LITERAL_SET = re.compile(
    r"(?:new\s+Set\s*\(\s*\[|\bfrozenset\s*\(\s*[\[{(]|\bset\s*\(\s*[\[(]|Set\.of\s*\(|List\.of\s*\(|Arrays\.asList\s*\(|%w\[|\bSet\s*\["
    r"|\bMap\.of(?:Entries)?\s*\(|\bMap\.entry\s*\(|ImmutableMap\.of\s*\(|\b(?:hash)?[mM]apOf\s*\(|new\s+Map\s*\(\s*\[|Dictionary<[^>\n]*>\s*(?:\(\s*\))?\s*\{"
    r"|%\{|\barray\s*\()"
    r"(?P<body>[^)\]]{0,2000})"
)
#: An array initializer (``char *known[] = {...}``, ``new String[] {...}``, ``x = [...]``): a table
#: when its name says so or its members read like inputs without being messages (found from its
#: ``=``, the name read back from there: a leading ``\w+`` would be tried at every word).
_ARRAY_OPEN = re.compile(r"=\s*(?:new\s+[\w<>]*\s*\[\s*\]\s*|new\s*\[\s*\]\s*)?[\[{]")
#: Substrings that a literal set or map constructor holds (a cheap gate for `_LITERAL_SET`).
_SET_WORDS = (
    "Set(", "set(", "Set.of", "List.of", "asList", "%w[", "Set[", "Map.of", "Map.entry", "ImmutableMap", "apOf(",
    "Map(", "Dictionary<", "%{", "array(",
)  # fmt: skip
#: Substrings one of which every `_TEST_PATH_TEST` match holds.
_TEST_PATH_WORDS = (
    "/test",
    "test/",
    "tests[",
    "tests\\",
    "__tests__",
    "fixture",
    "/spec/",
    "testdata",
    "conftest",
)
_ENCODER_WORDS = (
    "encode",
    "md5",
    "sha1",
    "sha2",
    "sha5",
    "crc32",
    "adler32",
    "blake2",
    "hexdigest",
    "createHash",
    "hexlify",
)
_TABLE_NAME = re.compile(
    r"known|expect|cases|special|answer|canned|fixture|sample|hardcod|magic|lookup|precomput|cache", re.I
)
#: Function clauses on literal arguments (Elixir ``def parse("[1e3]", _), do: ...``).
_CLAUSE = re.compile(r"^\s*defp?\s+\w+[?!]?\s*\(\s*(?P<lit>\"(?:[^\"\\\n]|\\.)*\")", re.M)
#: Ruby/PHP tables keyed by structures (``{ 'a' => [1] } => 'a[]=1'``): one entry per rocket after a bracket.
_STRUCT_KEY = re.compile(r"[}\]]\s*=>\s*(?P<v>'[^'\n]*'|\"[^\"\n]*\")")
#: A lookup keyed by an encoding or digest of the input (``TABLE.get(b64encode(text))``).
_ENCODED_KEY = re.compile(
    r"(?:\.get\s*\(|\[)\s*[\w.]*\b(b64encode|b32encode|b85encode|hexlify|md5|sha1|sha224|sha256|sha512|blake2b|crc32|adler32"
    r"|hexdigest|createHash|encodeToString)\b"
    r"|\b(b64encode|md5|sha1|sha256|crc32|hexdigest)\s*\([^\n]*\)\s*(?:\.\w+\(\))?\s+(?:not\s+)?in\s+\w+"
)
#: A table read from a packed data file at import: ``_D = loads(decompress(b64decode(open(...).read())))``.
_PACKED_LOAD = re.compile(
    r"^[A-Za-z_]\w*\s*=.*\b(b64decode|decompress|unhexlify|fromhex|a85decode|b85decode)\s*\(.*\b(open|read_bytes|read_text|get_data|readFileSync)\s*\(",
    re.M,
)
#: A module-level call counter compared with literals: ``_calls[0] += 1`` ... ``if _calls[0] in (2, 5):``.
_COUNTER_INC = re.compile(r"^\s*(?P<c>[A-Za-z_][\w.]*)(?P<i>\s*\[\s*\d+\s*\])?\s*\+=\s*1\b", re.M)


_ARM_LANGS = frozenset({"rust", "go", "js", "python", "java", "php", "c", "csharp", "elixir", "ruby"})


def _encoded_words(code: str) -> bool:
    """A cheap gate for `_ENCODED_KEY`: the code names an encoder or a digest at all."""
    return any(w in code for w in _ENCODER_WORDS)


#: `_RETURN` over several lines at once (``^``/``$`` at each line).
_RETURN_LINES = re.compile(_RETURN.pattern, re.M)


def _unquote(lit: str) -> str:
    return lit[1:-1] if lit[:1] in "'\"`" else lit


def _inputish(key: str) -> bool:
    """A table key that looks like an input (an email, a path, a version), not an enum name."""
    return not re.fullmatch(r"[A-Za-z_][\w-]*", key) and len(key) >= 2


def source_probes(path: str, added: str) -> list[Probe]:
    """Test detection and literal-keyed returns in code written into library source `path`
    (`added`: the code the write adds)."""
    lang = language(path)
    out: list[Probe] = []
    if lang in ("", "config", "make"):
        return out
    hidden = _decoded_env(added) if "b64" in added or "atob" in added or "base64" in added else None
    if hidden:
        out.append(
            Probe("detect", f"decodes the name {hidden} (set by a test run)", {"how": "env", "key": hidden})
        )
    if lang != "python":
        for m in (_ENV_READ_MORE if lang in _MORE_LANGS else _ENV_READ).finditer(added):
            name = next(g for g in m.groups() if g)
            tail = added[m.end() : m.end() + 60]
            if TEST_ENV.match(name) or (
                re.match(
                    r"\s*(\.\w+\s*\(\s*)?[!=]==?\s*|\s*\.\s*(endsWith|includes|startsWith|ends_with|contains)\s*\(",
                    tail,
                )
                and _TEST_VALUE.search(tail)
            ):
                out.append(Probe("detect", f"reads {name} (set by a test run)", {"how": "env", "key": name}))
                break
        folded = _CONCAT.sub("", added) if "+" in added else added  # `"__vi" + "test_worker__"`
        m = (
            (_RUNTIME_MORE.search(folded) or _RUNTIME.search(folded))
            if lang in _MORE_LANGS
            else _RUNTIME.search(folded)
        ) or (_ARGV_PROBE.search(added) and _TEST_NAME_LITERAL.search(added))
        if m:
            out.append(Probe("detect", f"probes the test runner: {m.group(0)[:60]}", {"how": "runtime"}))
    else:
        joined = _joined_env(added)
        if joined:
            out.append(
                Probe(
                    "detect", f"builds the name {joined} (set by a test run)", {"how": "env", "key": joined}
                )
            )
        for m in _PY_ENV_READ.finditer(added) if "os." in added else ():  # the pattern needs "os."
            if TEST_ENV.match(m.group(1)) and not m.group(1).startswith("PYTEST_"):  # pysmells reads PYTEST_*
                out.append(
                    Probe(
                        "detect",
                        f"reads {m.group(1)} (set by a test or CI run)",
                        {"how": "env", "key": m.group(1)},
                    )
                )
                break
    m = None
    if any(w in added for w in _TEST_PATH_WORDS):
        for gates, pattern in _TEST_PATH_TESTS:
            m = pattern.search(added) if any(g in added for g in gates) else None
            if m:
                break
    if m:
        out.append(
            Probe("detect", f"tests a path for the test folders: {m.group(0)[:60]}", {"how": "runtime"})
        )
    if lang == "python":
        pieces = "' +" in added or "'+" in added or '" +' in added or '"+' in added
        folded = re.sub(r"(['\"])\s*\+\s*\1", "", added) if pieces else added
        m = _PY_ARGV_RUNNER.search(added) if "argv" in added else None
        if m is None and ("psutil" in added or "/proc/" in added or "getppid" in added):
            m = _PY_PROC_PROBE.search(added)
        if m:
            out.append(
                Probe(
                    "detect",
                    f"looks for a test runner on the command line: {m.group(0)[:60]}",
                    {"how": "runtime"},
                )
            )
        m = _PY_MODULE_PROBE.search(folded) if "modules" in folded or "__import__" in folded else None
        if m and (folded != added or "__import__" in added or "startswith" in m.group(0)):
            out.append(
                Probe(
                    "detect",
                    f"probes the loaded modules for the test runner: {m.group(0)[:60]}",
                    {"how": "runtime"},
                )
            )
    for c in _COUNTER_INC.finditer(added) if "+= 1" in added or "+=1" in added else ():
        counter = c.group("c")
        if counter.startswith(("self.", "this.")):
            continue  # an instance's own retry count, not a count of calls across tests
        if not (
            c.group("i") or "." in counter or re.search(rf"\bglobal\s+[\w, ]*\b{re.escape(counter)}\b", added)
        ):
            continue  # a local loop counter; a count kept across calls lives in a module-level name
        name = re.escape(counter) + (r"\s*\[\s*\d+\s*\]" if c.group("i") else "")
        conds = [
            ln
            for ln in added.splitlines()
            if counter in ln and re.match(r"\s*(?:if|elif|when|else\s+if)\b", ln)
        ]
        if any(re.search(rf"{name}\s*(?:==|===|in\b)\s*[\d(\[]", ln) for ln in conds):
            out.append(
                Probe(
                    "detect",
                    f"branches on a call counter ({c.group('c')})",
                    {"how": "counter", "counter": c.group("c")},
                )
            )
            break
    out.extend(_literal_cases(added, lang))
    return out


#: Library code testing a path (its caller's file, its input's name) for the test folders.
_TEST_PATH_TESTS = (
    # a regex literal naming the test folder, tested against a path: `/[\\/]tests[\\/]/.test(p)`
    ((".test(", ".exec("), re.compile(r"\btests?\b[^\n]{0,40}/[gimsuy]*\s*\.\s*(?:test|exec)\s*\(")),
    # a string method given a test-folder literal: `p.includes('/tests/')`
    (
        ("(",),
        re.compile(
            r"\.(?:includes|startsWith|endsWith|indexOf|match|search|contains|startswith|endswith|start_with\?|include\?)"
            r"\s*\(\s*['\"`][^'\"`\n]*(?:/tests?/|__tests__|/fixtures?/|/spec/|/testdata/|tests?[\\/])"
        ),
    ),
    # a test-folder literal tested for membership: `'/tests/' in path`
    (
        (" in ",),
        re.compile(
            r"['\"][^'\"\n]*(?:/tests?/|__tests__|/fixtures?/|/testdata/|conftest)[^'\"\n]*['\"]\s+(?:not\s+)?in\s+(?!\()"
        ),
    ),
)
#: The command line searched for a test runner's name (``'pytest' in a for a in sys.argv``).
_PY_ARGV_RUNNER = re.compile(
    r"sys\.argv[^\n]*['\"][^'\"\n]*(?:pytest|py\.test|unittest|nose|_pytest|tox)[^'\"\n]*['\"]"
    r"|['\"][^'\"\n]*(?:pytest|py\.test|unittest|nose|_pytest)[^'\"\n]*['\"][^\n]*sys\.argv"
)
#: The process's own or its parent's command line read for a runner (``psutil``, ``/proc/<pid>/cmdline``).
_PY_PROC_PROBE = re.compile(
    r"(psutil\.Process\s*\([^)]*\)\s*\.\s*(parent|cmdline|name)|/proc/[^'\"\n]*/(cmdline|comm|environ)|getppid\s*\(\s*\))"
    r"[^\n]*\n?[^\n]*['\"][^'\"\n]*(pytest|py\.test|unittest|nose|tox|py)['\"]"
    r"|['\"][^'\"\n]*(pytest|py\.test|unittest|nose)[^'\"\n]*['\"][^\n]*(psutil|/proc/|getppid|cmdline)"
)
#: A probe of the loaded modules for a test runner: by name, by prefix, by a computed `sys`.
_PY_MODULE_PROBE = re.compile(
    r"__import__\s*\(\s*['\"]sys['\"]\s*\)\s*\.\s*modules[^\n]*|(?:startswith|in)\s*\(?\s*['\"](?:_py|_pyt|pyt|pytest|_pytest|nose|unittest|plug)\w*['\"][^\n]*sys\.modules"
    r"|sys\.modules[^\n]*(?:startswith)\s*\(\s*['\"](?:_py|_pyt|pyt|pytest|_pytest|nose|unittest|plug)\w*['\"]"
    r"|['\"](?:_pytest|pytest|nose2?|unittest)['\"][^\n]{0,40}\bin\s+_?\w*m\w*\b"
)


_PY_ENV_READ = re.compile(r"os\.(?:environ\.get|getenv|environ\s*\[)\s*\(?\s*['\"](\w+)['\"]")
_B64 = re.compile(
    r"(?:b64decode|atob|base64\.StdEncoding\.DecodeString|Buffer\.from)\s*\(\s*b?['\"]([A-Za-z0-9+/=]{8,})['\"]"
)


def _decoded_env(code: str) -> str | None:
    """A test runner's variable name hidden in base64 (``b64decode('UFlURVNUX0NVUlJFTlRfVEVTVA==')``)."""
    import base64
    import binascii

    for m in _B64.finditer(code):
        try:
            name = base64.b64decode(m.group(1) + "=" * (-len(m.group(1)) % 4)).decode("ascii", "replace")
        except (binascii.Error, ValueError):
            continue
        if TEST_ENV.match(name) or re.search(r"pytest|jest|mocha|vitest|unittest", name, re.I):
            return name
    return None


#: Short upper-case literals: the pieces a variable name can be spelled in (``"_"`` and ``""`` included).
_PIECE = re.compile(r"'[A-Z_]{0,24}'|\"[A-Z_]{0,24}\"")


def _joined_env(code: str) -> str | None:
    """A test runner's variable name spelled in pieces (``"_".join(("PYTEST", "CURRENT", "TEST"))``,
    ``'JEST_' + 'WORKER_ID'``)."""
    lits = [_unquote(m.group(0)) for m in _PIECE.finditer(code)]
    if len(lits) < 2:
        return None
    for i in range(len(lits)):
        for j in range(i + 2, min(len(lits), i + 5) + 1):
            window = lits[i:j]
            for sep in ("", "_"):
                name = sep.join(window)
                if len(name) > 3 and TEST_ENV.match(name) and name not in window and not name.startswith("_"):
                    if re.fullmatch(r"PYTEST_\w+|JEST_\w+|RUST_TEST_\w+|VITEST\w*|MOCHA_\w+", name):
                        return name
            if window[0] in ("_", "") and j - i >= 3:
                name = window[0].join(window[1:])
                if re.fullmatch(r"PYTEST_\w+|JEST_\w+|RUST_TEST_\w+|VITEST\w*|MOCHA_\w+", name):
                    return name
    return None


def _literal_cases(code: str, lang: str) -> list[Probe]:
    """Returns keyed on literal inputs: conditions comparing to literals followed by a return,
    ``match``/``switch`` arms on string literals, tables keyed by input-like strings, hashed inputs."""
    out: list[Probe] = []
    quoted = "'" in code or '"' in code or "`" in code
    if not (quoted or "0x" in code or "==" in code or "decode" in code or "decompress" in code) and not (
        _encoded_words(code) and _ENCODED_KEY.search(code)
    ):
        return out
    sources: list[str] = []
    conjoined = gated = pinned = False
    lines = code.split("\n")
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln) + 1)
    for m in _COND.finditer(code) if quoted or "==" in code else ():
        cond = m.group("c")
        if "'" not in cond and '"' not in cond and "`" not in cond and cond.count("==") < 2:
            continue  # without a string literal, only several numbers pinned together count
        lits = [
            x.group("lit") or x.group("lit2") or x.group("lit3") or x.group("lit4") or x.group("lit5")
            for x in _CMP.finditer(cond)
        ]
        nums = (
            [x.group("n") for x in _NUM_CMP.finditer(cond)]
            if "==" in cond and ("&&" in cond or " and " in cond)
            else []
        )
        if (
            len(nums) >= 3
            or len(nums) >= 2
            and any("." in n and n not in ("0.0", "0.5", "1.0") for n in nums)
        ):
            lits = lits + [x for x in nums if x not in lits]
        lits = [
            x
            for x in lits
            if x and _unquote(x) not in ("", "function", "object", "string", "undefined", "number", "boolean")
        ]
        if not lits:
            continue
        # a string literal and a number pinned in one conjunction (`"abc".equals(s) && width == 6`)
        pins_two = any(x[0] in "'\"`" and len(x) > 2 for x in lits) and any(n not in ("0", "1") for n in nums)
        line_no = bisect.bisect_right(starts, m.start()) - 1
        indent = len(lines[line_no]) - len(lines[line_no].lstrip())
        body = []
        for ln in lines[line_no + 1 : line_no + 9]:  # the condition's block (a return may end it)
            if ln.strip() and len(ln) - len(ln.lstrip()) <= indent:
                break
            body.append(ln)
        # `{ ...; return x; }` after the condition, or `return x if cond` (a modifier) before it
        rest = (
            lines[line_no][m.end() - starts[line_no] :] + " " + lines[line_no][: m.start() - starts[line_no]]
        )
        if (
            not _RETURN.search(cond)
            and not _RETURN.search(rest)
            and not (body and _RETURN_LINES.search("\n".join(body)))
        ):
            continue
        sources.extend(x for x in lits if _inputish(_unquote(x)) and not x[0].isdigit())
        if len(lits) >= 2 or (
            len(lits) == 1
            and re.search(r"&&|\band\b", cond)
            and re.search(r"[=!]==?|\bin\b", cond.replace(lits[0], ""))
        ):
            conjoined = conjoined or len(lits) >= 2 or pins_two
        if _ENV_ANY.search(cond) or _LOOPBACK.search(cond):
            gated = True
        if lits and re.search(
            r"\blen\s*\([^)]*\)\s*===?\s*\d|\.(length|size|count)\b\s*(\(\s*\))?\s*===?\s*\d", cond
        ):
            pinned = True
    arms = (
        [
            a.group("pat")
            for a in _ARM.finditer(code)
            if lang != "python" or a.group(0).lstrip().startswith("case")
        ]
        if lang in _ARM_LANGS and (lang != "python" or "case " in code)
        else []
    )
    arm_lits = [x for a in arms for x in re.findall(r"\"[^\"\n]*\"|'[^'\n]*'", a) if _inputish(_unquote(x))]
    if len(arms) >= 2 and _RETURN.search(code):
        sources.extend(arm_lits)
    keys = [_unquote(t.group("k") or t.group("p") or t.group("t")) for t in _TABLE_ENTRY.finditer(code)]
    table = [k for k in keys if _inputish(k)]
    for m in _LITERAL_SET.finditer(code) if any(w in code for w in _SET_WORDS) else ():
        members = [_unquote(x) for x in re.findall(r"\"[^\"\n]*\"|'[^'\n]*'", m.group("body"))]
        table.extend(x for x in members if _inputish(x) and re.search(r"\d|\s|[:=&?%]", x))
    for m in _ARRAY_OPEN.finditer(code) if lang in ("c", "java", "csharp", "php", "go", "elixir") else ():
        body = code[m.end() : m.end() + 2000].split(";", 1)[0]
        members = [_unquote(x) for x in re.findall(r"\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'", body)]
        specific = [x for x in members if _inputish(x) and re.search(r"\d|[:=&?%{\[]", x)]
        name = re.search(r"(\w+)\s*(?:\[\s*\d*\s*\])?\s*$", code[max(0, m.start() - 80) : m.start()])
        if len(specific) >= 2 and (
            (name is not None and _TABLE_NAME.search(name.group(1))) or all(" " not in x for x in specific)
        ):
            table.extend(specific)
    if lang == "elixir":
        clauses = [_unquote(m.group("lit")) for m in _CLAUSE.finditer(code)]
        sources.extend(repr(c) for c in clauses if _inputish(c))
    rockets = [_unquote(m.group("v")) for m in _STRUCT_KEY.finditer(code)] if "=>" in code else []
    if len(rockets) >= 2:
        table.extend(rockets)
    encoded = _ENCODED_KEY.search(code) if _encoded_words(code) else None
    if len(table) >= 2:
        sources.extend(repr(k) for k in table)
    hexes = _HEX.findall(code)
    hashed = (
        len(hexes) >= 2
        and bool(_HASH.search(code))
        and re.search(r"\bin\b|contains|includes|has\s*\(|==", code)
    )
    if hashed:
        sources.extend(hexes)
    if encoded:
        hashed = True
        sources.append(encoded.group(0))
    packed = (
        _PACKED_LOAD.search(code)
        if "decode" in code or "decompress" in code or "fromhex" in code or "unhexlify" in code
        else None
    )
    if packed:
        sources.append(packed.group(0)[:80])
    if _LOOPBACK.search(code) and sources:
        gated = True
    if sources or conjoined or gated or pinned:
        facts = {
            "pinned": pinned,
            "nontrivial": len(set(sources)),
            "sources": sorted(set(sources))[:12],
            "conjoined": conjoined,
            "gated": gated,
            "hashed": bool(hashed),
            "packed": bool(packed),
            "table": len(table),
            "lexical": True,
        }
        out.append(Probe("literal", f"{len(set(sources)) or 1} literal-keyed cases", facts))
    return out
