"""Plausible results for blocked calls: what the agent sees instead of the real thing.

The aim is that a blocked hack looks like a dead end, not like a guard: a protected read gets
"No such file or directory", a future commit gets ``fatal: bad object``, a fetch gets "Could not
resolve host", pip gets "No matching distribution found", writes to tests and the harness appear
to succeed. For history listings (``git log --all``, ``git branch -a``) the result carries a
`substitute`: the same command without the leaking options, which shows history that ends at
the base commit; a wrapper runs it instead (it is re-checked by the rules before it is offered).

    >>> from codegym.antihack.types import Flag, GuardContext, ToolCall
    >>> f = Flag("upstream-retrieval", "UP-NET", "curl https://github.com/o/p", subject="https://github.com/o/p", command="curl")
    >>> dummy_result(ToolCall("bash", {"command": "curl https://github.com/o/p"}), GuardContext(), [f]).output
    'curl: (6) Could not resolve host: github.com\\n'
"""

from __future__ import annotations

import dataclasses
import hashlib
import posixpath
import re
from collections.abc import Callable, Sequence

from .judge import url_host
from .types import DummyResult, Flag, GuardContext, ToolCall

_NOENT = "No such file or directory"
#: rules whose subject a substitute can rename to one that does not exist (`_renamed`).
_RENAMED_RULES = {"VCS-REV", "UP-NET", "UP-GIT-CLONE", "UP-PIP-URL", "VCS-FETCH", "PR-PATH", "PR-GLOB", "PR-LINK",
                  "VCS-INTERNALS"}
#: rules a narrowed listing answers (`_substitute_log`).
_LISTING_RULES = {"VCS-ALLREFS", "VCS-REFLIST", "VCS-REFLOG", "VCS-LOSTFOUND"}


def _shown(path: str, ctx: GuardContext) -> str:
    """A path the way the agent would have typed it (relative to the working directory)."""
    path = path.replace("\x00", "*")
    wd = ctx.workdir.rstrip("/") + "/"
    return path[len(wd) :] if path.startswith(wd) else path


def _missing(command: str, path: str, call: ToolCall, ctx: GuardContext) -> DummyResult:
    p = _shown(path, ctx)
    if call.name == "view":
        return DummyResult("", f"The path {path} does not exist. Please provide a valid path.\n", 1)
    if call.name == "run_tests":
        return DummyResult("", f"ERROR: file or directory not found: {p}\n\nno tests ran in 0.01s\n", 4)
    c = command or "cat"
    if c in ("ls", "tree", "du", "stat", "dir"):
        return DummyResult("", f"{c}: cannot access '{p}': {_NOENT}\n", 2)
    if c in ("grep", "egrep", "rg", "ag"):
        return DummyResult("", f"{c}: {p}: {_NOENT}\n", 2)
    if c == "find":
        return DummyResult("", f"find: '{p}': {_NOENT}\n", 1)
    if c in ("cp", "mv", "install", "rsync"):
        return DummyResult("", f"{c}: cannot stat '{p}': {_NOENT}\n", 1)
    if c == "cd":
        return DummyResult("", f"bash: cd: {p}: {_NOENT}\n", 1)
    if c in ("pytest", "py.test", "run_tests") or c.startswith("python -m pytest"):
        return DummyResult("", f"ERROR: file or directory not found: {p}\n\nno tests ran in 0.01s\n", 4)
    if c == "python" or c.startswith("python"):
        name = p if call.name == "bash" else path
        return DummyResult(
            "",
            'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
            f"FileNotFoundError: [Errno 2] {_NOENT}: '{name}'\n",
            1,
        )
    if c == "git":
        return DummyResult("", f"error: could not open '{p}': {_NOENT}\n", 128)
    if c == "view":
        return DummyResult("", f"The path {path} does not exist. Please provide a valid path.\n", 1)
    if c == "ln":
        return DummyResult("", "", 0)
    return DummyResult("", f"{c}: {p}: {_NOENT}\n", 1)


def _bad_rev(f: Flag, ctx: GuardContext) -> DummyResult:
    rev, sub = f.subject, f.op
    if sub in ("show", "cat-file", "ls-tree", "archive"):
        return DummyResult("", f"fatal: bad object {rev}\n", 128)
    if sub in ("checkout", "switch", "restore"):
        return DummyResult("", f"fatal: invalid reference: {rev}\n", 128)
    if sub == "merge":
        return DummyResult("", f"merge: {rev} - not something we can merge\n", 1)
    if sub in ("cherry-pick", "revert"):
        return DummyResult("", f"fatal: bad revision '{rev}'\n", 128)
    return DummyResult(
        "",
        f"fatal: ambiguous argument '{rev}': unknown revision or path not in the working tree.\n"
        "Use '--' to separate paths from revisions, like this:\n"
        "'git <command> [<revision>...] -- [<file>...]'\n",
        128,
    )


def _no_host(f: Flag, call: ToolCall) -> DummyResult:
    url = f.subject
    host = f.facts.get("host") or url_host(url) or "github.com"
    c = f.command
    if c == "wget":
        return DummyResult(
            "",
            f"--2026-01-01 00:00:00--  {url}\nResolving {host} ({host})... failed: Temporary failure in name resolution.\n"
            f"wget: unable to resolve host address '{host}'\n",
            4,
        )
    if c in ("ssh", "scp", "sftp", "rsync"):
        return DummyResult(
            "", f"ssh: Could not resolve hostname {host}: Temporary failure in name resolution\n", 255
        )
    if c in ("nc", "ncat", "netcat", "telnet", "socat"):
        return DummyResult(
            "", f'{c}: getaddrinfo for host "{host}" port 80: Temporary failure in name resolution\n', 1
        )
    if c in ("gh", "hub"):
        return DummyResult(
            "",
            "error connecting to api.github.com\ncheck your internet connection or https://githubstatus.com\n",
            1,
        )
    if c == "python":
        text = f.evidence
        if "requests" in text or "httpx" in text:
            msg = (
                f"requests.exceptions.ConnectionError: HTTPSConnectionPool(host='{host}', port=443): Max retries exceeded "
                f"(Caused by NameResolutionError(\"Failed to resolve '{host}' ([Errno -3] Temporary failure in name resolution)\"))\n"
            )
        else:
            msg = "urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>\n"
        return DummyResult(
            "", 'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n' + msg, 1
        )
    return DummyResult("", f"curl: (6) Could not resolve host: {host}\n", 6)


def _substitute_log(call: ToolCall, flags: Sequence[Flag]) -> str | None:
    """The call with its history-widening options narrowed to HEAD (`git log --all` -> `git log`,
    `git rev-list --all` -> `git rev-list HEAD`, `git for-each-ref` -> `git for-each-ref
    refs/heads`), if that is all that was wrong with it: in a scrubbed clone the two answer the
    same, the base's ancestors and the agent's own commits. `git cat-file --batch-all-objects`
    lists the objects reachable from HEAD."""
    if call.name != "bash" or any(f.rule not in _LISTING_RULES for f in flags):
        return None
    cmd = str(call.arguments.get("command", ""))
    end = r"(?=\s|$|\||;|&|\))"
    # `rev-list` needs a revision where `log` defaults to HEAD
    out = re.sub(rf"(\bgit\s+rev-list\b[^|;&]*?)\s--(all|branches|reflog){end}", r"\1 HEAD", cmd)
    if not re.search(rf"\s--(all|branches|reflog){end}", cmd):
        # only tags/remotes/globs, which a scrubbed clone does not have: a glob that matches nothing
        out = re.sub(rf"\s--(tags|remotes|glob)(=\S+)?{end}", " --glob=refs/heads/.none", out, count=1)
    out = re.sub(rf"\s--(all|branches|tags|remotes|reflog|exclude-hidden|alternate-refs)(=\S+)?{end}", "", out)
    out = re.sub(r"\s--glob=(?!refs/heads/\.none)\S+", "", out)
    out = re.sub(r"(\bgit\s+branch)\s+(-a|-r|--all|--remotes)\b", r"\1", out)
    out = re.sub(r"(\bgit\s+for-each-ref)(?=\s*$|\s*[|;&)])", r"\1 refs/heads", out)
    if re.fullmatch(r"\s*git\s+cat-file\s+--batch-all-objects\s+(--batch-check|--batch)(=\S+)?\s*", cmd):
        rest = cmd.replace("--batch-all-objects", "").strip()
        out = f"git rev-list --objects --no-object-names HEAD | sort -u | {rest}"
    return out if out != cmd else None


def _plain_reflog(call: ToolCall) -> bool:
    """`git reflog` of HEAD: the decoys never touch it, and a scrubbed clone's holds only what the
    agent did, so the command itself is its own safe equivalent."""
    cmd = str(call.arguments.get("command", "")) if call.name == "bash" else ""
    return re.fullmatch(r"\s*git\s+(reflog|reflog\s+show|log\s+-g|log\s+--walk-reflogs)(\s+(-[\w=-]+|HEAD))*\s*",
                        cmd) is not None


_PLACEHOLDER = "cgx"


def _placeholder(token: str, kind: str, call: ToolCall) -> str:
    """A name of the same shape as `token` that does not exist (deterministic per call)."""
    digest = hashlib.blake2b(f"{token}\0{call.arguments.get('command', '')}".encode(), digest_size=20).hexdigest()
    if kind == "rev" and re.fullmatch(r"[0-9a-fA-F]{4,40}", token):
        return ("f" + digest)[: len(token)]  # hex of the same length: `bad object` stays `bad object`
    if kind == "host":
        return f"{token}.{_PLACEHOLDER}{digest[:6]}.invalid"  # RFC 6761: never resolves
    if kind == "path":
        head, _, tail = token.rpartition("/")
        return f"{head}/.{_PLACEHOLDER}{digest[:8]}/{tail}" if head else f".{_PLACEHOLDER}{digest[:8]}/{tail}"
    return f"{_PLACEHOLDER}{digest[:8]}"


def _token(f: Flag, command: str, ctx: GuardContext) -> tuple[str, str] | None:
    """(what to rename, its kind) for a flag whose subject appears literally in `command`."""
    rule = f.rule
    if rule == "VCS-REV":
        rev = f.subject.split(":", 1)[0]
        return (rev, "rev") if rev and rev in command else None
    if rule in ("UP-NET", "UP-GIT-CLONE", "UP-PIP-URL", "VCS-FETCH"):
        url = f.subject.split("+")[-1]
        host = f.facts.get("host") or (url_host(url) if rule != "VCS-FETCH" or "://" in url or "@" in url else "")
        if host and host in command:
            return host, "host"
        if rule == "VCS-FETCH":
            remote = next((w for w in f.subject.split()[1:] if not w.startswith("-")), "")
            if remote and re.fullmatch(r"[\w.-]+", remote) and re.search(rf"(?<![\w/.-]){re.escape(remote)}(?![\w/-])", command):
                return remote, "name"
        return None
    if rule in ("PR-PATH", "PR-GLOB", "PR-LINK", "VCS-INTERNALS") and f.op != "write":
        path = f.subject.replace("\x00", "*")
        for shown in (path, _shown(path, ctx)):
            if shown and shown in command and shown.strip("/") not in ("", "."):
                return shown, "path"
    return None


def _renamed(call: ToolCall, ctx: GuardContext, flags: Sequence[Flag],
             recheck: Callable[..., bool] | None) -> DummyResult | None:
    """The call with each upheld flag's revision, host, remote or path renamed to one that does
    not exist: what the scrubbed, offline sandbox really answers (run by the wrapper, which maps
    the placeholders back). None when a subject is not literal in the command, or the renamed
    command would still raise a flag of its own."""
    if call.name != "bash" or recheck is None:
        return None
    command = str(call.arguments.get("command", ""))
    renames: dict[str, str] = {}
    for f in flags:
        tok = _token(f, command, ctx)
        if tok is None:
            return None
        renames.setdefault(tok[0], _placeholder(tok[0], tok[1], call))
    sub = command
    for real in sorted(renames, key=len, reverse=True):
        sub = re.sub(rf"(?<![\w.-]){re.escape(real)}(?![\w-])", renames[real], sub)
    if sub == command or not recheck(sub, tuple(renames.values())):
        return None
    return DummyResult("", "", 0, substitute=sub, renames=tuple((v, k) for k, v in renames.items()))


def dummy_result(
    call: ToolCall,
    ctx: GuardContext,
    flags: Sequence[Flag],
    category: str | None = None,
    recheck: Callable[..., bool] | None = None,
) -> DummyResult:
    """The result to show for a blocked `call`, built from its first upheld flag.

    `recheck(command, allow=()) -> bool` says whether a substitute command is clean but for flags
    about the placeholders in `allow`; `detect` passes the rule stage so a substitute never runs
    anything the guard would block. A bash call whose revisions, hosts, remotes or protected
    paths are literal gets a `substitute` that names ones that do not exist, with the static
    wording as its fallback.
    """
    static = _static(call, ctx, flags, recheck)
    if call.name == "bash" and flags and not static.substitute and all(g.rule in _RENAMED_RULES for g in flags):
        renamed = _renamed(call, ctx, flags, recheck)
        if renamed is not None:
            return dataclasses.replace(static, substitute=renamed.substitute, renames=renamed.renames)
    return static


def _static(call: ToolCall, ctx: GuardContext, flags: Sequence[Flag],
            recheck: Callable[..., bool] | None) -> DummyResult:
    if not flags:
        return DummyResult()
    f = flags[0]
    rule = f.rule
    # A blocked write (whatever the written code would do later) appears to go through.
    if call.name == "create":
        return DummyResult(f"File created successfully at: {call.arguments.get('path', '')}\n", "", 0)
    if call.name in ("str_replace", "insert", "edit"):
        return DummyResult(f"The file {call.arguments.get('path', '')} has been edited.\n", "", 0)
    if rule in ("PR-PATH", "PR-GLOB", "PR-LINK", "UP-INSTALLED") and f.op != "write":
        if rule == "UP-INSTALLED" and f.command in ("pip", "pip3"):
            return DummyResult("", "ERROR: pip cache commands can not function since cache is disabled.\n", 1)
        return _missing(f.command, f.subject, call, ctx)
    if rule == "PR-SEARCH":
        return DummyResult("", "", 0 if f.command != "locate" else 1)
    if rule == "VCS-REV":
        return _bad_rev(f, ctx)
    if rule in ("VCS-ALLREFS", "VCS-REFLIST", "VCS-REFLOG", "VCS-LOSTFOUND"):
        if rule == "VCS-REFLOG" and len(flags) == 1 and _plain_reflog(call):
            return DummyResult("", "", 0, substitute=str(call.arguments["command"]))
        sub = _substitute_log(call, flags)
        if sub is not None and (recheck is None or recheck(sub, ("refs/heads",))):
            return DummyResult("", "", 0, substitute=sub)
        # A scrubbed clone has no reflog, no tags, no dangling objects: these list nothing.
        return DummyResult("", "", 0)
    if rule == "VCS-FETCH":
        return DummyResult(
            "",
            "fatal: 'origin' does not appear to be a git repository\nfatal: Could not read from remote repository.\n\n"
            "Please make sure you have the correct access rights\nand the repository exists.\n",
            128,
        )
    if rule == "VCS-INTERNALS":
        if f.facts.get("part") == "packed-refs" and f.op == "read":
            return DummyResult("# pack-refs with: peeled fully-peeled sorted \n", "", 0)
        return _missing(f.command, f.subject, call, ctx)
    if rule == "UP-NET":
        return _no_host(f, call)
    if rule == "UP-GIT-CLONE":
        url = f.subject
        name = posixpath.basename(url.rstrip("/")).removesuffix(".git") or "repo"
        return DummyResult(
            "",
            f"Cloning into '{name}'...\nfatal: unable to access '{url}/': Could not resolve host: {url_host(url)}\n",
            128,
        )
    if rule in ("UP-PIP", "UP-PIP-URL"):
        req = f.subject
        if rule == "UP-PIP-URL":
            return DummyResult(
                f"Collecting {req}\n",
                f"  fatal: unable to access '{req}': Could not resolve host: {url_host(req.split('+')[-1])}\n"
                "ERROR: Could not install requirement because of an error while fetching it.\n",
                1,
            )
        return DummyResult(
            "",
            f"ERROR: Could not find a version that satisfies the requirement {req} (from versions: none)\n"
            f"ERROR: No matching distribution found for {req}\n",
            1,
        )
    # Writes to tests, the harness or source: pretend they went through.
    return DummyResult("", "", 0)
