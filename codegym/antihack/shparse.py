"""Bash source to syntax: the tree-sitter-bash parser, and the parser-free reading of plain scripts.

`parse` gives the tree of a script (one parser per thread, non-ASCII bytes masked so the grammar's
scanner cannot crash). `plain_script` reads a plain script (words and quotes without expansions,
joined by pipes and lists: most agent commands) straight off the text, exactly as the tree would
give it, so the walker can skip the parser. `shlex_split`/`shlex_join` never raise.

    >>> parse("ls | wc -l").root_node.children[0].type
    'pipeline'
    >>> shlex_split("echo 'unclosed")
    ['echo', "'unclosed"]
"""

from __future__ import annotations

import re
import shlex
import threading
from collections.abc import Iterable

import tree_sitter
import tree_sitter_bash

_LANGUAGE = tree_sitter.Language(tree_sitter_bash.language())


_LOCAL = threading.local()


def _parser() -> tree_sitter.Parser:
    """This thread's parser: a tree-sitter `Parser` must not be shared between threads (envs
    stepping concurrently in threads each run the guard)."""
    parser = getattr(_LOCAL, "parser", None)
    if parser is None:
        parser = _LOCAL.parser = tree_sitter.Parser(_LANGUAGE)
    return parser


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
            pipeline.append((words, clip(script[start:end])))
            words, redirected = [], False
            if op != "|":
                if len(pipeline) > 2 and op != ";":
                    return None  # the grammar reads ``a | b | c && d`` as ``a | (b | c && d)``
                pipelines.append(pipeline)
                pipeline = []
    if words:
        pipeline.append((words, clip(script[start:end])))
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
                pipeline.append((words, clip(text)))
            if len(pipeline) > 2 and k < len(items) - 1:
                return None  # followed by && or ||: see _plain_tokens
            pipelines.append(pipeline)
    return pipelines


def clip(s: str, limit: int = 160) -> str:
    return s if len(s) <= limit else s[: limit - 3] + "..."


def shlex_split(s: str) -> list[str]:
    try:
        return shlex.split(s)
    except ValueError:
        return s.split()


def shlex_join(argv: Iterable[str]) -> str:
    return " ".join(shlex.quote(a) if a else "''" for a in argv)
