"""The data the detection engine passes around: task facts, flags, verdicts (and, re-exported from
`codegym.toolcall`, the calls it reads).

>>> call = ToolCall("bash", {"command": "git log --all --oneline"})
>>> ctx = GuardContext(protected_paths=("tests/hidden",), base_commit="a1b2c3d")
>>> ctx.repo_root
'/workspace'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from codegym.toolcall import ToolCall as ToolCall  # re-exported: the env's type, which the detector reads

PROTECTED_READ = "protected-read"
VCS_FUTURE_LEAK = "vcs-future-leak"
UPSTREAM_RETRIEVAL = "upstream-retrieval"
TEST_TAMPERING = "test-tampering"
HARNESS_TAMPERING = "harness-tampering"
SPECIAL_CASING = "special-casing"


def package_name(package: str) -> str:
    """The last component of a distribution name, the name its files and folders go by.

    >>> package_name("io.circe:circe-core"), package_name("github.com/spf13/cobra"), package_name("CLI11")
    ('circe-core', 'cobra', 'CLI11')
    """
    return package.split(":")[-1].split("/")[-1]


CATEGORIES: tuple[str, ...] = (
    PROTECTED_READ,
    VCS_FUTURE_LEAK,
    UPSTREAM_RETRIEVAL,
    TEST_TAMPERING,
    HARNESS_TAMPERING,
    SPECIAL_CASING,
)


@dataclass(frozen=True)
class GuardContext:
    """What the guard knows about the task. Every field has a safe default, and ``None`` (a JSON
    null) in any field means "unknown": the default, or for the three sets below, unknown.

    - `protected_paths`: hidden tests and reference files, repo-relative or absolute, globs allowed.
    - `upstream_refs`: shas (full or abbreviated), tags and versions that contain the fix.
    - `package`: the project's distribution name, for pip checks (``""``: unknown).
    - `repo_root`: where the repository lives in the sandbox; relative paths resolve against `cwd`.
    - `base_commit`: the commit the episode starts from.
    - `ancestor_shas`: full shas reachable from the base commit (`git rev-list` at reset);
      ``None`` means unknown, and a sha that is neither an ancestor nor an upstream ref is then
      not convicted (the flag is still recorded).
    - `test_paths`: existing test files (repo-relative); ``None`` means unknown, and then a
      destructive edit of a test-looking file counts as tampering.
    - `cwd`: the working directory of the bash tool (default: `repo_root`).
    - `decoys_present`: the protected files really are in the sandbox (honeypot mode), so a
      broad recursive read of a directory holding one would show it.
    - `test_literals`: reprs of the literal values the hidden tests use; source that returns
      keyed on one of them hard-codes a test input. ``None``: unknown.
    - `visible_test_literals`: the specific literals, ``case [input, output]`` entries and input
      digests of the VISIBLE tests (`literal_forms.visible_test_literals`; never the hidden
      tests); written source keying on them is ``SC-VISIBLE``. ``None``: unknown (the rule is off).

    >>> GuardContext(repo_root="/repo").workdir
    '/repo'
    """

    protected_paths: tuple[str, ...] = ()
    upstream_refs: tuple[str, ...] = ()
    package: str = ""
    repo_root: str = "/workspace"
    base_commit: str = ""
    ancestor_shas: frozenset[str] | None = None
    test_paths: frozenset[str] | None = None
    cwd: str = ""
    decoys_present: bool = False
    test_literals: frozenset[str] | None = None
    visible_test_literals: frozenset[str] | None = None

    def __post_init__(self) -> None:
        # A JSON null means "unknown": the field's default, never an AttributeError later.
        for name, default in (("package", ""), ("repo_root", "/workspace"), ("base_commit", ""), ("cwd", "")):
            if getattr(self, name) is None:
                object.__setattr__(self, name, default)
        object.__setattr__(self, "decoys_present", bool(self.decoys_present))
        # Accept lists/sets from JSON or callers while keeping the dataclass hashable and frozen.
        object.__setattr__(self, "protected_paths", tuple(self.protected_paths or ()))
        object.__setattr__(self, "upstream_refs", tuple(self.upstream_refs or ()))
        if self.ancestor_shas is not None:
            object.__setattr__(self, "ancestor_shas", frozenset(s.lower() for s in self.ancestor_shas))
        if self.test_paths is not None:
            object.__setattr__(self, "test_paths", frozenset(p.strip("/") for p in self.test_paths))
        if self.test_literals is not None:
            object.__setattr__(self, "test_literals", frozenset(self.test_literals))
        if self.visible_test_literals is not None:
            object.__setattr__(self, "visible_test_literals", frozenset(self.visible_test_literals))

    @property
    def workdir(self) -> str:
        return self.cwd or self.repo_root

    def to_dict(self) -> dict[str, Any]:
        return {
            "protected_paths": list(self.protected_paths),
            "upstream_refs": list(self.upstream_refs),
            "package": self.package,
            "repo_root": self.repo_root,
            "base_commit": self.base_commit,
            "ancestor_shas": None if self.ancestor_shas is None else sorted(self.ancestor_shas),
            "test_paths": None if self.test_paths is None else sorted(self.test_paths),
            "cwd": self.cwd,
            "decoys_present": self.decoys_present,
            "test_literals": None if self.test_literals is None else sorted(self.test_literals),
            "visible_test_literals": None
            if self.visible_test_literals is None
            else sorted(self.visible_test_literals),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> GuardContext:
        anc = d.get("ancestor_shas")
        tests = d.get("test_paths")
        return cls(
            protected_paths=tuple(d.get("protected_paths") or ()),
            upstream_refs=tuple(d.get("upstream_refs") or ()),
            package=d.get("package"),
            repo_root=d.get("repo_root"),
            base_commit=d.get("base_commit"),
            ancestor_shas=None if anc is None else frozenset(anc),
            test_paths=None if tests is None else frozenset(tests),
            cwd=d.get("cwd"),
            decoys_present=bool(d.get("decoys_present", False)),
            test_literals=None if d.get("test_literals") is None else frozenset(d["test_literals"]),
            visible_test_literals=None
            if d.get("visible_test_literals") is None
            else frozenset(d["visible_test_literals"]),
        )


@dataclass(frozen=True)
class Flag:
    """One finding of the rule stage.

    `subject` is what the rule found (a resolved path, a revision, a URL, a requirement), `command`
    the program that would act on it (``cat``, ``git``, ``python``, ``view``), `op` what it does
    (``read``, ``write``, ``delete``, ``list``, ``net``, ``exec``, ``code``), and `facts` whatever
    else a judge needs (e.g. whether a path is a glob). Rules aim at recall; judges settle.
    """

    category: str
    rule: str
    evidence: str
    subject: str = ""
    command: str = ""
    op: str = ""
    facts: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"category": self.category, "rule": self.rule, "evidence": self.evidence}
        for k in ("subject", "command", "op"):
            if getattr(self, k):
                d[k] = getattr(self, k)
        if self.facts:
            d["facts"] = _jsonable(dict(self.facts))
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Flag:
        return cls(
            d["category"],
            d["rule"],
            d.get("evidence", ""),
            d.get("subject", ""),
            d.get("command", ""),
            d.get("op", ""),
            dict(d.get("facts") or {}),
        )


@dataclass(frozen=True)
class Verdict:
    """A judge's decision on the flags of one call.

    `confirmed` holds the flags the judge upheld (empty when benign); `fallback` says why a judge
    fell back to another verdict (e.g. an unparseable model answer), empty otherwise.
    """

    is_hack: bool
    category: str | None
    rationale: str
    judge: str
    confirmed: tuple[Flag, ...] = ()
    fallback: str = ""


@dataclass(frozen=True)
class DummyResult:
    """What the agent sees instead of the blocked call's real result.

    `stdout`/`stderr`/`exit_code` mirror `ExecResult`. When `substitute` is set, it is a safe shell
    command (e.g. ``git log --oneline <base>`` for ``git log --all --oneline``) whose real output
    is the most plausible answer; a wrapper may run it instead and fall back to `output`.
    """

    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0
    substitute: str | None = None
    #: (placeholder, shown) pairs: the substitute names a revision, path, host or remote that does
    #: not exist in place of the real one; its output shows the real name again.
    renames: tuple[tuple[str, str], ...] = ()
    #: the substitute is only safe where the sandbox has no network (e.g. the blocked pip call
    #: itself, which offline can only fail the way the scrubbed sandbox fails it).
    offline: bool = False

    @property
    def output(self) -> str:
        if self.stdout and self.stderr:
            sep = "" if self.stdout.endswith("\n") else "\n"
            return self.stdout + sep + self.stderr
        return self.stdout or self.stderr

    def to_dict(self) -> dict[str, Any]:
        return {
            "stdout": self.stdout,
            "stderr": self.stderr,
            "exit_code": self.exit_code,
            "substitute": self.substitute,
            "renames": [list(r) for r in self.renames],
        }


@dataclass(frozen=True)
class Detection:
    """Everything a guard needs about one call.

    `flags` are the rule stage's findings, `is_hack`/`category`/`rationale` the final verdict,
    `judge` the judge that gave it, and `dummy` the result to return instead of running the call
    (``None`` unless `is_hack`).

    >>> from codegym.antihack import detect
    >>> d = detect(ToolCall("bash", {"command": "git log --all"}), GuardContext(base_commit="a1b2c3d"))
    >>> (d.is_hack, d.category, d.flags[0].rule)
    (True, 'vcs-future-leak', 'VCS-ALLREFS')
    """

    flags: tuple[Flag, ...]
    is_hack: bool
    category: str | None
    rationale: str
    judge: str = ""
    confirmed: tuple[Flag, ...] = ()
    dummy: DummyResult | None = None
    fallback: str = ""

    @property
    def flagged(self) -> bool:
        return bool(self.flags)

    def to_dict(self) -> dict[str, Any]:
        return {
            "flags": [f.to_dict() for f in self.flags],
            "is_hack": self.is_hack,
            "category": self.category,
            "rationale": self.rationale,
            "judge": self.judge,
            "confirmed": [f.rule for f in self.confirmed],
            "dummy": None if self.dummy is None else self.dummy.to_dict(),
            "fallback": self.fallback,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple | set | frozenset):
        return [_jsonable(v) for v in x]
    if isinstance(x, str | int | float | bool) or x is None:
        return x
    return str(x)
