"""The agent's starting workspace: the repository at `base_commit`, with no way to the answer.

`prepare_workspace(task)` returns a tar archive (paths relative to the repository root, to be
extracted into the task's `workdir`) of the repository checked out at `base_commit`, whose
`.git` is a fresh repository holding exactly the objects reachable from `base_commit`:

- one branch, `main`, at `base_commit` (the sha is unchanged, so diffs against it work);
- no other branches, no tags, no remotes, no reflogs, no stash, no FETCH_HEAD/ORIG_HEAD,
  no packed-refs, no hooks, no alternates;
- no object that is not reachable from `base_commit` (checked after every build), so
  `git cat-file -e <upstream fix>` fails and `git fsck --unreachable` finds nothing.

Every entry belongs to uid/gid 1000 (the sandbox's `agent` user) with modes 0755/0644 and
one mtime, the base commit's date. Archives are cached under
`$CODEGYM_CACHE/workspaces/<key>.tar` (default `~/.cache/codegym`), keyed by the base sha, so
an env's reset reads a file instead of running git.

    tar_bytes = prepare_workspace(task)     # sandbox.put_archive(task.workdir, tar_bytes)
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shlex
import shutil
import tarfile
import tempfile
from pathlib import Path

import git

from codegym.tasks.cache import cache_subdir
from codegym.tasks.gitrepo import GIT_ENV
from codegym.tasks.task import Task

AGENT_UID = 1000
AGENT_GID = 1000
AGENT_NAME = "agent"
WORKSPACE_BRANCH = "main"
#: Bump when the archive layout changes, so cached archives are rebuilt.
WORKSPACE_FORMAT = 1

_FULL_SHA = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")


class WorkspaceError(RuntimeError):
    """The workspace could not be built (missing repository, unknown commit, ...)."""


def _git(path: str | Path | None = None) -> git.Git:
    g = git.Git(str(path) if path else None)
    g.update_environment(**GIT_ENV)
    if path:  # never let git wander up into an enclosing repository
        g.update_environment(GIT_CEILING_DIRECTORIES=str(Path(path).resolve().parent))
    return g


def resolve_commit(source: str | Path, rev: str) -> str:
    """The full sha of `rev` in a local repository (not a bundle)."""
    try:
        return _git(source).rev_parse("--verify", "--end-of-options", f"{rev}^{{commit}}").strip()
    except git.GitCommandError as e:
        raise WorkspaceError(f"{rev!r} is not a commit in {source}: {e.stderr.strip()}") from None


def build_scrubbed_repo(source: str | Path, base_commit: str, dest: str | Path) -> str:
    """Check out `base_commit` of `source` (repository or bundle) into the new folder `dest`
    with a scrubbed `.git` (see the module docstring). Returns the base commit's full sha."""
    source, dest = Path(source), Path(dest)
    if not source.exists():
        raise WorkspaceError(f"task repository {source} does not exist")
    with tempfile.TemporaryDirectory(prefix="codegym-staging-") as tmp:
        if source.is_file():  # a bundle: unpack it whole, then take only what base reaches
            staging = Path(tmp) / "staging.git"
            try:
                _git().clone("--mirror", "-q", str(source), str(staging))
            except git.GitCommandError as e:
                raise WorkspaceError(f"{source} is not a git bundle: {e.stderr.strip()}") from None
            source = staging
        sha = resolve_commit(source, base_commit)
        repo = git.Repo.init(
            dest, mkdir=True, template="", initial_branch=WORKSPACE_BRANCH, allow_unsafe_options=True
        )
        g = repo.git
        g.update_environment(**GIT_ENV)
        # Fetching one sha transfers only the objects reachable from it: nothing of the
        # upstream fix, later commits or tags ever enters the new object store.
        g.execute(
            [
                "git", "-c", "uploadpack.allowAnySHA1InWant=true", "-c", "core.logAllRefUpdates=false",
                "fetch", "-q", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules",
                "--update-head-ok", str(source.resolve()), f"{sha}:refs/heads/{WORKSPACE_BRANCH}",
            ]
        )  # fmt: skip
        g.execute(["git", "-c", "core.logAllRefUpdates=false", "reset", "-q", "--hard", WORKSPACE_BRANCH])
        g.config("user.name", "codegym agent")
        g.config("user.email", "agent@codegym.invalid")
        repo.close()
    gitdir = dest / ".git"
    for name in ("FETCH_HEAD", "ORIG_HEAD", "packed-refs", "logs", "hooks", "description"):
        target = gitdir / name
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    _check_scrubbed(dest, sha)
    return sha


def _check_scrubbed(dest: Path, sha: str) -> None:
    """Fail loudly unless the object store holds exactly the objects `sha` reaches."""
    g = _git(dest)
    head = g.rev_parse("HEAD").strip()
    stored = set(g.cat_file("--batch-all-objects", "--batch-check=%(objectname)").split())
    reachable = {line.split()[0] for line in g.rev_list("--objects", "--all").splitlines() if line}
    refs = g.for_each_ref("--format=%(refname)").split()
    if head != sha or stored != reachable or refs != [f"refs/heads/{WORKSPACE_BRANCH}"]:
        raise WorkspaceError(
            f"scrubbing {dest} failed: HEAD {head} (want {sha}), refs {refs}, "
            f"{len(stored - reachable)} unreachable object(s)"
        )


def _tar_filter(mtime: int):
    def normalize(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid, info.gid = AGENT_UID, AGENT_GID
        info.uname, info.gname = AGENT_NAME, AGENT_NAME
        info.mtime = mtime
        if info.isdir() or (info.isfile() and info.mode & 0o111):
            info.mode = 0o755
        elif info.isfile():
            info.mode = 0o644
        return info

    return normalize


def write_workspace_tar(root: str | Path, out: io.BufferedIOBase | str | Path, *, mtime: int = 0) -> None:
    """Tar everything under `root` (not `root` itself), names relative to it, sorted, with
    owner 1000:1000 and modes 0755/0644."""
    root = Path(root)
    normalize = _tar_filter(mtime)
    kwargs = {"fileobj": out} if hasattr(out, "write") else {"name": str(out)}
    with tarfile.open(mode="w", format=tarfile.PAX_FORMAT, **kwargs) as tar:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            rel = Path(dirpath).relative_to(root)
            for name in sorted(dirnames) + sorted(filenames):
                full = Path(dirpath) / name
                info = normalize(tar.gettarinfo(str(full), arcname=str(rel / name)))
                if info.isfile():
                    with full.open("rb") as fh:
                        tar.addfile(info, fh)
                else:
                    tar.addfile(info)


def workspace_key(base_sha: str) -> str:
    return hashlib.sha256(
        f"workspace-v{WORKSPACE_FORMAT}:{base_sha}:{AGENT_UID}:{AGENT_GID}".encode()
    ).hexdigest()[:32]


def workspace_archive(task: Task) -> Path:
    """The cached workspace tar of `task`, built on first use.

    For a task whose image holds the repository (`repo_location="image"`) there is nothing to
    build on the host: the file holds `image_repo_ref(task)`, which the env's pools turn into
    the image's own repository checked out at `base_commit` and scrubbed in the container."""
    if task.repo_in_image:
        ref = image_repo_ref(task)
        path = cache_subdir("workspaces") / f"image-{hashlib.sha256(ref).hexdigest()[:32]}.ref"
        if not path.exists():
            partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            partial.write_bytes(ref)
            os.replace(partial, path)
        return path
    if not task.repo_is_local:
        raise WorkspaceError(
            f'task {task.instance_id}: repository {task.repo} does not exist (set repo_location: "image" '
            "for a task whose image holds the repository)"
        )
    base = task.base_commit.lower()
    if not _FULL_SHA.match(base):
        base = resolve_commit(task.repo, base) if Path(task.repo).is_dir() else base
    out_dir = cache_subdir("workspaces")
    if _FULL_SHA.match(base):
        path = out_dir / f"{workspace_key(base)}.tar"
        if path.exists():
            return path
    with tempfile.TemporaryDirectory(prefix="codegym-ws-") as tmp:
        work = Path(tmp) / "repo"
        sha = build_scrubbed_repo(task.repo, task.base_commit, work)
        mtime = int(_git(work).show("-s", "--format=%ct", "HEAD").strip())
        path = out_dir / f"{workspace_key(sha)}.tar"
        partial = out_dir / f".{path.name}.{os.getpid()}.tmp"
        write_workspace_tar(work, partial, mtime=mtime)
        os.replace(partial, path)  # atomic: concurrent builders write the same bytes
    return path


def prepare_workspace(task: Task) -> bytes:
    """The workspace tar of `task` as bytes, to extract into `task.workdir` (see module doc)."""
    return workspace_archive(task).read_bytes()


def build_scrub_script(base_commit: str, workdir: str = "/workspace", branch: str = WORKSPACE_BRANCH) -> str:
    """A shell script that checks out `base_commit` and scrubs, in place, a repository an image
    already holds (as SWE-bench's images hold theirs at /testbed), to the guarantees of an
    uploaded workspace: one branch at `base_commit`, no other refs, remotes, reflogs, stash,
    worktrees, state files (FETCH_HEAD, ORIG_HEAD, COMMIT_EDITMSG, rebase/merge state) or hooks,
    and an object store holding exactly what `base_commit` reaches. It checks that last property
    itself and exits non-zero (with the reason on stderr) when it does not hold. Run as the
    owner of `workdir` before the agent starts; tracked files are reset to `base_commit`,
    untracked ones (an editable install's `*.egg-info`) stay."""
    q = shlex.quote
    return f"""set -eu
cd {q(workdir)}
g() {{ git -c safe.directory='*' -c core.hooksPath=/dev/null -c core.fsmonitor=false -c core.logAllRefUpdates=false "$@"; }}
[ -d .git ] || {{ echo "codegym: no git repository at {workdir}" >&2; exit 3; }}
BASE=$(g rev-parse --verify -q {q(base_commit + "^{commit}")}) || {{
  echo "codegym: base_commit {base_commit} is not a commit of the repository at {workdir}" >&2; exit 4; }}
g checkout -q -f -B {branch} "$BASE"
for r in $(g remote); do g remote remove "$r"; done
g for-each-ref --format='%(refname)' | grep -vx 'refs/heads/{branch}' | while read -r ref; do
  g update-ref --no-deref -d "$ref"
done
g config --name-only --get-regexp '^branch\\.' 2>/dev/null | sed 's/\\.[^.]*$//' | sort -u | while read -r s; do
  g config --remove-section "$s" 2>/dev/null || true
done
g config user.name "codegym agent"
g config user.email agent@codegym.invalid
rm -rf .git/logs .git/worktrees .git/rebase-merge .git/rebase-apply .git/sequencer .git/rr-cache \
  .git/lost-found .git/refs/original .git/hooks .git/objects/info/commit-graph .git/objects/info/commit-graphs
rm -f .git/FETCH_HEAD .git/ORIG_HEAD .git/MERGE_HEAD .git/MERGE_MSG .git/MERGE_MODE .git/SQUASH_MSG \
  .git/CHERRY_PICK_HEAD .git/REVERT_HEAD .git/AUTO_MERGE .git/BISECT_LOG .git/COMMIT_EDITMSG .git/packed-refs \
  .git/description .git/info/refs .git/gitk.cache .git/objects/pack/*.keep
if [ -f .git/objects/info/alternates ]; then g repack -a -d -q; rm -f .git/objects/info/alternates; fi
g reflog expire --expire=now --all
g -c gc.reflogExpire=now -c gc.reflogExpireUnreachable=now -c gc.packRefs=false -c gc.writeCommitGraph=false \
  -c gc.cruftPacks=false gc --prune=now --quiet
rm -rf .git/logs
[ "$(g rev-parse HEAD)" = "$BASE" ] && [ "$(g symbolic-ref HEAD)" = refs/heads/{branch} ] || {{
  echo "codegym: HEAD is not {branch} at $BASE after the scrub" >&2; exit 5; }}
[ "$(g for-each-ref --format='%(refname)')" = refs/heads/{branch} ] || {{
  echo "codegym: refs other than {branch} remain after the scrub" >&2; exit 5; }}
stored=$(g cat-file --batch-all-objects --batch-check='%(objectname)' | sort -u | wc -l)
reachable=$(g rev-list --objects --all | cut -d' ' -f1 | sort -u | wc -l)
[ "$stored" = "$reachable" ] || {{
  echo "codegym: $((stored - reachable)) object(s) not reachable from base_commit remain after the scrub" >&2; exit 5; }}
"""


#: The first bytes of the stand-in `workspace_archive` returns for a task whose image holds its
#: repository: not a tar (a pool that would upload it fails loudly); `codegym.envs.pools`'
#: image-repository pools read it and scrub the image's own repository instead.
IMAGE_REPO_MAGIC = b"codegym-image-repo\n"


def image_repo_ref(task: Task) -> bytes:
    """The stand-in workspace of a task whose image holds its repository (see `IMAGE_REPO_MAGIC`)."""
    spec = {"image": task.image, "workdir": task.workdir, "base_commit": task.base_commit}
    return IMAGE_REPO_MAGIC + json.dumps(spec, sort_keys=True).encode()


def read_image_repo_ref(data: bytes | None) -> dict[str, str] | None:
    """The spec in an `image_repo_ref`, or None for anything else (an ordinary workspace tar)."""
    if not data or not data.startswith(IMAGE_REPO_MAGIC):
        return None
    return json.loads(data[len(IMAGE_REPO_MAGIC) :])


def upstream_commits(source: str | Path, base_commit: str) -> set[str]:
    """Every commit the repository (or bundle) `source` stores that is not `base_commit` or one
    of its ancestors: later commits, tags, other branches, stashes, reflog entries and commits
    no ref reaches any more (dangling, in packs). None of them may reach a workspace."""
    source = Path(source)
    with tempfile.TemporaryDirectory(prefix="codegym-upstream-") as tmp:
        if source.is_file():
            staging = Path(tmp) / "staging.git"
            _git().clone("--mirror", "-q", str(source), str(staging))
            source = staging
        g = _git(source)
        stored = g.cat_file("--batch-all-objects", "--batch-check=%(objectname) %(objecttype)").splitlines()
        commits = {line.split()[0] for line in stored if line.endswith(" commit")}
        base = resolve_commit(source, base_commit)
        return commits - set(g.rev_list(base).split())
