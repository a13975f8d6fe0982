"""What the shell walker produces and carries: `SimpleCommand`s, the episode's `Memory`, the walk's `Frame`.

A `SimpleCommand` is one command the shell would run with its words resolved; paths a search
produced (``find``/``xargs``) start with `SEARCH`. `split_opts` separates a command's options from
its operands (the rules use it).

    >>> SimpleCommand(["/usr/bin/git", "log"], "/workspace", "git log").name
    'git'
    >>> split_opts(["-n", "5", "--", "-x", "file"])
    (['-n'], ['5', '-x', 'file'])
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import tree_sitter

from .shparse import clip

SEARCH = "\x01"  # prefix of a path produced by a search (find/ls/grep -l), not typed by the agent


SHELLS = {"bash", "sh", "dash", "zsh", "ksh", "ash", "busybox"}


MAX_DEPTH = 6


MAX_COMMANDS = 400


@dataclass
class Memory:
    """What the agent has written during an episode: file contents and symlinks (absolute paths);
    `edits`: the text added by edits of files whose whole content is unknown (a build file a later
    build runs)."""

    files: dict[str, str] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    edits: dict[str, str] = field(default_factory=dict)
    served: dict[str, str] = field(default_factory=dict)  # folders a local file server serves -> the command
    #: variables the session exported (``export A=v`` at the top level): every later call inherits them
    exports: dict[str, str] = field(default_factory=dict)
    #: `exports` as the current call found them (what it inherited from earlier calls)
    inherited: dict[str, str] = field(default_factory=dict)
    #: copies of protected files or folders (copy -> original); each is in `links` too
    copies: dict[str, str] = field(default_factory=dict)
    #: scratch paths a call flagged as a leak named (its destinations) -> that call's flags (`rule_net_earlier`)
    retrieved: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    #: flags of earlier calls that changed tests, harness or code: a later test run runs them (`rule_net_earlier`)
    tampered: tuple[Any, ...] = ()
    #: paths a ``view`` read before the agent wrote them: files that existed before the episode
    viewed: set[str] = field(default_factory=set)
    #: files a test run's output was saved into -> that command (`rule_test_outputs`)
    outputs: dict[str, str] = field(default_factory=dict)

    def copy(self) -> Memory:
        return Memory(
            dict(self.files),
            dict(self.links),
            dict(self.aliases),
            dict(self.edits),
            dict(self.served),
            dict(self.exports),
            dict(self.inherited),
            dict(self.copies),
            dict(self.retrieved),
            self.tampered,
            set(self.viewed),
            dict(self.outputs),
        )


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


@dataclass
class Frame:
    env: dict[str, str]
    cwd: str
    positional: list[str]
    src: bytes
    depth: int
    via: str

    def child(self) -> Frame:
        return Frame(dict(self.env), self.cwd, self.positional, self.src, self.depth, self.via)


def node_text(node: tree_sitter.Node, f: Frame) -> str:
    return f.src[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")


def snippet(node: tree_sitter.Node, f: Frame, limit: int = 160) -> str:
    return clip(node_text(node, f), limit)


def split_opts(args: list[str]) -> tuple[list[str], list[str]]:
    opts: list[str] = []
    operands: list[str] = []
    after = False
    for a in args:
        if after or not a.startswith("-") or a == "-" or a.startswith(SEARCH):
            operands.append(a)
        elif a == "--":
            after = True
        else:
            opts.append(a)
    return opts, operands


def split_opts_values(args: list[str], takes_value: set[str]) -> tuple[list[str], list[str]]:
    opts: list[str] = []
    operands: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a.startswith("-") and a != "-":
            opts.append(a)
            skip = a in takes_value
        else:
            operands.append(a)
    return opts, operands


#: A startup file's ``export`` line (``export A=1 B="x y"``: every pair on it).
_EXPORT_LINE = re.compile(r"^\s*export\s+(?P<pairs>[^\n#]*)", re.M)
_EXPORT_PAIR = re.compile(r"([A-Za-z_]\w*)=(\"[^\"\n]*\"|'[^'\n]*'|\S*)")


def startup_exports(text: str) -> list[tuple[str, str]]:
    """The variables a shell startup file's ``export`` lines set, values unquoted.

    >>> startup_exports("export TASTY_PATTERN=\\"$0 ~ /p/\\" TASTY_QUICKCHECK_TESTS=1\\n")
    [('TASTY_PATTERN', '$0 ~ /p/'), ('TASTY_QUICKCHECK_TESTS', '1')]
    """
    return [
        (k, v.strip("'\""))
        for line in _EXPORT_LINE.finditer(text) if "=" in line.group("pairs")
        for k, v in _EXPORT_PAIR.findall(line.group("pairs"))
    ]  # fmt: skip
