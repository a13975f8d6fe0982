"""What a bash script runs: simple commands with their words resolved, from a real bash grammar.

`ShellAnalyzer.analyze` parses a script with tree-sitter-bash once and walks the tree once,
tracking variables, `cd`, functions, aliases, loops and subshells. A plain script (words and
quotes without expansions, joined by pipes and lists; most agent commands) skips the parser:
`plain_script` reads its commands off directly, exactly as the tree would give them. It evaluates the pure parts of
pipelines (``echo``/``printf``/heredocs into ``base64 -d``, ``xxd -r -p``, ``rev``, ``tr``), so
``echo Z2l0IGxvZyAtLWFsbA== | base64 -d | sh`` yields the command ``git log --all``; it descends
into ``bash -c``, ``eval``, ``sh <<EOF``, ``source``, ``xargs``, ``find -exec`` and wrappers such
as ``sudo``/``env``/``timeout``. Unresolvable values become `paths.UNKNOWN` (a wildcard).

    >>> cmds = ShellAnalyzer().analyze("X=$(printf '\\\\x67\\\\x69\\\\x74'); $X log --all | head", "/workspace")
    >>> [c.argv for c in cmds if c.argv[0] == "git"]
    [['git', 'log', '--all']]
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import shlex
import threading
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field

import tree_sitter
import tree_sitter_bash

from .paths import HOME, UNKNOWN, basename, resolve

_LANGUAGE = tree_sitter.Language(tree_sitter_bash.language())
_LOCAL = threading.local()


def _parser() -> tree_sitter.Parser:
    """This thread's parser: a tree-sitter `Parser` must not be shared between threads (envs
    stepping concurrently in threads each run the guard)."""
    parser = getattr(_LOCAL, "parser", None)
    if parser is None:
        parser = _LOCAL.parser = tree_sitter.Parser(_LANGUAGE)
    return parser

SEARCH = "\x01"  # prefix of a path produced by a search (find/ls/grep -l), not typed by the agent
SHELLS = {"bash", "sh", "dash", "zsh", "ksh", "ash", "busybox"}
# Commands `ShellAnalyzer` interprets itself (besides functions the script defines).
_SHELL_LEVEL = frozenset(
    {"cd", "pushd", "export", "declare", "typeset", "local", "readonly", "alias", "read", "eval", "su"}
    | {"source", ".", "watch", "xargs", "find"}
    | SHELLS
)
MAX_DEPTH = 6
MAX_COMMANDS = 400


#: Every non-ASCII byte -> "a". tree-sitter-bash 0.25's external scanner reads out of bounds on
#: some non-ASCII input (e.g. ``{`` then a 4-byte UTF-8 character: tree-sitter/tree-sitter-bash#337)
#: and kills the process with SIGSEGV. Bash gives non-ASCII bytes no syntax (every metacharacter
#: and default IFS byte is ASCII), so an ASCII word byte in their place parses to the same tree
#: with the same byte offsets; the walker reads every word from the original bytes.
_ASCII_ONLY = bytes(range(128)) + b"a" * 128


def parse_bytes(src: bytes) -> tree_sitter.Tree:
    """The syntax tree of `src`, parsed from its ASCII-masked copy (offsets index `src`)."""
    return _parser().parse(src.translate(_ASCII_ONLY) if not src.isascii() else src)


def parse(script: str) -> tree_sitter.Tree:
    return parse_bytes(script.encode("utf-8", "surrogateescape"))


@dataclass
class Memory:
    """What the agent has written during an episode: file contents and symlinks (absolute paths)."""

    files: dict[str, str] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)

    def copy(self) -> Memory:
        return Memory(dict(self.files), dict(self.links), dict(self.aliases))


@dataclass
class SimpleCommand:
    """One command the shell would run, words resolved.

    `writes` are redirect targets with the content written when known; `stdin` the input when it
    is known statically; `depth` how many layers of decoding/indirection it came through.
    """

    argv: list[str]
    cwd: str
    text: str
    stdin: str | None = None
    writes: list[tuple[str, str | None, bool]] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    depth: int = 0
    via: str = ""

    @property
    def name(self) -> str:
        a = self.argv[0] if self.argv else ""
        return a.rsplit("/", 1)[-1] if "/" in a else a


# ---------------------------------------------------------------- pure commands (static evaluation)


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
    if name not in _PURE:
        return None
    args = argv[1:]
    if name != "echo" and UNKNOWN in "".join(args):
        return None
    if name in (":", "true", "false"):
        return ""
    if name in ("which", "command") and args:
        # Where a tool usually lives; enough to see ``cp x $(which pytest)`` replace the runner.
        tool = [a for a in args if not a.startswith("-")]
        return f"/usr/local/bin/{tool[0]}\n" if tool else None
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
        return _printf(args[0], args[1:])
    if name == "cat":
        files = [a for a in args if not a.startswith("-")]
        if not files:
            return stdin
        if not memory.files:
            return None  # nothing written this episode: no file's content is known
        parts = [memory.files.get(resolve(f, cwd, memory.links)) for f in files]
        return None if any(p is None for p in parts) else "".join(p for p in parts if p is not None)
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


_PURE = frozenset(
    {
        ":",
        "true",
        "false",
        "which",
        "command",
        "echo",
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
    }
)

# ---------------------------------------------------------------- the walker


_WRAPPERS_WITH_ARG = {
    "sudo": {"-u", "-g", "-C", "-h", "-p", "-r", "-t", "-U"},
    "timeout": {"-s", "-k", "--signal", "--kill-after"},
    "nice": {"-n"},
    "ionice": {"-c", "-n"},
    "stdbuf": set(),
    "env": {"-u", "-C", "--chdir", "--unset"},
    "command": set(),
    "builtin": set(),
    "exec": {"-a"},
    "nohup": set(),
    "time": set(),
    "setsid": set(),
    "unbuffer": set(),
    "chronic": set(),
    "taskset": set(),
    "flock": set(),
    "strace": {"-o", "-e", "-p", "-s"},
    "ltrace": {"-o", "-e"},
    "doas": {"-u"},
    "runuser": {"-u", "-g"},
    "chrt": set(),
    "caffeinate": set(),
}


class ShellAnalyzer:
    """Turns bash source into `SimpleCommand`s. One analyzer per call; `memory` spans an episode."""

    def __init__(self, memory: Memory | None = None) -> None:
        self.memory = memory if memory is not None else Memory()
        self.out: list[SimpleCommand] = []
        self.functions: dict[str, tuple[tree_sitter.Node, bytes]] = {}

    # -- entry points

    def analyze(
        self,
        script: str,
        cwd: str,
        env: dict[str, str] | None = None,
        depth: int = 0,
        via: str = "",
        positional: list[str] | None = None,
    ) -> list[SimpleCommand]:
        """All simple commands `script` would run (in order), including nested/decoded ones."""
        if depth > MAX_DEPTH or len(self.out) > MAX_COMMANDS:
            return self.out
        plain = plain_script(script)
        src = b"" if plain is not None else script.encode("utf-8", "surrogateescape")
        frame = _Frame(dict(env or {}), cwd, positional or [], src, depth, via)
        frame.env.setdefault("HOME", HOME)
        if plain is None:
            tree = parse_bytes(src)  # keep the Tree alive while its nodes are walked
            self._walk(tree.root_node, frame)
            return self.out
        # The tree of a plain script is known: commands in order, stdout piped within a pipeline.
        for pipeline in plain:
            data = None
            for argv, text in pipeline:
                if len(self.out) > MAX_COMMANDS:
                    return self.out
                data = self._run(argv, text, frame, frame.env, data)  # no assignments to scope
        return self.out

    def analyze_argv(self, argv: list[str], cwd: str, depth: int = 0, via: str = "") -> list[SimpleCommand]:
        """Like `analyze`, for an already-split command (e.g. ``subprocess.run([...])``)."""
        if depth <= MAX_DEPTH:
            frame = _Frame({"HOME": HOME}, cwd, [], b"", depth, via)
            self.run_argv(argv, frame, via)
        return self.out

    # -- tree walk

    def _walk(self, node: tree_sitter.Node, f: _Frame, stdin: str | None = None) -> str | None:
        """Walk a statement; returns its stdout when statically known (for pipelines)."""
        t = node.type
        if len(self.out) > MAX_COMMANDS:
            return None
        if t == "command":
            return self._command(node, f, stdin, [])
        if t == "pipeline":
            data = stdin
            for child in node.named_children:
                data = self._walk(child, f, data)
            return data
        if t == "redirected_statement":
            return self._redirected(node, f, stdin)
        if t == "subshell":
            sub = f.child()
            last = None
            for child in node.named_children:
                last = self._walk(child, sub, stdin)
            return last
        if t in ("variable_assignment", "variable_assignments"):
            for a in [node] if t == "variable_assignment" else node.named_children:
                self._assign(a, f, f.env)
            return None
        if t == "declaration_command":
            for child in node.named_children:
                if child.type == "variable_assignment":
                    self._assign(child, f, f.env)
            return None
        if t == "function_definition":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if name is not None and body is not None:
                self.functions[_text(name, f)] = (body, f.src)
            return None
        if t == "for_statement":
            var = node.child_by_field_name("variable")
            values: list[str] = []
            for v in node.children_by_field_name("value"):
                values.extend(self._words(v, f))
            body = node.child_by_field_name("body")
            name = _text(var, f) if var is not None else "_"
            for value in (values or [UNKNOWN])[:8]:
                f.env[name] = value
                if body is not None:
                    self._walk(body, f)
            return None
        if t in ("command_substitution", "process_substitution"):
            return self._substitution(node, f)
        if t == "heredoc_body" or t == "comment":
            return None
        last = None
        data = stdin
        for child in node.named_children:
            # Words in conditions and case subjects may hide command substitutions.
            if child.type in ("word", "string", "concatenation", "simple_expansion", "expansion"):
                self._words(child, f)
                continue
            last = self._walk(child, f, data)
        return last

    def _redirected(self, node: tree_sitter.Node, f: _Frame, stdin: str | None) -> str | None:
        body = node.child_by_field_name("body")
        redirects: list[tree_sitter.Node] = [c for c in node.named_children if c is not body]
        after: list[tree_sitter.Node] = []
        extra: list[tree_sitter.Node] = []
        for r in redirects:
            if r.type == "heredoc_redirect":
                for c in r.named_children:
                    if c.type not in ("heredoc_start", "heredoc_body", "heredoc_end"):
                        (extra if c.type in ("file_redirect", "herestring_redirect") else after).append(c)
        redirects += extra
        if body is None:
            return None
        if body.type == "command":
            out = self._command(body, f, stdin, redirects)
        else:
            data = stdin
            for r in redirects:
                if r.type in ("heredoc_redirect", "herestring_redirect"):
                    data = self._redirect_input(r, f)
            targets, reads, fed = self._file_redirects([r for r in redirects if r.type == "file_redirect"], f)
            out = self._walk(body, f, fed if fed is not None else data)
            writes: list[tuple[str, str | None, bool]] = []
            for path, append in targets:
                if out is not None:
                    self.memory.files[path] = (self.memory.files.get(path, "") if append else "") + out
                writes.append((path, out, append))
            if writes or reads:
                self._emit(
                    SimpleCommand([":"], f.cwd, _snippet(node, f), None, writes, reads, f.depth, f.via)
                )
            if targets:
                out = None
        for a in after:
            out = self._walk(a, f, out)
        return out

    def _redirect_input(self, r: tree_sitter.Node, f: _Frame) -> str | None:
        if r.type == "herestring_redirect":
            vals = [self._value(c, f) for c in r.named_children]
            return " ".join(v for v, _ in vals) + "\n"
        start = next((c for c in r.named_children if c.type == "heredoc_start"), None)
        body = next((c for c in r.named_children if c.type == "heredoc_body"), None)
        if body is None:
            return ""
        quoted = start is not None and any(q in _text(start, f) for q in "'\"\\")
        if quoted:
            return _text(body, f)
        raw = f.src[body.start_byte : body.end_byte]
        pieces: list[str] = []
        pos = body.start_byte
        for c in body.named_children:
            if c.type in ("simple_expansion", "expansion", "command_substitution", "arithmetic_expansion"):
                pieces.append(f.src[pos : c.start_byte].decode("utf-8", "surrogateescape"))
                pieces.append(self._value(c, f)[0])
                pos = c.end_byte
        pieces.append(f.src[pos : body.end_byte].decode("utf-8", "surrogateescape"))
        return "".join(pieces) if pieces else raw.decode("utf-8", "surrogateescape")

    def _assign(self, node: tree_sitter.Node, f: _Frame, env: dict[str, str]) -> None:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        if name_node is None:
            return
        name = _text(name_node, f).split("[")[0]
        if value_node is None:
            env[name] = ""
        elif value_node.type == "array":
            env[name] = " ".join(self._value(c, f)[0] for c in value_node.named_children)
        else:
            env[name] = self._value(value_node, f)[0]

    def _substitution(self, node: tree_sitter.Node, f: _Frame) -> str | None:
        sub = f.child()
        last = None
        for child in node.named_children:
            last = self._walk(child, sub)
        return last

    # -- words

    def _value(self, node: tree_sitter.Node, f: _Frame) -> tuple[str, bool]:
        """(value, split): the word's value, and whether unquoted expansion makes it split."""
        t = node.type
        if t in ("word", "number", "special_variable_name", "variable_name", "test_operator", "regex"):
            raw = _text(node, f)
            return (re.sub(r"\\(.)", r"\1", raw) if "\\" in raw else raw), False
        if t == "raw_string":
            return _text(node, f)[1:-1], False
        if t == "ansi_c_string":
            body = _text(node, f)[2:-1]
            try:
                return codecs.decode(body.encode("latin-1", "backslashreplace"), "unicode_escape"), False
            except (UnicodeDecodeError, ValueError):
                return body, False
        if t in ("string", "translated_string"):
            parts: list[str] = []
            for c in node.named_children:
                if c.type == "string_content":
                    parts.append(re.sub(r'\\([$`"\\\n])', r"\1", _text(c, f)))
                else:
                    parts.append(self._value(c, f)[0])
            return "".join(parts), False
        if t == "simple_expansion":
            name = _text(node, f)[1:]
            return self._lookup(name, f), True
        if t == "expansion":
            return self._expansion(node, f), True
        if t in ("command_substitution", "process_substitution"):
            out = self._substitution(node, f)
            if t == "process_substitution":
                fd = f"/dev/fd/{63 - len(self.memory.files) % 10}"
                if out is not None:
                    self.memory.files[fd] = out
                return fd, False
            return (out.rstrip("\n") if out is not None else UNKNOWN), True
        if t == "concatenation":
            vals = [self._value(c, f) for c in node.named_children]
            return "".join(v for v, _ in vals), any(s for _, s in vals)
        if t == "arithmetic_expansion":
            return UNKNOWN, True
        if t == "array":
            return " ".join(self._value(c, f)[0] for c in node.named_children), True
        if t == "brace_expression":
            return _text(node, f), False
        return _text(node, f), False

    def _lookup(self, name: str, f: _Frame) -> str:
        if name.isdigit():
            i = int(name)
            if i == 0:
                return "bash"
            return f.positional[i - 1] if i - 1 < len(f.positional) else UNKNOWN
        if name in ("@", "*"):
            return " ".join(f.positional) if f.positional else UNKNOWN
        if name == "PWD":
            return f.cwd
        return f.env.get(name, UNKNOWN)

    def _expansion(self, node: tree_sitter.Node, f: _Frame) -> str:
        kids = node.children
        names = [c for c in kids if c.type in ("variable_name", "special_variable_name")]
        if not names:
            return UNKNOWN
        value = self._lookup(_text(names[0], f), f)
        rest = [c for c in kids if c.type not in ("${", "}", "variable_name", "special_variable_name")]
        if not rest:
            return value
        op = _text(rest[0], f)
        operand = "".join(self._value(c, f)[0] for c in rest[1:] if c.is_named)
        if op in (":-", "-", ":=", "="):
            return operand if value == UNKNOWN or (op[0] == ":" and not value) else value
        if op in (":+", "+"):
            return operand if value != UNKNOWN else ""
        if op == "#" and kids[1].type == "#":
            return str(len(value)) if value != UNKNOWN else UNKNOWN
        if value == UNKNOWN:
            return UNKNOWN
        if op in ("#", "##") and operand:
            return value[len(operand) :] if value.startswith(operand) else value
        if op in ("%", "%%") and operand:
            return value[: -len(operand)] if value.endswith(operand) else value
        if op in ("/", "//"):
            parts = [self._value(c, f)[0] for c in rest[1:] if c.is_named]
            if parts:
                old, new = parts[0], parts[1] if len(parts) > 1 else ""
                return value.replace(old, new) if op == "//" else value.replace(old, new, 1)
        if op == ":" and operand:
            m = re.fullmatch(r"(\d+)(?::(\d+))?", operand)
            if m:
                a = int(m.group(1))
                return value[a : a + int(m.group(2))] if m.group(2) else value[a:]
        if op in ("^^", ",,"):
            return value.upper() if op == "^^" else value.lower()
        return UNKNOWN

    def _words(self, node: tree_sitter.Node, f: _Frame) -> list[str]:
        value, split = self._value(node, f)
        words = value.split() if split else [value]
        out: list[str] = []
        for w in words:
            out.extend(_brace_expand(w) if "{" in w and node.type in ("word", "concatenation") else [w])
        return out

    # -- commands

    def _command(
        self, node: tree_sitter.Node, f: _Frame, stdin: str | None, redirects: list[tree_sitter.Node]
    ) -> str | None:
        env = dict(f.env)
        argv: list[str] = []
        own_redirects = list(redirects)
        for child in node.named_children:
            t = child.type
            if t == "variable_assignment":
                self._assign(child, f, env)
            elif t == "command_name":
                for c in child.named_children:
                    argv.extend(self._words(c, f))
            elif t in ("file_redirect", "herestring_redirect", "heredoc_redirect"):
                own_redirects.append(child)
            elif t == "subshell":
                self._walk(child, f)
            else:
                argv.extend(self._words(child, f))
        writes: list[tuple[str, str | None, bool]] = []
        for r in own_redirects:
            if r.type in ("herestring_redirect", "heredoc_redirect"):
                stdin = self._redirect_input(r, f)
        write_targets, reads, fed = self._file_redirects(
            [r for r in own_redirects if r.type == "file_redirect"], f
        )
        if fed is not None:
            stdin = fed
        if not argv:
            f.env.update({k: v for k, v in env.items() if k not in f.env or env[k] != f.env.get(k)})
            for path, append in write_targets:
                writes.append((path, "", append))
            if writes or reads:
                self._emit(
                    SimpleCommand([":"], f.cwd, _snippet(node, f), stdin, writes, reads, f.depth, f.via)
                )
            return None
        out = self._run(argv, _snippet(node, f), f, env, stdin, writes, reads)
        for path, append in write_targets:
            content = out
            if content is not None:
                prev = self.memory.files.get(path, "") if append else ""
                self.memory.files[path] = prev + content
            writes.append((path, content, append))
        return None if write_targets else out

    def _run(
        self,
        argv: list[str],
        text: str,
        f: _Frame,
        env: dict[str, str],
        stdin: str | None,
        writes: list[tuple[str, str | None, bool]] | None = None,
        reads: list[str] | None = None,
    ) -> str | None:
        """Run one simple command (aliases expanded); its stdout when statically known."""
        if argv[0] in self.memory.aliases and f.depth < MAX_DEPTH:
            argv = shlex_split(self.memory.aliases[argv[0]]) + argv[1:]
        cmd = SimpleCommand(
            argv,
            f.cwd,
            text,
            stdin,
            [] if writes is None else writes,
            [] if reads is None else reads,
            f.depth,
            f.via,
        )
        mark = len(self.out)
        out = self._dispatch(cmd, f, env)
        self.out.insert(mark, cmd)  # before the commands it spawned, which dispatch appended
        return out

    def _file_redirects(
        self, redirects: list[tree_sitter.Node], f: _Frame
    ) -> tuple[list[tuple[str, bool]], list[str], str | None]:
        """(write targets with append flag, files read, stdin content when read from a known file)."""
        targets: list[tuple[str, bool]] = []
        reads: list[str] = []
        stdin: str | None = None
        for r in redirects:
            op_node = next((c for c in r.children if not c.is_named), None)
            op = _text(op_node, f) if op_node is not None else ">"
            dest = r.child_by_field_name("destination")
            if dest is None:
                continue
            target = self._value(dest, f)[0]
            if target.startswith("&") or target in ("-", "") or op in (">&", "<&") and target.isdigit():
                continue
            path = resolve(target, f.cwd, self.memory.links)
            if path.startswith("/dev/") and not path.startswith("/dev/fd/"):
                continue
            if "<" in op:
                reads.append(path)
                if path in self.memory.files:
                    stdin = self.memory.files[path]
            else:
                targets.append((path, ">>" in op))
        return targets, reads, stdin

    def _emit(self, cmd: SimpleCommand) -> None:
        self.out.append(cmd)

    def run_argv(self, argv: list[str], f: _Frame, via: str, stdin: str | None = None) -> str | None:
        """Run an already-split command (from xargs, find -exec, or a Python subprocess list)."""
        cmd = SimpleCommand(list(argv), f.cwd, shlex_join(argv)[:160], stdin, [], [], f.depth, via)
        mark = len(self.out)
        out = self._dispatch(cmd, f, dict(f.env))
        self.out.insert(mark, cmd)
        return out

    def _dispatch(self, cmd: SimpleCommand, f: _Frame, env: dict[str, str]) -> str | None:
        """Interpret shell-level semantics (cd, eval, bash -c, xargs, find -exec, wrappers)."""
        argv = cmd.argv
        name = basename(argv[0]) if argv else ""
        if name in _WRAPPERS_WITH_ARG:
            argv[:] = _strip_wrappers(argv)
            if not argv:
                return None
            name = basename(argv[0])
        elif not argv:
            return None
        args = argv[1:]
        depth = f.depth + 1
        if name not in _SHELL_LEVEL and name not in self.functions:
            pass  # an ordinary program: none of the branches below applies
        elif name in ("cd", "pushd"):
            target = next((a for a in args if not a.startswith("-")), HOME)
            f.cwd = resolve(target, f.cwd, self.memory.links)
            return None
        elif name in ("export", "declare", "typeset", "local", "readonly"):
            for a in args:
                if "=" in a and not a.startswith("-"):
                    k, v = a.split("=", 1)
                    f.env[k] = v
            return None
        elif name == "alias":
            for a in args:
                if "=" in a:
                    k, v = a.split("=", 1)
                    self.memory.aliases[k] = v
            return None
        elif name == "read":
            names = [a for a in args if not a.startswith("-")]
            if names and cmd.stdin is not None:
                f.env[names[-1]] = cmd.stdin.rstrip("\n")
            return None
        elif name in self.functions and depth <= MAX_DEPTH:
            body, src = self.functions[name]
            sub = _Frame(dict(f.env), f.cwd, args, src, f.depth, f.via)
            return self._walk(body, sub, cmd.stdin)
        elif name == "eval":
            self._nested(" ".join(args), f, depth, "eval")
            return None
        elif name in SHELLS or name in ("su",):
            script, pos = _shell_script(args, cmd.stdin, self.memory, f.cwd)
            if script is not None:
                self._nested(script, f, depth, name, pos)
            return None
        elif name in ("source", "."):
            if args:
                content = self.memory.files.get(resolve(args[0], f.cwd, self.memory.links))
                if content is not None:
                    self._nested(content, f, depth, "source", args[1:], share_env=True)
            return None
        elif name == "watch":
            rest = [a for a in args if not a.startswith("-")]
            if rest:
                self._nested(" ".join(rest), f, depth, "watch")
            return None
        elif name == "xargs":
            self._xargs(cmd, args, f, depth)
            return None
        elif name == "find":
            self._find_exec(cmd, args, f, depth)
            return None
        if "/" in argv[0]:
            content = self.memory.files.get(resolve(argv[0], f.cwd, self.memory.links))
            if content is not None and not _is_python_script(argv[0], content):
                self._nested(content, f, depth, argv[0], args)
        return pure_stdout(argv, cmd.stdin, self.memory, f.cwd) if name in _PURE else None

    def _nested(
        self,
        script: str,
        f: _Frame,
        depth: int,
        via: str,
        positional: list[str] | None = None,
        share_env: bool = False,
    ) -> None:
        if depth > MAX_DEPTH or not script.strip():
            return
        src = script.encode("utf-8", "surrogateescape")
        tree = parse_bytes(src)
        frame = _Frame(f.env if share_env else dict(f.env), f.cwd, positional or [], src, depth, via)
        self._walk(tree.root_node, frame)
        if share_env:
            f.cwd = frame.cwd

    def _xargs(self, cmd: SimpleCommand, args: list[str], f: _Frame, depth: int) -> None:
        i = 0
        replace = None
        takes_value = {"-I", "-i", "-n", "-P", "-L", "-s", "-d", "-E", "-a", "--max-args", "--max-procs"}
        while i < len(args) and args[i].startswith("-"):
            if args[i] in ("-I", "-i"):
                replace = args[i + 1] if i + 1 < len(args) else "{}"
            elif args[i].startswith(("-I", "--replace=")) or args[i] == "-i":
                replace = args[i].split("=", 1)[-1] if "=" in args[i] else args[i][2:] or "{}"
            if args[i] in takes_value:
                i += 1
            i += 1
        sub_argv = args[i:] or ["echo"]
        if cmd.stdin is not None:
            items = cmd.stdin.split()
        else:
            items = [UNKNOWN] if replace else [SEARCH + resolve(UNKNOWN, f.cwd)]
        if replace:
            argvs = [[a.replace(replace, it) for a in sub_argv] for it in items[:16]]
        else:
            argvs = [sub_argv + items[:64]]
        sub = _Frame(f.env, f.cwd, f.positional, f.src, depth, "xargs")
        for av in argvs:
            self.run_argv(av, sub, "xargs")

    def _find_exec(self, cmd: SimpleCommand, args: list[str], f: _Frame, depth: int) -> None:
        roots: list[str] = []
        i = 0
        while i < len(args) and not args[i].startswith(("-", "(", "!")):
            roots.append(args[i])
            i += 1
        roots = roots or ["."]
        pattern = "*"
        j = i
        while j < len(args):
            a = args[j]
            if a in ("-name", "-iname", "-path", "-ipath", "-wholename", "-regex") and j + 1 < len(args):
                pattern = args[j + 1]
                j += 2
                continue
            if a in ("-exec", "-execdir", "-ok", "-okdir"):
                k = j + 1
                sub: list[str] = []
                while k < len(args) and args[k] not in (";", "+", "\\;"):
                    sub.append(args[k])
                    k += 1
                for root in roots[:4]:
                    match = SEARCH + resolve(root, f.cwd, self.memory.links).rstrip("/") + "/**/" + pattern
                    av = [match if s == "{}" else s.replace("{}", match) for s in sub]
                    if av:
                        frame = _Frame(f.env, f.cwd, f.positional, f.src, depth, "find -exec")
                        self.run_argv(av, frame, "find -exec")
                j = k + 1
                continue
            j += 1


@dataclass
class _Frame:
    env: dict[str, str]
    cwd: str
    positional: list[str]
    src: bytes
    depth: int
    via: str

    def child(self) -> _Frame:
        return _Frame(dict(self.env), self.cwd, self.positional, self.src, self.depth, self.via)


def _text(node: tree_sitter.Node, f: _Frame) -> str:
    return f.src[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")


def _snippet(node: tree_sitter.Node, f: _Frame, limit: int = 160) -> str:
    return _clip(_text(node, f), limit)


def _clip(s: str, limit: int = 160) -> str:
    return s if len(s) <= limit else s[: limit - 3] + "..."


# ---------------------------------------------------------------- plain scripts (no parse)

# A plain script is words (unquoted safe characters, '...' and "..." without expansions) joined by
# ``|``, ``&&``, ``||`` and ``;``, with ``2>&1`` or ``>/dev/null`` ending a command. Most agent
# commands are plain, and their syntax tree is known without tree-sitter. Whitespace-only "..."
# is left to the parser (tree-sitter-bash reads it as an empty string).
_PLAIN_WORD = (
    r"(?:[A-Za-z0-9_./:=,+@%*?~^-]+|'[^'\x00-\x1f{}]*'"
    r'|"(?: *[^"$`\\!\x00-\x20{}][^"$`\\!\x00-\x1f{}]*)?")+'
)
_PLAIN_TOKEN = re.compile(
    rf" *(?:(?P<redirect>[12]?>/dev/null|2>&1)(?![^ ;|&])|(?P<word>{_PLAIN_WORD})|(?P<op>&&|\|\||[|;]))"
)
# A command name of safe characters only: the grammar reads ``a=b`` as an assignment and, in its
# error recovery, drops the part before ``@``/``?`` (``x@y`` runs ``@y``) and names that start
# with ``-``. An argument starting with ``=`` (``==``, ``=~``) may be read as a test operator.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_./][A-Za-z0-9_./-]*")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
# First words the grammar reads as keywords or declarations rather than as a command name.
_NOT_PLAIN_NAMES = frozenset(
    "if then elif else fi case esac for select while until do done in function time coproc "
    "declare typeset local export readonly unset".split()
)


def plain_script(script: str) -> list[list[tuple[list[str], str]]] | None:
    """The pipelines of a plain script, each a list of ``(argv, text)``; None when it needs the parser.

    >>> plain_script("git log --all | head -5 && echo 'a b'")
    [[(['git', 'log', '--all'], 'git log --all'), (['head', '-5'], 'head -5')], [(['echo', 'a b'], "echo 'a b'")]]
    >>> plain_script("cat $F") is None
    True
    """
    if script.isascii():
        if not script.encode().translate(None, _UNQUOTED_BYTES):
            return _plain_split(script, quoted=False)
        if _SPACELESS_QUOTES.fullmatch(script):
            return _plain_split(script, quoted=True)
    return _plain_tokens(script)


def _plain_tokens(script: str) -> list[list[tuple[list[str], str]]] | None:
    """`plain_script` token by token (the general case: quotes with spaces or operators)."""
    pipelines: list[list[tuple[list[str], str]]] = []
    pipeline: list[tuple[list[str], str]] = []
    words: list[str] = []
    start = end = 0
    redirected = False
    tok = op = ""
    pos, n = 0, len(script)
    match = _PLAIN_TOKEN.match
    while pos < n:
        m = match(script, pos)
        if m is None:
            if script[pos:].strip(" "):
                return None
            break
        pos = m.end()
        kind = m.lastgroup
        if kind == "word":
            if redirected:
                return None  # words after a redirect belong to it
            tok = m.group("word")
            if not words:
                if not _PLAIN_NAME.fullmatch(tok) or tok in _NOT_PLAIN_NAMES:
                    return None
                start = m.start("word")
            elif tok[0] == "=":
                return None
            end = pos
            words.append(_QUOTED.sub(_unquote, tok) if "'" in tok or '"' in tok else tok)
        elif kind == "redirect":
            if not words or tok == "-":
                return None  # the grammar reads ``- 2>&1`` differently
            redirected = True
        else:
            if not words:
                return None
            op = m.group("op")
            pipeline.append((words, _clip(script[start:end])))
            words, redirected = [], False
            if op != "|":
                if len(pipeline) > 2 and op != ";":
                    return None  # the grammar reads ``a | b | c && d`` as ``a | (b | c && d)``
                pipelines.append(pipeline)
                pipeline = []
    if words:
        pipeline.append((words, _clip(script[start:end])))
        pipelines.append(pipeline)
    elif op != ";":
        return None  # empty, or ends with an operator that needs a command
    return pipelines


def _unquote(m: re.Match[str]) -> str:
    return m.group(0)[1:-1]


# Without quotes, words are what str.split() gives between operators (the same tokens as above);
# likewise when every quote is free of spaces and of the characters of operators and redirects.
_SPACELESS_QUOTES = re.compile(
    r"(?:[A-Za-z0-9_./:=,+@%*?~^ |;&>-]++|'[^'\x00-\x20{}|;&>]*+'|\"[^\"$`\\!\x00-\x20{}|;&>]*+\")*+"
)
_UNQUOTED_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=,+@%*?~^ |;&>-"
_REDIRECTS = frozenset({"2>&1", ">/dev/null", "1>/dev/null", "2>/dev/null"})


def _plain_split(script: str, quoted: bool) -> list[list[tuple[list[str], str]]] | None:
    """`_plain_tokens` with str methods instead of a regex scan, for a script whose quotes (if
    any) hold no space and no operator character: splitting on operators and then on spaces
    gives the same words (quotes still on, removed last) and the same command texts."""
    odd = ">" in script or "&" in script or "=" in script
    pipelines: list[list[tuple[list[str], str]]] = []
    chunks = script.split(";")
    for c, chunk in enumerate(chunks):
        if not chunk.strip(" "):
            if c and c == len(chunks) - 1:
                break  # a trailing ';'
            return None
        items = chunk.replace("&&", "\n").replace("||", "\n").split("\n") if odd or "|" in chunk else [chunk]
        for k, item in enumerate(items):
            pipeline: list[tuple[list[str], str]] = []
            for seg in item.split("|"):
                words = seg.split()
                if not words:
                    return None
                text = seg.strip(" ")
                n = len(words)
                while words[n - 1] in _REDIRECTS:
                    text = text[: len(text) - len(words[n - 1])].rstrip(" ")
                    n -= 1
                    if n == 0:
                        return None
                if n < len(words):
                    if words[n - 1] == "-":
                        return None
                    del words[n:]
                name = words[0]
                if not (name.isalnum() or _PLAIN_NAME.fullmatch(name)) or name in _NOT_PLAIN_NAMES:
                    return None
                if odd:
                    for w in words[1:]:
                        if w[0] == "=" or ">" in w or "&" in w:
                            return None
                if quoted:
                    words = [_QUOTED.sub(_unquote, w) if "'" in w or '"' in w else w for w in words]
                pipeline.append((words, _clip(text)))
            if len(pipeline) > 2 and k < len(items) - 1:
                return None  # followed by && or ||: see _plain_tokens
            pipelines.append(pipeline)
    return pipelines


def _brace_expand(word: str, limit: int = 16) -> list[str]:
    m = re.search(r"\{([^{}]*,[^{}]*)\}", word)
    if not m:
        return [word]
    out: list[str] = []
    for alt in m.group(1).split(","):
        out.extend(_brace_expand(word[: m.start()] + alt + word[m.end() :], limit))
        if len(out) >= limit:
            break
    return out[:limit]


def _strip_wrappers(argv: list[str]) -> list[str]:
    """``sudo -u x timeout 5 env A=1 git log`` -> ``git log``."""
    if not argv or basename(argv[0]) not in _WRAPPERS_WITH_ARG:
        return argv
    for _ in range(8):
        if not argv:
            return argv
        name = basename(argv[0])
        if name not in _WRAPPERS_WITH_ARG or (name == "command" and argv[1:2] in (["-v"], ["-V"])):
            return argv  # ``command -v x`` looks x up (like ``which``), it does not run it
        takes = _WRAPPERS_WITH_ARG[name]
        i = 1
        while i < len(argv):
            a = argv[i]
            if a == "--":
                i += 1
                break
            if a.startswith("-"):
                i += 2 if a in takes else 1
                continue
            if name == "env" and "=" in a:
                i += 1
                continue
            if name in ("timeout", "taskset", "chrt", "flock") and i == 1 + sum(
                1 for x in argv[1:i] if x.startswith("-")
            ):
                i += 1  # the duration / mask / lock file
            break
        argv = argv[i:]
    return argv


def _shell_script(
    args: list[str], stdin: str | None, memory: Memory, cwd: str
) -> tuple[str | None, list[str]]:
    """The script a shell invocation runs: ``-c STR``, a script file, or stdin."""
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-c" or (a.startswith("-") and not a.startswith("--") and "c" in a[1:]):
            return (args[i + 1] if i + 1 < len(args) else None), args[i + 3 :]
        if a in ("-o", "-O", "--rcfile", "--init-file"):
            i += 2
            continue
        if a.startswith("-") or a.startswith("+"):
            i += 1
            continue
        content = memory.files.get(resolve(a, cwd, memory.links))
        return content, args[i + 1 :]
    return stdin, []


def _is_python_script(path: str, content: str) -> bool:
    return path.endswith(".py") or content.startswith("#!") and "python" in content.split("\n", 1)[0]


def shlex_split(s: str) -> list[str]:
    try:
        return shlex.split(s)
    except ValueError:
        return s.split()


def shlex_join(argv: Iterable[str]) -> str:
    return " ".join(shlex.quote(a) if a else "''" for a in argv)
