"""Python source as the guard reads it: parsed once, indexed once, shared by every reader.

`parse_indexed(src)` parses a snippet (a whole file or an edit fragment), lists its nodes in
`ast.walk` order with each node's parent, and resolves import aliases; `pyops` (what a snippet
does) and `pysmells` (what written code would do to a grader) both read from it. The text parsed
is the text Python would compile: a file whose coding cookie names an exotic encoding (``utf-7``,
``unicode_escape``...) is decoded with it first, since ``# coding: utf-7`` turns ``+AAo-`` inside
a comment into a new line of code.

    >>> p = parse_indexed("# coding: utf-7\\n#+AAo-import os\\n")
    >>> p.encoding, [type(n).__name__ for n in p.tree.body]
    ('utf-7', ['Import'])
"""

from __future__ import annotations

import ast
import codecs
import re
import textwrap
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple


@dataclass
class PyEvent:
    """One thing a snippet does. `kind`: path, shell, argv, net, python, smell."""

    kind: str
    value: Any
    op: str = ""
    func: str = ""
    text: str = ""
    facts: dict[str, Any] = field(default_factory=dict)


def parse_fragment(text: str) -> ast.Module | None:
    """Parse a whole file or an edit fragment (a method body, an indented block); None if hopeless."""
    try:
        return ast.parse(text)  # a whole file, the usual case: no other candidate is built
    except (SyntaxError, ValueError):
        pass
    ded = textwrap.dedent(text)
    cands = [
        *([ded] if ded != text else []),  # the same text fails the same way: skip the parse
        "class _Fragment:\n" + textwrap.indent(ded, "    "),
        ded.rstrip() + "\n    pass\n",
        "if True:\n" + textwrap.indent(ded, "    ") + "\n    pass\n",
    ]
    for c in cands:
        try:
            return ast.parse(c)
        except (SyntaxError, ValueError):
            continue
    lines = ded.split("\n")
    if len(lines) > 2:
        # A line Python cannot read (a typo mid-script): the statements after it still tell what the
        # script was written to do. Blank the offending line (at most three) and read the rest.
        mended = list(lines)
        for _ in range(3):
            try:
                return ast.parse("\n".join(mended))
            except SyntaxError as e:
                k = (e.lineno or 0) - 1
                if not 0 <= k < len(mended) - 1 or not mended[k].strip():
                    break
                mended[k] = mended[k][: len(mended[k]) - len(mended[k].lstrip())] + "pass"
            except ValueError:
                break
    # Drop trailing lines until it parses (an edit that ends mid-statement).
    for k in range(len(lines) - 1, max(0, len(lines) - 6), -1):
        try:
            return ast.parse("\n".join(lines[:k]))
        except (SyntaxError, ValueError):
            continue
    return None


def subtree(root: ast.AST) -> list[ast.AST]:
    """`ast.walk(root)` as a list, without expression contexts (see `index_tree`)."""
    nodes = [root]
    node_type = ast.AST
    for node in nodes:
        for name in node._fields:
            if name == "ctx":
                continue
            child = getattr(node, name, None)
            if isinstance(child, node_type):
                nodes.append(child)
            elif isinstance(child, list):
                nodes.extend(item for item in child if isinstance(item, node_type))
    return nodes


def index_tree(tree: ast.AST) -> tuple[list[ast.AST], dict[ast.AST, ast.AST]]:
    """The nodes of `tree` in `ast.walk` order and each node's parent, from one pass.

    Expression contexts (``ctx``: Load/Store/Del) are left out: no rule looks at them.
    """
    nodes = [tree]
    parent: dict[ast.AST, ast.AST] = {}
    node_type = ast.AST
    for node in nodes:  # grows while iterated: breadth first, like ast.walk
        for name in node._fields:
            if name == "ctx":
                continue
            child = getattr(node, name, None)
            if isinstance(child, node_type):
                parent[child] = node
                nodes.append(child)
            elif isinstance(child, list):
                for item in child:
                    if isinstance(item, node_type):
                        parent[item] = node
                        nodes.append(item)
    return nodes, parent


def import_aliases(tree: ast.AST, nodes: list[ast.AST] | None = None) -> dict[str, str]:
    """Names bound to modules and their members; `nodes`: `tree`'s nodes in `ast.walk` order (or
    any in-order selection holding its imports and assignments), to skip the walk."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree) if nodes is None else nodes:
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
        elif (
            isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        ):
            v = node.value
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "__import__":
                if v.args and isinstance(v.args[0], ast.Constant) and isinstance(v.args[0].value, str):
                    aliases[node.targets[0].id] = v.args[0].value
            elif isinstance(v, ast.Attribute | ast.Name):
                aliases[node.targets[0].id] = dotted(v, aliases)
    return aliases


def dotted(node: ast.AST, aliases: dict[str, str]) -> str:
    """``sp.run`` -> ``subprocess.run`` given ``import subprocess as sp``."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(aliases.get(node.id, node.id))
    elif isinstance(node, ast.Call):
        inner = dotted(node.func, aliases)
        if inner in ("__import__", "importlib.import_module") and node.args:
            a = node.args[0]
            parts.append(a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else "?")
        elif inner in ("pathlib.Path", "Path", "pathlib.PurePath"):
            parts.append("pathlib.Path")
        else:
            parts.append(inner + "()")
    else:
        parts.append("?")
    return ".".join(reversed(parts))


def ancestors(node: ast.AST, parent: dict[ast.AST, ast.AST]) -> list[ast.AST]:
    """The nodes enclosing `node`, innermost first."""
    out = []
    while node in parent:
        node = parent[node]
        out.append(node)
    return out


def segment(src: str, node: ast.AST) -> str:
    seg = source_segment(src, node) or ""
    seg = " ".join(seg.split())
    return seg if len(seg) <= 160 else seg[:157] + "..."


def source_segment(source: str, node: ast.AST) -> str | None:
    """`ast.get_source_segment`, with the source split into lines once per source, not per node."""
    try:
        if node.end_lineno is None or node.end_col_offset is None:  # type: ignore[attr-defined]
            return None
        lineno = node.lineno - 1  # type: ignore[attr-defined]
        end_lineno = node.end_lineno - 1  # type: ignore[attr-defined]
        col_offset = node.col_offset  # type: ignore[attr-defined]
        end_col_offset = node.end_col_offset  # type: ignore[attr-defined]
    except AttributeError:
        return None
    lines = source_lines(source)
    if end_lineno == lineno:
        return lines[lineno].encode()[col_offset:end_col_offset].decode()
    first = lines[lineno].encode()[col_offset:].decode()
    last = lines[end_lineno].encode()[:end_col_offset].decode()
    return "".join([first, *lines[lineno + 1 : end_lineno], last])


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


@lru_cache(maxsize=64)
def source_lines(source: str) -> list[str]:
    """Lines as the parser splits them (``\r\n``, ``\r`` and ``\n`` end a line; a form feed does not)."""
    return _LINE.findall(source)


class Parsed(NamedTuple):
    tree: ast.Module
    aliases: dict[str, str]
    nodes: list[ast.AST]  # ast.walk order, without expression contexts
    parent: dict[ast.AST, ast.AST]
    bindings: list[
        ast.AST
    ]  # the imports, assignments, with-items, for-loops and calls among `nodes`, in order
    src: str  # the text parsed: source segments are cut from it
    encoding: str | None  # an exotic encoding its coding cookie declares (None: utf-8 family or none)


# What `import_aliases`, `_Evaluator` and `_scan_tree` look at; a fifth of a typical file.
BINDING_NODES = frozenset(
    {ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign, ast.With, ast.For, ast.Call}
)


def bindings_of(nodes: list[ast.AST]) -> list[ast.AST]:
    return [n for n in nodes if type(n) in BINDING_NODES]


@lru_cache(maxsize=256)
def parse_indexed(src: str) -> Parsed | None:
    """Parse and index once per distinct source: the scanner and the smell finder share both."""
    text, encoding = source_as_run(src)
    tree = parse_fragment(text)
    if tree is None and text != src:  # a cookie Python would reject: read the text as written
        text, tree = src, parse_fragment(src)
    if tree is None:
        return None
    nodes, parent = index_tree(tree)
    bindings = bindings_of(nodes)
    return Parsed(tree, import_aliases(tree, bindings), nodes, parent, bindings, text, encoding)


# ---------------------------------------------------------------- coding cookies (PEP 263)

_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_BLANK_OR_COMMENT = re.compile(r"^[ \t\f]*(#.*)?$")


def declared_encoding(src: str) -> str | None:
    """The encoding a coding cookie on line 1 or 2 declares, normalized (``utf-7``, ``iso8859-1``);
    None without a cookie."""
    end = src.find("\n")
    if end >= 0:
        second = src.find("\n", end + 1)
        end = len(src) if second < 0 else second
    head = src if end < 0 else src[:end]
    if "coding" not in head:  # the usual case: one substring test
        return None
    for i, line in enumerate(head.splitlines()[:2]):
        m = _COOKIE.match(line)
        if m:
            try:
                return codecs.lookup(m.group(1)).name
            except LookupError:
                return m.group(1).lower()
        if i == 0 and not _BLANK_OR_COMMENT.match(line):
            return None  # Python reads a cookie on line 2 only below a comment or a blank line
    return None


def plain_encoding(name: str) -> bool:
    """UTF-8, ASCII and the single-byte Latin families: text decodes to the same ASCII code."""
    return name in ("utf-8", "utf-8-sig", "ascii") or name.startswith(("iso8859-", "cp125", "latin"))


def source_as_run(src: str) -> tuple[str, str | None]:
    """The text Python compiles from a file holding `src` (written as UTF-8), and the exotic
    encoding that made it differ (None when the file reads as written).

    >>> source_as_run("# -*- coding: unicode_escape -*-\\nx = 1 #\\\\nimport os\\n")[0].splitlines()[2]
    'import os'
    """
    enc = declared_encoding(src)
    if enc is None or plain_encoding(enc):
        return src, None
    try:
        text = src.encode("utf-8", "surrogatepass").decode(enc, "replace")
    except (LookupError, UnicodeError, TypeError, ValueError):
        return src, enc  # not a text codec: Python refuses the file, there is nothing else to read
    return text, enc


def is_main_guard(node: ast.AST) -> bool:
    """`if __name__ == ...:` (code under it runs only as a script, not on import)."""
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name)
        and node.test.left.id == "__name__"
    )
