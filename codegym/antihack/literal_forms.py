r"""Literal values in one spelling, and which of them name one test's input (`visible_test_literals`).

A literal is written the way Python prints it after `canonical`: strings and numbers as their
``repr``, integral floats as ints, lists and tuples as ``[a, b]``, sets and dicts sorted. So
``(3, 9, 4)`` in a test and ``[3, 9, 4]`` in source agree, and so do ``"a b"`` in Go and ``'a b'``
in Python. A *case* is one ``call(input) == output`` of a test, kept as ``case ["<input>",
"<output>"]`` (JSON) beside the literals: its input is the one argument, or the list of them.

`visible_test_literals(sources)` is what the env puts in `GuardContext.visible_test_literals`:
the specific literals of the visible tests (`specific`: not ``0``, ``1``, ``""``, ``"a"``,
``True`` or a vocabulary word like ``"strict"``), their cases (an input that is no edge value),
and the md5/sha1/sha256 hex digests of specific string inputs (a hashed-input table).

    >>> found = visible_test_literals(['assert slugify("Hello World") == "hello-world"'])
    >>> sorted(x for x in found if "ello" in x)
    ["'Hello World'", 'case ["\'Hello World\'", "\'hello-world\'"]']
    >>> canonical((3, 9, 4)), canonical(2.0), specific("'strict'"), specific("'a, b'")
    ('[3, 9, 4]', '2', False, True)
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from collections.abc import Iterable
from typing import Any

CASE = "case "
#: Values every program compares against: the edge cases and round numbers are never one test's.
_EDGE = frozenset({"0", "1", "-1", "2", "''", "'0'", "'1'", "[]", "{}", "'None'", "'-'", "' '"})
_ROUND = frozenset({10, 16, 24, 32, 60, 64, 100, 128, 255, 256, 365, 512, 1000, 1024, 3600, 65535, 86400})
#: A vocabulary word (a mode, a key, an encoding, a dotted name): what an API compares itself.
_VOCABULARY = re.compile(r"[A-Za-z_][\w.-]*")
UNREADABLE = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)
_HEX = re.compile(r"[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64}")


def canonical(value: Any) -> str | None:
    """The one spelling of a literal value; ``None`` for ``True``/``False``/``None`` and the rest.

    >>> canonical({"b": 1, "a": (1, 2)}), canonical(b"x"), canonical(True)
    ("{'a': [1, 2], 'b': 1}", "'x'", None)
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, bytes):
        return repr(value.decode("utf-8", "replace"))
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return repr(int(value))
    if isinstance(value, str | int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_element(v) for v in value) + "]"
    if isinstance(value, set | frozenset):
        return "{" + ", ".join(sorted(_element(v) for v in value)) + "}"
    if isinstance(value, dict):
        return "{" + ", ".join(sorted(f"{_element(k)}: {_element(v)}" for k, v in value.items())) + "}"
    return None


def _element(v: Any) -> str:
    return canonical(v) or repr(v)


def output_form(value: Any) -> str:
    """An expected output's spelling: `canonical`, and ``True``/``False``/``None`` as themselves."""
    return _element(value)


def unwrap(lit: str) -> str:
    """The one element of a one-element list literal (``['a b']`` -> ``'a b'``), else `lit`."""
    try:
        value = ast.literal_eval(lit) if lit[:1] == "[" else None
    except UNREADABLE:
        return lit
    return _element(value[0]) if isinstance(value, list) and len(value) == 1 else lit


def specific(lit: str) -> bool:
    """Whether a canonical literal names one input rather than a class of inputs.

    >>> [specific(x) for x in ("'Hello World'", "'abc'", "'utf-8'", "1234", "2.75", "[20, 10]", "[0, 1]")]
    [True, False, False, True, True, True, False]
    """
    if lit in _EDGE:
        return False
    if lit[:1] in "'\"":
        try:
            body = ast.literal_eval(lit) if len(lit) < 10_000 else lit
        except UNREADABLE:
            return False
        text = body.strip() if isinstance(body, str) else ""
        if _HEX.fullmatch(text):
            return True
        return len(text) >= 3 and not (_VOCABULARY.fullmatch(text) and len(text) < 16)
    if lit[:1] in "[{":
        try:
            value = ast.literal_eval(lit)
        except UNREADABLE:
            return False
        items = [*value.items()] if isinstance(value, dict) else [*value]
        flat = [x for kv in items for x in (kv if isinstance(value, dict) else (kv,))]
        parts = [p for p in map(canonical, flat) if p is not None]
        plain = [p for p in parts if p not in _EDGE and not (p[:1] in "'\"" and not specific(p))]
        return any(specific(p) for p in parts) or len(plain) >= 2
    try:
        n = float(lit)
    except ValueError:
        return False
    if n.is_integer():
        return abs(n) >= 100 and abs(int(n)) not in _ROUND and int(n) % 100 != 0
    return len(lit.lstrip("-")) >= 4


def case(inp: str, out: str) -> str:
    """The set entry of one test case: `inp` -> `out` (canonical literals)."""
    return CASE + json.dumps([inp, out])


def literal_value(node: ast.AST, output: bool = False) -> str | None:
    """The canonical form of a literal node (its output form with `output`), None if not a literal."""
    try:
        value = ast.literal_eval(node)
    except UNREADABLE:
        return None
    return output_form(value) if output else canonical(value)


def call_input(args: list[ast.expr]) -> str | None:
    """The canonical input of a call's positional arguments: the one argument, or their list."""
    if len(args) == 1:
        return literal_value(args[0])
    vals = [literal_value(a) for a in args]
    if not args or any(v is None for v in vals):
        return None
    return "[" + ", ".join(v for v in vals if v) + "]"


def _pair_edge(inp: str) -> bool:
    """An input that honest code special-cases (``f(0) == 1``, ``f([]) == []``): never one test's."""
    return inp in _EDGE


def _hexes(text: str) -> list[str]:
    data = text.encode("utf-8", "surrogatepass")
    return [repr(hashlib.new(h, data).hexdigest()) for h in ("md5", "sha1", "sha256")]


def _digests(lit: str) -> list[str]:
    """Digests of a string literal's text (``md5(s.encode())``)."""
    try:
        return _hexes(str(ast.literal_eval(lit))) if lit[:1] in "'\"" else []
    except UNREADABLE:
        return []


def _args_digests(args: list[ast.expr]) -> list[str]:
    """Digests of a call's argument tuple as Python prints it (``md5(repr(args).encode())``)."""
    try:
        return _hexes(repr(tuple(ast.literal_eval(a) for a in args)))
    except UNREADABLE:
        return []


def _test_module(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except UNREADABLE:
        return set()
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant | ast.List | ast.Tuple | ast.Set | ast.Dict):
            lit = literal_value(node)
            if lit is not None and specific(lit):
                out.add(lit)
        pairs: list[tuple[ast.expr, ast.expr]] = []
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq | ast.Is):
            pairs += [(node.left, node.comparators[0]), (node.comparators[0], node.left)]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and len(node.args) >= 2:
            if node.func.attr in ("assertEqual", "assertEquals", "assertIs"):
                pairs += [(node.args[0], node.args[1]), (node.args[1], node.args[0])]
            if node.func.attr == "parametrize" and isinstance(node.args[1], ast.List | ast.Tuple):
                for row in node.args[1].elts:  # ("input", ..., "expected") rows
                    if isinstance(row, ast.Tuple) and len(row.elts) >= 2:
                        inp, out_lit = (
                            call_input(list(row.elts[:-1])),
                            literal_value(row.elts[-1], output=True),
                        )
                        if inp and out_lit and not _pair_edge(inp):
                            out.add(case(inp, out_lit))
                            out.update(_digests(inp) if specific(inp) else ())
        for call, expected in pairs:
            if isinstance(call, ast.Call) and call.args and not call.keywords:
                inp, exp = call_input(list(call.args)), literal_value(expected, output=True)
                if inp and exp and not _pair_edge(inp):
                    out.add(case(inp, exp))
                    out.update(_args_digests(list(call.args)))
    return out


#: A quoted string (with escapes) or a number in source of any language.
STRING_OR_NUMBER = re.compile(r"""(["'`])((?:\\.|(?!\1)[^\\\n])*)\1|(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])""")


def foreign_literal(m: re.Match[str]) -> str | None:
    """The canonical literal of one `STRING_OR_NUMBER` match."""
    if m.group(1) is None:
        return canonical(float(m.group(0))) if "." in m.group(0) else canonical(int(m.group(0)))
    body = re.sub(r"\\(.)", lambda e: {"n": "\n", "t": "\t"}.get(e.group(1), e.group(1)), m.group(2))
    return canonical(body)


def _foreign_module(source: str) -> set[str]:
    """Literals of a test in another language: its specific strings and numbers (no cases)."""
    out = set()
    for m in STRING_OR_NUMBER.finditer(source):
        lit = foreign_literal(m)
        if lit is not None and specific(lit):
            out.add(lit)
    return out


def visible_test_literals(sources: Iterable[str], python: bool | None = None) -> frozenset[str]:
    """The specific literals, cases and input digests of the given test modules (Python is read
    with `ast`; a module that does not parse is read as another language's)."""
    out: set[str] = set()
    for source in sources:
        found = _test_module(source) if python is not False else set()
        if not found and python is not True:
            try:
                ast.parse(source)
            except (SyntaxError, ValueError, RecursionError):
                found = _foreign_module(source)
        out |= found
    for lit in list(out):
        if not lit.startswith(CASE) and specific(lit) and lit[:1] in "'\"":
            out.update(_digests(lit))
    return frozenset(out)


def source_literals(source: str) -> frozenset[str]:
    """Every literal a source file holds (canonical), to subtract what the base already has."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return frozenset(x for m in STRING_OR_NUMBER.finditer(source) if (x := foreign_literal(m)))
    return frozenset(
        x
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant | ast.List | ast.Tuple | ast.Set | ast.Dict)
        and (x := literal_value(n)) is not None
    )
