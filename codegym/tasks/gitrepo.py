"""Write real git repositories fast, and diffs that `git apply` accepts.

The built-in suites are generated, not downloaded: each task's source repository is a bare
git repository written in one `git fast-import` run (two processes per repository, a few
milliseconds), with fixed authors and dates so the shas are the same on every machine.

    shas = build_repo(path, [
        Commit("Initial commit", {"calc.py": "def add(a, b):\\n    return a - b\\n"}),
        Commit("Fix add", {"calc.py": "def add(a, b):\\n    return a + b\\n"}, tag="v0.1.1"),
    ])
"""

from __future__ import annotations

import difflib
import os
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: git reads no user or system configuration when this environment is used.
GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
    "LC_ALL": "C",
}

DEFAULT_AUTHOR = ("Casey Maintainer", "casey@example.org")
EPOCH = 1_700_000_000  # 2023-11-14: the first commit of every generated repository


def git_env() -> dict[str, str]:
    """The process environment with `GIT_ENV` applied."""
    return {**os.environ, **GIT_ENV}


def run_git(*args: str, cwd: str | Path | None = None, input: bytes | None = None) -> str:
    """Run git isolated from user configuration; raise with its stderr on failure."""
    proc = subprocess.run(
        ["git", *args], cwd=cwd, input=input, capture_output=True, env=git_env(), check=False
    )
    if proc.returncode != 0:
        raise RuntimeError(
            f"git {' '.join(args[:3])} failed ({proc.returncode}): {proc.stderr.decode(errors='replace')}"
        )
    return proc.stdout.decode("utf-8", "replace")


@dataclass(frozen=True)
class Commit:
    """One commit: `files` maps a path to its new text, or to None to delete it."""

    message: str
    files: Mapping[str, str | None]
    tag: str | None = None
    author: tuple[str, str] | None = None
    executable: frozenset[str] = field(default_factory=frozenset)


def _data(payload: str) -> bytes:
    raw = payload.encode("utf-8")
    return b"data %d\n" % len(raw) + raw + b"\n"


def build_repo(
    path: str | Path,
    commits: Sequence[Commit],
    *,
    branch: str = "main",
    start: int = EPOCH,
    step: int = 3 * 86400 + 3671,
    author: tuple[str, str] = DEFAULT_AUTHOR,
) -> list[str]:
    """Create a bare repository at `path` holding `commits` in order on `branch`.

    Commit i is dated `start + i * step`. A commit with a `tag` gets an annotated tag.
    Returns the commit shas in order.
    """
    path = Path(path)
    run_git("init", "--bare", "-q", "--initial-branch", branch, str(path))
    stream = bytearray()
    for i, commit in enumerate(commits, start=1):
        name, email = commit.author or author
        when = f"{start + (i - 1) * step} +0000"
        stream += f"commit refs/heads/{branch}\nmark :{i}\n".encode()
        stream += f"author {name} <{email}> {when}\ncommitter {name} <{email}> {when}\n".encode()
        stream += _data(commit.message.rstrip("\n") + "\n")
        if i > 1:
            stream += f"from :{i - 1}\n".encode()
        for file, text in sorted(commit.files.items()):
            if text is None:
                stream += f"D {file}\n".encode()
            else:
                mode = "100755" if file in commit.executable else "100644"
                stream += f"M {mode} inline {file}\n".encode() + _data(text)
        if commit.tag:
            stream += f"tag {commit.tag}\nfrom :{i}\n".encode()
            stream += f"tagger {name} <{email}> {when}\n".encode()
            stream += _data(f"Release {commit.tag}\n")
    with tempfile.TemporaryDirectory() as tmp:
        marks = Path(tmp) / "marks"
        run_git("fast-import", "--quiet", f"--export-marks={marks}", cwd=path, input=bytes(stream))
        by_mark = dict(line.split() for line in marks.read_text().splitlines())
    return [by_mark[f":{i}"] for i in range(1, len(commits) + 1)]


def file_diff(path: str, old: str | None, new: str | None) -> str:
    """A `git diff`-style diff of one text file (`old`/`new` None = absent)."""
    for text in (old, new):
        if text and not text.endswith("\n"):
            raise ValueError(f"{path}: generated files must end with a newline")
    if old == new:
        return ""
    header = f"diff --git a/{path} b/{path}\n"
    if old is None:
        header += "new file mode 100644\n"
    elif new is None:
        header += "deleted file mode 100644\n"
    hunks = "".join(
        difflib.unified_diff(
            (old or "").splitlines(keepends=True),
            (new or "").splitlines(keepends=True),
            "/dev/null" if old is None else f"a/{path}",
            "/dev/null" if new is None else f"b/{path}",
            n=3,
        )
    )
    return header + hunks


def tree_diff(old: Mapping[str, str], new: Mapping[str, str], paths: Sequence[str] | None = None) -> str:
    """The diff between two {path: text} trees, limited to `paths` when given, sorted by path."""
    names = sorted(set(old) | set(new)) if paths is None else sorted(paths)
    return "".join(file_diff(p, old.get(p), new.get(p)) for p in names)
