"""prepare_workspace: the repository at base_commit, and nothing of the upstream fix."""

from __future__ import annotations

import io
import tarfile

import pytest
from conftest import git

from codegym.tasks.cache import cache_dir
from codegym.tasks.workspace import (
    WorkspaceError,
    build_scrub_script,
    prepare_workspace,
    workspace_archive,
)


def _extract(data: bytes, dest):
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def assert_scrubbed(ws, repo) -> None:
    """Everything an agent could run to find the upstream fix finds nothing."""
    for ref in (repo.fix, repo.later, "v1.0.1"):
        assert git("cat-file", "-e", ref, cwd=ws).returncode != 0, ref
    assert git("rev-parse", "HEAD", cwd=ws).stdout.strip() == repo.base
    assert git("log", "--all", "--format=%H", cwd=ws).stdout.split() == [repo.base, repo.first]
    assert git("reflog", cwd=ws).stdout == ""
    assert git("tag", cwd=ws).stdout == ""
    assert git("branch", "-a", "--format=%(refname)", cwd=ws).stdout.split() == ["refs/heads/main"]
    assert git("for-each-ref", cwd=ws).stdout.split()[-1] == "refs/heads/main"
    assert git("remote", cwd=ws).stdout == ""
    assert git("stash", "list", cwd=ws).stdout == ""
    fsck = git("fsck", "--unreachable", "--lost-found", "--no-progress", cwd=ws)
    assert fsck.returncode == 0 and fsck.stdout == "", fsck.stdout + fsck.stderr
    stored = git("cat-file", "--batch-all-objects", "--batch-check=%(objectname)", cwd=ws).stdout.split()
    reachable = {
        line.split()[0] for line in git("rev-list", "--objects", "--all", cwd=ws).stdout.splitlines()
    }
    assert set(stored) == reachable
    for leftover in (
        "FETCH_HEAD",
        "ORIG_HEAD",
        "packed-refs",
        "logs",
        "refs/stash",
        "objects/info/alternates",
    ):
        assert not (ws / ".git" / leftover).exists(), leftover
    assert git("status", "--porcelain", cwd=ws).stdout == ""
    assert (ws / "calc.py").read_text().endswith("return a * b\n")
    assert "a - b" in (ws / "calc.py").read_text()
    assert not (ws / "tests" / "test_add.py").exists()


def test_workspace_has_base_and_no_upstream_objects(calc_repo, tmp_path):
    data = prepare_workspace(calc_repo.task)
    assert_scrubbed(_extract(data, tmp_path / "ws"), calc_repo)


def test_archive_owner_modes_and_layout(calc_repo):
    data = prepare_workspace(calc_repo.task)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    assert "calc.py" in names and ".git/HEAD" in names and "tests/test_calc.py" in names
    assert not any(n.startswith(("/", "./", "..")) for n in names)
    assert {(m.uid, m.gid, m.uname, m.gname) for m in members} == {(1000, 1000, "agent", "agent")}
    assert {m.mode for m in members if m.isdir()} == {0o755}
    assert {m.mode for m in members if m.isfile()} == {0o644}
    assert len({m.mtime for m in members}) == 1


def test_archive_is_cached_on_disk(calc_repo):
    path = workspace_archive(calc_repo.task)
    assert path.parent == cache_dir() / "workspaces" and path.suffix == ".tar"
    stamp = path.stat().st_mtime_ns
    assert workspace_archive(calc_repo.task) == path and path.stat().st_mtime_ns == stamp
    assert prepare_workspace(calc_repo.task) == path.read_bytes()


def test_a_messy_working_clone_does_not_leak(calc_repo, tmp_path):
    """Remotes, branches, tags, stashes, notes and packed refs of the source stay behind."""
    src = tmp_path / "clone"
    assert git("clone", "-q", str(calc_repo.path), str(src), cwd=tmp_path).returncode == 0
    ident = ["-c", "user.name=x", "-c", "user.email=x@x"]
    for args in (
        ["checkout", "-q", "-b", "feature"],
        [*ident, "commit", "-q", "--allow-empty", "-m", "feature work"],
        [*ident, "tag", "-a", "v9", "-m", "v9"],
        [*ident, "notes", "add", "-m", "note", calc_repo.base],
    ):
        assert git(*args, cwd=src).returncode == 0, args
    (src / "calc.py").write_text("stashed = True\n")
    assert git(*ident, "stash", cwd=src).returncode == 0
    assert git("pack-refs", "--all", cwd=src).returncode == 0
    task = calc_repo.task.replace(repo=str(src), base_commit=calc_repo.base[:10])  # short sha
    assert_scrubbed(_extract(prepare_workspace(task), tmp_path / "ws"), calc_repo)


def test_a_bundle_works_as_source(calc_repo, tmp_path):
    bundle = tmp_path / "calc.bundle"
    assert git("bundle", "create", str(bundle), "--all", cwd=calc_repo.path).returncode == 0
    (cache_dir() / "workspaces").mkdir(parents=True, exist_ok=True)
    for old in (cache_dir() / "workspaces").glob("*.tar"):
        old.unlink()  # make sure the bundle path really builds
    task = calc_repo.task.replace(repo=str(bundle))
    assert_scrubbed(_extract(prepare_workspace(task), tmp_path / "ws"), calc_repo)


def test_errors_are_clear(calc_repo, tmp_path):
    with pytest.raises(WorkspaceError, match="not a local repository"):
        prepare_workspace(calc_repo.task.replace(repo="owner/name"))
    with pytest.raises(WorkspaceError, match="not a commit"):
        prepare_workspace(calc_repo.task.replace(base_commit="deadbeef"))
    junk = tmp_path / "junk.bundle"
    junk.write_text("not a bundle")
    with pytest.raises(WorkspaceError, match="not a git bundle"):
        prepare_workspace(calc_repo.task.replace(repo=str(junk), base_commit="f" * 40))


def test_scrub_script_cleans_an_image_provided_repository(calc_repo, tmp_path):
    """For tasks whose image already holds the repository (SWE-bench's /testbed)."""
    src = tmp_path / "testbed"
    assert git("clone", "-q", str(calc_repo.path), str(src), cwd=tmp_path).returncode == 0
    assert git("checkout", "-q", calc_repo.base, cwd=src).returncode == 0
    script = build_scrub_script(calc_repo.base, str(src))
    import subprocess

    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert_scrubbed(src, calc_repo)
