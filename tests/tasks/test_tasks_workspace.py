"""prepare_workspace: the repository at base_commit, and nothing of the upstream fix."""

from __future__ import annotations

import io
import tarfile

import pytest
from calc_fixtures import git

from codegym.tasks.cache import cache_dir
from codegym.tasks.task import Task
from codegym.tasks.workspace import (
    WorkspaceError,
    build_scrub_script,
    prepare_workspace,
    upstream_commits,
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
    with pytest.raises(WorkspaceError, match="owner/name does not exist"):
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


def _commit(repo, message: str, files: dict[str, str]) -> str:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    assert git("add", "-A", cwd=repo).returncode == 0
    proc = git(
        "-c", "user.name=Dev", "-c", "user.email=dev@example.org", "commit", "-q", "-m", message, cwd=repo
    )
    assert proc.returncode == 0, proc.stderr
    return git("rev-parse", "HEAD", cwd=repo).stdout.strip()


def _repo_with_a_future(root):
    """A working clone whose future lives everywhere git keeps history: later commits on main,
    a tag, another branch, a stash, a reflog entry and a dangling commit in a pack."""
    repo = root / "proj"
    repo.mkdir()
    assert git("init", "-q", "-b", "main", cwd=repo).returncode == 0
    first = _commit(repo, "first", {"calc.py": "def add(a, b):\n    return a - b\n"})
    base = _commit(repo, "docs", {"README.md": "# proj\n"})
    fix = _commit(
        repo, "fix add", {"calc.py": "def add(a, b):\n    return a + b\n", "tests/test_add.py": "x = 1\n"}
    )
    git("tag", "-a", "v1.0.1", "-m", "release", cwd=repo)
    later = _commit(repo, "later", {"README.md": "# proj\n\nlater\n"})
    git("checkout", "-q", "-b", "feature", base, cwd=repo)
    branch = _commit(repo, "feature work", {"feature.py": "FEATURE = 1\n"})
    amended = _commit(repo, "amended away", {"feature.py": "FEATURE = 2\n"})
    git("reset", "-q", "--hard", "HEAD~1", cwd=repo)  # `amended` lives on in the reflog only
    dangling = _commit(repo, "dangling", {"gone.py": "GONE = 1\n"})
    git("repack", "-a", "-d", "-q", cwd=repo)  # `dangling` is packed ...
    git("reset", "-q", "--hard", "HEAD~1", cwd=repo)
    git("reflog", "expire", "--expire=now", "--all", cwd=repo)  # ... and nothing refers to it
    git("checkout", "-q", "main", cwd=repo)
    git("checkout", "-q", base, cwd=repo)
    (repo / "calc.py").write_text("def add(a, b):\n    return a + b  # stashed\n")
    assert (
        git("-c", "user.name=Dev", "-c", "user.email=dev@example.org", "stash", "-q", cwd=repo).returncode
        == 0
    )
    stash = git("rev-parse", "refs/stash", cwd=repo).stdout.strip()
    future = {"fix": fix, "later": later, "branch": branch, "dangling": dangling, "stash": stash}
    if git("cat-file", "-e", amended, cwd=repo).returncode == 0:
        future["amended"] = amended
    return repo, first, base, future


def test_future_history_is_derived_from_the_repository_and_never_reaches_the_workspace(
    tmp_path, codegym_cache
):
    """No upstream_refs in the task: everything that is not an ancestor of base_commit is the future."""
    repo, first, base, future = _repo_with_a_future(tmp_path)
    found = upstream_commits(repo, base)
    assert set(future.values()) <= found and base not in found and first not in found
    bundle = tmp_path / "proj.bundle"
    assert git("bundle", "create", "-q", str(bundle), "--all", cwd=repo).returncode == 0
    for source in (repo, bundle):
        task = Task(
            instance_id=f"future-{source.suffix or 'dir'}",
            repo=str(source),
            base_commit=base,
            problem_statement="p",
            test_patch="",
            FAIL_TO_PASS=("tests/test_add.py::test_add",),
        )
        ws = _extract(prepare_workspace(task), tmp_path / f"ws-{source.name}")
        for name, sha in future.items():
            assert git("cat-file", "-e", sha, cwd=ws).returncode != 0, (source, name)
        assert git("log", "--all", "--reflog", "--format=%H", cwd=ws).stdout.split() == [base, first]
        stored = set(
            git("cat-file", "--batch-all-objects", "--batch-check=%(objectname)", cwd=ws).stdout.split()
        )
        assert stored == {
            ln.split()[0] for ln in git("rev-list", "--objects", base, cwd=ws).stdout.splitlines()
        }


def test_scrub_script_removes_the_future_in_place(tmp_path):
    """The same repository scrubbed where it lies (a task image's /testbed), stash and packs included;
    the script checks itself that only base_commit's objects remain."""
    import subprocess

    repo, first, base, future = _repo_with_a_future(tmp_path)
    (repo / "calc.py").write_text("edited after the stash\n")  # a dirty tree is reset to base
    proc = subprocess.run(["bash", "-c", build_scrub_script(base, str(repo))], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    for name, sha in future.items():
        assert git("cat-file", "-e", sha, cwd=repo).returncode != 0, name
    assert git("rev-parse", "HEAD", cwd=repo).stdout.strip() == base
    assert git("status", "--porcelain", cwd=repo).stdout == ""
    assert git("for-each-ref", "--format=%(refname)", cwd=repo).stdout.split() == ["refs/heads/main"]
    assert git("log", "--all", "--reflog", "--format=%H", cwd=repo).stdout.split() == [base, first]
    assert git("stash", "list", cwd=repo).stdout == "" and git("tag", cwd=repo).stdout == ""
    bad = subprocess.run(
        ["bash", "-c", build_scrub_script("f" * 40, str(repo))], capture_output=True, text=True
    )
    assert bad.returncode == 4 and "is not a commit" in bad.stderr
