"""Static evaluation of pure commands: the stdout of ``echo``/``printf``/``base64 -d``/``xxd -r``/``rev``/``tr``...

`pure_stdout` computes what a pipeline stage prints when its input is known, so the walker can
follow ``echo Z2l0IGxvZw== | base64 -d | sh`` to ``git log``. Anything it cannot compute is ``None``.

    >>> pure_stdout(["base64", "-d"], "Z2l0IGxvZw==", Memory(), "/")
    'git log'
    >>> pure_stdout(["tr", "a-z", "n-za-m"], "tvg", Memory(), "/")
    'git'
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import zlib

from .paths import HOME, UNKNOWN, basename, resolve
from .shcommand import Memory


def _printf(fmt: str, args: list[str]) -> str:
    def esc(s: str) -> str:
        try:
            return codecs.decode(s.encode("latin-1", "backslashreplace"), "unicode_escape")
        except (UnicodeDecodeError, ValueError):
            return s

    specs = re.findall(r"%[-+ #0]*\d*(?:\.\d+)?[sbcdiouxXfgeE%]", fmt)
    n = sum(1 for s in specs if s != "%%")
    out: list[str] = []
    i = 0
    while True:
        chunk_args = args[i : i + n] if n else []

        def sub(m: re.Match[str], it: list[str] = chunk_args) -> str:
            spec = m.group(0)
            if spec == "%%":
                return "%"
            v = it.pop(0) if it else ""
            if spec.endswith("b"):
                return esc(v)
            if spec[-1] in "diouxX":
                try:
                    return ("%" + spec[1:]) % int(v, 0)
                except ValueError:
                    return v
            return v

        out.append(esc(re.sub(r"%[-+ #0]*\d*(?:\.\d+)?[sbcdiouxXfgeE%]", sub, fmt)))
        i += n
        if n == 0 or i >= len(args):
            break
    return "".join(out)


def _tr_set(s: str) -> str:
    s = codecs.decode(s.encode("latin-1", "backslashreplace"), "unicode_escape") if "\\" in s else s
    s = s.replace("[:lower:]", "a-z").replace("[:upper:]", "A-Z").replace("[:digit:]", "0-9")
    out: list[str] = []
    i = 0
    while i < len(s):
        if i + 2 < len(s) and s[i + 1] == "-":
            out.extend(chr(c) for c in range(ord(s[i]), ord(s[i + 2]) + 1))
            i += 3
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def _b64(data: str) -> str | None:
    try:
        raw = base64.b64decode("".join(data.split()) + "==", validate=False)
    except (binascii.Error, ValueError):
        return None
    return raw.decode("latin-1")


def pure_stdout(argv: list[str], stdin: str | None, memory: Memory, cwd: str) -> str | None:
    """The output of a side-effect-free text command, when it can be computed statically."""
    if not argv:
        return None
    name = basename(argv[0])
    if name not in PURE:
        return None
    args = argv[1:]
    if name != "echo" and UNKNOWN in "".join(args):
        return None
    if name in (":", "true", "false"):
        return ""
    if name.startswith("python"):
        return _site_packages(args)
    if name in ("which", "command") and args:
        # Where a tool usually lives; enough to see ``cp x $(which pytest)`` replace the runner.
        tool = [a for a in args if not a.startswith("-")]
        return f"/usr/local/bin/{tool[0]}\n" if tool else None
    if name in ("node", "nodejs"):
        return _node_resolve(args, cwd)
    if name == "go":
        # where the go command keeps its own settings (``>> $(go env GOENV)``)
        names = args[1:] if args[:1] == ["env"] else []
        known = [_GO_ENV.get(n) for n in names]
        return "".join(k + "\n" for k in known if k) if names and all(known) else None
    if name == "echo":
        flags = ""
        while args and re.fullmatch(r"-[neE]+", args[0]):
            flags += args.pop(0)
        text = " ".join(args)
        if "e" in flags:
            text = _printf(text.replace("%", "%%"), [])
        return text if "n" in flags else text + "\n"
    if name == "printf" and args:
        if args[0] == "-v":
            return None
        if args[0] == "--":  # the end of options: the format follows
            args = args[1:]
            if not args:
                return None
        return _printf(args[0], args[1:])
    if name == "ls":  # named files (no folder, no glob) are listed as given: ``f=$(ls t/a.js | head -1)``
        named = [a for a in args if not a.startswith("-")]
        files = named and all(re.search(r"[^/*?\[]\.\w+$", a) for a in named)
        return "".join(a + "\n" for a in named) if files else None
    if name == "cat":
        files = [a for a in args if not a.startswith("-")]
        if not files:
            return stdin
        return _written_text(files, memory, cwd)
    if name in _FILE_FILTERS and (files := _file_operands(args)):
        # a filter given files reads them: an earlier call's file is known (``base64 -d /tmp/t``)
        stdin = _written_text(files, memory, cwd)
    if stdin is None:
        return None
    if name == "base64" and any(a in ("-d", "--decode", "-D", "-di", "-id") for a in args):
        return _b64(stdin)
    if name == "base64":
        return base64.b64encode(stdin.encode("latin-1", "replace")).decode() + "\n"
    if name == "openssl" and "base64" in args and "-d" in args:
        return _b64(stdin)
    if name == "xxd" and "-r" in args:
        try:
            return bytes.fromhex("".join(re.findall(r"[0-9a-fA-F]{2}", stdin))).decode("latin-1")
        except ValueError:
            return None
    if name in ("gunzip", "zcat") or (name == "gzip" and "-d" in args):
        try:
            return zlib.decompress(stdin.encode("latin-1"), 47).decode("latin-1")
        except (zlib.error, UnicodeEncodeError):
            return None
    if name == "rev":
        return "\n".join(line[::-1] for line in stdin.split("\n"))
    if name == "tr":
        sets = [a for a in args if not a.startswith("-")]
        if "-d" in args and sets:
            return stdin.translate({ord(c): None for c in _tr_set(sets[0])})
        if len(sets) == 2:
            a, b = _tr_set(sets[0]), _tr_set(sets[1])
            if b:
                b = b + b[-1] * max(0, len(a) - len(b))
                return stdin.translate({ord(x): y for x, y in zip(a, b, strict=False)})
        return None
    if name in ("head", "tail", "tee", "sort", "uniq", "dos2unix"):
        return stdin
    return None


def _written_text(files: list[str], memory: Memory, cwd: str) -> str | None:
    """The joined contents of `files` when this episode wrote every one of them, else None (unknown)."""
    parts = [memory.files.get(resolve(f, cwd, memory.links)) for f in files] if memory.files else [None]
    return None if any(p is None for p in parts) else "".join(p for p in parts if p is not None)


#: The go command's own settings file (``go env GOENV``) in the sandbox's home. Its cache locations are left
#: unknown: the package-cache rules read ``$(go env GOMODCACHE)`` as written.
_GO_ENV = {"GOENV": f"{HOME}/.config/go/env"}

#: Filters that read their file operands instead of stdin, and their options that take a value.
_FILE_FILTERS = frozenset(
    {"base64", "xxd", "gunzip", "zcat", "rev", "head", "tail", "sort", "uniq", "dos2unix"}
)
_VALUE_OPTIONS = frozenset({"-n", "-c", "-w", "-b", "-l", "-k", "-t", "-o", "-s"})


def _file_operands(args: list[str]) -> list[str]:
    """The file operands of a filter's arguments (``-w 0 /tmp/t`` -> ``['/tmp/t']``; ``-`` is stdin).

    >>> _file_operands(["-d", "/tmp/t"]), _file_operands(["-n", "3"]), _file_operands(["-"])
    (['/tmp/t'], [], [])
    """
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in _VALUE_OPTIONS:
            skip = True
        elif not a.startswith("-"):
            out.append(a)
    return out


PURE = frozenset(
    {
        ":",
        "true",
        "false",
        "which",
        "command",
        "echo",
        "ls",
        "go",
        "printf",
        "cat",
        "base64",
        "openssl",
        "xxd",
        "gunzip",
        "zcat",
        "gzip",
        "rev",
        "tr",
        "head",
        "tail",
        "tee",
        "sort",
        "uniq",
        "dos2unix",
        "python",
        "python3",
        "node",
        "nodejs",
    }
)


#: Python one-liners that print where installed packages live (``site.getsitepackages()[0]``).
_SITE_DIR = re.compile(
    r"getsitepackages|getusersitepackages|get_paths\(\)\s*\[\s*['\"](pure|plat)lib|get_python_lib"
)


def _site_packages(args: list[str]) -> str | None:
    """What ``python3 -c 'import site; print(site.getsitepackages()[0])'`` prints, in the usual
    place: enough to see ``cat $(python3 -c ...)/pkg/x.py`` read the installed copy."""
    code = args[args.index("-c") + 1] if "-c" in args[:-1] else ""
    return "/usr/local/lib/python3/site-packages\n" if _SITE_DIR.search(code) and "print" in code else None


#: ``require.resolve('pkg/file')`` printed by a node one-liner (``-p``/``--print``, or ``-e`` with ``console.log``).
_NODE_RESOLVE = re.compile(
    r"""^\s*(?:console\.log\s*\(\s*)?require\.resolve\s*\(\s*(['"`])([@\w][\w@./-]*)\1\s*\)\s*\)?\s*;?\s*$"""
)


def _node_resolve(args: list[str], cwd: str) -> str | None:
    """Where ``node -p 'require.resolve("tap/bin/run.js")'`` finds a package file: the project's
    ``node_modules`` (enough to see ``> "$(node -p ...)"`` overwrite an installed runner). A relative
    request (``./x``) and any other program stay unknown.

    >>> _node_resolve(["-p", "require.resolve('tap/bin/run.js')"], "/w")
    '/w/node_modules/tap/bin/run.js\\n'
    >>> _node_resolve(["-p", "require('tap').version"], "/w") is None
    True
    """
    for flag in ("-p", "--print", "-e", "--eval"):
        if flag in args[:-1]:
            code = args[args.index(flag) + 1]
            m = _NODE_RESOLVE.match(code)
            if m and (flag in ("-p", "--print") or code.lstrip().startswith("console.log")):
                return f"{cwd.rstrip('/')}/node_modules/{m.group(2)}\n"
    return None
