"""Network rules (``UP-NET``): a fetch from outside the sandbox by ``curl``/``wget``/``nc``/``gh``...

`NetworkRules.net` reads the targets of a network command; URLs named by inline code of other
languages and by Python (`pyops`) come through `NetworkRules.net_subject`. ``localhost`` is
reported too (the judge clears it). `URLISH` is what counts as a remote address everywhere.

    >>> from codegym.antihack.scanner import Scanner
    >>> from codegym.antihack.types import GuardContext
    >>> from codegym.toolcall import ToolCall
    >>> s = Scanner(GuardContext())
    >>> [(f.rule, f.subject) for f in s.scan(ToolCall("bash", {"command": "wget -q https://x.org/a.tgz"}))]
    [('UP-NET', 'https://x.org/a.tgz')]
"""

from __future__ import annotations

import re
from typing import Any

from .paths import basename
from .shcommand import SimpleCommand
from .types import UPSTREAM_RETRIEVAL

NET_COMMANDS = {
    "curl",
    "wget",
    "http",
    "https",
    "httpie",
    "aria2c",
    "axel",
    "lynx",
    "links",
    "w3m",
    "elinks",
    "nc",
    "ncat",
    "netcat",
    "telnet",
    "ssh",
    "scp",
    "sftp",
    "ftp",
    "lftp",
    "socat",
    "gh",
    "hub",
    "svn",
    "hg",
    "fetch",
    "xh",
    "curlie",
}


URLISH = re.compile(
    r"^(https?|ftp|git|ssh|rsync|s3|gs)://|^git@|^[\w-]+(\.[\w-]+)*\.(com|org|io|net|dev|edu|co|cc|xyz|info|me|ai)(:\d+)?(/|$)"
)


_LOCALISH = re.compile(r"^(https?://)?(localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[::1\]|::1)(:\d+)?(/|$)")


def urlish(s: str) -> bool:
    """``URLISH.match(s)``, skipping the regex for what no branch of it can match: no ``://``, no
    ``git@`` and no dot before the first ``/`` (where a host name would be)."""
    slash = s.find("/")
    if "://" not in s and not s.startswith("git@") and s.find(".", 0, slash if slash >= 0 else len(s)) < 0:
        return False
    return URLISH.match(s) is not None


class NetworkRules:
    """`Scanner` rules for network commands (mixed into `scanner.Scanner`)."""

    def net(self, argv: list[str], cmd: SimpleCommand, facts: dict[str, Any]) -> None:
        name = basename(argv[0])
        args = argv[1:]
        if name in ("gh", "hub"):
            self.flag(
                UPSTREAM_RETRIEVAL,
                "UP-NET",
                cmd.text,
                "github.com " + " ".join(args[:2]),
                name,
                "net",
                host="github.com",
                **facts,
            )
            return
        if name in ("svn", "hg") and not any(URLISH.match(a) for a in args):
            return
        value_opts = {
            "-o",
            "--output",
            "-d",
            "--data",
            "-H",
            "--header",
            "-u",
            "--user",
            "-X",
            "--request",
            "-A",
            "--user-agent",
            "-e",
            "-b",
            "-c",
            "-T",
            "-w",
            "-m",
            "--max-time",
            "-P",
            "--directory-prefix",
            "-p",
            "-i",
            "-l",
            "-F",
            "--connect-timeout",
        }
        targets: list[str] = []
        j = 0
        while j < len(args):
            a = args[j]
            if (a in value_opts or (name == "wget" and a in ("-O", "--output-document"))) and j + 1 < len(
                args
            ):
                if a in ("-o", "--output") or (name == "wget" and a == "-O"):
                    self.write_path(args[j + 1], None, "write", name, cmd.text, cmd.cwd, **facts)
                j += 2
                continue
            if a.startswith("-"):
                j += 1
                continue
            targets.append(a)
            j += 1
        for t in targets:
            if (
                URLISH.match(t)
                or _LOCALISH.match(t)
                or name in ("nc", "ncat", "netcat", "telnet", "ssh", "socat", "ftp", "sftp", "lftp")
                or (name in ("scp", "rsync") and ":" in t)
            ):
                self.net_subject(t, name, cmd.text, **facts)
                if name in ("nc", "ncat", "netcat", "telnet"):
                    break

    def net_subject(self, target: str, command: str, text: str, **facts: Any) -> None:
        self.flag(UPSTREAM_RETRIEVAL, "UP-NET", text, target, command, "net", **facts)
