"""What written Python does at run time that static reading would miss, as smells for the rules.

Code can beat a static guard by deciding at run time: recognising the tests from its caller's
frame, the environment, ``sys.argv`` or the order of calls; reaching the test framework or the
builtins through ``sys.modules``, ``gc``, ``vars()`` or ``__builtins__``; patching ``os._exit``,
import hooks, signal timers or threads started at import; returning objects whose ``__eq__``
always agrees, however it is spelled. `runtime_smells` reports those (rule ids ``HT-EQ``,
``HT-REACH``, ``SC-FRAME``, ``SC-DETECT``, ``HT-CODING``) with the facts a judge needs;
whether a comparison always agrees is `pyagrees`; where a computed value comes from, `pyorigin`.

    >>> [(e.op, e.facts["why"]) for e in runtime_smells_of("class R(int):\\n    __eq__ = int.__le__\\n")]
    [('HT-EQ', 'aliased to int.__le__')]
"""

from __future__ import annotations

import ast
import re
from typing import Any

from .pyagrees import COMPARISONS as _CMP
from .pyagrees import agrees as _agrees
from .pysource import Parsed, PyEvent, ancestors, dotted, is_main_guard, parse_indexed, segment, subtree

# ---------------------------------------------------------------- run-time smells of written code

_BUILTIN_TYPES = {
    "int",
    "float",
    "complex",
    "str",
    "bytes",
    "bytearray",
    "list",
    "tuple",
    "dict",
    "set",
    "frozenset",
    "bool",
    "collections.UserString",
    "collections.UserDict",
    "collections.UserList",
    "collections.OrderedDict",
    "collections.defaultdict",
    "collections.Counter",
    "decimal.Decimal",
    "fractions.Fraction",
}
_FRAME_CALLS = {
    "sys._getframe",
    "sys._getframemodulename",
    "sys._current_frames",
    "inspect.stack",
    "inspect.currentframe",
    "inspect.getouterframes",
    "inspect.getinnerframes",
    "inspect.trace",
    "inspect.getframeinfo",
    "traceback.extract_stack",
    "traceback.format_stack",
    "traceback.print_stack",
    "traceback.walk_stack",
    "traceback.StackSummary.extract",
    "logging.currentframe",
    "sys.setprofile",
    "sys.settrace",
    "sys.call_tracing",
    "threading.setprofile",
    "threading.settrace",
    "threading.setprofile_all_threads",
    "threading.settrace_all_threads",
    "sys.monitoring.register_callback",
    "sys.monitoring.set_events",
    "sys.monitoring.use_tool_id",
}
_FRAME_ATTRS = {"f_back", "f_globals", "f_locals", "f_code", "tb_frame", "gi_frame", "cr_frame", "ag_frame"}
_LOG_CALLER_ATTRS = {"funcName", "pathname"}
_FRAMEWORK = re.compile(r"^(builtins|pytest|_pytest|pluggy|unittest|py|__main__|conftest)(\.|$)")
_PATCHED = {
    "os._exit",
    "os.kill",
    "os.abort",
    "posix._exit",
    "sys.exit",
    "sys.excepthook",
    "sys.unraisablehook",
    "sys.displayhook",
    "threading.excepthook",
    "sys.meta_path",
    "sys.path_hooks",
    "sys.path_importer_cache",
    "warnings.showwarning",
}
_IMPORT_HOOKS = {"sys.meta_path", "sys.path_hooks", "sys.path_importer_cache"}
_SIGNALS = {
    "signal.signal",
    "signal.setitimer",
    "signal.alarm",
    "signal.pthread_kill",
    "signal.set_wakeup_fd",
    "faulthandler.dump_traceback_later",
    "faulthandler.register",
    "sys.addaudithook",
}

_THREADS = {
    "threading.Thread",
    "threading.Timer",
    "_thread.start_new_thread",
    "_thread.start_new",
    "multiprocessing.Process",
    "os.fork",
    "os.forkpty",
}
_GC = {"gc.get_objects", "gc.get_referrers", "gc.get_referents"}
_MACHINERY = re.compile(
    r"^importlib\.(reload|invalidate_caches|_bootstrap|abc\."
    r"|util\.(module_from_spec|spec_from_loader|spec_from_file_location|LazyLoader)"
    r"|machinery\.(\w*Loader|ModuleSpec|PathFinder|FileFinder))|^imp\.(load|init)|^zipimport\."
)
# env keys that name a test run or a grader: TEST as a word or after PY/UNIT (not LATEST, CONTEST)
_TESTY = re.compile(r"(?i)(^|[^a-z]|py|unit)tests?|grad(e|er|ing)\b|junit|hidden|reward|codegym")
_HARNESS_WORDS = re.compile(r"pytest|pluggy|unittest|junit|conftest|builtins|__main__")
_SCOPED = re.compile(r"^(monkeypatch|mocker)\.|(^|\.)patch(\.(object|dict|multiple))?$")
# what `_Finder.run` hands on to the detectors (one set lookup for the rest of a file)
_ENV_CALLS = {"os.getenv", "os.getenvb", "os.environ.get", "os.environ.__contains__", "os.environ.pop"}
_CALLS = (
    _FRAME_CALLS
    | _GC
    | _SIGNALS
    | _THREADS
    | _ENV_CALLS
    | {
        "warnings.catch_warnings",
        "vars",
        "getattr",
        "setattr",
        "delattr",
        "inspect.getmembers",
        "type",
        "next",
    }
    | {"importlib.import_module", "__import__", "importlib.__import__"}
)
_CALL_PREFIXES = ("importlib.", "imp.", "zipimport.")
_CALL_TAILS = (".findCaller", ".cmdline")
_ATTRS = (
    _FRAME_ATTRS
    | _LOG_CALLER_ATTRS
    | {
        "modules",
        "argv",
        "orig_argv",
        "meta_path",
        "path_hooks",
        "path_importer_cache",
        "__dict__",
        "environ",
    }
)
_ASSIGNED = {n.rsplit(".", 1)[1] for n in _PATCHED} | set(_CMP)
_MAX_PER_KIND = 6  # events of one kind per file: enough for the judge, bounded for huge files


def runtime_smells_of(src: str) -> list[PyEvent]:
    """`runtime_smells` of a source text (for tests and doctests)."""
    parsed = parse_indexed(src)
    return runtime_smells(parsed) if parsed is not None else []


def runtime_smells(parsed: Parsed) -> list[PyEvent]:
    """Run-time smells of one parsed snippet, in node order (see the module docstring)."""
    return _Finder(parsed).run()


def _char_code_strings(nodes: list[ast.AST]) -> list[str]:
    """Strings spelled as code points: ``map(chr, (95, 112))``, ``bytes([95, 112])``, ``chr(95) + chr(112)``
    joined by the caller (each literal list of small ints is decoded whole)."""
    out = []
    for n in nodes:
        if not isinstance(n, ast.Call) or not n.args:
            continue
        fn = n.func.id if isinstance(n.func, ast.Name) else ""
        seq = n.args[-1] if fn == "map" and len(n.args) == 2 else n.args[0] if fn == "bytes" else None
        if (
            isinstance(seq, (ast.List, ast.Tuple))
            and seq.elts
            and all(
                isinstance(e, ast.Constant) and isinstance(e.value, int) and 0 < e.value < 0x110000
                for e in seq.elts
            )
        ):
            out.append("".join(chr(e.value) for e in seq.elts))  # type: ignore[attr-defined]
    return out


class _Finder:
    def __init__(self, parsed: Parsed) -> None:
        self.tree, self.aliases, self.nodes, self.parent = (
            parsed.tree,
            parsed.aliases,
            parsed.nodes,
            parsed.parent,
        )
        self.src = parsed.src
        self.encoding = parsed.encoding
        self.out: list[PyEvent] = []
        self.counts: dict[str, int] = {}
        self._classes: dict[str, ast.ClassDef] | None = None
        self._funcs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] | None = None
        self._import_time_funcs: set[str] | None = None
        self.scoped: set[ast.AST] = set()
        self._stacklevel: bool | None = None
        self._harness_strings: bool | None = None
        self._module_names: set[str] | None = None

    # -- output
    def emit(self, op: str, value: str, node: ast.AST, **facts: Any) -> None:
        key = f"{op}:{facts.get('kind') or facts.get('how') or ''}"
        n = self.counts.get(key, 0)
        if n >= _MAX_PER_KIND:
            return
        self.counts[key] = n + 1
        facts.update(self.where(node))
        self.out.append(PyEvent("smell", value, op, value, segment(self.src, node), facts))

    def where(self, node: ast.AST) -> dict[str, Any]:
        chain = ancestors(node, self.parent)
        funcs = [p.name for p in chain if isinstance(p, ast.FunctionDef | ast.AsyncFunctionDef)]
        in_def = funcs or any(isinstance(p, ast.Lambda) for p in chain)
        top = funcs[-1] if funcs else None
        return {
            "in_function": funcs,
            "main_guard": any(is_main_guard(p) for p in chain),
            "import_time": not in_def or (top is not None and top in self.import_time_funcs()),
        }

    # -- lazily built module facts
    def has_stacklevel(self) -> bool:
        """A call passes ``stacklevel=``: log records or warnings then name a caller further up."""
        if self._stacklevel is None:
            self._stacklevel = any(
                isinstance(n, ast.Call) and any(k.arg == "stacklevel" for k in n.keywords) for n in self.nodes
            )
        return self._stacklevel

    def harness_strings(self) -> bool:
        """The module spells a harness module's name somewhere (for computed sys.modules keys)."""
        if self._harness_strings is None:
            self._harness_strings = any(
                isinstance(n, ast.Constant) and isinstance(n.value, str) and _HARNESS_WORDS.search(n.value)
                for n in self.nodes
            ) or any(_HARNESS_WORDS.search(s) for s in _char_code_strings(self.nodes))
        return self._harness_strings

    def module_names(self) -> set[str]:
        """Names bound at module level: state that outlives one call."""
        if self._module_names is None:
            names: set[str] = set()
            for stmt in getattr(self.tree, "body", []):
                if isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                    names.update(t.id for t in targets if isinstance(t, ast.Name))
            self._module_names = names
        return self._module_names

    def classes(self) -> dict[str, ast.ClassDef]:
        if self._classes is None:
            self._classes = {n.name: n for n in self.nodes if isinstance(n, ast.ClassDef)}
        return self._classes

    def funcs(self) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
        if self._funcs is None:
            self._funcs = {
                n.name: n for n in self.nodes if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
            }
        return self._funcs

    def import_time_funcs(self) -> set[str]:
        """Module-level functions the module calls while it is imported (one level)."""
        if self._import_time_funcs is None:
            called: set[str] = set()
            stack: list[ast.AST] = list(getattr(self.tree, "body", []))
            while stack:  # module-level code, not the bodies of what it defines
                n = stack.pop()
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                    continue
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
                    called.add(n.func.id)
                stack.extend(ast.iter_child_nodes(n))
            self._import_time_funcs = called
        return self._import_time_funcs

    # -- the walk
    def run(self) -> list[PyEvent]:
        if self.encoding:
            first = self.tree.body[0] if getattr(self.tree, "body", None) else self.tree
            self.emit("HT-CODING", self.encoding, first, encoding=self.encoding)
        counted: list[ast.AST] = []  # increments and next() calls: candidates for call counters
        scoped = self.scoped
        for node in self.nodes:  # breadth first: a call comes before its arguments
            if node in scoped:
                continue
            t = type(node)
            if t is ast.Call:
                name = dotted(node.func, self.aliases)
                if name in _CALLS or name.startswith(_CALL_PREFIXES) or name.endswith(_CALL_TAILS):
                    self.call(node, name)
                    if name == "next":
                        counted.append(node)
                elif _SCOPED.search(name):  # monkeypatch/mock.patch arguments: undone after the test
                    for a in [*node.args, *(k.value for k in node.keywords)]:
                        scoped.update(subtree(a))
            elif t is ast.Attribute:
                if node.attr in _ATTRS:
                    self.attribute(node)
            elif t is ast.Name:
                if node.id == "__builtins__":
                    self.emit("HT-REACH", "__builtins__", self.parent.get(node, node), kind="builtins")
            elif t is ast.Constant:
                # globals()["__builtins__"], getattr(m, "__builtins__"); not {"__builtins__": {}} (a sandboxed eval)
                if node.value == "__builtins__" and type(self.parent.get(node)) is not ast.Dict:
                    self.emit("HT-REACH", "__builtins__", self.parent.get(node, node), kind="builtins")
            elif t is ast.FunctionDef or t is ast.AsyncFunctionDef:
                if node.name in _CMP:
                    self.comparison_def(node)
            elif t is ast.Assign:
                if any(
                    type(x) is ast.Attribute and x.attr in _ASSIGNED or type(x) is ast.Name and x.id in _CMP
                    for x in node.targets
                ):
                    self.assign(node)
            elif t is ast.AugAssign:
                counted.append(node)
            elif t is ast.AnnAssign:
                x = node.target
                if node.value is not None and (
                    type(x) is ast.Attribute and x.attr in _ASSIGNED or type(x) is ast.Name and x.id in _CMP
                ):
                    self.assign(node)
            elif t is ast.Import or t is ast.ImportFrom:
                self.imports(node)
            elif t is ast.ClassDef:
                for b in node.bases:
                    if _MACHINERY.search(dotted(b, self.aliases)):
                        self.emit("HT-REACH", dotted(b, self.aliases), node, kind="import machinery")
        done: set[ast.AST] = set()
        for node in counted:
            fn = self.enclosing(node)
            if fn not in done and isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                done.add(fn)
                self.counter(fn)
        return self.out

    # -- calls
    def call(self, node: ast.Call, name: str) -> None:
        tail = name.rsplit(".", 1)[-1]
        if name in _FRAME_CALLS or tail == "findCaller" or name == "findCaller":
            self.emit("SC-FRAME", name, node, how="frame", api=name)
        elif name == "warnings.catch_warnings" and any(
            k.arg == "record" and isinstance(k.value, ast.Constant) and k.value.value for k in node.keywords
        ):
            fn = self.enclosing(node)
            if any(isinstance(n, ast.Attribute) and n.attr in ("filename", "lineno") for n in subtree(fn)):
                self.emit("SC-FRAME", name, node, how="frame", api="warnings caller filename")
        elif name in _GC:
            self.emit("HT-REACH", name, node, kind="gc")
        elif name in _SIGNALS:
            self.emit("HT-REACH", name, node, kind="signal", target=name)
        elif name in _THREADS:
            if self.where(node)["import_time"]:
                self.emit("HT-REACH", name, node, kind="thread", target=name)
        elif name in ("vars", "getattr", "setattr", "delattr", "inspect.getmembers") and node.args:
            target = dotted(node.args[0], self.aliases)
            if _FRAMEWORK.match(target) or target.startswith("sys.modules"):
                key = _literal(node.args[1]) if len(node.args) > 1 else None
                self.emit("HT-REACH", target, node, kind="framework", key=key, write=name != "getattr")
            elif target in ("os", "sys", "threading", "signal") and len(node.args) > 1 and name != "getattr":
                key = _literal(node.args[1])
                if key is None or f"{target}.{key}" in _PATCHED:
                    self.emit("HT-REACH", f"{target}.{key}", node, kind="patch", target=f"{target}.{key}")
            if name == "setattr" and len(node.args) == 3:
                attr, v = _literal(node.args[1]), node.args[2]
                if attr in _CMP:
                    self.comparison_value(v, attr, node, node.args[0], late=True)
                elif attr is None and isinstance(v, ast.Lambda) and _agrees(v, "__eq__").startswith("always"):
                    self.comparison_value(v, "__eq__", node, node.args[0], late=True)
        elif name in ("importlib.import_module", "__import__", "importlib.__import__") and node.args:
            key = _literal(node.args[0])
            if key is not None and _FRAMEWORK.match(key) and not key.startswith(("py.", "__main__")):
                if key.split(".")[0] in ("_pytest", "pluggy"):
                    self.emit("HT-REACH", key, node, kind="import", key=key)
        elif _MACHINERY.search(name):
            self.emit("HT-REACH", name, node, kind="import machinery", target=name)
        elif name == "type" and len(node.args) == 3:
            self.type_call(node)
        elif tail == "cmdline" and isinstance(node.func, ast.Attribute):
            self.emit("SC-DETECT", name, node, how="argv", api=name)
        elif name in (
            "os.getenv",
            "os.getenvb",
            "os.environ.get",
            "os.environ.__contains__",
            "os.environ.pop",
        ):
            self.env(node, node.args[0] if node.args else None)

    # -- attributes
    def attribute(self, node: ast.Attribute) -> None:
        attr = node.attr
        if attr in _FRAME_ATTRS:
            self.emit("SC-FRAME", attr, self.parent.get(node, node), how="frame", api=attr)
        elif attr in _LOG_CALLER_ATTRS and self.has_stacklevel():
            self.emit("SC-FRAME", attr, self.parent.get(node, node), how="log record", api=attr)
        elif attr == "modules" and dotted(node.value, self.aliases) == "sys":
            self.sys_modules(node)
        elif attr in ("argv", "orig_argv") and dotted(node.value, self.aliases) == "sys":
            self.emit("SC-DETECT", f"sys.{attr}", self.parent.get(node, node), how="argv", api=f"sys.{attr}")
        elif (
            attr in ("meta_path", "path_hooks", "path_importer_cache")
            and dotted(node.value, self.aliases) == "sys"
        ):
            self.emit("HT-REACH", f"sys.{attr}", self.parent.get(node, node), kind="import hooks")
        elif attr == "__dict__":
            target = dotted(node.value, self.aliases)
            if _FRAMEWORK.match(target) or target.startswith("sys.modules"):
                self.emit("HT-REACH", target, self.parent.get(node, node), kind="framework", key="__dict__")
        elif attr == "environ" and dotted(node.value, self.aliases) == "os":
            p = self.parent.get(node)
            if isinstance(p, ast.Subscript) and p.value is node:
                self.env(p, p.slice)
            elif isinstance(p, ast.Compare) and node in p.comparators:
                self.env(p, p.left)
            elif (
                isinstance(p, ast.comprehension | ast.For)
                and p.iter is node
                or isinstance(p, ast.Attribute)
                and p.attr in ("keys", "items", "values")
            ):
                self.env(p, None, scan=True)

    def env(self, node: ast.AST, key_node: ast.AST | None, scan: bool = False) -> None:
        key = _literal(key_node) if key_node is not None else None
        if key is not None:
            if _TESTY.search(key) and not re.fullmatch(r"PYTEST_\w+", key):  # PYTEST_*: the probe rule's
                self.emit("SC-DETECT", key, node, how="env", key=key)
            return
        if key_node is not None and not scan:
            scan = True  # a computed key: look for test-like strings around it
        if scan:
            fn = self.enclosing(node)
            strs = [
                n.value
                for n in subtree(fn)
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and len(n.value) < 64
            ]
            hit = next((s for s in strs if _TESTY.search(s)), None)
            if hit:
                self.emit("SC-DETECT", hit, node, how="env", key=hit, scan=True)

    def sys_modules(self, node: ast.Attribute) -> None:
        p = self.parent.get(node)
        key: str | None = "*"
        write = False
        use = "read"
        if isinstance(p, ast.Subscript) and p.value is node:
            key = _literal(p.slice) or _name_key(p.slice)
            write = isinstance(getattr(p, "ctx", None), ast.Store | ast.Del)
            at: ast.AST = p
        elif isinstance(p, ast.Attribute) and p.value is node:
            gp = self.parent.get(p)
            at = gp if isinstance(gp, ast.Call) else p
            if isinstance(gp, ast.Call) and gp.args:
                key = _literal(gp.args[0]) or _name_key(gp.args[0])
            write = p.attr in (
                "pop",
                "setdefault",
                "update",
                "clear",
                "popitem",
                "__setitem__",
                "__delitem__",
            )
            if p.attr in ("keys", "values", "items", "copy"):
                key = "*"
            use = p.attr
        elif isinstance(p, ast.Compare) and node in p.comparators:
            key, use, at = _literal(p.left) or "*", "membership", p
        else:
            at = p or node
        computed = key is None or key == "*"
        self.emit(
            "HT-REACH",
            "sys.modules",
            at,
            kind="sys.modules",
            key=key,
            write=write,
            use=use,
            harness_strings=computed and self.harness_strings(),
        )

    # -- assignments: patches and late comparison methods
    def assign(self, node: ast.Assign | ast.AugAssign | ast.AnnAssign) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        value = node.value
        for t in targets:
            if isinstance(t, ast.Attribute):
                full = dotted(t, self.aliases)
                if full in _PATCHED:
                    kind = "import hooks" if full in _IMPORT_HOOKS else "patch"
                    op = "SC-FRAME" if full == "warnings.showwarning" else "HT-REACH"
                    self.emit(op, full, node, kind=kind, how="frame", target=full, write=True)
                if t.attr in _CMP and value is not None:
                    self.comparison_value(value, t.attr, node, t.value, late=True)
            elif isinstance(t, ast.Name) and t.id in _CMP and value is not None:
                self.comparison_value(value, t.id, node, None, late=False)

    def imports(self, node: ast.Import | ast.ImportFrom) -> None:
        mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        for m in mods:
            if m.split(".")[0] in ("_pytest", "pluggy"):
                self.emit("HT-REACH", m, node, kind="import", key=m)

    # -- always-agreeing comparisons
    def comparison_def(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        cls = self.parent.get(fn)
        cls = cls if isinstance(cls, ast.ClassDef) else None
        self.report_comparison(fn.name, _agrees(fn, fn.name, cls.name if cls else ""), fn, cls, late=False)

    def comparison_value(
        self, value: ast.AST, method: str, node: ast.AST, owner: ast.AST | None, late: bool
    ) -> None:
        """`method = value` in a class body (owner None), or set late on `owner`."""
        why = self.value_agrees(value, method)
        if why is None:
            return  # restores the inherited method (``__eq__ = object.__eq__``, ``__hash__ = None``)
        cls: ast.ClassDef | None = None
        if owner is None:
            p = self.parent.get(node)
            cls = p if isinstance(p, ast.ClassDef) else None
        elif isinstance(owner, ast.Name):
            cls = self.classes().get(owner.id)
        self.report_comparison(
            method, why, node, cls, late, owner_name=dotted(owner, self.aliases) if owner else ""
        )

    def value_agrees(self, value: ast.AST, method: str) -> str | None:
        """Why `value`, used as `method`, always agrees ("" when it compares; None: not an override)."""
        if isinstance(value, ast.Lambda):
            return _agrees(value, method)
        if isinstance(value, ast.Constant) and value.value is None:
            return None
        if isinstance(value, ast.Name | ast.Attribute):
            name = dotted(value, self.aliases)
            owner, _, attr = name.rpartition(".")
            if attr == method and (
                owner in _BUILTIN_TYPES or owner in ("object", "builtins.object", "super()")
            ):
                return None
            local = self.funcs().get(name)
            if local is not None:
                why = _agrees(local, method)
                return why or ("" if attr == method or not attr.startswith("__") else f"aliased to {name}")
            return f"aliased to {name}"
        if isinstance(value, ast.Call):
            lam = next((a for a in value.args if isinstance(a, ast.Lambda)), None)
            if lam is not None:
                return _agrees(lam, method)
            return f"computed by {dotted(value.func, self.aliases)}()"
        return "computed"

    def type_call(self, node: ast.Call) -> None:
        bases, ns = node.args[1], node.args[2]
        builtin = ""
        if isinstance(bases, ast.Tuple):
            builtin = next((b for b in (self.builtin_base_of(e) for e in bases.elts) if b), "")
        items: list[tuple[str | None, ast.AST]] = []
        if isinstance(ns, ast.Dict):
            items = [
                (_literal(k) if k is not None else None, v) for k, v in zip(ns.keys, ns.values, strict=True)
            ]
        elif isinstance(ns, ast.Call) and dotted(ns.func, self.aliases) == "dict":
            items = [(k.arg, k.value) for k in ns.keywords]
        for key, v in items:
            if key in _CMP:
                why = self.value_agrees(v, key)
                if why is not None:
                    self.emit_comparison(key, why, node, "type()", builtin, late=False)

    def builtin_base_of(self, base: ast.AST, depth: int = 0) -> str:
        name = dotted(base, self.aliases)
        if name in _BUILTIN_TYPES or name.startswith("builtins.") and name[9:] in _BUILTIN_TYPES:
            return name
        local = self.classes().get(name)
        if local is not None and depth < 5:
            return next((b for b in (self.builtin_base_of(x, depth + 1) for x in local.bases) if b), "")
        return ""

    def report_comparison(
        self, method: str, why: str, node: ast.AST, cls: ast.ClassDef | None, late: bool, owner_name: str = ""
    ) -> None:
        builtin = ""
        if cls is not None:
            builtin = next((b for b in (self.builtin_base_of(x) for x in cls.bases) if b), "")
        self.emit_comparison(method, why, node, cls.name if cls else owner_name, builtin, late)

    def emit_comparison(
        self, method: str, why: str, node: ast.AST, cls: str, builtin: str, late: bool
    ) -> None:
        if why or (builtin and method in ("__eq__", "__ne__")) or (late and method in ("__eq__", "__ne__")):
            self.emit(
                "HT-EQ",
                method,
                node,
                method=method,
                cls=cls,
                why=why,
                builtin_base=builtin,
                late=late,
                kind=method,
            )

    # -- call-order counters
    def counter(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        declared = {n for s in subtree(fn) if isinstance(s, ast.Global) for n in s.names}
        module = self.module_names()
        owners = {fn.name, "cls"}
        p = self.parent.get(fn)
        if isinstance(p, ast.ClassDef):
            owners.add(p.name)
        counters: set[str] = set()
        body = subtree(fn)
        local = _locals(fn)
        for n in body:
            if isinstance(n, ast.AugAssign):
                t = n.target
                if isinstance(t, ast.Name) and t.id in declared:
                    counters.add(t.id)
                elif isinstance(t, ast.Attribute):
                    base = dotted(t.value, self.aliases)
                    if base in owners or base in ("self.__class__", "type(self)", "type()"):
                        counters.add(dotted(t, self.aliases))
                elif (
                    isinstance(t, ast.Subscript)
                    and isinstance(t.value, ast.Name)
                    and t.value.id not in local
                    and t.value.id in module
                ):
                    counters.add(t.value.id)
            elif isinstance(n, ast.Call) and dotted(n.func, self.aliases) == "next" and n.args:
                src = n.args[0]
                if isinstance(src, ast.Name) and src.id not in local and src.id in module:
                    counters.add(src.id)
        if not counters:
            return
        for n in body:
            tests: list[ast.AST] = []
            if isinstance(n, ast.If | ast.IfExp | ast.While):
                tests = [n.test]
            elif isinstance(n, ast.Compare):
                tests = [n]
            elif isinstance(n, ast.Subscript) and not isinstance(getattr(n, "ctx", None), ast.Store):
                tests = [n.slice]
            for t in tests:
                for m in subtree(t):
                    ref = (
                        m.id
                        if isinstance(m, ast.Name)
                        else dotted(m, self.aliases)
                        if isinstance(m, ast.Attribute)
                        else None
                    )
                    if ref in counters:
                        self.emit("SC-DETECT", fn.name, fn, how="counter", counter=sorted(counters)[0])
                        return

    def enclosing(self, node: ast.AST) -> ast.AST:
        return next(
            (
                p
                for p in ancestors(node, self.parent)
                if isinstance(p, ast.FunctionDef | ast.AsyncFunctionDef)
            ),
            self.tree,
        )


def _literal(node: ast.AST | None, depth: int = 0) -> str | None:
    """A string an expression always evaluates to: a constant, or constants joined (``'_py' + 'test'``,
    f-strings of constants, ``''.join([...])``, ``[::-1]``)."""
    if node is None or depth > 8:
        return None
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _literal(node.left, depth + 1), _literal(node.right, depth + 1)
        return a + b if a is not None and b is not None else None
    if isinstance(node, ast.JoinedStr):
        parts = [_literal(v, depth + 1) for v in node.values]
        return "".join(p for p in parts if p is not None) if all(p is not None for p in parts) else None
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        v, sl = _literal(node.value, depth + 1), node.slice
        if v is not None and sl.lower is None and sl.upper is None and isinstance(sl.step, ast.UnaryOp):
            return v[::-1] if ast.unparse(sl.step) == "-1" else None
        return None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "join"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.List | ast.Tuple)
    ):
        sep = _literal(node.func.value, depth + 1)
        parts = [_literal(e, depth + 1) for e in node.args[0].elts]
        if sep is not None and all(p is not None for p in parts):
            return sep.join(p for p in parts if p is not None)
    return None


def _name_key(node: ast.AST | None) -> str | None:
    """``__name__``, ``obj.__module__``, ``__package__``: a module's own name, not a computed one."""
    if isinstance(node, ast.Name) and node.id in ("__name__", "__package__"):
        return "__name__"
    if isinstance(node, ast.Attribute) and node.attr in ("__module__", "__name__"):
        return "__name__"
    return None


def _locals(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    a = fn.args
    names = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
    for n in subtree(fn):
        if isinstance(n, ast.Assign):
            names.update(t.id for t in n.targets if isinstance(t, ast.Name))
    return names
