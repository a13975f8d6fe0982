"""Path facts: resolving what a call touches and matching it against the task's protected paths.

Paths the rules see may carry glob characters (``*?[``) and ``UNKNOWN`` (a value the static
analysis could not resolve, e.g. ``$1``); both are treated as wildcards, so an unresolved
``cat $D/test_fix.py`` still matches a protected ``tests/hidden/test_fix.py``.

    >>> from codegym.antihack.types import GuardContext
    >>> m = PathMatcher(GuardContext(protected_paths=("tests/hidden",)))
    >>> m.protected(resolve("src/../tests/hidden/test_a.py", "/workspace"))
    '/workspace/tests/hidden'
    >>> m.protected("/workspace/tests/test_visible.py") is None
    True
"""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache

from .types import GuardContext

UNKNOWN = "\x00"  # placeholder for an unresolvable part of a word
HOME = "/root"


def has_glob(path: str) -> bool:
    # Four substring tests are several times cheaper than a regex scan on paths this short.
    return "*" in path or "?" in path or "[" in path or UNKNOWN in path


def may_name(path: str, words: tuple[str, ...]) -> bool:
    """Whether `path` holds one of `words` (lower case), case aside: a cheap gate on a case-blind path
    regex each match of which holds one of them. A non-ASCII path is left to the regex (Unicode
    case folding matches more than `str.lower` gives).

    >>> may_name("/w/build/TEST-a.xml", ("test",)), may_name("/w/src/a.py", ("test",))
    (True, False)
    """
    if not path.isascii():
        return True
    low = path.lower()
    return any(w in low for w in words)


def basename(path: str) -> str:
    """The part after the last ``/`` (`posixpath.basename` of a str, without its overhead)."""
    return path[path.rfind("/") + 1 :]


def resolve(path: str, cwd: str, aliases: dict[str, str] | None = None) -> str:
    """An absolute, normalized path (``..`` and ``.`` folded, ``~`` expanded, known links followed)."""
    if path.startswith("~"):
        path = HOME + path[1:]
    if not path.startswith("/"):
        base = cwd or "/"
        path = base + path if base.endswith("/") else base + "/" + path
    # normpath leaves an absolute path alone unless it has an empty, "." or ".." component
    if not path.startswith("/") or "//" in path or "/." in path or (path.endswith("/") and path != "/"):
        path = posixpath.normpath(path)
        if path.startswith("//"):
            path = "/" + path.lstrip("/")
    if aliases:
        for _ in range(4):  # follow chains of links, bounded
            for link, target in aliases.items():
                if path == link or path.startswith(link + "/"):
                    path = posixpath.normpath(target + path[len(link) :])
                    break
            else:
                break
    return path


def proc_root(path: str) -> str:
    """``/proc/self/root/x`` (and ``/proc/<pid>/root``, ``/proc/thread-self/root``) is ``/x``."""
    if not path.startswith("/proc/"):
        return path
    m = re.match(r"^/proc/(self|thread-self|\d+)/root(/.*)?$", path)
    return (m.group(2) or "/") if m else path


@lru_cache(maxsize=4096)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if i + 1 < n and pattern[i + 1] == "*":
                out.append(".*")
                i += 2
                if i < n and pattern[i] == "/":
                    out[-1] = "(?:.*/)?"
                    i += 1
                continue
            out.append("[^/]*")
        elif c == UNKNOWN:
            out.append(".*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 2)
            if j == -1:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                body = re.sub(r"([\[\\&~|])", r"\\\1", body).replace("--", "-\\-")
                cls = "[" + body + "]"
                try:
                    re.compile(cls)
                except re.error:  # not a valid class (e.g. a reversed range): match it literally
                    cls = re.escape(pattern[i : j + 1])
                out.append(cls)
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out), re.DOTALL)


def glob_match(pattern: str, path: str) -> bool:
    """Shell-style match where ``*`` stays within a component and ``**``/UNKNOWN span components."""
    if not has_glob(pattern):  # a literal pattern matches itself only: no regex to compile
        return pattern == path
    return _glob_regex(pattern).fullmatch(path) is not None


def _star_intersect(a: str, b: str) -> bool:
    """Whether two single-component globs (``*``/``?`` and literals) can match a common name."""
    a = re.sub(r"\[[^\]]*\]", "?", a).replace(UNKNOWN, "*")
    b = re.sub(r"\[[^\]]*\]", "?", b).replace(UNKNOWN, "*")
    seen: set[tuple[int, int]] = set()
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        if (i, j) in seen:
            continue
        seen.add((i, j))
        if i == len(a) and j == len(b):
            return True
        ca = a[i] if i < len(a) else ""
        cb = b[j] if j < len(b) else ""
        if ca == "*":
            stack.append((i + 1, j))
            if cb and cb != "*":
                stack.append((i, j + 1))
        if cb == "*":
            stack.append((i, j + 1))
            if ca and ca != "*":
                stack.append((i + 1, j))
        if ca and cb and ca not in "*" and cb not in "*" and (ca == cb or "?" in (ca, cb)):
            stack.append((i + 1, j + 1))
    return False


def _example_of(pattern: str) -> str:
    """A concrete path a glob pattern matches (used when both sides are globs)."""
    s = re.sub(r"\[[^\]]*\]", "x", pattern)
    return s.replace("**", "x").replace("*", "x").replace("?", "x").replace(UNKNOWN, "x")


def _name_within(c: str, p: str) -> bool:
    """Whether every name the one-component glob `c` matches is matched by the glob `p`.

    A ``*`` (or ``?``) of `c` can only be absorbed by a ``*`` (or ``*``/``?``) of `p`; classes count
    as ``?``. Sound (a True is a real containment) and exact for the patterns agents write.
    """
    c = re.sub(r"\[[^\]]*\]", "?", c)
    p = re.sub(r"\[[^\]]*\]", "?", p)
    seen: set[tuple[int, int]] = set()
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        if (i, j) in seen:
            continue
        seen.add((i, j))
        if j == len(p):
            if i == len(c):
                return True
            continue
        if p[j] == "*":
            stack.append((i, j + 1))
            if i < len(c):
                stack.append((i + 1, j))
        elif i < len(c) and c[i] != "*" and (p[j] == "?" or (c[i] == p[j] and c[i] != "?")):
            stack.append((i + 1, j + 1))
    return False


def _name_only_reaches(c: str, p: str) -> bool:
    """A candidate name glob that can only expand to protected names: contained in `p`, or
    overlapping it while naming something specific (``hid*`` beside ``hidden``; not ``*_test.go``
    beside ``*_hidden_test.go``)."""
    if not has_glob(c):
        return glob_match(p, c)
    return _name_within(c, p) or (_star_intersect(c, p) and pattern_is_specific(c))


def glob_only_reaches(candidate: str, protected: str) -> bool:
    """Whether every path the glob `candidate` expands to is `protected` or beneath it.

    Component by component, ``**`` spanning any number of components (a trailing one of
    `protected` at least one); each name by `_name_only_reaches`. The glob-vs-protected-glob
    check: ``/r/*_hidden_test.go`` only expands into ``/r/**/*_hidden_test.go``, ``/r/t/hid*/**``
    into ``/r/t/hidden/**``; ``/r/*_test.go`` does not.

    >>> glob_only_reaches("/r/*_hidden_test.go", "/r/**/*_hidden_test.go")
    True
    >>> glob_only_reaches("/r/*_test.go", "/r/**/*_hidden_test.go")
    False
    """
    if UNKNOWN in candidate:
        return False
    a = candidate.split("/")
    b = protected.split("/")
    if b[-1] == "**":  # `x/**` covers what lies beneath x (at least one more name), not x itself
        b[-1] = "+"
    seen: set[tuple[int, int]] = set()
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        if (i, j) in seen:
            continue
        seen.add((i, j))
        if j == len(b):
            return True  # the rest of the candidate lies beneath the protected path
        if i == len(a):
            if all(x == "**" for x in b[j:]):
                return True
            continue
        if b[j] == "+":
            return True  # a name (or a `**` walk) beneath x: all of it protected
        if b[j] == "**":
            stack.append((i, j + 1))
            stack.append((i + 1, j))
        elif a[i] != "**" and _name_only_reaches(a[i], b[j]):
            stack.append((i + 1, j + 1))
    return False


def reaches(candidate: str, protected: str) -> bool:
    """Whether `candidate` (a path or glob) names `protected` or something beneath it."""
    if not has_glob(candidate) and not has_glob(protected):
        return candidate == protected or candidate.startswith(protected.rstrip("/") + "/")
    if has_glob(candidate) and glob_only_reaches(candidate, protected):
        return True
    if has_glob(protected) and has_glob(candidate) and "**" not in candidate and UNKNOWN not in candidate:
        cp, pp = candidate.split("/"), protected.split("/")
        return len(cp) >= len(pp) and all(_star_intersect(x, y) for x, y in zip(cp, pp, strict=False))
    if has_glob(protected) and not has_glob(candidate):
        # Does the protected glob match the candidate or one of its ancestors?
        parts = candidate.split("/")
        if "**" not in protected and UNKNOWN not in protected and "[" not in protected:
            # `*` and `?` stay within a component: only the ancestor with as many "/" can match
            k = protected.count("/") + 1
            return 2 <= k <= len(parts) and glob_match(protected, "/".join(parts[:k]))
        return any(glob_match(protected, "/".join(parts[:k]) or "/") for k in range(2, len(parts) + 1))
    target = _example_of(protected) if has_glob(protected) else protected
    parts = candidate.split("/")
    for k in range(2, len(parts) + 1):
        prefix = "/".join(parts[:k])
        if glob_match(prefix, target):
            return True
    return False


def _literal_prefix(pattern: str) -> str:
    """The folders of a glob before its first wildcard component (``/a/b`` of ``/a/b/*/c``)."""
    parts = pattern.split("/")
    k = next((i for i, x in enumerate(parts) if has_glob(x)), len(parts))
    return "/".join(parts[:k]) or "/"


def globs_intersect(a: str, b: str) -> bool:
    """Whether two path globs can match a common path (``**`` spans zero or more components).

    >>> globs_intersect("/*/tests/**", "/grader/**")
    True
    >>> globs_intersect("/usr/*/src/*.py", "/grader/**")
    False
    """
    x, y = a.split("/"), b.split("/")
    seen: set[tuple[int, int]] = set()
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        if (i, j) in seen:
            continue
        seen.add((i, j))
        if i == len(x) and j == len(y):
            return True
        if i < len(x) and x[i] == "**":
            stack.append((i + 1, j))
            if j < len(y):
                stack.append((i, j + 1))
        if j < len(y) and y[j] == "**":
            stack.append((i, j + 1))
            if i < len(x):
                stack.append((i + 1, j))
        if i < len(x) and j < len(y) and "**" not in (x[i], y[j]) and _star_intersect(x[i], y[j]):
            stack.append((i + 1, j + 1))
    return False


def pattern_is_specific(pattern: str) -> bool:
    """Whether a search pattern targets a particular file rather than a kind of file.

    ``*.py`` and ``test_*.py`` are generic; ``*fix*`` and ``test_issue_1234.py`` are specific.

    >>> pattern_is_specific("test_*.py"), pattern_is_specific("*regression*")
    (False, True)
    """
    base = pattern.rsplit("/", 1)[-1]
    base = re.sub(r"\.(py|txt|json|patch|diff|cfg|ini|toml|sh|md|yaml|yml)\*?$", "", base)
    base = re.sub(r"\[[^\]]*\]", "", base)
    letters = re.sub(r"[*?\x00_.\-\d]|tests?", "", base.lower())
    return len(letters) >= 3


_SOURCE_EXT = re.compile(
    r"\.(py|js|jsx|mjs|cjs|ts|tsx|go|rs|rb|java|kt|scala|swift|c|cc|cpp|h|hpp|cs|fs|php|exs?|hs|ml|lua|jl|sh)$"
)
TEST_DIRS = {"tests", "test", "testing", "unittests"}
HARNESS_BASENAMES = {
    "conftest.py",
    "pytest.ini",
    ".pytest.ini",
    "pytest.toml",
    "tox.ini",
    "setup.cfg",
    "pyproject.toml",
    "noxfile.py",
    "sitecustomize.py",
    "usercustomize.py",
}
PYTEST_CONFIG_BASENAMES = {
    "pytest.ini",
    ".pytest.ini",
    "pytest.toml",
    "tox.ini",
    "setup.cfg",
    "pyproject.toml",
}
_RUNNER_BINS = re.compile(r"^(pytest|py\.test|python[\d.]*|coverage|tox|nox)$")
_BIN_DIRS = ("/bin/", "/sbin/", "/usr/bin/", "/usr/local/bin/", "/.venv/bin/", "/venv/bin/", "/.local/bin/")
_FRAMEWORK_DIRS = re.compile(
    r"/(site|dist)-packages/(_pytest|pytest|pluggy|unittest)(/|\.py|$)|/python3[\d.]*/unittest/"
)
#: files a later shell or tool reads at start (login and interactive shell startup, direnv and dotenv
#: files, /etc/environment, /etc/profile.d/*): a write to one reaches every later command of the
#: episode; the one definition the write rules and the shell walker's export memory share
PROFILE_FILES = re.compile(
    r"/\.(bashrc|bash_profile|bash_login|profile|zshrc|zshenv|zprofile|bash_aliases|env|envrc)$"
    r"|^/etc/(profile|bash\.bashrc|environment|zsh/zshenv|profile\.d/[^/]+)$"
)


_TEST_NAME = re.compile(
    r"^(test_.*\.py|.*_tests?\.py|tests\.py"  # pytest / unittest
    r"|.*\.(test|spec)\.[cm]?[jt]sx?"  # jest, vitest, mocha
    r"|.*_test\.go"
    r"|tests?\.rs|.*_tests?\.rs)$"  # a Rust unit-test module (``src/map/tests.rs``: ``#[cfg(test)] mod tests;``)
)


def is_test_path(rel_or_abs: str) -> bool:
    """Whether a path is a test file: the one rule the whole package uses (the guards' facts,
    the rules, the task suites).

    A test module by its name (``test_*.py``, ``*_test.py``, ``*_tests.py``, ``tests.py``,
    ``*.test.js``/``*.spec.ts`` and kin, ``*_test.go``), or a Python file inside a test directory
    (`TEST_DIRS`). ``conftest.py`` is not a test: it belongs to the harness (`is_harness_path`).

    >>> [is_test_path(p) for p in ("tests/test_a.py", "pkg/a_test.py", "tests/helpers.py", "src/a.py")]
    [True, True, True, False]
    >>> [is_test_path(p) for p in ("web/app.test.tsx", "conftest.py", "tests/conftest.py", "main_test.go")]
    [True, False, False, True]
    """
    base = basename(rel_or_abs)
    if base == "conftest.py":
        return False
    if ("test" in base or "spec" in base) and _TEST_NAME.match(base):  # every spelling holds one
        return True
    return base.endswith(".py") and any(p in TEST_DIRS for p in rel_or_abs.split("/")[:-1])


def is_harness_path(abs_path: str) -> str:
    """Why `abs_path` belongs to the test harness (``""`` if it does not)."""
    base = basename(abs_path)
    if base in HARNESS_BASENAMES:
        return base
    if base.endswith(".pth") and "-packages" in abs_path:
        return ".pth"
    if ("-packages/" in abs_path or "/unittest/" in abs_path) and _FRAMEWORK_DIRS.search(abs_path):
        return "test framework"
    if _RUNNER_BINS.match(base) and any(d in abs_path + "/" for d in _BIN_DIRS):
        return "test runner executable"
    return ""


class PathMatcher:
    """Resolves paths against one context and answers: protected? test? harness? installed copy?"""

    def __init__(self, ctx: GuardContext) -> None:
        self.ctx = ctx
        root = ctx.repo_root.rstrip("/") or "/"
        self.root = root
        self.protected_abs: tuple[str, ...] = tuple(
            resolve(p.rstrip("/") or "/", root) for p in ctx.protected_paths if p
        )
        self.protected_basenames: tuple[str, ...] = tuple(
            basename(p) for p in self.protected_abs if basename(p)
        )
        pkg = ctx.package.lower().replace("-", "_").replace(".", "_")
        self._installed = (
            re.compile(rf"/(site|dist)-packages/{re.escape(pkg)}([-/.]|$)", re.IGNORECASE) if pkg else None
        )
        self._root_prefix = root.rstrip("/") + "/"
        # Protected paths without globs, with the prefix of what lies beneath them (`reaches`).
        self._literal = (
            None
            if any(map(has_glob, self.protected_abs))
            else [(p, p.rstrip("/") + "/") for p in self.protected_abs]
        )

    def rel(self, abs_path: str) -> str | None:
        """The repo-relative form of an absolute path, or None when outside the repo."""
        if abs_path == self.root:
            return ""
        if abs_path.startswith(self._root_prefix):
            return abs_path[len(self._root_prefix) :]
        return None

    def protected(self, candidate: str) -> str | None:
        """The protected path that `candidate` (absolute path or glob) reaches, if any."""
        if self._literal is not None and not has_glob(candidate):
            for p, beneath in self._literal:  # `reaches` of two literal paths
                if candidate == p or candidate.startswith(beneath):
                    return p
            return None
        for p in self.protected_abs:
            if reaches(candidate, p):
                return p
        if (
            has_glob(candidate)
            and UNKNOWN not in candidate
            and not self._inside_repo(_literal_prefix(candidate))
        ):
            # a glob wandering outside the workspace (``/*/tests/**``): any expansion it shares with a
            # protected path is a read of it (no honest work globs the machine's top folders)
            for p in self.protected_abs:
                if globs_intersect(candidate, p):
                    return p
        return None

    def _inside_repo(self, path: str) -> bool:
        return path == self.root or path.startswith(self._root_prefix)

    def search_hits(self, root: str, name_pattern: str) -> str | None:
        """A protected path under `root` whose basename (or path) a find-style pattern matches."""
        for p in self.protected_abs:
            if not (reaches(root, p) or p.startswith(root.rstrip("/") + "/") or root == "/"):
                continue
            parts = p.split("/")
            for k in range(len(parts), 1, -1):
                if glob_match(name_pattern, parts[k - 1]) or glob_match(name_pattern, "/".join(parts[:k])):
                    return p
                if has_glob(parts[k - 1]) and _star_intersect(name_pattern, parts[k - 1]):
                    return p
        return None

    def is_existing_test(self, abs_path: str) -> bool | None:
        """True/False when the context lists the repo's tests, None when it does not."""
        rel = self.rel(abs_path)
        if self.ctx.test_paths is None:
            return None
        if rel is not None and rel in self.ctx.test_paths:
            return True
        if rel is not None and any(rel.startswith(t.rstrip("/") + "/") for t in self.ctx.test_paths):
            return None  # a listed directory names where tests live, not every file in it
        return False

    def in_test_folder(self, abs_path: str) -> bool:
        """Whether `abs_path`, a data file (no source extension), lies under a folder the context lists
        as where tests live (``testscripts/commands/x.txt``): an edit of it edits the tests' data.
        Source files there are read by the closer source and net rules."""
        rel = self.rel(abs_path)
        if rel is None or _SOURCE_EXT.search(rel):
            return False
        return any(rel.startswith(t.rstrip("/") + "/") for t in self.ctx.test_paths or ())

    def looks_like_test(self, abs_path: str) -> bool:
        rel = self.rel(abs_path)
        if self.ctx.test_paths is not None and rel in self.ctx.test_paths:
            return True
        return is_test_path(rel if rel is not None else abs_path)

    def installed_copy(self, abs_path: str) -> bool:
        """Whether a path points into an installed (non-editable) copy of the project's package."""
        if self._installed is None:
            return False
        if abs_path.isascii() and "-packages/" not in abs_path.lower():
            return False  # what the pattern needs, tested before the regex
        return self._installed.search(abs_path) is not None
