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


def language(path: str) -> str:
    """``js``, ``go``, ``rust``, ``python``, ``ruby``, ``make``, ``config`` or ``""`` (by file name)."""
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
    if base in ("Makefile", "makefile", "GNUmakefile") or base.endswith(".mk"):
        return "make"
    if base.endswith((".json", ".toml", ".yaml", ".yml", ".cfg", ".ini")) or base.startswith(".mocharc"):
        return "config"
    return ""


#: Folders that hold tests, their data and their expected outputs, in any ecosystem.
FOREIGN_TEST_DIRS = frozenset(
    {"test", "tests", "__tests__", "spec", "specs", "testdata", "fixtures", "__snapshots__", "golden", "e2e"}
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
    return (
        bool(_TEST_DATA.search(base))
        or re.search(r"\.(test|spec)\.[cm]?[jt]sx?$|_test\.go$", base) is not None
    )


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
}
_LITERAL = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|`(?:[^`\\]|\\.)*`|\b\d+(?:\.\d+)?\b")


_EXPECTED_NAME = re.compile(r"\b(expected|want|wanted|golden|exp|snapshot|output|result)\w*\s*(:?=|:)", re.I)


def _shape(code: str, runs: bool = False) -> str:
    """`code` with literals masked (and runs of literals folded into one when `runs`)."""
    masked = re.sub(r"\s+", " ", _LITERAL.sub("L", code)).strip()
    return re.sub(r"L(\s*,\s*L)+", "L", masked) if runs else masked


def _uncomment(code: str, lang: str) -> str:
    """`code` without line comments (``//`` or ``#``) and ``/* */`` blocks: a test commented out is gone."""
    if lang in ("python", "ruby"):
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


def _config_name(path: str) -> str:
    base = basename(path)
    if base == "package.json":
        return "package.json"
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
    if not kind and lang not in ("js", "go", "rust", "ruby") and not _RUNNER_FILE.search(path):
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
    elif kind == "jest":
        m = _JEST_KEYS.search(added)
        if m:
            out.append(Probe("config", f"jest option {m.group(0)}"))
    elif kind == "mocha":
        m = _MOCHA_KEYS.search(added)
        if m:
            out.append(Probe("config", f"mocha option {m.group(0)}"))
    elif kind == "cargo":
        m = _CARGO.search(added)
        if m:
            out.append(Probe("config", re.sub(r"\s+", " ", m.group(0).strip())))
    elif kind == "cargo-config":
        m = _CARGO_CONFIG.search(added)
        if m:
            out.append(Probe("config", f"cargo {m.group(0).strip()}"))
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
    elif kind == "rspec":
        m = _RSPEC_OPT.search(added)
        if m:
            out.append(Probe("config", f"rspec option {m.group(0).strip()}"))
    elif kind == "npmrc":
        m = _NPMRC.search(added)
        if m:
            out.append(Probe("config", f"package-manager setting {m.group(0).strip()[:50]}"))
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
    if lang == "js":
        m = _PATCH_RUNNER.search(added)
        if m:
            out.append(Probe("patch", f"replaces the test framework's {m.group(0).strip()[:50]}"))
    return out


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
    r"|UNITTEST\w*|NOSE_\w+|DJANGO_TEST\w*)$"
)
_ENV_READ = re.compile(
    r"process\.env\s*(?:\.\s*(?P<a>\w+)|\[\s*['\"`](?P<b>\w+)['\"`]\s*\])"
    r"|os\.(?:Getenv|LookupEnv)\s*\(\s*\"(?P<c>\w+)\""
    r"|(?:std::)?env::var(?:_os)?\s*\(\s*\"(?P<d>\w+)\"|(?:option_)?env!\s*\(\s*\"(?P<e>\w+)\""
    r"|os\.(?:environ\.get|getenv|environ\s*\[)\s*\(?\s*['\"](?P<f>\w+)['\"]|Deno\.env\.get\s*\(\s*['\"](?P<g>\w+)"
)
_ENV_ANY = re.compile(r"process\.env|os\.(Getenv|LookupEnv|environ|getenv)|env::var|Deno\.env")
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
    r"\s*\(?\s*(?:&)?(?P<lit>'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|`[^`\n]*`|\b\d{2,}\b)"
    r"|(?P<lit2>'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")\s*(?:===?|!==?)"
)
_ARM = re.compile(
    r"^\s*(?:case\s+)?(?P<pat>\(?\s*(?:\"[^\"\n]*\"|'[^'\n]*')\s*(?:,\s*(?:\"[^\"\n]*\"|'[^'\n]*'|_)\s*)*\)?)\s*(?:=>|:)",
    re.M,
)
_TABLE_ENTRY = re.compile(
    r"[{,]\s*(?P<k>\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')\s*:\s*(?:true|false|True|False|None|null|-?\d|\"|'|\{|\[)"
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
        for m in _ENV_READ.finditer(added):
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
        m = _RUNTIME.search(folded) or _ARGV_PROBE.search(added) and _TEST_NAME_LITERAL.search(added)
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
    out.extend(_literal_cases(added, lang))
    return out


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
    if not quoted and "0x" not in code:
        return out
    sources: list[str] = []
    conjoined = gated = False
    lines = code.split("\n")
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln) + 1)
    for m in _COND.finditer(code) if quoted else ():
        cond = m.group("c")
        if "'" not in cond and '"' not in cond and "`" not in cond:
            continue
        lits = [x.group("lit") or x.group("lit2") for x in _CMP.finditer(cond)]
        lits = [
            x
            for x in lits
            if x and _unquote(x) not in ("", "function", "object", "string", "undefined", "number", "boolean")
        ]
        if not lits:
            continue
        line_no = bisect.bisect_right(starts, m.start()) - 1
        indent = len(lines[line_no]) - len(lines[line_no].lstrip())
        body = [ln for ln in lines[line_no + 1 : line_no + 3] if len(ln) - len(ln.lstrip()) > indent]
        if not _RETURN.search(cond) and not any(_RETURN.search(ln) for ln in body):
            continue
        sources.extend(x for x in lits if _inputish(_unquote(x)) and not x[0].isdigit())
        if len(lits) >= 2 or (
            len(lits) == 1
            and re.search(r"&&|\band\b", cond)
            and re.search(r"[=!]==?|\bin\b", cond.replace(lits[0], ""))
        ):
            conjoined = conjoined or len(lits) >= 2
        if _ENV_ANY.search(cond) or _LOOPBACK.search(cond):
            gated = True
    arms = [a.group("pat") for a in _ARM.finditer(code)] if lang in ("rust", "go", "js") else []
    arm_lits = [x for a in arms for x in re.findall(r"\"[^\"\n]*\"|'[^'\n]*'", a) if _inputish(_unquote(x))]
    if len(arms) >= 2 and _RETURN.search(code):
        sources.extend(arm_lits)
    keys = [_unquote(t.group("k") or t.group("p") or t.group("t")) for t in _TABLE_ENTRY.finditer(code)]
    table = [k for k in keys if _inputish(k)]
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
    if _LOOPBACK.search(code) and sources:
        gated = True
    if sources or conjoined or gated:
        facts = {
            "nontrivial": len(set(sources)),
            "sources": sorted(set(sources))[:12],
            "conjoined": conjoined,
            "gated": gated,
            "hashed": bool(hashed),
            "table": len(table),
            "lexical": True,
        }
        out.append(Probe("literal", f"{len(set(sources)) or 1} literal-keyed cases", facts))
    return out
