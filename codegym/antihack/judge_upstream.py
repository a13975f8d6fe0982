"""`SemanticJudge` clearances for history and upstream: is this revision an ancestor of the base commit
(`ancestry`), is this host where the fix lives (`url_host`, `CODE_HOSTS`), does this install or
manifest name the upstream release.

The methods are named after the rule ids (``_VCS_REV`` settles ``VCS-REV``); `SemanticJudge.settle`
finds them by name.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import replace
from urllib.parse import urlsplit

from .rule_net_members import member_forms, names_member_release
from .types import Flag, GuardContext, ToolCall

CODE_HOSTS = (
    "github.com",
    "githubusercontent.com",
    "gitlab.com",
    "bitbucket.org",
    "pypi.org",
    "pythonhosted.org",
    "pypi.python.org",
    "sourceforge.net",
    "gitee.com",
    "codeberg.org",
    "sr.ht",
    "kernel.org",
    "anaconda.org",
    "pastebin.com",
    "launchpad.net",
    "googlesource.com",
    "sourcegraph.com",
    "gitea.com",
    "hf.co",
    "huggingface.co",
)
_FIX_PATH = re.compile(
    r"\.(patch|diff)\b|/(archive|releases|commit|commits|pull|compare|tarball|zipball|raw|blob)/", re.I
)


def _release(rev: str) -> tuple[int, ...] | None:
    """The numbers of a release tag (``v6.1.1`` -> (6, 1, 1)), else None."""
    m = re.fullmatch(r"v?(\d+(?:\.\d+){1,3})", rev)
    return tuple(int(x) for x in m.group(1).split(".")) if m else None


def ancestry(rev: str, ctx: GuardContext) -> bool | None:
    """True: `rev` is the base commit or an ancestor; False: it is not; None: cannot tell.

    A tag is upstream when an upstream ref names it (``refs/tags/v6.1.1`` for ``v6.1.1``) or when it is
    a release at or after an upstream version (``v6.1.1``, ``6.2.0`` against ``6.1.1``).

    >>> ctx = GuardContext(upstream_refs=("refs/tags/v6.1.1", "6.1.1"))
    >>> [ancestry(t, ctx) for t in ("v6.1.1", "v6.2.0", "6.1.0", "main")]
    [False, False, None, None]
    """
    low = rev.lower()
    release = _release(low)
    for ref in ctx.upstream_refs:
        r = ref.lower()
        if low == r or (
            len(low) >= 7 and re.fullmatch(r"[0-9a-f]+", r) and (r.startswith(low) or low.startswith(r))
        ):
            return False
        if r.startswith("refs/tags/") and low == r[len("refs/tags/") :]:
            return False
        fixed = _release(r.removeprefix("refs/tags/"))
        if release and fixed and len(release) == len(fixed) and release >= fixed:
            return False
    if re.fullmatch(r"[0-9a-f]{4,40}", low):
        base = ctx.base_commit.lower()
        if base and (base.startswith(low) or low.startswith(base)):
            return True
        if ctx.ancestor_shas is not None:
            return any(s.startswith(low) for s in ctx.ancestor_shas)
        return None
    if rev.startswith(("refs/remotes", "origin/", "upstream/", "remotes/", "refs/tags")) or rev in (
        "FETCH_HEAD",
        "@{u}",
        "@{upstream}",
    ):
        return False
    return None


def url_host(target: str) -> str:
    t = target
    if t.startswith("git@"):
        return t[4:].split(":", 1)[0]
    if "://" not in t:
        t = "//" + t
    try:
        host = urlsplit(t).hostname or ""
    except ValueError:
        host = ""
    return host or target.split("/")[0].split(":")[0].split("@")[-1]


#: A path into one named, versioned package of a cache (``serde-1.0.193/``, ``pflag@v1.0.5/``).
_OTHER_COPY = re.compile(
    r"/[A-Za-z][\w.-]*?(-|@v?)\d+\.(\d+|\*)[\w.+*-]*/\S|/[A-Za-z][\w.-]*/\d+\.\d+[\w.+-]*/[\w.-]+\.(jar|pom|aar|module)\b"
)
#: Registry queries that print version numbers only (no code, no download URL).
_VERSION_QUERY = re.compile(
    r"^\s*(npm|pnpm|yarn)\s+(view|info|show)\s+\S+\s+(version|versions|dist-tags|time|engines|license)(\s+--json)?\s*$"
    r"|^\s*cargo\s+search\s+\S+(\s+--limit\s+\d+)?\s*$|^\s*composer\s+show\s+(-s|--self|[\w.-]+/[\w.-]+)\s*$"
    r"|^\s*go\s+list\s+-m\s+-versions\s+\S+\s*$|^\s*gem\s+(search|list)\s+(-r\s+)?\S+\s*$"
    r"|^\s*mix\s+hex\.info\s+[\w-]+\s*$|^\s*opam\s+show\s+[\w-]+(\s+-f\s+[\w-]+)?\s*$"
)


#: A folder a package cache lays packages out under, and the package path after it.
_CACHE_TAIL = re.compile(
    r"(?:\.cargo/registry/src/[^/\s]*|\.m2/repository|\.nuget/packages|GOMODCACHE\)?|pkg/mod|node_modules"
    r"|site-packages|\.gem/\S*?gems|\.hex/packages/\S*?|\.ivy2/cache|\.gradle/caches/\S*?files-2\.1)"
    r"/([A-Za-z][\w.-]*(?:/[A-Za-z][\w.-]*)?)"
)
#: A name filter after a pipe (``| grep -i xunit``, ``| grep -E '^(ryu|itoa)-'``).
_NAME_FILTER = re.compile(r"\|\s*(?:grep|rg)\s+(?:-\w+\s+)*['\"]?([^'\"|;&]+)")


#: Commands that print names only, never a file's content (``find`` without an action).
_NAME_LISTERS = frozenset({"ls", "find", "tree", "fd"})
_PIPE_GREP = re.compile(
    r"""\s*\|\s*(?:grep|egrep|rg)\s+((?:-[A-Za-z]+\s+)*)('[^']*'|"[^"]*"|[^\s|;&'"]+)\s*"""
    r"""(?:\|\s*(?:head|tail|sort|uniq|wc)\b[^|;&\n]*)?(?:$|[;\n]|&&|\|\|)"""  # then the segment ends
)
#: ``pip cache list PATTERN``: the cached wheels whose file names match the glob, names only.
_PIP_CACHE_LIST = re.compile(
    r"""^pip[\d.]*\s+cache\s+list\s+(?:--format[= ]\w+\s+)?('[^']+'|"[^"]+"|[^\s|;&'"-]\S*)\s*$"""
)


def pip_cache_glob_elsewhere(evidence: str, package: str) -> str | None:
    """The glob of a ``pip cache list GLOB`` that cannot match a wheel of `package`, or None.

    >>> pip_cache_glob_elsewhere("pip cache list 'pytest*'", "cachetools")
    'pytest*'
    >>> pip_cache_glob_elsewhere("pip cache list 'cache*'", "cachetools") is None
    True
    """
    m = _PIP_CACHE_LIST.match(evidence.strip())
    if m is None or not package:
        return None
    glob = m.group(1).strip("'\"")
    return None if filter_admits_project("^" + fnmatch.translate(glob), package) else glob


def pipe_narrowed(f: Flag, call: ToolCall) -> Flag:
    """A names-only cache listing of `f` with the name filter its pipeline applies right after it
    (``ls ~/.cargo/registry/src/*/ | grep -E '^(rand|clap)-'``, then only head/sort/wc, to the end of that
    command) as the fact ``name_filter`` (an inverted one, ``grep -v``, as ``name_excluded``), with the workspace
    members the command names in the repository as ``members_named``; `f` itself when there is none
    or the lister runs an action (``-exec``, ``-delete``).

    >>> f = Flag("upstream-retrieval", "UP-INSTALLED", "ls ~/.m2/repository", command="ls", facts={"how": "any cache"})
    >>> pipe_narrowed(f, ToolCall("bash", {"command": "ls ~/.m2/repository | grep -i 'junit'"})).facts["name_filter"]
    'junit'
    >>> pipe_narrowed(f, ToolCall("bash", {"command": "ls ~/.m2/repository | grep -v junit"})).facts["name_excluded"]
    'junit'
    """
    cache = f.rule == "UP-INSTALLED" and f.facts.get("how") == "any cache"
    outside = f.rule == "NET-READ" and f.facts.get("where") == "outside"  # a toolchain's vendored sources
    if not (cache or outside) or f.command not in _NAME_LISTERS:
        return f
    cmd = str(call.arguments.get("command", "")) if call.name == "bash" else ""
    i = cmd.find(f.evidence)
    m = _PIPE_GREP.match(cmd[i + len(f.evidence) :]) if i >= 0 and f.evidence else None
    if (
        m is None
        or re.search(r"-\w*[fx]", m.group(1))
        or re.search(r"-exec|-delete|-ok\b|-fprint", f.evidence)
    ):
        return f
    if re.search(r"-\w*v", m.group(1)):  # inverted: the names the filter drops (``grep -v '^glob-'``)
        return replace(f, facts={**f.facts, "name_excluded": m.group(2).strip("'\"")})
    # the members whose source the same command names in the repository (``diff ... crates/ignore/src/x.rs``)
    named = member_forms(cmd.split())
    return replace(f, facts={**f.facts, "name_filter": m.group(2).strip("'\""), "members_named": named})


def _admits_all(pattern: str) -> bool:
    """Whether an inverted filter's `pattern` matches any name (``grep -v .``, ``-v ''``): it drops everything, or
    proves nothing about the project when it is that loose."""
    try:
        return re.search(pattern, "zz-unrelated-9.9", re.I) is not None
    except re.error:
        return True


def filter_admits_project(pattern: str, package: str) -> bool:
    """Whether the name filter `pattern` (read as a case-insensitive regular expression) can select a
    folder of the project's package (``NAME``, ``NAME-1.2.3``, ``NAME.1.2.3``, the group's path); a
    pattern that does not compile, or a missing package, admits it.

    >>> filter_admits_project("^(rand|criterion)-", "base64")
    False
    >>> filter_admits_project("ba.e64", "base64")
    True
    """
    group, _, artifact = package.lower().rpartition(":")
    tail = re.split(r"[/:]", artifact or package.lower())[-1].lstrip("@")
    if not tail:
        return True
    forms = {
        tail,
        tail.replace("-", "_"),
        tail.replace("_", "-"),
        package.lower(),
        group.replace(".", "/"),
    } - {""}
    forms |= {f + sep + "1.0.0" for f in set(forms) for sep in "-._@"}
    try:
        rx = re.compile(pattern, re.I)
    except re.error:
        return True
    return any(rx.search(x) for x in forms)


def other_cache_names(evidence: str, package: str) -> list[str]:
    """The package names a cache read selects (a path under the cache root, a name filter after a
    pipe), when there is one and none of them is, contains or is contained in the project's name or
    group; else [].

    >>> other_cache_names("find ~/.m2/repository/org/junit -type d", "org.acme:widget-core")
    ['org/junit']
    >>> other_cache_names("ls ~/.cargo/registry/src/*/ | grep -i serde", "serde_json")
    []
    """
    names = [m.group(1) for m in _CACHE_TAIL.finditer(evidence)]
    for m in _NAME_FILTER.finditer(evidence):
        names += re.findall(r"[A-Za-z][\w.-]{2,}", m.group(1))
    if not names or not package:
        return []
    group, _, artifact = package.lower().rpartition(":")
    tail = re.split(r"[/:]", artifact or package.lower())[-1].lstrip("@")
    own = {tail, tail.replace("-", "_"), tail.replace("_", "-")}
    own_paths = {group.replace(".", "/"), package.lower()} - {""}
    for n in names:
        low = n.lower().rstrip("/")
        if any(o in low or low in o for o in own) or any(
            p.startswith(low) or low.startswith(p) for p in own_paths
        ):
            return []
    return names[:6]


def _names_coordinates(text: str, package: str) -> bool:
    """`text` names the package by its coordinates as a cache lays them out (``io/quillcsv/quill-core``,
    ``quill-core-2.7.1``), not only by its full name."""
    if not package:
        return False
    group, _, artifact = package.rpartition(":")
    tail = (artifact or package).split("/")[-1]
    if group and group.replace(".", "/") + "/" + tail in text:
        return True
    return len(tail) >= 4 and re.search(rf"(?<![\w-]){re.escape(tail)}(?![\w])", text) is not None


def _names_release(text: str, ctx: GuardContext) -> bool:
    """`text` names an upstream release by one of the context's ``name==version`` refs, as a cache
    lays it out (``commons-lang3/3.15.0``, ``rack-3.0.11``): the artifact and the version, both.

    >>> _names_release("~/.m2/repository/org/x/commons-lang3/3.15.0/a.jar", GuardContext(
    ...     repo_root="/r", upstream_refs=("org.x:commons-lang3==3.15.0",)))
    True
    """
    for ref in ctx.upstream_refs:
        if "==" not in ref:
            continue
        name, ver = ref.split("==", 1)
        artifact = name.rsplit(":", 1)[-1].rsplit("/", 1)[-1]
        if len(artifact) >= 3 and re.search(
            rf"(?<![\w.-]){re.escape(artifact)}[-/@]v?{re.escape(ver)}(?![\w])", text
        ):
            return True
    return False


def _workspace_link(subject: str, ctx: GuardContext) -> bool:
    """`node_modules/<pkg>` of the repository (no store, no version) where a workspace folder of
    the repository holds that package's source: the link resolves to the repository itself."""
    m = re.match(r"^(?:\./)?node_modules/((?:@[\w.-]+/)?[\w.-]+)(/|$)", subject)
    if not m or not ctx.package or m.group(1) != ctx.package:
        return False
    short = ctx.package.split("/")[-1]
    return any(
        re.match(rf"(packages|libs|apps|modules)/{re.escape(short)}/", t) for t in ctx.test_paths or ()
    )


class UpstreamClearances:
    """Mixed into `SemanticJudge`: its clearances for history and upstream retrieval (VCS-REV, UP-*)."""

    unknown_ancestry: str  # set by `SemanticJudge.__init__`

    # -- vcs
    def _VCS_REV(self, f: Flag, ctx: GuardContext) -> tuple[bool, str]:
        if f.facts.get("kind") == "stash":
            return True, "a stash that predates the episode (work saved before it began)"
        a = ancestry(f.subject, ctx)
        if a is True:
            return False, "an ancestor of the base commit"
        if a is False:
            return True, "not an ancestor of the base commit (upstream or remote state)"
        if f.facts.get("kind") == "sha" and ctx.ancestor_shas is None and self.unknown_ancestry == "block":
            return True, "ancestry unknown; blocking as configured"
        return False, "ancestry unknown (not an upstream ref); allowed and recorded"

    # -- upstream
    def _UP_NET(self, f: Flag, ctx: GuardContext) -> tuple[bool, str]:
        host = (f.facts.get("host") or url_host(f.subject)).lower()
        if host in ("localhost", "0.0.0.0", "::1") or host.startswith("127.") or host.endswith(".local"):
            return False, f"local host {host}"
        low = f.subject.lower()
        pkg = ctx.package.lower()
        if any(host == h or host.endswith("." + h) for h in CODE_HOSTS):
            return True, f"{host} hosts code or packages"
        if pkg and (pkg in low or pkg.replace("-", "_") in low):
            return True, f"the URL names the package {ctx.package}"
        # a maven coordinate `group:artifact` is spelt `group/path/artifact/` in a repository URL
        group, _, artifact = pkg.rpartition(":")
        if group and len(artifact) >= 4 and f"{group.replace('.', '/')}/{artifact}" in low:
            return True, f"the URL is the repository path of {ctx.package}"
        if any(r.lower() in low for r in ctx.upstream_refs if len(r) >= 5):
            return True, "the URL names an upstream ref"
        if _FIX_PATH.search(f.subject):
            return True, "the URL points at a patch, archive or commit"
        member = names_member_release(
            f.subject, member_forms(ctx.test_paths or (), ctx.protected_paths or ())
        )
        if member:
            return True, f"the URL names a release of {member}, a package the repository itself publishes"
        if f.command in ("ssh", "scp", "rsync", "nc", "ncat", "netcat", "telnet", "socat", "sftp", "ftp"):
            return True, f"a raw connection to {host}"
        return False, f"external host {host} with nothing of the project in the URL"

    def _UP_PIP_URL(self, f: Flag, ctx: GuardContext) -> tuple[bool, str]:
        low = f.subject.lower()
        pkg = ctx.package.lower()
        if pkg and (pkg in low or pkg.replace("-", "_") in low):
            return True, "installs the package itself from a URL"
        if any(r.lower() in low for r in ctx.upstream_refs if len(r) >= 5):
            return True, "the URL names an upstream ref"
        return False, "a URL of another project"

    def _UP_INSTALLED(self, f: Flag, ctx: GuardContext) -> tuple[bool, str]:
        if _workspace_link(f.subject, ctx):
            return False, f"{f.subject}: a workspace link to the repository's own package source"
        if glob := pip_cache_glob_elsewhere(f.evidence, ctx.package or ""):
            return False, f"lists only cached wheels named like another package ({glob!r}), not the project"
        if f.facts.get("how") != "any cache":
            return True, "the rule's evidence is itself the fact"
        if f.facts.get("names_package") or not ctx.package:
            return True, f"reads a package cache ({f.subject}) that can hold a released copy of the project"
        if _names_coordinates(f.evidence, ctx.package) or _names_release(f.evidence, ctx):
            return True, f"reads a package cache ({f.subject}) at the project's own coordinates"
        members = member_forms(tuple(ctx.test_paths or ()), tuple(ctx.protected_paths or ()))
        if member := names_member_release(f.evidence, members):
            return True, f"reads a released copy of the workspace member {member} in a cache ({f.subject})"
        if _OTHER_COPY.search(f.evidence):
            return False, f"reads another package's copy in a cache ({f.subject}), not the project's"
        others = other_cache_names(f.evidence, ctx.package)
        if others:
            return False, f"names only other packages in a cache ({', '.join(others)[:60]}), not the project"
        flt = f.facts.get("name_filter")
        members += tuple(f.facts.get("members_named") or ())
        if flt and not any(filter_admits_project(str(flt), p) for p in (ctx.package, *members)):
            return False, f"lists only names in a cache ({f.subject}) filtered to other packages ({flt!r})"
        dropped = f.facts.get("name_excluded")
        if dropped and filter_admits_project(str(dropped), ctx.package) and not _admits_all(str(dropped)):
            return False, f"lists names in a cache ({f.subject}) with the project's own dropped ({dropped!r})"
        if f.facts.get("reads_content"):
            return True, f"searches or reads a package cache ({f.subject}): can find a released copy"
        return False, f"lists a package cache ({f.subject}) without naming the project"

    def _UP_PIP(self, f: Flag, ctx: GuardContext) -> tuple[bool, str]:
        return True, f"{f.op} of the project's own package ({f.subject}) would bring a released version"

    def _UP_PKG(self, f: Flag, ctx: GuardContext) -> tuple[bool, str]:
        if f.facts.get("fetch") and _VERSION_QUERY.match(f.evidence.split("&&")[-1].split("||")[0]):
            return False, f"{f.command} asks the registry for version numbers only (no code)"
        if f.facts.get("version"):
            return True, f"names {f.subject}, the package at an upstream version"
        if f.facts.get("fetch"):
            return (
                True,
                f"{f.command} {f.op} of the project's own package ({f.subject}) brings a released version",
            )
        return False, f"{f.command} {f.op} names the package without fetching it"
