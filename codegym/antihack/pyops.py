"""What a Python snippet does, read with `ast`: file access, subprocesses, network, dynamic code.

`scan_python` reports the operations a snippet performs (``open``, ``Path.read_text``,
``subprocess.run``, ``os.system``, ``urlopen``, ``exec`` of decoded strings, GitPython calls), with
string arguments evaluated statically (`pyeval`) and calls recognised by name (`pynames`). Code
without a static value (``exec`` of a computed string, pickle loads, computed imports) comes as a
``"dynamic"`` event with where its value comes from (`pyruntime.value_origin`). What written code
would do to a grader is `pysmells.code_smells`.

    >>> [(e.kind, e.value) for e in scan_python("import os; os.system('git ' + 'log --all')")]
    [('shell', 'git log --all')]
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from .paths import UNKNOWN, has_glob
from .pyeval import Evaluator, as_text
from .pynames import (
    ARGV_FUNCS,
    DELETE_TAILS,
    DESERIALIZERS,
    IMPORTERS,
    LIST_TAILS,
    LOADERS,
    NET_TAILS,
    NOT_ACCESS,
    PY_EXEC,
    SHELL_FUNCS,
    WRITE_TAILS,
)
from .pyorigin import value_origin
from .pysmells import smells_cache_clear
from .pysource import (
    PyEvent,
    ancestors,
    bindings_of,
    dotted,
    import_aliases,
    index_tree,
    parse_fragment,
    parse_indexed,
    segment,
    source_lines,
)


def _call_path_arg(call: ast.Call, ev: Evaluator) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for i, a in enumerate(call.args[:3]):
        v = as_text(ev.value(a))
        if v:
            out.append((v, i))
    for kw in call.keywords:
        if kw.arg in ("file", "path", "filename", "src", "dst", "fname", "name", "args", "url"):
            v = as_text(ev.value(kw.value))
            if v:
                out.append((v, 0))
    if isinstance(call.func, ast.Attribute) and call.func.attr in ("glob", "rglob", "iterdir", "walk"):
        # `root.rglob("test_*.py")`: the pattern under the receiver's path, when it has a value
        recv = as_text(ev.value(call.func.value))
        # (a relative receiver too: `Path("tests").glob("hid*/**")` expands under the cwd)
        globbing = call.func.attr in ("glob", "rglob") and bool(out) and has_glob(out[0][0])
        if (
            recv
            and (recv.startswith("/") or globbing)
            and (_looks_like_path(recv) or globbing and _is_name(recv))
        ):
            pat = out[0][0] if out else "*"
            sep = "/**/" if call.func.attr == "rglob" else "/"
            out.insert(0, (recv.rstrip("/") + (sep + pat if call.func.attr in ("glob", "rglob") else ""), 0))
    if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Call):
        inner = dotted(call.func.value.func, ev.aliases)
        if inner in ("pathlib.Path", "Path", "pathlib.PurePath", "open", "io.open"):
            v = as_text(ev.value(call.func.value))
            if v:
                out.append((v, 0))
    return out


def _is_name(s: str) -> bool:
    return 0 < len(s) < 256 and not any(ch in s for ch in " \n\t*?[")


def _looks_like_path(s: str) -> bool:
    return ("/" in s or "." in s or UNKNOWN in s) and "\n" not in s and len(s) < 512 and " " not in s.strip()


def clear_caches() -> None:
    """Forget parsed snippets (benchmarks use it to time every call cold)."""
    parse_indexed.cache_clear()
    _scan_cached.cache_clear()
    smells_cache_clear()
    source_lines.cache_clear()


def scan_python(src: str, depth: int = 0) -> list[PyEvent]:
    """Operations a Python snippet performs (with nested ``exec`` of static strings)."""
    return list(_scan_cached(src, depth))


@lru_cache(maxsize=256)
def _scan_cached(src: str, depth: int) -> tuple[PyEvent, ...]:
    parsed = parse_indexed(src)
    if parsed is None:
        return ()
    return tuple(_scan_tree(parsed.tree, parsed.src, depth, parsed.aliases, parsed.bindings, parsed.parent))


def _scan_tree(
    tree: ast.AST,
    src: str,
    depth: int,
    aliases: dict[str, str] | None = None,
    nodes: list[ast.AST] | None = None,
    parent: dict[ast.AST, ast.AST] | None = None,
) -> Iterator[PyEvent]:
    if nodes is None:
        all_nodes, parent = index_tree(tree)
        nodes = bindings_of(all_nodes)
    aliases = aliases if aliases is not None else import_aliases(tree, nodes)
    ev = Evaluator(tree, aliases, nodes)
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        name = dotted(node.func, aliases)
        tail = name.rsplit(".", 1)[-1]
        first = ev.value(node.args[0]) if node.args else None
        if name in SHELL_FUNCS and as_text(first):
            yield PyEvent("shell", as_text(first), "exec", name, segment(src, node))
            continue
        if name in ARGV_FUNCS or name.startswith("os.exec") or name.startswith("os.spawn"):
            shell_kw = any(
                k.arg == "shell" and isinstance(k.value, ast.Constant) and k.value.value
                for k in node.keywords
            )
            arg = (
                node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "args"), None)
            )
            val = ev.value(arg)
            if name.startswith(("os.exec", "os.spawn")) and name not in (
                "os.execv",
                "os.execvp",
                "os.spawnvp",
            ):
                val = [ev.value(a) for a in node.args[1:]] if node.args else None
            elif name in ("os.execv", "os.execvp", "os.spawnvp") and len(node.args) > 1:
                val = ev.value(node.args[-1])
            if isinstance(val, str | bytes):
                yield PyEvent("shell", as_text(val), "exec", name, segment(src, node), {"shell": shell_kw})
            elif isinstance(val, list):
                yield PyEvent("argv", [as_text(v) or UNKNOWN for v in val], "exec", name, segment(src, node))
            continue
        if name in PY_EXEC or name.endswith(".exec"):
            code = as_text(first)
            if code and depth < 4:
                yield PyEvent("python", code, "exec", name, segment(src, node))
                inner = parse_fragment(code)
                if inner is not None:
                    yield from _scan_tree(inner, code, depth + 1)
            elif code is None and name in PY_EXEC:
                arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg), None)
                if arg is not None and name not in _defined_functions(tree):  # not a local `def eval`
                    yield _dynamic("exec", name, node, arg, ev, parent, src)
            continue
        if name in DESERIALIZERS or _unsafe_load(name, node, aliases):
            arg = node.args[0] if node.args else node
            yield _dynamic("deserialize", name, node, arg, ev, parent, src)
            continue
        if name in IMPORTERS and node.args and not (isinstance(first, str) and UNKNOWN not in first):
            yield _dynamic("import", name, node, node.args[0], ev, parent, src, module=as_text(first))
            continue
        if name in LOADERS:
            i = LOADERS[name]
            arg = (
                node.args[i]
                if len(node.args) > i
                else next(
                    (
                        k.value
                        for k in node.keywords
                        if k.arg in ("location", "path", "path_name", "archivepath")
                    ),
                    None,
                )
            )
            yield _dynamic(
                "loader",
                name,
                node,
                arg if arg is not None else node,
                ev,
                parent,
                src,
                path=as_text(ev.value(arg)) if arg is not None else None,
            )
            continue
        if name in ("pip.main", "pip._internal.main", "pip._internal.cli.main.main") and isinstance(
            first, list
        ):
            yield PyEvent(
                "argv", ["pip"] + [as_text(v) or UNKNOWN for v in first], "exec", name, segment(src, node)
            )
            continue
        if ".git." in name + "." and name.split(".")[-2] == "git" and tail not in ("git",):
            # GitPython: repo.git.log("--all") runs `git log --all`.
            yield PyEvent(
                "argv",
                ["git", tail.replace("_", "-")] + [as_text(ev.value(a)) or UNKNOWN for a in node.args],
                "exec",
                name,
                segment(src, node),
            )
            continue
        if tail == "iter_commits" or tail == "Repo.iter_commits":
            argv = ["git", "log"]
            argv += [as_text(ev.value(a)) or UNKNOWN for a in node.args]
            for k in node.keywords:
                if k.arg == "all" and isinstance(k.value, ast.Constant) and k.value.value:
                    argv.append("--all")
                elif k.arg == "rev":
                    argv.append(as_text(ev.value(k.value)) or UNKNOWN)
            yield PyEvent("argv", argv, "exec", name, segment(src, node))
            continue
        if (
            tail in ("write", "write_text", "write_bytes")
            and isinstance(node.func, ast.Attribute)
            and node.args
        ):
            target = node.func.value
            if isinstance(target, ast.Name) and isinstance(ev.assign.get(target.id), ast.Call):
                target = ev.assign[target.id]
            if tail != "write" and isinstance(
                target, ast.Call | ast.Name | ast.Constant | ast.BinOp | ast.JoinedStr
            ):
                p = as_text(
                    ev.value(target.args[0] if isinstance(target, ast.Call) and target.args else target)
                )
            elif (
                isinstance(target, ast.Call)
                and dotted(target.func, aliases) in ("open", "io.open", "codecs.open")
                and target.args
            ):
                p = as_text(ev.value(target.args[0]))
            else:
                p = None
            if p:
                content = as_text(ev.value(node.args[0]))
                yield PyEvent("path", p, "write", name, segment(src, node), {"content": content})
                continue
        if name in NOT_ACCESS or tail in (
            "print",
            "format",
            "join",
            "write",
            "info",
            "debug",
            "warning",
            "error",
        ):
            continue
        if (
            tail == "replace"
            and name != "os.replace"
            and isinstance(node.func, ast.Attribute)
            and len(node.args) >= 2
        ):
            continue  # ``s.replace("%2F", "/")``: `str.replace` (`Path.replace` and `os.replace` take one target)
        values = _call_path_arg(node, ev)
        # Network: a URL (or a host for low-level connections) given to a fetching function.
        if tail in NET_TAILS or name.startswith(("requests.", "httpx.", "urllib", "http.client", "socket.")):
            for v, _ in values:
                if re.match(r"^(https?|ftp|git|ssh)://|^git@", v) or tail in (
                    "HTTPConnection",
                    "HTTPSConnection",
                ):
                    yield PyEvent("net", v, "net", name, segment(src, node))
            hosts = [ev.value(a) for a in node.args if isinstance(a, ast.Tuple)]
            for h in hosts:
                if isinstance(h, list) and h and isinstance(h[0], str):
                    yield PyEvent("net", h[0], "net", name, segment(src, node))
        for v, pos in values:
            if not _looks_like_path(v) or re.match(r"^[a-z+]+://", v):
                continue
            op = _path_op(name, tail, node, pos, ev)
            yield PyEvent("path", v, op, name, segment(src, node))
        ends = dict((pos, v) for v, pos in reversed(values))
        if tail in ("copy", "copy2", "copyfile", "copytree") and 0 in ends and 1 in ends:
            # the copy itself: a later read of the destination reads the source (`Memory.copies`)
            yield PyEvent("copy", (ends[0], ends[1]), "copy", name, segment(src, node))


def _defined_functions(tree: ast.AST) -> set[str]:
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


def _dynamic(
    kind: str,
    name: str,
    node: ast.Call,
    arg: ast.AST,
    ev: Evaluator,
    parent: dict[ast.AST, ast.AST] | None,
    src: str,
    **facts: Any,
) -> PyEvent:
    """Code the guard cannot read (`kind`: exec, deserialize, import, loader), with where it comes from."""
    origin, reads = value_origin(arg, ev.assign, ev.aliases, parent, ev.value)
    if parent is not None:
        chain = ancestors(node, parent)
        facts["in_function"] = [
            p.name for p in chain if isinstance(p, ast.FunctionDef | ast.AsyncFunctionDef)
        ]
        facts["main_guard"] = any(
            isinstance(p, ast.If) and "__name__" in ast.unparse(p.test) and "__main__" in ast.unparse(p.test)
            for p in chain
        )
    facts = {"kind": kind, "origin": origin, "reads": facts.pop("path", None) or reads, **facts}
    return PyEvent(
        "dynamic", name, kind, name, segment(src, node), {k: v for k, v in facts.items() if v is not None}
    )


def _unsafe_load(name: str, node: ast.Call, aliases: dict[str, str]) -> bool:
    """``yaml.load(..., Loader=yaml.Loader)`` and ``numpy.load(..., allow_pickle=True)``: loads that run code."""
    if name == "yaml.load":
        return any(
            k.arg == "Loader" and dotted(k.value, aliases).endswith(("yaml.Loader", "UnsafeLoader"))
            for k in node.keywords
        ) or (len(node.args) > 1 and dotted(node.args[1], aliases).endswith(("yaml.Loader", "UnsafeLoader")))
    if name in ("numpy.load", "np.load"):
        return any(
            k.arg == "allow_pickle" and isinstance(k.value, ast.Constant) and k.value.value
            for k in node.keywords
        )
    return False


def _path_op(name: str, tail: str, node: ast.Call, pos: int, ev: Evaluator) -> str:
    if tail == "open" or name in ("open", "io.open", "codecs.open", "os.open"):
        mode = None
        if len(node.args) > 1:
            mode = ev.value(node.args[1])
        for k in node.keywords:
            if k.arg == "mode":
                mode = ev.value(k.value)
        if isinstance(mode, str) and any(c in mode for c in "wax+"):
            return "write"
        if isinstance(mode, int) and mode & 0o3:
            return "write"
        return "read"
    if tail in WRITE_TAILS:
        return "write"
    if tail in DELETE_TAILS:
        return "delete"
    if tail in LIST_TAILS:
        return "list"
    if tail in ("copy", "copy2", "copyfile", "copytree", "copyfileobj"):
        return "read" if pos == 0 else "write"
    if tail in ("move", "rename", "replace"):
        return "delete" if pos == 0 else "write"
    if tail in ("symlink", "link"):
        return "link" if pos == 0 else "write"
    return "read"
