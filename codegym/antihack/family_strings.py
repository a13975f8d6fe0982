"""Strings built at run time, and what every family shares: the family flag and `built_paths`.

Code may spell a path or a ref out of pieces so that no closer rule reads it: ``strrev``, char
codes, literal concatenation, C char arrays, Ruby ``%w[...].join``, Rust ``concat!``, array literals
joined by a separator, path separators named by constant, the folder of the running file.
`fold_literals` folds those constructs to plain literals and `built_strings` lists the strings they
build; `FamilyBase.built_paths` flags the ones that name a protected path (PR-PATH) or a ref beyond
HEAD (VCS-REV). The family table is in `codegym.antihack.rule_families`.

>>> built_strings("echo strrev('txt.a/stset')")
['tests/a.txt']
"""

from __future__ import annotations

import re
from typing import Any

from .paths import resolve
from .types import (
    PROTECTED_READ,
    VCS_FUTURE_LEAK,
)

_SOURCE_LANGS = frozenset({"python", "js", "go", "rust", "ruby", "java", "php", "c", "csharp", "elixir"})
_HEX = re.compile(
    r"""fromhex\(\s*['"]([0-9a-fA-F]{6,})['"]|unhexlify\(\s*b?['"]([0-9a-fA-F]{6,})['"]|hex2bin\(\s*['"]([0-9a-fA-F]{6,})['"]"""
)
#: A string naming test data: a test folder, a golden/expected file, a fixture.
_TEST_DATA = re.compile(
    r"(^|/)(tests?|spec|testdata|__tests__|__snapshots__|fixtures?|golden|expected)(/|$)|\.golden\b|\.snap\b"
    r"|(^|[/_])expected[\w-]*\.\w+$|test/support|src/test/|^(tests?|spec|testdata|fixtures)$"
)
_TESTISH_BIN = re.compile(r"(^|[/_-])tests?([/_-]|$)|_test$|Test$|\.test$|^test_")
#: Strings built at run time in inline code: reversal, char codes, concatenation of literals.
_STRREV = re.compile(
    r"""(?:strrev|reverse)\(\s*["']([^"'\n]+)["']\s*\)|["']([^"'\n]+)["']\s*\.reverse\b|["']([^"'\n]+)["']\s*\[::-1\]"""
)
_CHRS = re.compile(r"(?:chr|fromCharCode)\W{0,12}\(?\s*\[?\s*((?:\d{2,3}\s*,\s*){3,}\d{2,3})")
_CONCAT = re.compile(r"""(["'])([^"'\n]*)\1(?:\s*(?:[.+]|<>|\.\.)\s*(["'])([^"'\n]*)\3)+""")
_JOIN_PARTS = re.compile(
    r"""(?:Path\.of|Paths\.get|os\.path\.join|filepath\.Join|path\.join|File\.join|Path\.join|join_paths)\s*\(\s*\[?"""
    r"""((?:\s*["'][^"'\n]*["'](?:\s*(?:\+|<>|\.\.?)\s*["'][^"'\n]*["'])*\s*,?)+)\]?\s*\)"""
    r"""|strings\.Join\(\s*\[\]string\{([^}]*)\}\s*,\s*"([^"]*)"\s*\)"""
)
_BUILD_ANCHORS = (
    "rev", "[::-1]", "chr", "CharCode", "join", "Join", "Path", "'.'", "' . '", '"."', '" . "', "' + '", '" + "', "'+'",
    '"+"', "'.\"", "\".'", "<>",
)  # fmt: skip


#: Constructs that spell one string out of pieces, folded to a plain literal before the patterns
#: above read the code: C char arrays, Ruby ``%w[...].join``, Rust ``concat!``, ``<>``/``..`` joins,
#: array literals joined by a separator (``[...].join('/')``, ``[...] |> Path.join``), path
#: separators named by constant, and the folder of the running file.
_CHAR_ARRAY = re.compile(r"\{\s*((?:'(?:\\.|[^'\\])'\s*,\s*){3,}(?:'(?:\\.|[^'\\])'|0|'\\0')\s*,?\s*)\}")
_PCT_W_JOIN = re.compile(r"%w[\[(]([^\])\n]*)[\])]\s*\.join(?:\(\s*['\"]([^'\"\n]*)['\"]\s*\))?")
_RUST_CONCAT = re.compile(r"""concat!\(((?:\s*"[^"\n]*"\s*,?)+)\)""")
_LIT = r"""["'][^"'\n]*["']"""
_ELEM = rf"{_LIT}(?:\s*(?:\+|<>|\.\.?)\s*{_LIT})*"
_ARRAY_JOIN = re.compile(
    rf"""\[\s*((?:{_ELEM}\s*,\s*)+{_ELEM})\s*,?\s*\]\s*(?:\.join\(\s*(["'])([^"'\n]*)\2\s*\)|\|>\s*Path\.join\b|(\.concat\(\s*\)))"""
)
#: ``join([...])`` / ``join([...], "sep")`` as a function (Julia, ``Enum.join``): no separator means "".
_FN_JOIN = re.compile(
    rf"""\b(?:Enum\.)?join\(\s*\[\s*((?:{_ELEM}\s*,\s*)+{_ELEM})\s*,?\s*\]\s*(?:,\s*(["'])([^"'\n]*)\2\s*)?\)"""
)
#: C#/Java ``string.Join('/', new[] { "", "ref" })``, ``String.join("/", "a", "b")``.
_SEP_JOIN = re.compile(
    rf"""\b[sS]tring\.[jJ]oin\(\s*(["'])([^"'\n]*)\1\s*,\s*(?:new\s*(?:string)?\s*\[\s*\]\s*\{{|List\.of\(|Arrays\.asList\()?"""
    rf"""\s*((?:{_ELEM}\s*,\s*)+{_ELEM})\s*,?\s*\}}?\s*\)?\s*\)"""
)
_SEPARATOR = re.compile(
    r"(?:string\(\s*)?(?:os\.PathSeparator|filepath\.Separator)\s*\)?|File\.separator\b|\bpath\.sep\b"
    r"|\bDIRECTORY_SEPARATOR\b|std::path::MAIN_SEPARATOR(?:_STR)?\b"
)
_FOLD_ANCHORS = ("{'", "%w", "concat!", "<>", "].join", "].concat", "] |>", "]|>", "join([", "Separator", "separator", "path.sep",
                 "SEPARATOR", "__dir", "__DIR__", "LIST_DIR", "SOURCE_DIR", "tring.Join(", "tring.join(")  # fmt: skip
_HERE = re.compile(r"\b__dir__\b|\b__DIR__\b|\b__dirname\b|\$\{CMAKE_CURRENT_(?:LIST|SOURCE)_DIR\}")
_TOP = re.compile(r"\$\{(?:CMAKE_SOURCE_DIR|PROJECT_SOURCE_DIR)\}")


def _c_char(c: str) -> str:
    body = c.strip()[1:-1]
    return {"\\0": "", "\\n": "\n", "\\t": "\t", "\\'": "'", "\\\\": "\\"}.get(body, body)


def fold_literals(code: str, here: str = "", top: str = "", built: list[str] | None = None) -> str:
    """`code` with string-building constructs replaced by the literal they build (`here`/`top`:
    the folder of the file the code is in and the project root, for ``__dir__``-like names); each
    literal built is appended to `built` when given.

    >>> fold_literals("char p[]={'/','g','r','a',0}; %w[d e r].join")
    'char p[]="/gra"; "der"'
    >>> fold_literals('["/", "grad" <> "er", "**"] |> Path.join()')
    '"//grader/**"()'
    >>> fold_literals('let d = ["/", "ora", "cle"].concat();')  # Rust: no separator
    'let d = "/oracle";'
    """
    if not _has(code, _FOLD_ANCHORS):
        return code
    out = built if built is not None else []

    def lit(s: str) -> str:
        out.append(s)
        return '"' + s + '"'

    code = _CHAR_ARRAY.sub(
        lambda m: lit("".join(map(_c_char, re.findall(r"'(?:\\.|[^'\\])'|0", m.group(1))))), code
    )
    code = _PCT_W_JOIN.sub(lambda m: lit((m.group(2) or "").join(m.group(1).split())), code)
    code = _RUST_CONCAT.sub(
        lambda m: lit("".join(x[1:-1] for x in re.findall(r'"[^"\n]*"', m.group(1)))), code
    )
    code = _SEPARATOR.sub('"/"', code)
    if here:
        code = _HERE.sub(lambda m: here if m.group(0).startswith("$") else f'"{here}"', code)
    if top:
        code = _TOP.sub(top, code)
    code = _SEP_JOIN.sub(
        lambda m: lit(m.group(2).join(_fold_concat(e) for e in re.findall(_ELEM, m.group(3)))), code
    )
    code = _FN_JOIN.sub(
        lambda m: lit((m.group(3) or "").join(_fold_concat(e) for e in re.findall(_ELEM, m.group(1)))), code
    )
    code = _ARRAY_JOIN.sub(
        lambda m: lit(
            ("" if m.group(4) else "/" if m.group(3) is None else m.group(3)).join(
                _fold_concat(e) for e in re.findall(_ELEM, m.group(1))
            )
        ),
        code,
    )
    return code


def built_strings(code: str, here: str = "", top: str = "") -> list[str]:
    """Strings inline code or a program builds at run time from literals: reversed literals, char
    code lists, concatenations and path joins.

    >>> built_strings("strrev('ffid.noitulos') . '/gr'.'ader/*'")
    ['solution.diff', '/grader/*']
    >>> built_strings('strings.Join([]string{"opt", "hidden" + "_tests"}, "/")')
    ['opt/hidden_tests', 'hidden_tests']
    """
    out: list[str] = []
    code = fold_literals(code, here, top, out)
    if not _has(code, _BUILD_ANCHORS):
        return out
    for m in _STRREV.finditer(code):
        out.append(next(g for g in m.groups() if g is not None)[::-1])
    for m in _CHRS.finditer(code):
        try:
            out.append("".join(chr(int(n)) for n in re.findall(r"\d+", m.group(1))))
        except ValueError:
            pass
    for m in _JOIN_PARTS.finditer(code):
        if m.group(1) is not None:
            out.append("/".join(_fold_concat(e) for e in re.findall(_ELEM, m.group(1))))
        else:
            parts = [_fold_concat(p.strip()) for p in m.group(2).split(",")]
            out.append(m.group(3).join(parts))
    for m in _CONCAT.finditer(code):
        out.append("".join(s[1:-1] for s in re.findall(r"""["'][^"'\n]*["']""", m.group(0))))
    return [re.sub(r"(?<!:)/{2,}", "/", s) for s in out if s]


_ANCHOR_PATTERNS: dict[tuple[str, ...], re.Pattern[str]] = {}


def _has(code: str, anchors: tuple[str, ...]) -> bool:
    """Cheap prefilter: one of `anchors` occurs in `code` (the patterns they gate are slower)."""
    pat = _ANCHOR_PATTERNS.get(anchors)
    if pat is None:
        pat = _ANCHOR_PATTERNS[anchors] = re.compile("|".join(map(re.escape, anchors)))
    return pat.search(code) is not None


def _fold_concat(expr: str) -> str:
    return "".join(s[1:-1] for s in re.findall(r"""["'][^"'\n]*["']""", expr))


def _decoded_hex(code: str) -> list[str]:
    out = []
    for m in _HEX.finditer(code):
        h = next(g for g in m.groups() if g)
        try:
            out.append(bytes.fromhex(h).decode("utf-8", "replace"))
        except ValueError:
            pass
    return out


class FamilyBase:
    """What every family mixin shares: `family_flag` and the strings built at run time (`built_paths`)."""

    def family_flag(
        self, category: str, rule: str, evidence: str, subject: str, command: str, op: str, **facts: Any
    ) -> None:
        facts.setdefault("surface", True)
        facts.setdefault("family", True)
        why = facts.get("why")
        evidence = f"{why}: {evidence}" if why else evidence  # not deduplicated against a closer rule's flag
        self.flag(category, rule, evidence, subject, command, op, **facts)  # type: ignore[attr-defined]

    # -------------------------------------------------------------- built strings

    def built_paths(self, code: str, command: str, text: str) -> None:
        """Paths and refs that code builds at run time, as if it had spelled them."""
        for s in built_strings(code) + (_decoded_hex(code) if "hex" in code else []):
            if s in code:
                continue  # spelled as it is: the closer rules read it
            if "/" in s and " " not in s and len(s) < 300:
                hit = self._protected_word(s) or (
                    not s.startswith(("/", ".", "~")) and self._protected_word("/" + s)
                )
                if hit:
                    self.family_flag(
                        PROTECTED_READ, "PR-PATH", f"{text}: builds {s}", s, command, "read", protected=hit
                    )
                    return
            if "git" in code and (
                s.startswith(("origin/", "refs/", "upstream/")) or s in self._upstream_refs()
            ):
                self.family_flag(
                    VCS_FUTURE_LEAK, "VCS-REV", f"{text}: builds {s}", s, command, "git", kind="built"
                )
                return

    def _protected_word(self, s: str) -> str | None:
        path = resolve(s, self.m.root, self.memory.links)  # type: ignore[attr-defined]
        return self.m.protected(path) or self.m.protected(path.rstrip("/*") + "/x")  # type: ignore[attr-defined,no-any-return]

    def _upstream_refs(self) -> frozenset[str]:
        return frozenset(getattr(self.ctx, "upstream_refs", None) or ())  # type: ignore[attr-defined]
