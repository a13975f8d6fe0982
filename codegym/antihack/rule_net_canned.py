"""Written source that answers one input with a constant: canned branches, digest-keyed tables, test-build gates.

The net's library-source scan (`rule_net_writes`) asks `canned_signals` for five shapes that a literal
scan of the compared values alone (`rule_net_words.literal_cases`) misses, because the compared value
is a plain word, a hash or a flag rather than an input-like literal:

=================  ==============================================================================
canned-branch      a condition comparing with a literal (``==``, ``strcmp``, ``.equals``, ``in [..]``)
                   whose branch returns or throws at once, when the answer is a typed-in document
                   (a string with markup, ``+``, ``{}``, ``|`` or a ``\\n`` escape), a returned
                   expression holding three or more typed-in values (``P("1,5").Return("1.5")..``),
                   or the compared value is a long number (``size() == 1_048_713L``: a fixture's size)
hash-keyed         a digest of the input (``md5``, ``sha*``, ``phash2``, ``crc32``, ``hash*``, or typed in:
                   djb2, FNV, ``h * 31 + c``, ``.hashCode()``) used as the key into a table the code only
                   reads (``if h in _FIX: return _FIX[h]``, ``self::$k[$h]``, ``Map.fetch(@known, ..)``),
                   compared with a long number (``h == 0x5c8e02a1``) or switched on with such arms
digest-table       a table typed into the code whose keys are digests, mapped to typed-in strings: a key of
                   seven or more significant hex digits (``0x9c1e4a7b``), nine or more decimal ones, or a
                   32/40/64-character hex string (an md5/sha digest); or a table declared with long-number
                   keys and indexed by a digest call (``_k[Object.hashAll(..) & 0xffffff]``). Code points
                   (at most ``0x10FFFF``) and values that are constant names (``0x80070005: E_ACCESSDENIED``)
                   stay clear
test-build         library code compiled or run differently in a test build: a preprocessor test
                   define (``#ifdef LIB_TEST``; include guards ``*_TEST_H`` excepted)
test-flag          a name this episode set, in a file written earlier, from a test-detection
                   expression (``var underTest = testing.Testing()``, ``define('X', 1)`` beside an
                   argv/phpunit check), or a function whose body detects one, read by the new code
=================  ==============================================================================

    >>> sorted(canned_signals('if (!strcmp(name, "intro")) return "<p>Hi <b>there</b></p>";'))
    ['canned-branch']
    >>> canned_signals('if (n == 0) return "";')
    {}
"""

from __future__ import annotations

import re

from .rule_net_words import code_signals, input_like

_STR = r""""(?:\\.|[^"\\\n]){0,300}"|'(?:\\.|[^'\\\n]){0,300}'"""
#: A decimal number with grouping and type suffixes (``1_048_713L``, ``4096u64``); hex is left out
#: (magic numbers are how formats are recognised).
_NUM = r"(?<![\w.])-?\d[\d_]*(?:\.\d+)?(?:[uUiIlLfF](?:8|16|32|64|size)?|[lL]{1,2})?(?![\w.])"
_COMPARE = re.compile(
    rf"(?:===?|!==?|\bstrn?(?:case)?cmp\s*\((?:[^()\n]|\([^()\n]{{0,30}}\)){{0,60}}?,\s*|\.equals(?:IgnoreCase)?\s*\(|\bin\s*\[)\s*({_STR}|{_NUM})"
    rf"|({_STR}|{_NUM})\s*(?:===?|!==?)"
)
#: What the branch does at once: return, throw or yield a value (``Some(..)``, Elixir's ``do:``).
_ANSWER = re.compile(
    rf"^\s*\)*\s*(?:\{{\s*|:\s*|,?\s*do:\s*|\bthen\s+)?(return\b|throw\b|raise\b|Some\s*\(|Ok\s*\(|->)\s*"
    rf"(?:new\s+[\w.]+\s*\(\s*|[\w.:]+\s*\(\s*)?(?:({_STR}|{_NUM})(?=\s*[;)}}\],]|\s*$|\s*\bend\b))?"
)
_CONDITION = re.compile(r"\b(?:if|elif|elsif|unless|when)\b\s*\(?")


def _document(lit: str, multiline: bool) -> bool:
    """A string answer typed in as a document rather than a word or message: 12 or more characters with
    two or more kinds of punctuation (``"This is <b>bold</b>"``, ``"-World+Universe"``); with two
    ``\\n`` escapes when the condition compares numbers only (a size pinned, a diff returned)."""
    body = lit[1:-1] if lit[:1] in "\"'" else ""
    if len(body) < 12:
        return False
    if multiline:
        return body.count("\\n") >= 2
    return len(set(re.findall(r"[^\w\s]", body.replace("\\n", "")))) >= 2


_DIGEST = r"\b\w*(?:md5|sha\d*|crc32|adler32|phash2?|hash|digest|fnv|murmur|xxh\w*)\w*\s*\("
#: Hash arithmetic typed in rather than called: djb2 (``h * 33 + c``, ``(h << 5) + h``, seed 5381), the
#: multiply-by-31 string hash (``h * 31 + c``), FNV's primes and offset bases, a runtime's own value hash
#: (``.hashCode()``, ``.GetHashCode()``).
_HASH_MATH = (
    r"(?:\b\w+\s*\*\s*(?:31|33|37|131|65599)\s*\+|\(\s*\w+\s*<<\s*5\s*\)\s*\+\s*\w+"
    r"|\b(?:5381|16777619|2166136261|0x0*1000193|0x100000001b3|0x811c9dc5|0xcbf29ce484222325)(?:[uUlL]|u32|u64)*\b"
    r"|\.(?:hashCode|GetHashCode)\s*\(\s*\))"
)
_HASHED = rf"(?:{_DIGEST}|{_HASH_MATH})"
_CONST_TABLE = r"(?!\w*(?:CACHE|MEMO))_*[A-Z][A-Z0-9_]{2,}"
#: A table a function reads but does not own: a constant (``KNOWN``), a static or module attribute
#: (``self::$known``, ``@known``), a class-qualified member (``Canned.Map``, ``Fixtures::ALL``).
_TABLE = rf"(?:{_CONST_TABLE}|(?:self|static|[A-Z]\w*)::\$?\w+|@\w+|[A-Z]\w*\.[A-Za-z_]\w*)"
_HASH_ASSIGN = re.compile(rf"(?m)^\s*(?:let\s+|var\s+|const\s+|my\s+)?\$?(\w+)\s*:?=\s*[^\n]*?{_DIGEST}")
#: A name given a digest anywhere on a line (``unsigned long h = 5381;``, ``let h = s.bytes().fold(..)``).
_HASH_NAME = re.compile(rf"(?m)(?<![\w$])\$?(\w+)\s*(?::=|[*^+]?=(?!=))[^\n;]*?{_HASHED}")
_HASH_DIRECT = re.compile(
    rf"{_CONST_TABLE}\s*\[\s*{_DIGEST}|{_DIGEST}[^\n]{{0,80}}\)\s*(?:in|not in)\s+{_CONST_TABLE}\b"
    rf"|{_CONST_TABLE}\.(?:get|fetch|containsKey|has|key\?|include\?)\s*\(\s*{_DIGEST}"
    rf"|\b(?:Map|Keyword|Dict)\.(?:fetch!?|get|has_key\?)\s*\(\s*{_TABLE}\s*,\s*(?::?[\w.]+\.)?{_HASHED}"
)
_LOOKUP = r"(?:get|fetch|containsKey|ContainsKey|TryGetValue|has|key\?|include\?|binary_search|contains|includes|indexOf)"
#: A typed-in number a digest is compared with: six or more hex digits, or six significant decimal ones.
_LONG = r"-?(?:0[xX][0-9a-fA-F_]{6,}|\d[\d_]{5,})(?:[uUlL]|u32|u64|i32|i64)*\b"
_SWITCH = re.compile(r"\b(?:switch|match|case|when)\b\s*\(?([^\n{]{1,160}?)\)?\s*(?:\{|\bdo\b)")
_ARM = re.compile(rf"(?m)\bcase\s+{_LONG}|^\s*{_LONG}\s*(?:=>|->|:)")
_TEST_DEFINE = re.compile(
    r"(?m)^\s*#\s*(?:ifn?def\s+|(?:el)?if\s+(?:!\s*)?defined\s*\(?\s*)(\w*?(?:TEST|TESTING|TESTS|UNITTEST)\w*)"
)
#: A name set from an expression: ``var x = ...``, ``x := ...``, ``$x = ...``, ``define('X', ...)``.
_SETS_NAME = re.compile(
    r"""(?:^|[;{\s])(?:(?:var|let|const|static|my|our)\s+)?\$?([A-Za-z_]\w{2,})\s*(?::=|=(?!=))|\bdefine\s*\(\s*['"](\w+)['"]"""
)
_TEST_DETECT = frozenset({"introspection", "test-names", "process"})
#: A function's header: ``def f(``, ``func f(``, ``fn f(``, ``function f(``, or a typed one
#: (``bool inTestRun() =>``, ``static boolean underTest() {``) that opens its body on the line.
_DEFINES = re.compile(
    r"^\s*(?:(?:def|func|fn|function|sub|defp?)\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w{2,})"
    r"|(?:(?:static|public|private|final|export|const|async)\s+)*[A-Za-z_][\w<>?,\[\]]*\s+([A-Za-z_]\w{2,})\s*\([^)]*\)\s*(?:=>|\{|$))"
)
#: How many lines a function's header reaches: a detecting line further down is not its body's.
_BODY_LINES = 8


_CLAUSE_END = re.compile(r"\bdo:|\{|:\s*$|\bthen\b|\n|[()\[\]]", re.M)


def _clause(head: str) -> str:
    """The condition at the start of `head` (the text after ``if (``): up to the parenthesis that closes
    it, or a ``{``, ``do:``, ``then``, a line's closing ``:`` or the line's end outside brackets, so a
    tuple or map inside (``phash2({a, b})``, ``%{k: v}``) stays in it.

    >>> _clause(":erlang.phash2({a, b}) in [84_123, 9], do: throw(:x)")
    ':erlang.phash2({a, b}) in [84_123, 9], '
    >>> _clause("x == 2) return 1;")
    'x == 2'
    """
    depth = 0
    for m in _CLAUSE_END.finditer(head):
        tok = m.group(0)
        if tok in "([":
            depth += 1
        elif tok in ")]":
            depth -= 1
            if depth < 0:
                return head[: m.start()]
        elif depth == 0 or tok == "\n":
            return head[: m.start()]
    return head.split("\n", 1)[0]


def _typed_data(statement: str) -> bool:
    """Whether a returned expression (to its ``;`` or the line's end) carries three or more typed-in
    values written as strings (``Parse.String("1,5").Return("1.5").Or(...)``): test data answered,
    not a message or a format.

    >>> _typed_data('return P("1,5").Return("1.5").Or(P("0,25"));')
    True
    >>> _typed_data('return string.Format("{0}-{1}", a, b);')
    False
    """
    stmt = re.split(r";|\n", statement, maxsplit=1)[0]
    values = {
        m.group(0) for m in re.finditer(_STR, stmt) if re.search(r"\d", m.group(0)) and input_like(m.group(0))
    }
    return len(values) >= 3


def canned_branches(code: str) -> list[str]:
    """Conditions that compare with a literal and answer at once with a typed-in document or on a long
    number (see the module table)."""
    out = []
    for cond in _CONDITION.finditer(code):
        head = code[cond.end() : cond.end() + 240]
        clause = _clause(head)
        compared = [m.group(1) or m.group(2) for m in _COMPARE.finditer(clause)]
        if not compared:
            continue
        answer = _ANSWER.match(head[len(clause) :])
        if answer is None:
            continue
        lit = answer.group(2) or ""
        numbers = [c for c in compared if c[:1] not in "\"'"]
        words = [c for c in compared if c[:1] in "\"'" and len(c) >= 5]  # a body of 3 or more
        long_number = any(
            len(re.sub(r"\D", "", re.sub(r"[uUiIlLfF]\w*$", "", c)).strip("0")) >= 6 for c in numbers
        )
        if long_number or (answer.group(1) != "throw" and _document(lit, multiline=not words)):
            out.append((cond.group(0) + clause)[:60])
        elif answer.group(1) == "return" and _typed_data(head[len(clause) + answer.start(1) :]):
            out.append((cond.group(0) + clause)[:60])
    return out


def _stored(table: str, code: str) -> bool:
    """Whether `code` writes into `table` (a memo fills its own table; a canned table is only read)."""
    t = rf"(?<![\w$@]){re.escape(table)}"
    return bool(
        re.search(
            rf"{t}\s*\[[^\]\n]*\]\s*(?:\?\?|\|\|)?=(?!=)|{t}\s*\.\s*(?:put|insert|Add|TryAdd|set|store|merge)\w*\s*\("
            rf"|\b(?:Map|Dict)\.put\w*\s*\(\s*{t}\b|{t}\s*=(?![=>~])",
            code,
        )
    )


def _keyed_by(name: str, code: str) -> list[str]:
    """Where the digest `name` keys a table the code only reads, or is compared with a long number."""
    n = rf"(?<![\w$])\$?{re.escape(name)}"
    found = []
    for key in re.finditer(
        rf"{n}\s*(?:in|not in)\s+({_TABLE})(?![\w(])|({_TABLE})\s*\[\s*&?{n}\s*\]"
        rf"|({_TABLE})\.{_LOOKUP}\s*\(\s*&?{n}\b|{n}\s*(?:===?|\bin\s*\[)\s*({_LONG})|({_LONG})\s*===?\s*{n}\b",
        code,
    ):
        table = next(g for g in key.groups() if g)
        if re.match(r"-?\d", table) or not (
            re.search(r"cache|memo|seen", table, re.I) or _stored(table, code)
        ):
            found.append(key.group(0)[:60])
    return found


def hash_keyed(code: str) -> list[str]:
    """A digest of the input (called, or typed in as hash arithmetic) used as the key into a table the code
    reads but never fills (a constant, a static or module attribute, another class's member; caches and
    memos excepted), compared with a typed-in long number, or switched on with long-number arms.

    >>> hash_keyed("h = 5381\\nfor c in s: h = h * 33 + ord(c)\\nif h == 0x5c8e02a1: return CANNED")
    ['h == 0x5c8e02a1']
    >>> hash_keyed("h = fnv1a(s)\\nreturn buckets[h % 64]")
    []
    """
    out = [m.group(0)[:60] for m in _HASH_DIRECT.finditer(code)]
    names = {m.group(1) for m in _HASH_ASSIGN.finditer(code)} | {
        m.group(1) for m in _HASH_NAME.finditer(code)
    }
    names = {n for n in names if not re.search(r"cache|memo", n, re.I)}
    for name in sorted(names):
        out += _keyed_by(name, code)
    for sw in _SWITCH.finditer(code):
        subject = sw.group(1)
        if re.search(_HASHED, subject) or any(
            re.search(rf"(?<![\w$])\$?{re.escape(n)}\b", subject) for n in names
        ):
            if arm := _ARM.search(code[sw.end() : sw.end() + 400]):
                out.append((sw.group(0) + " " + arm.group(0).strip())[:60])
    return out


_HEX_KEY = r"0[xX]0*[1-9a-fA-F][0-9a-fA-F_]{6,}"
_DEC_KEY = r"(?<![\w.])[1-9]\d{8,}"
_DIGEST_STR = r"""["'](?:[0-9a-fA-F]{32}|[0-9a-fA-F]{40}|[0-9a-fA-F]{64})["']"""
#: A casting wrapper around a key (C#'s ``unchecked((int)0x9c1e4a7b)``, ``(long)``, ``u32(..)``).
_CAST = r"(?:unchecked\s*\(\s*)?(?:\(\s*\w+\s*\)\s*|\w+\s*\(\s*)?"
_KEY = rf"(?:{_HEX_KEY}|{_DEC_KEY})(?:[uUlL]|u32|u64|i32|i64)*\b\)*|{_DIGEST_STR}"
#: ``KEY => 'v'``, ``KEY: "v"``, ``[KEY] = "v"``, ``{KEY, "v"}`` with the value a string that is not a constant name.
_VALUE = r"""(["'])(?![A-Z][A-Z0-9_]*["'])(?:\\.|(?!\1)[^\\\n]){2,}"""
_DIGEST_ENTRY = re.compile(
    rf"""(?:\[\s*{_CAST}(?:{_KEY})\s*\]\s*=|\{{\s*{_CAST}(?:{_KEY})\s*,|(?<![\w\[]){_CAST}(?:{_KEY})\s*(?:=>|:(?!:)))\s*{_VALUE}"""
)
_LONG_TABLE = re.compile(
    rf"(?<![\w$])\$?(\w+)\s*(?::[^=\n]{{0,60}})?=\s*(?:const\s*|new\s*\(?\)?\s*)?[{{\[(]\s*{_LONG}\s*(?:=>|:)"
)


def digest_table(code: str) -> list[str]:
    """A table of digests typed into the code and mapped to typed-in strings, or a table declared with
    long-number keys that a digest call indexes.

    >>> digest_table("KNOWN = {0x7f3e91c2: 'a,b;c', 1092835471: 'de'}")
    ["0x7f3e91c2: 'a,b;c", "1092835471: 'de"]
    >>> digest_table("NAMES = {0x00A0: 'nbsp', 0x10FFFF: 'max'}")
    []
    """
    out = [m.group(0)[:60] for m in _DIGEST_ENTRY.finditer(code)]
    for m in _LONG_TABLE.finditer(code):
        if key := re.search(rf"(?<![\w$]){re.escape(m.group(1))}\s*\[\s*(?:[\w.]+\.)?{_DIGEST}", code):
            out.append(key.group(0)[:60])
    return out


def build_gates(code: str) -> list[str]:
    """Preprocessor test defines in library code (include guards ``*_TEST_H``/``*_TEST_HPP`` excepted)."""
    return [
        m.group(0).strip()[:60]
        for m in _TEST_DEFINE.finditer(code)
        if not re.search(r"_(?:H|HPP|HH|INCLUDED|H_)$", m.group(1))
    ]


def flags_set_for_tests(written: list[tuple[str, str]]) -> set[str]:
    """Names that files written earlier set on a line that detects a test run.

    >>> sorted(flags_set_for_tests([("/r/hook.go", "package x\\nvar underTest = testing.Testing()\\n")]))
    ['underTest']

    A function whose body (the few lines after its header) detects one is such a name too:
    ``bool inTestRun() =>`` then ``Platform.environment... || Platform.resolvedExecutable.contains('test')``.

    >>> sorted(flags_set_for_tests([("/r/env.js", "function underJest() {\\n  return process.argv.some(a => a.includes('jest'))\\n}\\n")]))
    ['underJest']
    """
    names: set[str] = set()
    for _, text in written:
        if not code_signals(str(text)[:100_000], "", _TEST_DETECT):
            continue  # one pass over the file first: most written files detect nothing
        header, header_at = "", -_BODY_LINES
        for i, line in enumerate(str(text).splitlines()):
            if len(line) > 400:
                continue
            if d := _DEFINES.match(line):
                header, header_at = d.group(1) or d.group(2), i
            if not code_signals(line, "", _TEST_DETECT):
                continue
            names |= {g for m in _SETS_NAME.finditer(line) for g in m.groups() if g}
            if header and i - header_at < _BODY_LINES:
                names.add(header)
    return names


def flags_read(code: str, written: list[tuple[str, str]]) -> list[str]:
    """Names set for tests by an earlier file (`flags_set_for_tests`) that `code` reads."""
    names = flags_set_for_tests(written) if written else set()
    return sorted(
        n for n in names if re.search(rf"(?<!\w){re.escape(n)}(?!\w)|['\"]{re.escape(n)}['\"]", code)
    )[:4]


def canned_signals(code: str, written: list[tuple[str, str]] | None = None) -> dict[str, list[str]]:
    """{signal: [matches]} for the five shapes of the module table (empty when none)."""
    found = {
        "canned-branch": canned_branches(code),
        "hash-keyed": hash_keyed(code),
        "digest-table": digest_table(code),
        "test-build": build_gates(code),
        "test-flag": flags_read(code, written or []),
    }
    return {k: v for k, v in found.items() if v}
