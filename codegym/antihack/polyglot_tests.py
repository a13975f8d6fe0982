"""Edits of test files in languages other than Python: what an edit does to the tests.

`edit_to_tests`: skip markers added (``it.skip``/``xit``/``.only``, ``t.Skip``,
``//go:build ignore``, ``#[ignore]``, ``#![cfg(any())]``), tests removed, assertions removed or
weakened (``toThrow`` -> ``toBeDefined``, ``toEqual(2)`` -> ``toBeGreaterThanOrEqual(0)``,
``.expect(function () {})``), expected values rewritten (same code, other literals).

>>> [p.kind for p in edit_to_tests("t.test.js", "it('a', f)", "it.skip('a', f)")]
['skip']
"""

from __future__ import annotations

import re

from .paths import basename
from .polyglot import _TEST_DATA, Probe, language

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
        r"@(?:org\.junit\.(?:jupiter\.api\.)?)?(Disabled|Ignore)\b|@(Disabled|Enabled)If\w*|\bassume(True|That)?\s*\(\s*false\b|\bassumeFalse\s*\(\s*true\b"
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
        r"@(tag|moduletag|describetag)\s+:?(skip|pending)\b|@(tag|moduletag)\s+skip:|ExUnit\.configure\s*\([^)]*exclude"
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
        # AVA's exact assertions (``t.is(n, 2)``; ``t.true(cond)`` and ``t.truthy`` are not counted)
        r"|\bt\.(?:is|not|deepEqual|notDeepEqual|like|throws|throwsAsync|notThrows|notThrowsAsync|snapshot|regex)\s*\("
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
        # an expected exception declared on the test (JUnit 4 ``@Test(expected = X.class)``, TestNG's)
        r"|\bexpected(?:Exceptions?)?\s*=\s*\{?\s*[\w.]+\.class\b"
    ),
    "php": re.compile(
        r"(\$this->|self::|static::)assert(?!True\s*\(\s*true\b|NotNull\b)\w+\s*\(|\bexpect\w*\s*\(|(\$this->|self::)fail\s*\("
        r"|@expectedException\b"  # PHPUnit's expected exception, in a docblock
    ),
    "c": re.compile(
        r"\b(ASSERT|EXPECT|REQUIRE|CHECK|BOOST_CHECK|BOOST_REQUIRE|BOOST_TEST|ck_assert|TEST_ASSERT|CU_ASSERT|assert)\w*\s*\("
    ),
    "csharp": re.compile(
        r"\b(Assert|CollectionAssert|StringAssert)\.(?!True\s*\(\s*true\b|Pass\b|NotNull\b)\w+\s*[(<]|\.Should\(\)"
        r"|\[\s*ExpectedException\s*\("  # MSTest's expected exception, declared on the test
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


def uncomment(code: str, lang: str) -> str:
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
    old, new = uncomment(old, lang), uncomment(new, lang)
    tests = _TESTS[lang]
    if len(tests.findall(new)) < len(tests.findall(old)):
        out.append(Probe("removed", "removes tests", {"before": len(tests.findall(old))}))
    strong = _STRONG[lang]
    n_old, n_new = len(strong.findall(old)), len(strong.findall(new))
    weak = _WEAK[lang]
    if n_new < n_old:
        out.append(Probe("weakened", f"removes assertions ({n_old} -> {n_new})"))
    elif len(weak.findall(new)) > len(weak.findall(old)) and not (
        old in new and len(tests.findall(new)) > len(tests.findall(old))
    ):  # kept verbatim beside a test added around it: the new assertion is the new test's own
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
