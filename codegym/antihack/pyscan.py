"""What a Python snippet does, read with `ast`: file access, subprocesses, network, and code smells.

`scan_python` reports the operations a snippet performs (``open``, ``Path.read_text``,
``subprocess.run``, ``os.system``, ``urlopen``, ``exec`` of decoded strings, GitPython calls).
String arguments are evaluated statically: literals, f-strings, ``+``, ``join``, ``os.path.join``,
``Path / x``, ``base64.b64decode``, ``bytes.fromhex``, ``codecs.decode(.., "rot13")``, ``[::-1]``,
``chr`` sequences, and names assigned those. `code_smells` reports what written code would do to
a grader: exits, always-equal objects, test-framework patches, outcome-changing pytest hooks,
test detection, literal-keyed returns, skip markers.

    >>> [(e.kind, e.value) for e in scan_python("import os; os.system('git ' + 'log --all')")]
    [('shell', 'git log --all')]
"""

from __future__ import annotations

import ast
import base64
import binascii
import codecs
import posixpath
import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from .paths import UNKNOWN
from .pyruntime import value_origin
from .pysmells import code_smells, smells_cache_clear
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

__all__ = [
    "PyEvent",
    "as_text",
    "clear_caches",
    "code_smells",
    "dotted",
    "import_aliases",
    "parse_fragment",
    "scan_python",
]


_SHELL_FUNCS = {
    "os.system",
    "os.popen",
    "subprocess.getoutput",
    "subprocess.getstatusoutput",
    "commands.getoutput",
    "asyncio.create_subprocess_shell",
    "pty.spawn",
}
_ARGV_FUNCS = {
    "subprocess.run",
    "subprocess.call",
    "subprocess.check_call",
    "subprocess.check_output",
    "subprocess.Popen",
    "asyncio.create_subprocess_exec",
    "os.execvp",
    "os.execv",
    "os.execlp",
    "os.spawnvp",
}
_PY_EXEC = {"exec", "eval", "compile", "builtins.exec", "builtins.eval", "builtins.compile"}
# Code the guard cannot read when its argument has no static value (kind "dynamic" events):
# deserializers that can run code, computed imports, and loaders of modules by path (path arg index).
_DESERIALIZERS = {
    f"{m}.{f}"
    for m in ("pickle", "cPickle", "_pickle", "marshal", "dill", "cloudpickle")
    for f in ("load", "loads", "Unpickler")
} | {"joblib.load", "shelve.open", "jsonpickle.decode", "yaml.unsafe_load", "pandas.read_pickle"}
_IMPORTERS = {"importlib.import_module", "__import__", "importlib.__import__", "runpy.run_module"}
_LOADERS = {
    "importlib.util.spec_from_file_location": 1,
    "importlib.machinery.SourceFileLoader": 1,
    "importlib.machinery.SourcelessFileLoader": 1,
    "importlib.machinery.ExtensionFileLoader": 1,
    "imp.load_source": 1,
    "imp.load_compiled": 1,
    "runpy.run_path": 0,
    "zipimport.zipimporter": 0,
}
_NET_TAILS = {
    "urlopen",
    "urlretrieve",
    "Request",
    "get",
    "post",
    "head",
    "put",
    "request",
    "stream",
    "download",
    "fetch",
    "clone_from",
    "create_connection",
    "HTTPConnection",
    "HTTPSConnection",
    "connect",
    "open_url",
    "retrieve",
}
_NOT_ACCESS = {
    "print",
    "str",
    "len",
    "repr",
    "format",
    "isinstance",
    "logging.info",
    "logging.debug",
    "logger.info",
}
_WRITE_TAILS = {
    "write_text",
    "write_bytes",
    "touch",
    "mkdir",
    "chmod",
    "truncate",
    "symlink_to",
    "hardlink_to",
}
_DELETE_TAILS = {"remove", "unlink", "rmdir", "rmtree"}
_LIST_TAILS = {
    "listdir",
    "scandir",
    "walk",
    "iterdir",
    "glob",
    "iglob",
    "rglob",
    "exists",
    "isfile",
    "isdir",
    "is_file",
    "is_dir",
    "stat",
    "lstat",
}


def _decoders() -> dict[str, Callable[[bytes], bytes]]:
    import bz2
    import lzma

    return {
        "base64.b32decode": base64.b32decode,
        "base64.b16decode": base64.b16decode,
        "base64.b85decode": base64.b85decode,
        "base64.a85decode": base64.a85decode,
        "binascii.a2b_base64": binascii.a2b_base64,
        "bz2.decompress": bz2.decompress,
        "lzma.decompress": lzma.decompress,
    }


_MORE_DECODERS = _decoders()


class _Evaluator:
    """Static values of expressions: strings, bytes, numbers, lists, with a flow-insensitive env."""

    def __init__(self, tree: ast.AST, aliases: dict[str, str], nodes: list[ast.AST] | None = None) -> None:
        self.aliases = aliases
        self.assign: dict[str, ast.expr] = {}
        for node in ast.walk(tree) if nodes is None else nodes:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                self.assign[node.targets[0].id] = node.value
            elif (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and node.value is not None
            ):
                self.assign[node.target.id] = node.value
            elif isinstance(node, ast.With):
                for item in node.items:
                    if isinstance(item.optional_vars, ast.Name):
                        self.assign[item.optional_vars.id] = item.context_expr
        self._busy: set[str] = set()

    def value(self, node: ast.AST | None, depth: int = 0) -> Any:
        if node is None or depth > 30:
            return None
        d = depth + 1
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self.assign and node.id not in self._busy:
                self._busy.add(node.id)
                try:
                    return self.value(self.assign[node.id], d)
                finally:
                    self._busy.discard(node.id)
            return None
        if isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                x = self.value(v.value if isinstance(v, ast.FormattedValue) else v, d)
                parts.append(x if isinstance(x, str) else str(x) if isinstance(x, int) else UNKNOWN)
            return "".join(parts)
        if isinstance(node, ast.BinOp):
            a, b = self.value(node.left, d), self.value(node.right, d)
            if isinstance(node.op, ast.Add):
                if isinstance(a, str) or isinstance(b, str):
                    return _s(a) + _s(b)
                if isinstance(a, bytes) and isinstance(b, bytes):
                    return a + b
                if isinstance(a, list) and isinstance(b, list):
                    return a + b
            if isinstance(node.op, ast.Div) and (isinstance(a, str) or isinstance(b, str)):
                return posixpath.join(_s(a), _s(b))
            if isinstance(node.op, ast.Mod) and isinstance(a, str):
                try:
                    return a % (tuple(b) if isinstance(b, list) else b)
                except (TypeError, ValueError):
                    return a
            return None
        if isinstance(node, ast.List | ast.Tuple):
            return [self.value(e, d) for e in node.elts]
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            v = self.value(node.value, d)
            s = node.slice
            if isinstance(v, str | bytes | list) and s.lower is None and s.upper is None:
                step = self.value(s.step, d) if s.step is not None else 1
                if isinstance(step, int) and step:
                    return v[::step]
            return None
        if isinstance(node, ast.Call):
            return self._call(node, d)
        if isinstance(node, ast.Attribute) and dotted(node, self.aliases) in ("os.sep",):
            return "/"
        return None

    def _call(self, node: ast.Call, d: int) -> Any:
        name = dotted(node.func, self.aliases)
        args = [self.value(a, d) for a in node.args]
        tail = name.rsplit(".", 1)[-1]
        recv = self.value(node.func.value, d) if isinstance(node.func, ast.Attribute) else None
        if name in (
            "os.path.join",
            "posixpath.join",
            "pathlib.Path",
            "pathlib.PurePath",
            "pathlib.PosixPath",
            "Path",
        ):
            if args and all(isinstance(a, str) for a in args):
                return posixpath.join(*args)
            return posixpath.join(*[a if isinstance(a, str) else UNKNOWN for a in args]) if args else None
        if name in (
            "str",
            "os.fspath",
            "os.path.normpath",
            "os.path.abspath",
            "os.path.realpath",
            "os.path.expanduser",
        ):
            return args[0] if args and isinstance(args[0], str) else None
        if name == "os.getcwd":
            return "."
        if name in ("chr",) and args and isinstance(args[0], int):
            return chr(args[0])
        if name in ("bytes", "bytearray") and args and isinstance(args[0], list):
            try:
                return bytes(a for a in args[0] if isinstance(a, int))
            except ValueError:
                return None
        if name in (
            "base64.b64decode",
            "base64.decodebytes",
            "base64.standard_b64decode",
            "base64.urlsafe_b64decode",
        ):
            if args and isinstance(args[0], str | bytes):
                try:
                    return base64.b64decode(args[0] + (b"==" if isinstance(args[0], bytes) else "=="))
                except (binascii.Error, ValueError):
                    return None
        if (
            name in ("bytes.fromhex", "binascii.unhexlify", "binascii.a2b_hex")
            and args
            and isinstance(args[0], str | bytes)
        ):
            try:
                return bytes.fromhex(args[0] if isinstance(args[0], str) else args[0].decode())
            except ValueError:
                return None
        if name in ("codecs.decode", "codecs.encode") and args and isinstance(args[0], str | bytes):
            enc = args[1] if len(args) > 1 and isinstance(args[1], str) else "utf-8"
            try:
                return codecs.decode(args[0], enc) if name.endswith("decode") else codecs.encode(args[0], enc)
            except (LookupError, ValueError, TypeError):
                return None
        if name in ("compile", "builtins.compile") and args and isinstance(args[0], str | bytes):
            return args[0]
        if name in _MORE_DECODERS and args and isinstance(args[0], str | bytes):
            try:
                raw = args[0].encode() if isinstance(args[0], str) else args[0]
                return _MORE_DECODERS[name](raw)
            except (binascii.Error, ValueError, OSError, EOFError, LookupError):
                return None
        if name in ("zlib.decompress", "gzip.decompress") and args and isinstance(args[0], bytes):
            import zlib

            try:
                return zlib.decompress(args[0], 47)
            except zlib.error:
                return None
        if tail == "decode" and isinstance(recv, bytes):
            return recv.decode("utf-8", "replace")
        if tail == "encode" and isinstance(recv, str):
            return recv.encode()
        if tail == "join" and isinstance(recv, str) and node.args:
            seq = self._sequence(node.args[0], d)
            if seq is not None:
                return recv.join(s if isinstance(s, str) else UNKNOWN for s in seq)
        if tail in ("replace",) and isinstance(recv, str) and len(args) >= 2:
            if isinstance(args[0], str) and isinstance(args[1], str):
                return recv.replace(args[0], args[1])
        if tail in ("strip", "lower", "upper") and isinstance(recv, str):
            return getattr(recv, tail)()
        if tail == "format" and isinstance(recv, str):
            try:
                return recv.format(*[a if a is not None else UNKNOWN for a in args])
            except (IndexError, KeyError, ValueError):
                return recv
        return None

    def _sequence(self, node: ast.AST, d: int) -> list[Any] | None:
        v = self.value(node, d)
        if isinstance(v, list):
            return v
        if isinstance(v, str):
            return list(v)
        if isinstance(node, ast.GeneratorExp | ast.ListComp) and len(node.generators) == 1:
            gen = node.generators[0]
            seq = self._sequence(gen.iter, d)
            if seq is None or not isinstance(gen.target, ast.Name):
                return None
            out = []
            saved = self.assign.get(gen.target.id)
            for item in seq[:4096]:
                self.assign[gen.target.id] = ast.Constant(item)
                out.append(self.value(node.elt, d))
            if saved is not None:
                self.assign[gen.target.id] = saved
            else:
                self.assign.pop(gen.target.id, None)
            return out
        return None


def _s(x: Any) -> str:
    if isinstance(x, str):
        return x
    if isinstance(x, bytes):
        return x.decode("latin-1")
    if isinstance(x, int):
        return str(x)
    return UNKNOWN


def as_text(x: Any) -> str | None:
    if isinstance(x, str):
        return x
    if isinstance(x, bytes):
        return x.decode("utf-8", "replace")
    return None


def _call_path_arg(call: ast.Call, ev: _Evaluator) -> list[tuple[str, int]]:
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
    if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Call):
        inner = dotted(call.func.value.func, ev.aliases)
        if inner in ("pathlib.Path", "Path", "pathlib.PurePath", "open", "io.open"):
            v = as_text(ev.value(call.func.value))
            if v:
                out.append((v, 0))
    return out


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
    ev = _Evaluator(tree, aliases, nodes)
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        name = dotted(node.func, aliases)
        tail = name.rsplit(".", 1)[-1]
        first = ev.value(node.args[0]) if node.args else None
        if name in _SHELL_FUNCS and as_text(first):
            yield PyEvent("shell", as_text(first), "exec", name, segment(src, node))
            continue
        if name in _ARGV_FUNCS or name.startswith("os.exec") or name.startswith("os.spawn"):
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
        if name in _PY_EXEC or name.endswith(".exec"):
            code = as_text(first)
            if code and depth < 4:
                yield PyEvent("python", code, "exec", name, segment(src, node))
                inner = parse_fragment(code)
                if inner is not None:
                    yield from _scan_tree(inner, code, depth + 1)
            elif code is None and name in _PY_EXEC:
                arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg), None)
                if arg is not None and name not in _defined_functions(tree):  # not a local `def eval`
                    yield _dynamic("exec", name, node, arg, ev, parent, src)
            continue
        if name in _DESERIALIZERS or _unsafe_load(name, node, aliases):
            arg = node.args[0] if node.args else node
            yield _dynamic("deserialize", name, node, arg, ev, parent, src)
            continue
        if name in _IMPORTERS and node.args and not (isinstance(first, str) and UNKNOWN not in first):
            yield _dynamic("import", name, node, node.args[0], ev, parent, src, module=as_text(first))
            continue
        if name in _LOADERS:
            i = _LOADERS[name]
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
        if name in _NOT_ACCESS or tail in (
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
        values = _call_path_arg(node, ev)
        # Network: a URL (or a host for low-level connections) given to a fetching function.
        if tail in _NET_TAILS or name.startswith(("requests.", "httpx.", "urllib", "http.client", "socket.")):
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


def _defined_functions(tree: ast.AST) -> set[str]:
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


def _dynamic(
    kind: str,
    name: str,
    node: ast.Call,
    arg: ast.AST,
    ev: _Evaluator,
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


def _path_op(name: str, tail: str, node: ast.Call, pos: int, ev: _Evaluator) -> str:
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
    if tail in _WRITE_TAILS:
        return "write"
    if tail in _DELETE_TAILS:
        return "delete"
    if tail in _LIST_TAILS:
        return "list"
    if tail in ("copy", "copy2", "copyfile", "copytree", "copyfileobj"):
        return "read" if pos == 0 else "write"
    if tail in ("move", "rename", "replace"):
        return "delete" if pos == 0 else "write"
    if tail in ("symlink", "link"):
        return "link" if pos == 0 else "write"
    return "read"
