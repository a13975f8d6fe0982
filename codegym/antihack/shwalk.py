"""What a bash script runs: simple commands with their words resolved, from a real bash grammar.

`ShellAnalyzer.analyze` parses a script with tree-sitter-bash once and walks the tree once,
tracking variables, `cd`, functions, aliases, loops and subshells. A plain script (words and
quotes without expansions, joined by pipes and lists; most agent commands) skips the parser:
`plain_script` reads its commands off directly, exactly as the tree would give them. It evaluates the pure parts of
pipelines (``echo``/``printf``/heredocs into ``base64 -d``, ``xxd -r -p``, ``rev``, ``tr``), so
``echo Z2l0IGxvZyAtLWFsbA== | base64 -d | sh`` yields the command ``git log --all``; it descends
into ``bash -c``, ``eval``, ``sh <<EOF``, ``source``, ``xargs``, ``find -exec`` and wrappers such
as ``sudo``/``env``/``timeout``. Unresolvable values become `paths.UNKNOWN` (a wildcard).

This module walks the tree and expands words (variables, substitutions, quotes, braces);
`shdispatch` gives commands their shell-level meaning, `shpure` evaluates pure ones, `shparse`
parses, `shcommand` holds what comes out.

    >>> cmds = ShellAnalyzer().analyze("X=$(printf '\\\\x67\\\\x69\\\\x74'); $X log --all | head", "/workspace")
    >>> [c.argv for c in cmds if c.argv[0] == "git"]
    [['git', 'log', '--all']]
"""

from __future__ import annotations

import codecs
import re
import shlex

import tree_sitter

from .paths import HOME, PROFILE_FILES, UNKNOWN, resolve
from .rule_net_words import BUILD_TOOLS
from .shcommand import (
    MAX_COMMANDS,
    MAX_DEPTH,
    Frame,
    Memory,
    SimpleCommand,
    node_text,
    snippet,
    startup_exports,
)
from .shdispatch import Dispatcher
from .shparse import parse_bytes, plain_script, shlex_split


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


class ShellAnalyzer(Dispatcher):
    """Turns bash source into `SimpleCommand`s. One analyzer per call; `memory` spans an episode."""

    def __init__(self, memory: Memory | None = None) -> None:
        self.memory = memory if memory is not None else Memory()
        self.out: list[SimpleCommand] = []
        self.functions: dict[str, tuple[tree_sitter.Node, bytes]] = {}

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
        if depth == 0 and env is None and not via:
            # a call of the session: it starts with what earlier calls exported (or wrote into a startup file)
            for path, text in self.memory.files.items():
                if PROFILE_FILES.search(path) and "export" in text:
                    for k, v in startup_exports(text):
                        self.memory.exports.setdefault(k, v)
            self.memory.inherited = dict(self.memory.exports)
            env = self.memory.exports
        plain = plain_script(script)
        src = b"" if plain is not None else script.encode("utf-8", "surrogateescape")
        frame = Frame(dict(env or {}), cwd, positional or [], src, depth, via)
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
            frame = Frame({"HOME": HOME}, cwd, [], b"", depth, via)
            self.run_argv(argv, frame, via)
        return self.out

    def _walk(self, node: tree_sitter.Node, f: Frame, stdin: str | None = None) -> str | None:
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
            exported: list[str] = []
            for child in node.named_children:
                if child.type == "variable_assignment":
                    self._assign(child, f, f.env)
                    name = node_text(child.child_by_field_name("name") or child, f).split("[")[0]
                    exported.append(f"{name}={f.env.get(name, '')}")
            word = node_text(node, f).split(None, 2)
            if exported and (
                word[0] == "export"
                or word[0] in ("declare", "typeset")
                and any(w[:1] == "-" and "x" in w for w in word[1:2])
            ):
                if f.depth == 0 and not f.via:  # the session's shell keeps it for later calls
                    self.memory.exports.update(e.split("=", 1) for e in exported)  # type: ignore[misc]
                # what the later commands of the session inherit: the rules read it as an env prefix
                self.out.append(
                    SimpleCommand([word[0], *exported], f.cwd, snippet(node, f), None, [], [], f.depth, f.via)
                )
            return None
        if t == "function_definition":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if name is not None and body is not None:
                fname = node_text(name, f)
                self.functions[fname] = (body, f.src)
                if (
                    fname in BUILD_TOOLS
                ):  # a function named for a runner shadows it: the rules see the definition
                    self._emit(
                        SimpleCommand(
                            ["function", fname], f.cwd, snippet(node, f), None, [], [], f.depth, f.via
                        )
                    )
            return None
        if t == "for_statement":
            var = node.child_by_field_name("variable")
            values: list[str] = []
            for v in node.children_by_field_name("value"):
                values.extend(self._words(v, f))
            body = node.child_by_field_name("body")
            name = node_text(var, f) if var is not None else "_"
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

    def _redirected(self, node: tree_sitter.Node, f: Frame, stdin: str | None) -> str | None:
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
        while body.type == "list" and body.named_children:
            # tree-sitter hangs ``cd d && cmd > f`` on the whole list; bash gives the redirect to the last
            # command, resolved after the ones before it ran (``cd`` moves where ``f`` lands)
            *head, body = body.named_children
            for child in head:
                self._walk(child, f, stdin)
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
                self._emit(SimpleCommand([":"], f.cwd, snippet(node, f), None, writes, reads, f.depth, f.via))
            if targets:
                out = None
        for a in after:
            out = self._walk(a, f, out)
        return out

    def _redirect_input(self, r: tree_sitter.Node, f: Frame) -> str | None:
        if r.type == "herestring_redirect":
            vals = [self._value(c, f) for c in r.named_children]
            return " ".join(v for v, _ in vals) + "\n"
        start = next((c for c in r.named_children if c.type == "heredoc_start"), None)
        body = next((c for c in r.named_children if c.type == "heredoc_body"), None)
        if body is None:
            return ""
        quoted = start is not None and any(q in node_text(start, f) for q in "'\"\\")
        if quoted:
            return node_text(body, f)
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

    def _assign(self, node: tree_sitter.Node, f: Frame, env: dict[str, str]) -> None:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        if name_node is None:
            return
        name = node_text(name_node, f).split("[")[0]
        appends = any(c.type == "+=" for c in node.children)  # ``D+=ader``
        before = env.get(name, "") if appends else ""
        if value_node is None:
            env[name] = before
        elif value_node.type == "array":
            env[name] = " ".join(
                [before] * bool(before) + [self._value(c, f)[0] for c in value_node.named_children]
            )
        else:
            env[name] = before + self._value(value_node, f)[0]

    def _substitution(self, node: tree_sitter.Node, f: Frame) -> str | None:
        sub = f.child()
        kids = node.named_children
        if len(kids) == 1 and kids[0].type == "file_redirect" and node_text(kids[0], f).startswith("<"):
            # ``$(< file)``: bash reads the file itself, as ``$(cat file)`` would
            target = kids[0].named_children
            if target:
                src = ("cat " + shlex.quote(self._value(target[-1], f)[0])).encode("utf-8", "surrogateescape")
                return self._walk(
                    parse_bytes(src).root_node,
                    Frame(sub.env, sub.cwd, sub.positional, src, sub.depth, sub.via),
                )
        last = None
        for child in kids:
            last = self._walk(child, sub)
        return last

    def _value(self, node: tree_sitter.Node, f: Frame) -> tuple[str, bool]:
        """(value, split): the word's value, and whether unquoted expansion makes it split."""
        t = node.type
        if t in ("word", "number", "special_variable_name", "variable_name", "test_operator", "regex"):
            raw = node_text(node, f)
            return (re.sub(r"\\(.)", r"\1", raw) if "\\" in raw else raw), False
        if t == "raw_string":
            return node_text(node, f)[1:-1], False
        if t == "ansi_c_string":
            body = node_text(node, f)[2:-1]
            try:
                return codecs.decode(body.encode("latin-1", "backslashreplace"), "unicode_escape"), False
            except (UnicodeDecodeError, ValueError):
                return body, False
        if t in ("string", "translated_string"):
            parts: list[str] = []
            for c in node.named_children:
                if c.type == "string_content":
                    parts.append(re.sub(r'\\([$`"\\\n])', r"\1", node_text(c, f)))
                else:
                    parts.append(self._value(c, f)[0])
            return "".join(parts), False
        if t == "simple_expansion":
            name = node_text(node, f)[1:]
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
            return node_text(node, f), False
        return node_text(node, f), False

    def _lookup(self, name: str, f: Frame) -> str:
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

    def _expansion(self, node: tree_sitter.Node, f: Frame) -> str:
        kids = node.children
        names = [c for c in kids if c.type in ("variable_name", "special_variable_name")]
        if not names:
            return UNKNOWN
        value = self._lookup(node_text(names[0], f), f)
        rest = [c for c in kids if c.type not in ("${", "}", "variable_name", "special_variable_name")]
        if not rest:
            return value
        op = node_text(rest[0], f)
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

    def _words(self, node: tree_sitter.Node, f: Frame) -> list[str]:
        if node.type == "string" and f.positional and node_text(node, f) in ('"$@"', '"${@}"'):
            return list(f.positional)  # one word per argument the script was given
        value, split = self._value(node, f)
        words = value.split() if split else [value]
        out: list[str] = []
        for w in words:
            out.extend(_brace_expand(w) if "{" in w and node.type in ("word", "concatenation") else [w])
        return out

    def _command(
        self, node: tree_sitter.Node, f: Frame, stdin: str | None, redirects: list[tree_sitter.Node]
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
                    SimpleCommand([":"], f.cwd, snippet(node, f), stdin, writes, reads, f.depth, f.via)
                )
            return None
        out = self._run(argv, snippet(node, f), f, env, stdin, writes, reads)
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
        f: Frame,
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
        self, redirects: list[tree_sitter.Node], f: Frame
    ) -> tuple[list[tuple[str, bool]], list[str], str | None]:
        """(write targets with append flag, files read, stdin content when read from a known file)."""
        targets: list[tuple[str, bool]] = []
        reads: list[str] = []
        stdin: str | None = None
        for r in redirects:
            op_node = next((c for c in r.children if not c.is_named), None)
            op = node_text(op_node, f) if op_node is not None else ">"
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
