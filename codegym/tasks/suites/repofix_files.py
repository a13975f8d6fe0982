"""The repofix bugs as folders of real files: `Bug`, read from `repofix/<package>/`.

Each folder is a small project that ruff lints and pytest runs as it is
(`tests/tasks/test_repofix_dirs.py`):

    repofix/pagekit/
        task.toml               index, package, kind, summary, module, layout, version,
                                feature, fix_message, hidden_tests ("new file" | "appended"), usage
        statement.md            the issue-style problem statement
        pagekit/pagination.py   the module with the bug, as it is at the base
        pagekit/cli.py          (optional) a command-line entry point, with tests/test_cli.py
        tests/test_pagination.py    the visible tests
        hidden/test_pagination_regressions.py   a test file as the fix writes it under tests/
        fix.patch               the upstream source change (`git apply` applies it in the folder)

`repofix.py` turns a `Bug` into a repository: it moves `<package>/` under `src/` for the
src layout and adds helper modules, packaging and history.

    bugs = load_bugs(BUGS_DIR)
    bugs[0].fixed_code  # pagination.py after fix.patch
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

BUGS_DIR = Path(__file__).resolve().parent / "repofix"

_FIELDS = {
    "index", "package", "kind", "summary", "module", "layout", "version", "feature",
    "fix_message", "hidden_tests", "usage",
}  # fmt: skip
_CACHES = {"__pycache__", ".pytest_cache", ".ruff_cache"}
_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class Bug:
    """One repofix bug: the package-specific content of its task.

    `code`/`cli` are the module and the optional CLI at the base, `fixed_code`/`fixed_cli`
    after the upstream fix; `tests`/`cli_tests` their visible tests; `hidden` the text of
    the test file `tests/<hidden_file>` as the fix writes it (a new file, or the visible test
    file with the regression tests appended).
    """

    index: int
    package: str
    kind: str
    summary: str
    usage: str
    module: str
    code: str
    fixed_code: str
    tests: str
    hidden_file: str
    hidden: str
    statement: str
    feature: str
    fix_message: str
    version: str
    layout: str
    cli: str | None = None
    fixed_cli: str | None = None
    cli_tests: str | None = None

    @property
    def stem(self) -> str:
        return self.module.rsplit("/", 1)[-1].removesuffix(".py")

    @property
    def hidden_in_new_file(self) -> bool:
        return self.hidden_file != f"test_{self.stem}.py"

    def subpackages(self) -> list[str]:
        """Folders between the package and the module, e.g. `billing` for `billing/money.py`."""
        parts = self.module.split("/")[:-1]
        return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def apply_patch(files: dict[str, str], patch: str) -> dict[str, str]:
    """`files` ({path: text}) with the unified diff `patch` applied; every hunk must match exactly."""
    out = dict(files)
    blocks = re.split(r"^diff --git ", patch, flags=re.M)
    if blocks[0].strip() or len(blocks) < 2:
        raise ValueError("fix.patch must be a `git diff` (blocks starting with 'diff --git a/... b/...')")
    for block in blocks[1:]:
        lines = block.splitlines(keepends=True)
        path = lines[0].split()[0].removeprefix("a/")
        if path not in out:
            raise ValueError(f"fix.patch changes {path}, which is not a file of the bug")
        old = out[path].splitlines(keepends=True)
        new: list[str] = []
        pos = 0  # lines of `old` consumed
        i = next((k for k, line in enumerate(lines) if line.startswith("@@")), len(lines))
        if i == len(lines):
            raise ValueError(f"fix.patch: no hunks for {path}")
        while i < len(lines):
            m = _HUNK.match(lines[i])
            if not m:
                raise ValueError(f"fix.patch: expected a hunk header for {path}, got {lines[i]!r}")
            start = int(m[1]) - (m[2] != "0")  # an empty old range names the line before
            new += old[pos:start]
            pos = start
            i += 1
            while i < len(lines) and not lines[i].startswith("@@"):
                tag, text = lines[i][:1], lines[i][1:]
                if tag in " -":
                    if pos >= len(old) or old[pos] != text:
                        raise ValueError(f"fix.patch does not apply to {path} at line {pos + 1}: {text!r}")
                    pos += 1
                if tag in " +":
                    new.append(text)
                if tag not in " -+":
                    raise ValueError(f"fix.patch: unexpected line in {path}: {lines[i]!r}")
                i += 1
        out[path] = "".join(new + old[pos:])
    return out


def _read(folder: Path, rel: str) -> str:
    path = folder / rel
    if not path.is_file():
        raise ValueError(f"{folder}: missing {rel}")
    return path.read_text(encoding="utf-8")


def load_bug(folder: str | Path) -> Bug:
    """The `Bug` in one folder; raises ValueError naming the folder and what is wrong."""
    folder = Path(folder)
    meta = tomllib.loads(_read(folder, "task.toml"))
    if set(meta) != _FIELDS:
        raise ValueError(
            f"{folder}/task.toml: missing {sorted(_FIELDS - set(meta))}, unknown {sorted(set(meta) - _FIELDS)}"
        )
    pkg, module = meta["package"], meta["module"]
    if folder.name != pkg:
        raise ValueError(f"{folder}: the folder must be named after its package {pkg!r}")
    if meta["layout"] not in ("flat", "src"):
        raise ValueError(f"{folder}/task.toml: layout must be 'flat' or 'src', got {meta['layout']!r}")
    stem = module.rsplit("/", 1)[-1].removesuffix(".py")
    hidden_file = {"new file": f"test_{stem}_regressions.py", "appended": f"test_{stem}.py"}.get(
        meta["hidden_tests"]
    )
    if hidden_file is None:
        raise ValueError(f"{folder}/task.toml: hidden_tests must be 'new file' or 'appended'")
    cli_path = f"{pkg}/cli.py"
    has_cli = (folder / cli_path).exists()
    sources = {f"{pkg}/{module}": _read(folder, f"{pkg}/{module}")}
    if has_cli:
        sources[cli_path] = _read(folder, cli_path)
    fixed = apply_patch(sources, _read(folder, "fix.patch"))
    tests = _read(folder, f"tests/test_{stem}.py")
    hidden = _read(folder, f"hidden/{hidden_file}")
    if meta["hidden_tests"] == "appended" and not hidden.startswith(tests):
        raise ValueError(
            f"{folder}/hidden/{hidden_file}: appended regression tests must start with the visible ones"
        )
    expected = {
        *sources,
        "task.toml",
        "statement.md",
        "fix.patch",
        f"tests/test_{stem}.py",
        f"hidden/{hidden_file}",
    }
    if has_cli:
        expected.add("tests/test_cli.py")
    found = {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and not _CACHES & set(p.relative_to(folder).parts)
    }
    if found != expected:
        problems = [f"unexpected files {sorted(found - expected)}"] if found - expected else []
        problems += [f"missing {sorted(expected - found)}"] if expected - found else []
        raise ValueError(f"{folder}: " + ", ".join(problems))
    return Bug(
        index=meta["index"],
        package=pkg,
        kind=meta["kind"],
        summary=meta["summary"],
        usage=meta["usage"].strip(),
        module=module,
        code=sources[f"{pkg}/{module}"],
        fixed_code=fixed[f"{pkg}/{module}"],
        tests=tests,
        hidden_file=hidden_file,
        hidden=hidden,
        statement=_read(folder, "statement.md"),
        feature=meta["feature"],
        fix_message=meta["fix_message"],
        version=meta["version"],
        layout=meta["layout"],
        cli=sources.get(cli_path),
        fixed_cli=fixed.get(cli_path),
        cli_tests=_read(folder, "tests/test_cli.py") if has_cli else None,
    )


def bug_folders(root: str | Path = BUGS_DIR) -> list[Path]:
    """The bug folders under `root` (every folder holding a `task.toml`)."""
    return sorted(p.parent for p in Path(root).glob("*/task.toml"))


def load_bugs(root: str | Path = BUGS_DIR) -> list[Bug]:
    """Every bug under `root`, in `index` order (which must run 0, 1, ..., n-1)."""
    bugs = sorted((load_bug(p) for p in bug_folders(root)), key=lambda b: b.index)
    if [b.index for b in bugs] != list(range(len(bugs))):
        raise ValueError(
            f"{root}: task.toml indexes must be 0..{len(bugs) - 1}, got {[b.index for b in bugs]}"
        )
    return bugs


def data_fingerprint(root: str | Path = BUGS_DIR) -> str:
    """A hash of every file under `root` (caches aside): the suite's cache key for its data."""
    root = Path(root)
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_file() and not _CACHES & set(rel.parts):
            h.update(rel.as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:12]
