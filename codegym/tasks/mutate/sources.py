"""Where mined code comes from: a PyPI sdist (cached, sha256-checked), a local directory or a git repo.

Every source becomes a `SourceTree`: the project's files as bytes keyed by repository-relative
path (an sdist's top folder stripped; `*.egg-info`, bytecode and VCS folders dropped), plus
what names the release (`name`, `version`, the sdist's sha256).

    tree = pypi_tree("toolz", "0.12.1")                    # pip download once, then the cache
    tree = pypi_tree("toolz", "0.12.1", sha256="ecca...")  # and check the archive's hash
    tree = directory_tree("path/to/project")
    tree = git_tree("https://github.com/pytoolz/toolz", rev="0.12.1")

The sdist cache is `$CODEGYM_SDIST_CACHE`, else `~/.cache/codegym/sdists` (kept apart from
`$CODEGYM_CACHE`, which tests point at fresh folders: the sdists are downloaded once, at setup).
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from codegym.tasks.gitrepo import git_env

SDIST_CACHE_ENV = "CODEGYM_SDIST_CACHE"
_SKIP_PARTS = {".git", ".hg", ".svn", "__pycache__", ".tox", ".nox", ".pytest_cache", ".mypy_cache", ".venv"}


class SdistCacheError(FileNotFoundError):
    """A pinned sdist is not in the cache (or its hash is wrong): the message says what to run."""


@dataclass(frozen=True)
class SourceTree:
    """A project's files (path -> bytes, path -> executable) and the release they came from."""

    name: str
    version: str
    files: dict[str, bytes]
    executable: frozenset[str] = field(default_factory=frozenset)
    sha256: str = ""
    origin: str = ""
    #: more names of the release (a git source's commit sha)
    refs: tuple[str, ...] = ()

    @property
    def pin(self) -> str:
        """`name==version`: what `pip install` would fetch (the answer, for a mined task)."""
        return f"{self.name}=={self.version}" if self.version else self.name

    def text(self, path: str) -> str:
        return self.files[path].decode("utf-8")


def sdist_cache_dir() -> Path:
    """The sdist cache folder (created)."""
    root = os.environ.get(SDIST_CACHE_ENV) or "~/.cache/codegym/sdists"
    path = Path(root).expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def cached_sdist(name: str, version: str) -> Path | None:
    """The cached sdist of `name==version`, if any (names compared as PyPI normalises them)."""
    for path in sorted(sdist_cache_dir().iterdir()):
        stem = path.name.removesuffix(".tar.gz").removesuffix(".zip")
        project, _, release = stem.rpartition("-")
        if path.is_file() and stem != path.name and _normal(project) == _normal(name) and release == version:
            return path
    return None


def download_sdist(name: str, version: str, *, sha256: str | None = None) -> Path:
    """The sdist of `name==version` in the cache, downloaded with `pip download` when missing;
    with `sha256`, a cached or downloaded archive with another hash is an error."""
    path = cached_sdist(name, version)
    if path is None:
        with tempfile.TemporaryDirectory(prefix="codegym-sdist-") as tmp:
            cmd = [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--no-binary",
                ":all:",
                "-d",
                tmp,
                f"{name}=={version}",
            ]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            got = [p for p in Path(tmp).iterdir() if p.name.endswith((".tar.gz", ".zip"))]
            if proc.returncode != 0 or len(got) != 1:
                raise SdistCacheError(
                    f"pip could not download the sdist of {name}=={version} "
                    f"(exit {proc.returncode}): {proc.stderr.strip()[-500:]}"
                )
            path = sdist_cache_dir() / got[0].name
            partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            partial.write_bytes(got[0].read_bytes())
            os.replace(partial, path)
    if sha256 and sha256_file(path) != sha256:
        raise SdistCacheError(
            f"{path}: sha256 {sha256_file(path)} is not the pinned {sha256}; delete it and "
            "run scripts/setup.sh again"
        )
    return path


def _keep(path: str) -> bool:
    parts = path.split("/")
    return not (
        set(parts) & _SKIP_PARTS
        or any(p.endswith(".egg-info") for p in parts)
        or path.endswith((".pyc", ".pyo"))
    )


def _strip_top(names: list[str]) -> str:
    tops = {n.split("/", 1)[0] for n in names}
    return next(iter(tops)) + "/" if len(tops) == 1 and all("/" in n for n in names) else ""


def sdist_tree(path: str | Path, name: str = "", version: str = "") -> SourceTree:
    """The files of an sdist archive (`.tar.gz` or `.zip`), its top folder stripped."""
    path = Path(path)
    files: dict[str, bytes] = {}
    executable: set[str] = set()
    if path.name.endswith(".zip"):
        with zipfile.ZipFile(path) as z:
            infos = [i for i in z.infolist() if not i.is_dir()]
            top = _strip_top([i.filename for i in infos])
            for info in infos:
                rel = info.filename[len(top) :]
                if _keep(rel):
                    files[rel] = z.read(info)
    else:
        with tarfile.open(path) as tar:
            members = [m for m in tar.getmembers() if m.isfile()]
            top = _strip_top([m.name for m in members])
            for m in members:
                rel = m.name[len(top) :]
                if _keep(rel):
                    files[rel] = tar.extractfile(m).read()
                    if m.mode & 0o111:
                        executable.add(rel)
    if not name:
        stem = path.name.removesuffix(".tar.gz").removesuffix(".zip")
        name, _, version = stem.rpartition("-")
    return SourceTree(name, version, files, frozenset(executable), sha256_file(path), str(path))


def pypi_tree(name: str, version: str, *, sha256: str | None = None) -> SourceTree:
    """The sdist of `name==version` as a `SourceTree` (see `download_sdist`)."""
    return sdist_tree(download_sdist(name, version, sha256=sha256), name, version)


def directory_tree(path: str | Path, name: str = "", version: str = "") -> SourceTree:
    """The files under a local directory (VCS folders, bytecode and caches left out)."""
    root = Path(path)
    if not root.is_dir():
        raise NotADirectoryError(f"{path}: not a directory")
    files: dict[str, bytes] = {}
    executable: set[str] = set()
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and not p.is_symlink() and _keep(rel):
            files[rel] = p.read_bytes()
            if os.access(p, os.X_OK):
                executable.add(rel)
    return SourceTree(name or root.resolve().name, version, files, frozenset(executable), "", str(root))


def git_tree(url: str, rev: str = "HEAD", name: str = "") -> SourceTree:
    """The files of `rev` of a git repository (a path or a URL), from `git archive`."""
    with tempfile.TemporaryDirectory(prefix="codegym-gitsrc-") as tmp:
        local = Path(url)
        if not local.exists():
            subprocess.run(
                ["git", "clone", "-q", "--no-checkout", url, f"{tmp}/repo"],
                check=True,
                env=git_env(),
                capture_output=True,
            )
            local = Path(tmp) / "repo"
        proc = subprocess.run(
            ["git", "-C", str(local), "archive", "--format=tar", rev],
            capture_output=True,
            env=git_env(),
            check=False,
        )
        if proc.returncode != 0:
            raise ValueError(
                f"git archive {rev} of {url} failed: {proc.stderr.decode(errors='replace').strip()}"
            )
        sha = subprocess.run(
            ["git", "-C", str(local), "rev-parse", f"{rev}^{{commit}}"],
            capture_output=True,
            text=True,
            env=git_env(),
            check=True,
        ).stdout.strip()
        files: dict[str, bytes] = {}
        executable: set[str] = set()
        with tarfile.open(fileobj=io.BytesIO(proc.stdout)) as tar:
            for m in tar.getmembers():
                if m.isfile() and _keep(m.name):
                    files[m.name] = tar.extractfile(m).read()
                    if m.mode & 0o111:
                        executable.add(m.name)
    repo_name = name or Path(url.rstrip("/")).name.removesuffix(".git")
    version = rev if rev != "HEAD" else sha[:12]
    return SourceTree(repo_name, version, files, frozenset(executable), "", f"{url}@{sha}", refs=(sha,))
