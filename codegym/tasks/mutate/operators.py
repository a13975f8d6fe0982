"""Small AST mutations of Python source, each a one-line change a test suite should notice.

Every operator finds its sites with `ast` and rewrites one source segment in place, so a
mutant differs from the original in exactly one line (nodes that span lines are skipped) and
the rest of the file, comments and formatting included, is untouched:

| operator | change |
| --- | --- |
| `flip_comparison` | `<` <-> `<=`, `>` <-> `>=`, `==` <-> `!=`, `is` <-> `is not`, `in` <-> `not in` |
| `off_by_one` | an integer literal `n` (not a bool) becomes `n + 1`, or `n - 1` when `n > 0` (seeded choice) |
| `wrong_constant` | `True` <-> `False`, `None` -> `0`, a short non-empty string literal -> `""` |
| `swap_arithmetic` | `+` <-> `-`, `*` -> `//`, `//` -> `*`, `%` -> `//` in a binary operation |
| `boolean_operator` | `and` <-> `or` |
| `invert_condition` | the test of an `if`, `elif`, `while` or conditional expression `c` -> `not (c)` (`not c` -> `c`) |
| `drop_statement` | a one-line expression, assignment, augmented assignment, `raise` or `del` -> `pass` |
| `swap_arguments` | the first two positional arguments of a call, `f(a, b)` -> `f(b, a)` |

    sites = find_sites("pkg/core.py", source)            # every place any operator applies
    mutation = sites[0].mutation(source, rng)             # a `Mutation`: path, line, before, after
    mutated = mutation.apply(source)                      # the source with that one line changed
"""

from __future__ import annotations

import ast
import random
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass

OPERATORS = (
    "flip_comparison",
    "off_by_one",
    "wrong_constant",
    "swap_arithmetic",
    "boolean_operator",
    "invert_condition",
    "drop_statement",
    "swap_arguments",
)

_FLIP = {
    ast.Lt: "<=",
    ast.LtE: "<",
    ast.Gt: ">=",
    ast.GtE: ">",
    ast.Eq: "!=",
    ast.NotEq: "==",
    ast.Is: "is not",
    ast.IsNot: "is",
    ast.In: "not in",
    ast.NotIn: "in",
}
_SYMBOL = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.FloorDiv: "//",
    ast.Mod: "%",
}
_ARITH = {ast.Add: "-", ast.Sub: "+", ast.Mult: "//", ast.FloorDiv: "*", ast.Mod: "//"}
_DROPPABLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Raise, ast.Delete)


class MutationError(ValueError):
    """A mutation that does not apply to the source it is given."""


@dataclass(frozen=True)
class Mutation:
    """One applied mutation: line `line` (1-based) of `path` reads `after` instead of `before`
    (whole lines, without the newline). `col` is where the changed segment starts."""

    path: str
    operator: str
    line: int
    col: int
    before: str
    after: str

    def apply(self, source: str) -> str:
        """`source` with the mutation applied; raises `MutationError` when line `line` is not `before`."""
        lines = source.splitlines(keepends=True)
        if not 0 < self.line <= len(lines) or lines[self.line - 1].rstrip("\r\n") != self.before:
            raise MutationError(
                f"{self.path}:{self.line}: the line is not {self.before!r}; the source changed"
            )
        old = lines[self.line - 1]
        lines[self.line - 1] = self.after + old[len(old.rstrip("\r\n")) :]
        return "".join(lines)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Mutation:
        return cls(**{k: data[k] for k in ("path", "operator", "line", "col", "before", "after")})


@dataclass(frozen=True)
class Site:
    """A place one operator applies: a one-line segment [col, end_col) of line `line` and a function
    that gives its replacement text (some operators choose with the seeded `rng`)."""

    path: str
    operator: str
    line: int
    col: int
    end_col: int
    replace: Callable[[str, random.Random], str | None]

    def mutation(self, source: str, rng: random.Random) -> Mutation | None:
        """The mutation at this site, or None when it would not change the line or not parse."""
        lines = source.splitlines()
        before = lines[self.line - 1]
        segment = _segment(before, self.col, self.end_col)
        new = self.replace(segment, rng)
        if new is None or new == segment:
            return None
        after = _splice(before, self.col, self.end_col, new)
        mutation = Mutation(self.path, self.operator, self.line, _char_col(before, self.col), before, after)
        try:
            ast.parse(mutation.apply(source))
        except SyntaxError:
            return None
        return mutation


# ast's columns are UTF-8 byte offsets; lines are sliced by bytes and decoded back.
def _segment(line: str, col: int, end_col: int) -> str:
    return line.encode()[col:end_col].decode()


def _splice(line: str, col: int, end_col: int, new: str) -> str:
    raw = line.encode()
    return (raw[:col] + new.encode() + raw[end_col:]).decode()


def _char_col(line: str, col: int) -> int:
    return len(line.encode()[:col].decode())


def _one_line(node: ast.AST) -> bool:
    return getattr(node, "lineno", None) is not None and node.lineno == node.end_lineno


def _gap(left: ast.AST, right: ast.AST) -> tuple[int, int, int] | None:
    """(line, col, end_col) of the text between two nodes on one line (an operator's place)."""
    if left.end_lineno != right.lineno or not (_one_line(left) and _one_line(right)):
        return None
    return left.end_lineno, left.end_col_offset, right.col_offset


def _swap_word(old: str, new: str) -> Callable[[str, random.Random], str | None]:
    def replace(text: str, rng: random.Random) -> str | None:
        import re

        pattern = r"\bnot\s+in\b" if old == "not in" else r"\bis\s+not\b" if old == "is not" else None
        if pattern is None:
            pattern = re.escape(old) if not old.isalpha() else rf"\b{old}\b"
        # `<` must not match inside `<=` or `<<`: the gap holds only whitespace, brackets and the operator
        found = list(re.finditer(pattern, text))
        if len(found) != 1:
            return None
        m = found[0]
        rest = text[: m.start()] + text[m.end() :]
        if any(c not in " \t()" for c in rest):
            return None
        return text[: m.start()] + new + text[m.end() :]

    return replace


def _sites_in(path: str, tree: ast.AST) -> Iterator[Site]:
    docstrings = {
        id(node.body[0])
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
        and isinstance(node.body[0].value.value, str)
    }
    in_fstring = {id(c) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for c in ast.walk(node)}
    # `x is None` -> `x is 0` is a SyntaxWarning, not a bug a test would describe
    identity_operands = {
        id(c)
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare) and any(isinstance(op, ast.Is | ast.IsNot) for op in node.ops)
        for c in [node.left, *node.comparators]
    }
    for node in ast.walk(tree):
        if id(node) in in_fstring:
            continue
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for op, left, right in zip(node.ops, operands, operands[1:], strict=False):
                gap = _gap(left, right)
                if gap and type(op) in _FLIP:
                    yield Site(
                        path,
                        "flip_comparison",
                        gap[0],
                        gap[1],
                        gap[2],
                        _swap_word(_SYMBOL[type(op)], _FLIP[type(op)]),
                    )
        elif isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
            gap = _gap(node.left, node.right)
            if gap:
                yield Site(
                    path,
                    "swap_arithmetic",
                    gap[0],
                    gap[1],
                    gap[2],
                    _swap_word(_SYMBOL[type(node.op)], _ARITH[type(node.op)]),
                )
        elif isinstance(node, ast.BoolOp):
            word, other = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
            for left, right in zip(node.values, node.values[1:], strict=False):
                gap = _gap(left, right)
                if gap:
                    yield Site(path, "boolean_operator", gap[0], gap[1], gap[2], _swap_word(word, other))
        elif (
            isinstance(node, ast.Constant)
            and _one_line(node)
            and id(node) not in docstrings
            and id(node) not in identity_operands
        ):
            yield from _constant_sites(path, node)
        if isinstance(node, ast.If | ast.While | ast.IfExp) and _one_line(node.test):
            yield Site(
                path,
                "invert_condition",
                node.test.lineno,
                node.test.col_offset,
                node.test.end_col_offset,
                _invert,
            )
        if isinstance(node, _DROPPABLE) and _one_line(node) and id(node) not in docstrings:
            yield Site(
                path,
                "drop_statement",
                node.lineno,
                node.col_offset,
                node.end_col_offset,
                lambda text, rng: "pass",
            )
        if (
            isinstance(node, ast.Call)
            and len(node.args) >= 2
            and not any(isinstance(a, ast.Starred) for a in node.args[:2])
        ):
            a, b = node.args[0], node.args[1]
            if _one_line(a) and _one_line(b) and a.lineno == b.lineno:
                yield Site(
                    path,
                    "swap_arguments",
                    a.lineno,
                    a.col_offset,
                    b.end_col_offset,
                    _swapper(a.end_col_offset - a.col_offset, b.col_offset - a.col_offset),
                )


def _constant_sites(path: str, node: ast.Constant) -> Iterator[Site]:
    value = node.value
    span = (node.lineno, node.col_offset, node.end_col_offset)
    if isinstance(value, bool):
        yield Site(
            path, "wrong_constant", *span, lambda text, rng: {"True": "False", "False": "True"}.get(text)
        )
    elif value is None:
        yield Site(path, "wrong_constant", *span, lambda text, rng: "0" if text == "None" else None)
    elif isinstance(value, int):

        def bump(text: str, rng: random.Random, n: int = value) -> str | None:
            if not text.isdigit():  # hex, octal, underscores: written differently, left alone
                return None
            return str(n - 1) if n > 0 and rng.random() < 0.5 else str(n + 1)

        yield Site(path, "off_by_one", *span, bump)
    elif isinstance(value, str) and 0 < len(value) <= 3:
        yield Site(
            path,
            "wrong_constant",
            *span,
            lambda text, rng: '""' if text[:1] in "'\"" and text[-1:] == text[:1] else None,
        )


def _invert(text: str, rng: random.Random) -> str:
    try:
        expr = ast.parse(text, mode="eval").body
    except SyntaxError:
        return f"not ({text})"
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        inner = text[text.index("not") + 3 :].strip()
        return inner
    return f"not ({text})"


def _swapper(len_a: int, start_b: int) -> Callable[[str, random.Random], str | None]:
    def replace(text: str, rng: random.Random) -> str | None:
        raw = text.encode()
        a, between, b = raw[:len_a], raw[len_a:start_b], raw[start_b:]
        if a == b:
            return None
        return (b + between + a).decode()

    return replace


def find_sites(path: str, source: str) -> list[Site]:
    """Every site of every operator in one module, in source order (line, column, operator)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    main_guard = set()
    for node in tree.body:  # `if __name__ == "__main__":` blocks run no test
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            main_guard.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    sites = [s for s in _sites_in(path, tree) if s.line not in main_guard]
    return sorted(sites, key=lambda s: (s.line, s.col, OPERATORS.index(s.operator), s.end_col))
