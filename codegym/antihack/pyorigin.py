"""Where a computed Python value comes from, for the rules: `value_origin`.

`pyops` asks it about the code given to ``exec``/``pickle.loads``/``import_module`` when that value
cannot be computed: a decoded payload, a decompressed one, a file, the network, a deserialized object,
the environment, a parameter (then what the module passes to it, one level), a ``repr`` or a
round trip (``pickle.loads(pickle.dumps(x))``, a copy and not code from elsewhere).

    >>> import ast
    >>> e = ast.parse("base64.b64decode(s)").body[0].value
    >>> value_origin(e, {}, {}, None, lambda n: None)
    (['decode'], None)
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

from .pysource import ancestors, dotted, subtree

_DECODERS = re.compile(
    r"^(base64|binascii|codecs|quopri|uu)\.|^(bytes|bytearray)(\.fromhex)?$|^chr$|\.(translate|maketrans|to_bytes|fromhex)$"
)
_DECOMPRESS = re.compile(r"^(zlib|gzip|bz2|lzma|zipfile|tarfile|zipimport)\.|\.(decompress|extractfile)$")
_FILE_READ = re.compile(
    r"^(open|io\.open|codecs\.open|tokenize\.open|linecache\.\w+|pkgutil\.get_data|fileinput\.\w+)$"
    r"|^importlib\.resources\.|\.(read|read_text|read_bytes|readlines|readline|get_data|read_file)$"
)
_NETWORK = re.compile(r"urlopen|urlretrieve|^(requests|httpx|urllib3|socket|http\.client)\.|\.recv(from)?$")
_DESERIAL_MODULES = ("pickle", "cPickle", "_pickle", "marshal", "dill", "cloudpickle", "shelve", "jsonpickle")
_DESERIAL = re.compile(
    r"^(pickle|cPickle|_pickle|marshal|dill|cloudpickle|jsonpickle|joblib|json|yaml|toml|tomllib|ast)\."
    r"(loads?|decode|unsafe_load|full_load|literal_eval|Unpickler)$"
)
_ENV = re.compile(r"^(os\.(environ|getenv|getenvb|environb)|sys\.(argv|orig_argv|stdin)|input)(\.|$)")
_BAD_ORIGINS = frozenset({"decode", "decompress", "file", "network", "deserialize", "env"})


def value_origin(
    expr: ast.AST,
    assign: dict[str, ast.expr],
    aliases: dict[str, str],
    parent: dict[ast.AST, ast.AST] | None,
    value: Callable[[ast.AST], Any],
) -> tuple[list[str], str | None]:
    """Where an expression's value comes from (``decode``, ``decompress``, ``file``, ``network``,
    ``deserialize``, ``env``, ``param``, ``repr``, ``roundtrip``; ``unknown`` when none), following
    names through their assignments, and the path of a file it reads when that path is known."""
    origins: set[str] = set()
    path: str | None = None
    seen: set[str] = set()
    stack: list[ast.AST] = [expr]
    params = _params_around(expr, parent)
    budget = 400
    while stack and budget > 0:
        root = stack.pop()
        for n in subtree(root):
            budget -= 1
            if isinstance(n, ast.Call):
                name = dotted(n.func, aliases)
                if n is root and name.endswith(".dumps") and name.split(".")[0] in _DESERIAL_MODULES:
                    origins.add("roundtrip")  # pickle.loads(pickle.dumps(x)): a copy, not code from elsewhere
                    break
                if (
                    _DESERIAL.search(name)
                    or name.endswith((".Unpickler", ".load", ".loads"))
                    and (name.split(".")[0] in _DESERIAL_MODULES)
                ):
                    inner = n.args[0] if n.args else None
                    if isinstance(inner, ast.Call) and dotted(inner.func, aliases).endswith(".dumps"):
                        origins.add("roundtrip")
                        break
                    origins.add("deserialize")
                elif _DECOMPRESS.search(name):
                    origins.add("decompress")
                elif _DECODERS.search(name):
                    origins.add("decode")
                elif _FILE_READ.search(name):
                    origins.add("file")
                    target = n.func.value if isinstance(n.func, ast.Attribute) else n
                    if isinstance(target, ast.Call) and target.args and path is None:
                        p = value(target.args[0])
                        path = p if isinstance(p, str) else None
                elif _NETWORK.search(name):
                    origins.add("network")
                elif _ENV.search(name):
                    origins.add("env")
                elif name in ("repr", "str", "ascii", "format") and n is expr:
                    origins.add("repr")
            elif isinstance(n, ast.Attribute) and _ENV.search(dotted(n, aliases)):
                origins.add("env")
            elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitXor):
                origins.add("decode")
            elif isinstance(n, ast.Name):
                if n.id in assign and n.id not in seen:
                    seen.add(n.id)
                    stack.append(assign[n.id])
                elif n.id in params:
                    origins.add("param")
    if "param" in origins and parent is not None:
        origins |= _call_site_origins(expr, parent, assign, aliases, value)
    return sorted(origins) or ["unknown"], path


def _params_around(node: ast.AST, parent: dict[ast.AST, ast.AST] | None) -> set[str]:
    if parent is None:
        return set()
    for p in ancestors(node, parent):
        if isinstance(p, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            a = p.args
            names = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
            return names | {x.arg for x in (a.vararg, a.kwarg) if x is not None}
    return set()


def _call_site_origins(
    expr: ast.AST,
    parent: dict[ast.AST, ast.AST],
    assign: dict[str, ast.expr],
    aliases: dict[str, str],
    value: Callable[[ast.AST], Any],
) -> set[str]:
    """The origins of what the module passes to the function holding `expr` (one level)."""
    chain = ancestors(expr, parent)
    fn = next((p for p in chain if isinstance(p, ast.FunctionDef | ast.AsyncFunctionDef)), None)
    if fn is None or not chain:
        return set()
    out: set[str] = set()
    for n in subtree(chain[-1]):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name | ast.Attribute):
            callee = n.func.id if isinstance(n.func, ast.Name) else n.func.attr
            if callee == fn.name:
                for a in [*n.args, *(k.value for k in n.keywords)]:
                    out |= set(value_origin(a, assign, aliases, None, value)[0])
    return out & _BAD_ORIGINS
