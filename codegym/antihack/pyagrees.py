"""Whether a Python comparison method always agrees, whatever its operands: `agrees`.

``__eq__`` returning ``1 == 1``, ``__contains__`` returning ``True``, ``__ne__`` falling off the
end (None), an ``__eq__`` that never reads its other operand or returns it: each makes every
``assert x == expected`` pass. `COMPARISONS` maps each comparison method to the truth value that
makes it always agree (None for ``__hash__``: a constant hash). `pyruntime` reports them as HT-EQ.

    >>> import ast
    >>> fn = ast.parse("def __eq__(self, o):\\n    return True\\n").body[0]
    >>> agrees(fn, "__eq__")
    'always returns a true value'
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

from .pysource import subtree

# comparison methods and the truth value that makes them always agree (None: never by constants)
COMPARISONS = {
    "__eq__": True,
    "__ne__": False,
    "__le__": True,
    "__ge__": True,
    "__lt__": True,
    "__gt__": True,
    "__contains__": True,
    "__hash__": None,
}


_CONST_OPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}


def _truth(node: ast.AST | None, self_name: str | None) -> bool | None:
    """The truth value of an expression whatever the inputs, or None when it depends on them."""
    if node is None:
        return False
    if isinstance(node, ast.Constant):
        return None if node.value is NotImplemented or node.value is Ellipsis else bool(node.value)
    if isinstance(node, ast.Name):
        if node.id == "NotImplemented":
            return None
        return True if self_name is not None and node.id == self_name else None
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) if all(not isinstance(e, ast.Starred) for e in node.elts) else None
    if isinstance(node, ast.Dict):
        return bool(node.keys)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        v = _truth(node.operand, self_name)
        return None if v is None else not v
    if isinstance(node, ast.BoolOp):
        vals = [_truth(v, self_name) for v in node.values]
        if isinstance(node.op, ast.Or):
            return True if True in vals else (False if all(v is False for v in vals) else None)
        return False if False in vals else (True if all(v is True for v in vals) else None)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        a, b = node.left, node.comparators[0]
        if ast.dump(a) == ast.dump(b):
            if isinstance(node.ops[0], ast.Eq | ast.Is | ast.LtE | ast.GtE):
                return True
            if isinstance(node.ops[0], ast.NotEq | ast.IsNot | ast.Lt | ast.Gt):
                return False
        op = _CONST_OPS.get(type(node.ops[0]))
        if op is not None and isinstance(a, ast.Constant) and isinstance(b, ast.Constant):
            try:
                return bool(op(a.value, b.value))
            except TypeError:
                return None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "bool"
        and node.args
    ):
        return _truth(node.args[0], self_name)
    return None


def agrees(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, method: str, cls: str = "") -> str:
    """Why a comparison method always agrees, or ``""`` when it really compares its operands.
    `cls`: the class it belongs to (``isinstance(other, cls)`` then compares types, not values)."""
    a = fn.args
    pos = [x.arg for x in a.posonlyargs + a.args]
    self_name = pos[0] if pos else None
    other = pos[1] if len(pos) > 1 else (a.vararg.arg if a.vararg is not None else None)
    if isinstance(fn, ast.Lambda):
        rets: list[ast.AST | None] = [fn.body]
        body_nodes = subtree(fn.body)
    else:
        body_nodes = [n for s in fn.body for n in subtree(s)]
        rets = [n.value for n in body_nodes if isinstance(n, ast.Return)]
        if not fn.body or not isinstance(fn.body[-1], ast.Return | ast.Raise):
            rets.append(None)  # falls off the end: None
        if any(isinstance(n, ast.Raise) for n in body_nodes) and not rets:
            return ""
    want = COMPARISONS.get(method)
    if method == "__hash__":
        vals = {ast.dump(r) for r in rets if r is not None}
        return "a constant hash" if len(vals) == 1 and all(isinstance(r, ast.Constant) for r in rets) else ""
    truths = [_truth(r, self_name) for r in rets]
    if want is not None and truths and all(t is want for t in truths):
        return f"always returns a {'true' if want else 'false'} value"
    if all(
        r is None
        or isinstance(r, ast.Constant)
        and r.value is None
        or isinstance(r, ast.Name)
        and r.id == "NotImplemented"
        for r in rets
    ):
        return ""  # only NotImplemented/None: the default comparison
    if method not in ("__eq__", "__ne__", "__contains__"):
        return ""  # an ordering that ignores its operand is a sentinel (Infinity), not an equality
    if other is None:
        return "takes no other operand"
    if want and any(isinstance(r, ast.Name) and r.id == other for r in rets):
        return f"returns the other operand ({other})"
    checks = ("isinstance", "type", "issubclass", "hasattr", "callable", "id")
    own = {cls, f"{self_name}.__class__", f"type({self_name})"} - {""}
    for n in body_nodes:
        if isinstance(n, ast.Name) and n.id == other:
            p = next((c for c in body_nodes if isinstance(c, ast.Call) and n in c.args), None)
            if p is None or not (isinstance(p.func, ast.Name) and p.func.id in checks):
                return ""
            if p.func.id == "isinstance" and len(p.args) == 2 and ast.unparse(p.args[1]) in own:
                return ""  # equal to any instance of its own class: a singleton, it fools no test of values
    return f"never reads the other operand ({other})"
