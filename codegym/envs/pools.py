"""Process-wide sandbox pools shared by every env of an image and backend.

Many envs (threads, a batched runner) share warm sandboxes and grading sandboxes instead of
each starting its own containers. Closed at interpreter exit. `task_sandbox_config` gives the
configuration a task needs (its image and workdir); `ImageRepoPool` serves tasks whose image
holds the repository (`repo_location="image"`).
"""

from __future__ import annotations

import atexit
import dataclasses
import threading

from codegym.sandbox import SandboxConfig, SandboxError, SandboxPool

_POOLS: dict[tuple, SandboxPool] = {}
_LOCK = threading.Lock()


def shared_pool(image: str | None = None, backend: str = "auto", config: SandboxConfig | None = None,
                size: int = 2, purpose: str = "agent") -> SandboxPool:
    """The process-wide pool of `purpose` ("agent" or "grade") for an image and backend.

    Agents and graders draw from separate pools: an env holds its agent sandbox while its
    submission is graded, so with one shared cap a full batch of envs submitting at once (a
    lockstep rollout) would leave no room for any grading sandbox until an acquire timed out.
    """
    config = config or SandboxConfig()
    if image is not None:
        config = dataclasses.replace(config, image=image)
    key = (config, backend, purpose)
    with _LOCK:
        pool = _POOLS.get(key)
        if pool is None:
            pool = _POOLS[key] = SandboxPool(config, size=size, backend=backend)
        return pool


def close_shared_pools() -> None:
    with _LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
    for pool in pools:
        pool.close()


atexit.register(close_shared_pools)


def task_sandbox_config(task, config: SandboxConfig | None = None) -> SandboxConfig:
    """The sandbox configuration a task needs: its image, commands run in its `workdir`, and for a
    repository the image holds (`repo_location="image"`) the workdir filled from the image (an
    anonymous volume, `tmpfs_workdir=False`) instead of an empty tmpfs."""
    config = config or SandboxConfig()
    changes: dict = {}
    if task.image is not None and task.image != config.image:
        changes["image"] = task.image
    if task.workdir != config.workdir:
        changes["workdir"] = task.workdir
    if task.repo_in_image and config.tmpfs_workdir:
        changes["tmpfs_workdir"] = False
    if getattr(task, "environment", None) is not None and task.environment.env:  # its `env`, in every command
        changes["env"] = {**config.env, **dict(task.environment.env)}
    return dataclasses.replace(config, **changes) if changes else config


#: scrubbed workspaces made from image-held repositories, per (image-repo ref, backend): the tar
#: of the workdir after the in-container checkout and scrub, uploaded like any workspace after.
_SCRUBBED: dict[tuple[bytes, str], bytes] = {}


class ImageRepoPool:
    """A `SandboxPool` for tasks whose image holds the repository at the workdir.

        pool = ImageRepoPool(shared_pool(task.image, "docker", task_sandbox_config(task)))
        sb = pool.acquire(workspace_bytes(task))    # base_commit checked out, history scrubbed

    `acquire` with a task's stand-in workspace (`codegym.tasks.workspace.image_repo_ref`) gives a
    sandbox whose workdir holds the image's repository checked out at `base_commit` and scrubbed
    in the container by `build_scrub_script` (one branch, no other refs, reflogs or stash, only
    the objects `base_commit` reaches: checked by the script). That is done once per process and
    image; the scrubbed workdir is then a workspace tar like an uploaded one, which the pool
    restores on every reuse. Anything else is passed to the wrapped pool as it is.
    """

    def __init__(self, pool: SandboxPool):
        self.pool = pool

    def __getattr__(self, name):  # config, stats, live, warm, close, ... of the wrapped pool
        return getattr(self.pool, name)

    def acquire(self, workspace: bytes | None = None, timeout: float = 300.0):
        from codegym.tasks.workspace import read_image_repo_ref

        spec = read_image_repo_ref(workspace)
        if spec is None:
            return self.pool.acquire(workspace, timeout)
        if self.pool.backend != "docker":
            raise SandboxError(f"a task whose image {spec['image']} holds its repository needs the Docker backend, "
                               f"not {self.pool.backend!r}")
        if spec["workdir"] != self.pool.config.workdir or self.pool.config.tmpfs_workdir:
            raise SandboxError(f"the pool's sandboxes mount workdir {self.pool.config.workdir} "
                               f"(tmpfs_workdir={self.pool.config.tmpfs_workdir}); the task's image holds its "
                               f"repository at {spec['workdir']}: use task_sandbox_config(task)")
        key = (workspace, self.pool.backend)
        scrubbed = _SCRUBBED.get(key)
        if scrubbed is not None:
            return self.pool.acquire(scrubbed, timeout)
        sandbox = self.pool.acquire(None, timeout)  # the workdir as the image ships it
        try:
            scrubbed = _scrub_in_place(sandbox, spec)
        except BaseException:
            self.pool.release(sandbox)
            raise
        _SCRUBBED[key] = scrubbed
        return sandbox

    def release(self, sandbox) -> None:
        self.pool.release(sandbox)


def _scrub_in_place(sandbox, spec: dict[str, str]) -> bytes:
    """Check out and scrub the image's repository in `sandbox`; the workdir's tar afterwards."""
    import shlex

    from codegym.tasks.workspace import WorkspaceError, build_scrub_script

    workdir = spec["workdir"]
    r = sandbox.exec(build_scrub_script(spec["base_commit"], workdir), timeout=600, workdir="/")
    if r.exit_code != 0:
        raise WorkspaceError(f"scrubbing the repository at {workdir} in image {spec['image']} failed "
                             f"(exit {r.exit_code}): {(r.stderr or r.stdout).strip()[-600:]}")
    out = "/tmp/codegym-scrubbed-workdir.tar"
    tar = ("import sys, tarfile\nwith tarfile.open(sys.argv[1], 'w') as t:\n"
           "    t.add('.', arcname='.')\n")
    r = sandbox.exec(f"python3 -c {shlex.quote(tar)} {out}", timeout=600, workdir=workdir)
    if r.exit_code != 0:
        raise SandboxError(f"archiving the scrubbed {workdir} failed: {(r.stderr or r.stdout).strip()[-600:]}")
    try:
        return sandbox.read_file(out)
    finally:
        sandbox.exec(f"rm -f {out}", timeout=60)


def pool_for_task(task, pool: SandboxPool) -> SandboxPool | ImageRepoPool:
    """`pool`, wrapped in an `ImageRepoPool` when the task's image holds its repository."""
    return ImageRepoPool(pool) if task.repo_in_image else pool
