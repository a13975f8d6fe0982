"""Code in languages the guard has no parser for (perl, ruby, node, php...): what its strings say.

The rule stage is recall-first, so a rough reading is enough: string literals are decoded and
concatenations of literals folded (``'/gr' + 'ader/x'``, perl's ``'a' . 'b'``); a literal that
looks like a path is a file the code touches (written when the code calls a write API, read
otherwise); a host name next to a network API is a fetch. The judge restores precision.

>>> c = foreign_code("node", "fs.readFileSync('/gr'+'ader/expected.json')")
>>> c.reads, c.writes
(['/grader/expected.json'], [])
>>> foreign_code("ruby", "File.write(sp + '/sitecustomize.py', 'import os')").writes
[('\\x00/sitecustomize.py', 'import os')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .paths import UNKNOWN

_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`(?:[^`\\]|\\.)*`", re.S)
#: What may stand between two literals of one concatenation (Erlang/Haskell ``++``, Elixir ``<>`` too).
_JOIN = re.compile(r"\s*(?:\+\+|<>|[+.])\s*\Z")
#: A string constructor closed before a ``+`` (``std::string("/gra")+"der"``): the literals still join.
_CTOR_JOIN = re.compile(r"\s*\)\s*\+\s*\Z")
_CTOR_OPEN = re.compile(r"(?:\bstd::string|\bString|\bstr|\bstring)\s*\(\s*\Z")
_OPERAND = re.compile(r"[\w\])]\s*[+.]\s*\Z")  # a variable or call before `+`: unknown prefix
_ESC = re.compile(r"\\(x\{[0-9a-fA-F]{1,6}\}|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)", re.S)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}
_PATHISH = re.compile(r"[\w.~\x00-]*/[\w./*\x00-]*[\w*\x00]|[\w-]+\.(py|pyc|json|ini|cfg|toml|txt|pth|sh)")
#: A list of 4+ character codes (``[47, 103, 114]``, ``[]byte{47, 103, 114}``): a string spelled as bytes.
_BYTE_LIST = re.compile(
    r"[\[{(]\s*((?:(?:0x[0-9a-fA-F]{2}|\d{2,3})(?:u8)?\s*,\s*){3,}(?:0x[0-9a-fA-F]{2}|\d{2,3})(?:u8)?)\s*(?:,\s*0\s*)?,?\s*[\]})]"
)
_HOST = re.compile(r"(?:[a-z0-9-]+\.)+[a-z]{2,}")
_WRITE_API = re.compile(
    r"write|append|rename|unlink|rm_[rf]|FileUtils|copy|open\s*\(?[^;\n]*['\"]\s*\+?[>wa]|\bprint\s*\{|"
    r"symlink|chmod|truncate|put_contents|fputs|fwrite|File\.WriteAll|Files\.write"
)
_NET_API = re.compile(r"https?\b|open-uri|Net::HTTP|LWP|\bfetch\s*\(|URI\.open|curl|urllib|socket", re.I)


@dataclass
class ForeignCode:
    """Files and hosts a snippet names; `content`: its strings, in order (what it may write)."""

    reads: list[str] = field(default_factory=list)
    writes: list[tuple[str, str | None]] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    content: str = ""


def _unescape(body: str) -> str:
    def one(m: re.Match[str]) -> str:
        s = m.group(1)
        if s[0] in "xu" and len(s) > 1:
            return chr(int(s[1:].strip("{}"), 16))
        return _ESCAPES.get(s, s)

    return _ESC.sub(one, body) if "\\" in body else body


#: ``['a', 'b'].join('')`` (JS), ``join('', 'a', 'b')`` (perl), ``implode('', ['a', 'b'])`` (PHP): one string.
_ARRAY_JOIN = re.compile(
    r"\[\s*((?:(?:'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")\s*,\s*)*(?:'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"))\s*,?\s*\]"
    r"\s*\.\s*join\s*\(\s*(?:(['\"])((?:[^'\"\\\n]|\\.)*)\2)?\s*\)"
)
#: A base64 literal decoded in place: ``Buffer.from('L2dy', 'base64')``, ``atob('...')``,
#: ``base64_decode('...')``, ``decode64('...')``, Elixir ``Base.decode64!("...")``, ``b64decode('...')``,
#: ``unpack('m', '...')``.
_B64_CALL = re.compile(
    r"(?:Buffer\.from|atob|base64_decode|(?:\bBase\.(?:url_)?)?decode64!?|b64decode|strict_decode64!?"
    r"|unpack1?\s*\(\s*['\"]m0?['\"]\s*,)"
    r"\s*\(?\s*(['\"])([A-Za-z0-9+/=]{4,})\1(?:\s*,\s*['\"]base64['\"])?"
)


def fold(code: str) -> str:
    """`code` with joined arrays of literals written as one literal (``['/gr', 'ader'].join('')`` ->
    ``"/grader"``) and base64 literals decoded in place, so `literals` reads what the program builds."""
    import base64
    import binascii
    import json

    if ".join" in code:

        def joined(m: re.Match[str]) -> str:
            parts = [_unescape(x[1:-1]) for x in _STRING.findall(m.group(1))]
            return json.dumps(_unescape(m.group(3) or "").join(parts) if m.group(2) else ",".join(parts))

        code = _ARRAY_JOIN.sub(joined, code)
    if "64" in code or "atob" in code or "unpack" in code:

        def decoded(m: re.Match[str]) -> str:
            if "base64" not in m.group(0) and m.group(0).startswith("Buffer"):
                return m.group(0)
            try:
                text = base64.b64decode(m.group(2) + "=" * (-len(m.group(2)) % 4)).decode("utf-8")
            except (binascii.Error, ValueError):
                return m.group(0)
            return json.dumps(text) if text.isprintable() or "\n" in text else m.group(0)

        code = _B64_CALL.sub(decoded, code)
    return code


def literals(code: str) -> list[str]:
    """String literals of `code`, decoded, with concatenated literals folded into one; a literal
    concatenated onto a variable starts with `UNKNOWN`. Joined arrays and base64 literals are
    read as the strings they build (`fold`)."""
    code = fold(code)
    out: list[str] = []
    end, start = -1, 0
    for m in _STRING.finditer(code):
        text = _unescape(m.group()[1:-1])
        gap = code[end : m.start()] if end >= 0 else ""
        if out and (
            _JOIN.fullmatch(gap)
            or _CTOR_JOIN.fullmatch(gap)
            and _CTOR_OPEN.search(code[max(0, start - 30) : start])
        ):
            out[-1] += text
        else:
            if _OPERAND.search(code[max(0, m.start() - 40) : m.start()]):
                text = UNKNOWN + text
            out.append(text)
            start = m.start()  # where the literal a later one may join began
        end = m.end()
    for m in _BYTE_LIST.finditer(code) if "," in code else ():
        codes = [int(c.removesuffix("u8"), 0) for c in re.split(r"\s*,\s*", m.group(1).strip())]
        if all(32 <= c < 127 for c in codes):
            out.append("".join(map(chr, codes)))
    return out


def foreign_code(lang: str, code: str, in_place: list[str] | None = None) -> ForeignCode:
    """What `code` in `lang` touches; `in_place`: files it edits in place (``perl -pi``)."""
    lits = literals(code)
    strings = [s for s in lits if "\n" in s or " " in s]
    content = "\n".join(s.strip("\n") for s in strings)
    out = ForeignCode(content=content)
    for f in in_place or ():
        out.writes.append((f, content or None))
    writes = _WRITE_API.search(code) is not None
    paths = [s for s in lits if len(s) < 300 and "\n" not in s and " " not in s and _PATHISH.fullmatch(s)]
    longest = max(strings, key=len, default=None)
    for p in paths:
        if p.startswith("/") and _HOST.fullmatch(p.split("/")[1] if "/" in p[1:] else p[1:]):
            continue
        if writes:
            out.writes.append((p, longest))
        out.reads.append(p)
    out.urls.extend(s for s in lits if s.startswith(("http://", "https://", "ftp://")) and " " not in s)
    if _NET_API.search(code):
        hosts = [s for s in lits if _HOST.fullmatch(s)]
        tails = [s for s in lits if s.startswith("/") and len(s) > 1]
        for h in hosts:
            out.urls.append(f"https://{h}{tails[0] if tails else '/'}")
    return out
