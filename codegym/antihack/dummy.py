"""Plausible results for blocked calls: what the agent sees instead of the real thing.

The aim is that a blocked hack looks like a dead end, not like a guard: a protected read gets
"No such file or directory", a future commit gets ``fatal: bad object``, a fetch gets "Could not
resolve host", pip gets "No matching distribution found", writes to tests and the harness appear
to succeed. For history listings (``git log --all``, ``git branch -a``) the result carries a
`substitute`: the same command without the leaking options, which shows history that ends at
the base commit; a wrapper runs it instead (it is re-checked by the rules before it is offered).
A pip call that would reach an index runs as it is where the sandbox is offline (`offline=True`),
and a single in-place edit or delete of a test runs on a copy in a scratch directory, so both
answer with the tools' own words whatever the spelling.

    >>> from codegym.antihack.types import Flag, GuardContext
    >>> from codegym.toolcall import ToolCall
    >>> f = Flag("upstream-retrieval", "UP-NET", "curl https://github.com/o/p", subject="https://github.com/o/p", command="curl")
    >>> dummy_result(ToolCall("bash", {"command": "curl https://github.com/o/p"}), GuardContext(), [f]).output
    'curl: (6) Could not resolve host: github.com\\n'
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import posixpath
import re
import shlex
from collections.abc import Callable, Sequence

from codegym.toolcall import ToolCall

from .judge_upstream import url_host
from .pyeval import Evaluator, as_text
from .pysource import bindings_of, import_aliases, index_tree
from .types import DummyResult, Flag, GuardContext

_NOENT = "No such file or directory"
#: rules whose subject a substitute can rename to one that does not exist (`_renamed`).
_RENAMED_RULES = {
    "VCS-REV",
    "UP-NET",
    "UP-GIT-CLONE",
    "UP-PIP-URL",
    "VCS-FETCH",
    "PR-PATH",
    "PR-GLOB",
    "PR-LINK",
    "VCS-INTERNALS",
    "UP-INSTALLED",
    "UP-PKG",
}
#: rules a narrowed listing answers (`_substitute_log`).
_LISTING_RULES = {"VCS-ALLREFS", "VCS-REFLIST", "VCS-REFLOG", "VCS-LOSTFOUND"}
#: rules of a write to a test or protected file that `_on_a_copy` can run on a scratch copy.
_WRITE_RULES = {"TT-WRITE", "PR-WRITE"}
#: commands whose write to a literal path `_on_a_copy` replays on a copy (no `mv`: it moves its source).
_COPY_EDITORS = {"sed", "perl", "rm", "unlink", "truncate", "chmod", "touch", "cp", "tee", "shred"}


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
    out = re.sub(
        rf"\s--(all|branches|tags|remotes|reflog|exclude-hidden|alternate-refs)(=\S+)?{end}", "", out
    )
    out = re.sub(r"\s--glob=(?!refs/heads/\.none)\S+", "", out)
    out = re.sub(r"(\bgit\s+branch)\s+(-a|-r|--all|--remotes)\b", r"\1", out)
    out = re.sub(r"(\bgit\s+for-each-ref)(?=\s*$|\s*[|;&)])", r"\1 refs/heads", out)
    if re.fullmatch(r"\s*git\s+cat-file\s+--batch-all-objects\s+(--batch-check|--batch)(=\S+)?\s*", cmd):
        rest = cmd.replace("--batch-all-objects", "").strip()
        out = f"git rev-list --objects --no-object-names HEAD | sort -u | {rest}"
    return out if out != cmd else None


_PY_WIDE = re.compile(r"""(['"])--(all|branches|remotes|tags|reflog)\1""")


def _substitute_gitpython(call: ToolCall, flags: Sequence[Flag]) -> str | None:
    """A Python call's GitPython history listing (`repo.iter_commits('--all')`,
    `repo.git.log("--all")`, `iter_commits(all=True)`) narrowed to HEAD, the rest of the program
    as it is: in a scrubbed clone HEAD's history is all there is (and where GitPython is not
    installed the program fails the same way)."""
    if call.name != "bash" or not flags or any(f.rule not in _LISTING_RULES for f in flags):
        return None
    if not all(str(f.facts.get("via", "")).startswith("python") for f in flags):
        return None
    cmd = str(call.arguments.get("command", ""))
    out = _PY_WIDE.sub(lambda m: f"{m.group(1)}HEAD{m.group(1)}", cmd)
    out = re.sub(r"\ball\s*=\s*True\b", "all=False", out)
    if out != cmd:
        return out
    # spelled some other way ('--' + 'all', a variable, chr()): narrow the evaluated arguments
    for code in _python_sources(cmd):
        narrowed = _narrow_python(code)
        if narrowed is not None and cmd.count(code) == 1:
            return cmd.replace(code, narrowed)
    return None


_WIDE_ARGS = {"--all", "--branches", "--remotes", "--tags", "--reflog"}


def _python_sources(cmd: str) -> list[str]:
    """The Python programs a bash command passes inline (``python -c CODE``, a heredoc)."""
    found = [m.group(2) for m in re.finditer(r"<<-?\s*['\"]?(\w+)['\"]?\n(.*?)\n\1\b", cmd, re.S)]
    try:
        words = shlex.split(cmd)
    except ValueError:
        return found
    found += [words[i + 1] for i, w in enumerate(words[:-1]) if w == "-c" and i and "python" in words[i - 1]]
    return found


def _narrow_python(code: str) -> str | None:
    """`code` with every call argument that evaluates to a history-widening option (``'--' +
    'all'``) replaced by ``'HEAD'``, edited in place so line numbers stay; None if there is none
    or the source cannot be edited safely."""
    if not code.isascii():
        return None
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    all_nodes, _ = index_tree(tree)
    nodes = bindings_of(all_nodes)
    ev = Evaluator(tree, import_aliases(tree, nodes), nodes)
    quote = "'" if "'" in code else '"' if '"' in code else None
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for a in node.args:
                if as_text(ev.value(a)) in _WIDE_ARGS and a.lineno == a.end_lineno:
                    spans.append((a.lineno, a.col_offset, a.end_col_offset, f"{quote}HEAD{quote}"))
            for k in node.keywords:
                if k.arg == "all" and k.value.lineno == k.value.end_lineno and ev.value(k.value) is True:
                    spans.append((k.value.lineno, k.value.col_offset, k.value.end_col_offset, "False"))
    if not spans or quote is None:
        return None
    lines = code.split("\n")
    for line, start, end, text in sorted(spans, reverse=True):
        lines[line - 1] = lines[line - 1][:start] + text + lines[line - 1][end:]
    return "\n".join(lines)


def _offline_pip(call: ToolCall, flags: Sequence[Flag], recheck: Callable[..., bool] | None) -> str | None:
    """The pip call itself (cache off), for a sandbox with no network: there it fails exactly as
    the scrubbed, offline sandbox fails it (pip's own retries and errors, or `pip: command not
    found` where the image has no pip), whatever its spelling. The wrapper runs it only offline."""
    if call.name != "bash" or recheck is None or not flags or any(f.rule != "UP-PIP" for f in flags):
        return None
    sub = "export PIP_NO_CACHE_DIR=1; " + str(call.arguments.get("command", ""))
    return sub if recheck(sub, tuple(f.subject for f in flags)) else None


def _on_a_copy(
    call: ToolCall, ctx: GuardContext, flags: Sequence[Flag], recheck: Callable[..., bool] | None
) -> DummyResult | None:
    """A single in-place edit or delete of tests (`sed -i ... tests/test_x.py`, `rm tests/t.py`)
    run on a scratch copy: each written path is renamed to one under a fresh directory in /tmp,
    holding a copy of the file where the scrubbed sandbox has it (a protected file it never has),
    so the tool's own answer comes back (`sed: can't read`, a bad script's error, silence).
    None for compound commands, expansions or a path that is not literal."""
    if call.name != "bash" or recheck is None or not flags or any(f.rule not in _WRITE_RULES for f in flags):
        return None
    cmd = str(call.arguments.get("command", ""))
    if re.search(r"[`$\n\\]", cmd):
        return None
    try:
        lexer = shlex.shlex(cmd, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        return None
    if not words or words[0] not in _COPY_EDITORS or any(w and set(w) <= set("();<>|&") for w in words):
        return None
    protected = {f.subject for f in flags if f.rule == "PR-WRITE"}
    digest = hashlib.blake2b(cmd.encode(), digest_size=20).hexdigest()
    scratch = f"/tmp/.{_PLACEHOLDER}{digest[:10]}"
    renames: dict[str, str] = {}
    copies: list[str] = []
    done: set[str] = set()
    for f in flags:
        if f.subject in done:
            continue
        done.add(f.subject)
        forms = (_shown(f.subject, ctx), f.subject, f"/proc/self/root{f.subject}")
        shown = next((s for s in forms if s and s in words), None)
        if shown is None:
            return None
        placeholder = f"{scratch}/{len(copies)}/{posixpath.basename(shown.rstrip('/')) or 'x'}"
        renames[shown] = placeholder
        copies.append(f"mkdir -p {posixpath.dirname(placeholder)}")
        if f.subject not in protected:
            src, dst = shlex.quote(shown), shlex.quote(placeholder)
            copies.append(f"{{ [ -e {src} ] && cp -a {src} {dst}; }} 2>/dev/null")
    sub = cmd
    for real in sorted(renames, key=len, reverse=True):
        sub = re.sub(rf"(?<![\w./-]){re.escape(real)}(?![\w./-])", renames[real], sub)
    sub = f"trap 'rm -rf {scratch}' EXIT; " + "; ".join(copies) + "; " + sub
    if not renames or not recheck(sub, (scratch,)):
        return None
    return DummyResult("", "", 0, substitute=sub, renames=tuple((v, k) for k, v in renames.items()))


def _plain_reflog(call: ToolCall) -> bool:
    """`git reflog` of HEAD: the decoys never touch it, and a scrubbed clone's holds only what the
    agent did, so the command itself is its own safe equivalent."""
    cmd = str(call.arguments.get("command", "")) if call.name == "bash" else ""
    return (
        re.fullmatch(
            r"\s*git\s+(reflog|reflog\s+show|log\s+-g|log\s+--walk-reflogs)(\s+(-[\w=-]+|HEAD))*\s*", cmd
        )
        is not None
    )


_PLACEHOLDER = "cgx"


def _placeholder(token: str, kind: str, call: ToolCall) -> str:
    """A name of the same shape as `token` that does not exist (deterministic per call)."""
    digest = hashlib.blake2b(
        f"{token}\0{call.arguments.get('command', '')}".encode(), digest_size=20
    ).hexdigest()
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
        host = f.facts.get("host") or (
            url_host(url) if rule != "VCS-FETCH" or "://" in url or "@" in url else ""
        )
        if host and host in command:
            return host, "host"
        if rule == "VCS-FETCH":
            remote = next((w for w in f.subject.split()[1:] if not w.startswith("-")), "")
            if (
                remote
                and re.fullmatch(r"[\w.-]+", remote)
                and re.search(rf"(?<![\w/.-]){re.escape(remote)}(?![\w/-])", command)
            ):
                return remote, "name"
        return None
    if rule in ("UP-INSTALLED", "UP-PKG"):
        # the task's package, wherever the command names it (an import, a wheel, a cache path)
        pkg = ctx.package
        for name in dict.fromkeys((pkg, pkg.replace("-", "_"), pkg.replace("_", "-")) if pkg else ()):
            if re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", command):
                return name, "package"
    if rule in ("PR-PATH", "PR-GLOB", "PR-LINK", "VCS-INTERNALS", "UP-INSTALLED") and f.op != "write":
        path = f.subject.replace("\x00", "*")
        written = str(f.facts.get("as_written") or "")  # a link or a remembered copy of the protected path
        forms = (f"/proc/self/root{path}", path, _shown(path, ctx))
        for shown in (written, *forms) if written else forms:
            if shown and shown in command and shown.strip("/") not in ("", "."):
                return shown, "path"
    return None


def _renamed(
    call: ToolCall, ctx: GuardContext, flags: Sequence[Flag], recheck: Callable[..., bool] | None
) -> DummyResult | None:
    """The call with each upheld flag's revision, host, remote or path renamed to one that does
    not exist: what the scrubbed, offline sandbox really answers (run by the wrapper, which maps
    the placeholders back). None when a subject is not literal in the command, or the renamed
    command would still raise a flag of its own."""
    if call.name != "bash" or recheck is None:
        return None
    command = str(call.arguments.get("command", ""))
    renames: dict[str, str] = {}
    kinds: dict[str, str] = {}
    for f in flags:
        tok = _token(f, command, ctx)
        if tok is None:
            return None
        renames.setdefault(tok[0], _placeholder(tok[0], tok[1], call))
        kinds.setdefault(tok[0], tok[1])
    sub = command
    for real in sorted(renames, key=len, reverse=True):
        # a package name is a word of its own even inside `pkg-1.0.whl` or `pkg.sub`
        edge = (
            (r"(?<![A-Za-z0-9_])", r"(?![A-Za-z0-9_])")
            if kinds[real] == "package"
            else (r"(?<![\w.-])", r"(?![\w-])")
        )
        sub = re.sub(rf"{edge[0]}{re.escape(real)}{edge[1]}", renames[real], sub)
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
    # the default-deny net's flags ride along with a closer rule's (same subject): the closer ones
    # decide the answer and the substitute, and `recheck` still re-reads a substitute with the net
    # on (so it never runs what the net would block); only a verbatim rerun needs every flag
    closer = [g for g in flags if not g.facts.get("net")] or list(flags)
    static = _static(call, ctx, closer, recheck, alone=len(flags) == 1)
    pip = _offline_pip(call, closer, recheck)
    if pip is not None:
        return dataclasses.replace(static, substitute=pip, offline=True)
    copied = _on_a_copy(call, ctx, closer, recheck)
    if copied is not None:
        return dataclasses.replace(static, substitute=copied.substitute, renames=copied.renames)
    if (
        call.name == "bash"
        and flags
        and not static.substitute
        and all(g.rule in _RENAMED_RULES for g in closer)
    ):
        renamed = _renamed(call, ctx, closer, recheck)
        if renamed is not None:
            return dataclasses.replace(static, substitute=renamed.substitute, renames=renamed.renames)
    return static


def _static(
    call: ToolCall,
    ctx: GuardContext,
    flags: Sequence[Flag],
    recheck: Callable[..., bool] | None,
    alone: bool = True,
) -> DummyResult:
    """The answer the scrubbed sandbox gives the call of `flags[0]`; `alone`: no other flag at all
    (net flags included), so a harmless command may rerun verbatim."""
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
        if rule == "VCS-REFLOG" and alone and len(flags) == 1 and _plain_reflog(call):
            return DummyResult("", "", 0, substitute=str(call.arguments["command"]))
        for sub in (_substitute_log(call, flags), _substitute_gitpython(call, flags)):
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
    if rule in _WRITE_RULES and f.command == "sed" and f.op == "edit" and _absent(f, flags):
        # `sed -i` of a test the scrubbed sandbox lacks (a hidden test, a file never there)
        return DummyResult("", f"sed: can't read {_shown(f.subject, ctx)}: {_NOENT}\n", 2)
    # Writes to tests, the harness or source: pretend they went through.
    return DummyResult("", "", 0)


def _absent(f: Flag, flags: Sequence[Flag]) -> bool:
    """Whether the scrubbed sandbox lacks the file `f` writes: a protected file, or one the rules
    saw was not there."""
    same = [g for g in flags if g.subject == f.subject]
    return any(g.rule == "PR-WRITE" or g.facts.get("existing") is False for g in same)
