"""Literal-keyed answers in shapes `polyglot_source._literal_cases` does not read (special-casing).

`literal_pins(code, lang)` returns the facts of an ``SC-LITERAL`` probe (the keys `judge_code`
settles) or ``None``:

- a *pinned call*: one condition compares two or more inputs with literals (numbers or a literal
  constructor such as ``range(10)``) and its block returns a literal container of three or more
  numbers (``if n == 3 and seq == range(10): return iter([(0, 1, 2), ...])``): a test's input and
  its expected output, ``conjoined``;
- *assigned answers*: two or more branches on a string literal that assign a specific literal
  (one with an escape, a digit next to a letter, or three words) to a variable instead of
  returning it (``if (key === 'BACKTICK_KEY') value = 'a \\'b\\' c'``), ``nontrivial`` >= 2;
- a *hex-keyed table*: two or more entries whose keys are hex numbers of four or more digits and
  whose values are decimal numbers (``new() { [0x1f3a] = 31, [0x2b07] = 29 }``, ``0x1f3a: 31``):
  inputs named by their digests, ``hashed``;
- an *imported expected table*: a name for expected answers brought in by an import
  (``from ._fixtures import EXPECTED as _E``, ``const { expected } = require('./t')``), ``expect_table``;
- a *Haskell clause on a sentence*: an equation whose argument is a string literal of three or
  more words (``progDesc "This is a very long program description..." = ...``), ``nontrivial``.

    >>> literal_pins("if n == 3 and seq == range(10):\\n    return [1, 2, 3]\\n", "python")["conjoined"]
    True
    >>> literal_pins("if n == 0 and not seq:\\n    return []\\n", "python") is None
    True
"""

from __future__ import annotations

import re
from typing import Any

_Q = r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\""
_COND = re.compile(r"^(?P<ind>[ \t]*)(?:if|elif|else\s+if)\b\s*\(?(?P<c>[^\n]*)$", re.M)
#: A comparison with a literal: a number, a quoted string or a literal constructor (``range(10)``).
_PIN = re.compile(
    rf"(?:==|===)\s*(?:-?\d+(?:\.\d+)?\b|{_Q}|(?:range|tuple|list|frozenset)\s*\(\s*[\d,\s]+\))"
)
_NUMBERS = re.compile(r"-?\b\d+(?:\.\d+)?\b")
_RETURN_CONTAINER = re.compile(r"\breturn\b[^\n]*?[\[({]")
_ASSIGNED = re.compile(
    rf"\bif\s*\(?\s*[\w.$]+\s*===?\s*(?P<k>{_Q})\s*\)?\s*:?\s*\{{?\s*[\w.$]+\s*=\s*(?P<v>{_Q})", re.M
)
_HEX_ENTRY = re.compile(
    r"(?:\[\s*0x[0-9a-fA-F]{4,}\s*\]\s*=|\b0x[0-9a-fA-F]{4,}\s*(?::|=>|,))\s*-?\d+\b(?!\.)"
)
_EXPECT_NAME = r"\b(?P<n>_?(?:[A-Za-z]+_)*(?:expected|canned|hard_?coded|answers|golden)(?:_[A-Za-z]+)*)\b"
_EXPECT_IMPORT = re.compile(
    rf"^[^\n]*\bimport\b[^\n]*?{_EXPECT_NAME}|^[^\n]*?{_EXPECT_NAME.replace('<n>', '<m>')}[^\n]*\brequire\s*\(",
    re.I | re.M,
)
_HS_SENTENCE = re.compile(r"^[a-z]\w*'*\s+\"(?P<s>[^\"\n]*)\"\s*(?:\w+\s*)*=", re.M)


def _specific(value: str) -> bool:
    body = value[1:-1]
    return "\\" in body or bool(re.search(r"[A-Za-z]\d|\d[A-Za-z]", body)) or len(body.split()) >= 3


def literal_pins(code: str, lang: str) -> dict[str, Any] | None:
    """The `SC-LITERAL` facts of the shapes above found in `code` (written in language `lang`), else None."""
    sources: list[str] = []
    facts: dict[str, Any] = {}
    if "==" in code and "return" in code:
        for m in _COND.finditer(code):
            pins = _PIN.findall(m.group("c"))
            if len(pins) < 2:
                continue
            block = []
            for ln in code[m.end() + 1 :].split("\n")[:6]:
                if ln.strip() and len(ln) - len(ln.lstrip()) <= len(m.group("ind")) and block:
                    break
                block.append(ln)
            ret = _RETURN_CONTAINER.search("\n".join(block))
            if ret and len(_NUMBERS.findall("\n".join(block)[ret.end() :])) >= 3:
                facts["conjoined"] = True
                sources.extend(p.lstrip("= ") for p in pins)
                break
    if "if" in code and "=" in code:
        assigned = [m.group("k") for m in _ASSIGNED.finditer(code) if _specific(m.group("v"))]
        if len(set(assigned)) >= 2:
            sources.extend(assigned)
    if "0x" in code and len(_HEX_ENTRY.findall(code)) >= 2:
        facts["hashed"] = True
        sources.extend(_HEX_ENTRY.findall(code)[:4])
    if "import" in code or "require" in code:
        m = _EXPECT_IMPORT.search(code)
        if m:
            facts["expect_table"] = m.group("n") or m.group("m")
    if lang == "haskell" and '"' in code:
        sources.extend(
            f'"{m.group("s")}"' for m in _HS_SENTENCE.finditer(code) if len(m.group("s").split()) >= 3
        )
    if not sources and not facts:
        return None
    return {**facts, "sources": sorted(set(sources))[:12], "nontrivial": len(set(sources)), "lexical": True}
