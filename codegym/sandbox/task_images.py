"""Building the images of tasks that describe their own environment.

`codegym images build --tasks FILE` builds, for every task with an `environment`
(`codegym.tasks.environment`), the image its content tag names, FROM codegym's Python sandbox
image (the sandbox users and the tools the grader needs); tasks with the same environment share
one image, and an image whose tag exists is reused, not rebuilt:

    results = build_task_images(load_tasks("tasks.jsonl"))
    # [codegym images] [1/1] building codegym/env:3f2a... for calc-1 ...
    # [codegym images] [1/1] built codegym/env:3f2a... in 41.2s
    results[0].status   # "built", "reused" on the next run

The build context holds the rendered Dockerfile, the host's CA bundle (`HOST_CA_BUNDLE`), the pip
bootstrap and, for an environment that bakes the repository, the task's scrubbed workspace tar
(`codegym.tasks.workspace.workspace_archive`: exactly the archive an uploaded workspace is).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .base import SandboxError
from .images import base_tag, build_image, image_specs, image_tag

_BUILT: set[str] = set()  # tags seen in the engine by this process
_LOCK = threading.Lock()


@dataclass(frozen=True)
class TaskImage:
    """One environment image: its tag, the tasks that use it, and what the build did."""

    tag: str
    task_ids: tuple[str, ...]
    status: str  # "built" or "reused"
    seconds: float = 0.0


def codegym_base_image() -> str:
    """The content tag of codegym's Python sandbox image (what `codegym images build` makes)."""
    return image_tag(image_specs()["python"], base_tag())


def environment_image_tag(spec, repo: str, base_commit: str, workdir: str) -> str:
    """The content tag of a task's environment image (`codegym.tasks.environment.environment_tag`);
    a baked repository is keyed by the full sha of its base commit."""
    from codegym.tasks.environment import environment_tag

    sha = base_commit.lower()
    if spec.bakes_repo and len(sha) not in (40, 64) and Path(repo).is_dir():
        from codegym.tasks.workspace import resolve_commit

        sha = resolve_commit(repo, base_commit)
    return environment_tag(
        spec, base_image=codegym_base_image(), workdir=workdir, base_sha=sha if spec.bakes_repo else None
    )


def _log(msg: str) -> None:
    print(f"[codegym images] {msg}", file=sys.stderr, flush=True)


def _exists(client, tag: str) -> bool:
    try:
        client.images.get(tag)
        return True
    except Exception:
        return False


def build_command(task) -> str:
    """The command that builds `task`'s environment image."""
    source = getattr(task.environment, "source", None)
    return (
        f"codegym images build --tasks {source}"
        if source
        else "codegym images build --tasks <your task file>"
    )


def require_task_image(task, client=None) -> None:
    """Raise `SandboxError` naming the build command when `task`'s environment image is not built."""
    if task.environment is None or task.image in _BUILT:
        return
    if client is None:
        from .docker_sandbox import docker_client

        client = docker_client()
    if not _exists(client, task.image):
        raise SandboxError(
            f"task {task.instance_id}: its environment image {task.image} is not built; "
            f"run `{build_command(task)}`"
        )
    _BUILT.add(task.image)


def _context(task, dest: Path) -> str:
    """Fill the build folder `dest` for `task`; the Dockerfile's name in it."""
    from codegym.tasks.environment import (
        CA_FILE,
        GET_PIP,
        GET_PIP_FILE,
        HOST_CA_BUNDLE,
        WORKSPACE_FILE,
        render_dockerfile,
    )
    from codegym.tasks.workspace import workspace_archive

    spec = task.environment
    if spec.context is not None:
        shutil.copytree(spec.context, dest, symlinks=True, dirs_exist_ok=True)
    has_ca = Path(HOST_CA_BUNDLE).is_file()
    if has_ca:
        shutil.copyfile(HOST_CA_BUNDLE, dest / CA_FILE)
    if spec.needs_pip:
        (dest / GET_PIP_FILE).write_text(GET_PIP)
    if spec.bakes_repo:
        upload = task.replace(repo_location="upload", image=None, environment=None)
        shutil.copyfile(workspace_archive(upload), dest / WORKSPACE_FILE)
    name = "codegym.Dockerfile"
    text = render_dockerfile(spec, codegym_base_image(), workdir=task.workdir, has_ca=has_ca)
    (dest / name).write_text(text)
    return name


def _build_one(client, task, tag: str, ids: tuple[str, ...]) -> None:
    from codegym.tasks.environment import BASE_ARG

    base = build_image(client, "python")
    if base != codegym_base_image():
        raise SandboxError(f"codegym's Python image is {base}, expected {codegym_base_image()}")
    with tempfile.TemporaryDirectory(prefix="codegym-env-") as tmp:
        dockerfile = _context(task, Path(tmp))
        try:
            client.images.build(
                path=tmp,
                dockerfile=dockerfile,
                tag=tag,
                buildargs={BASE_ARG: base},
                rm=True,
                forcerm=True,
                labels={"codegym.environment": ",".join(ids)[:500]},
            )
        except Exception as exc:  # docker.errors.BuildError carries the log
            lines = [
                str(c.get("stream") or c.get("error") or "").rstrip() for c in getattr(exc, "build_log", [])
            ]
            tail = "\n".join(line for line in lines if line)[-3000:]
            raise SandboxError(f"building {tag} for {', '.join(ids)} failed: {exc}\n{tail}") from exc


def build_task_images(
    tasks: Iterable, client=None, *, force: bool = False, log: Callable[[str], None] = _log
) -> list[TaskImage]:
    """Build (or reuse) the environment image of every task that has one; one progress line per
    image. Tasks with the same environment content share an image. Raises `SandboxError` with the
    build log's tail when a build fails."""
    if client is None:
        from .docker_sandbox import docker_client

        client = docker_client()
    groups: dict[str, list] = {}
    for task in tasks:
        if task.environment is not None:
            groups.setdefault(task.image, []).append(task)
    results = []
    with _LOCK:
        for n, (tag, group) in enumerate(groups.items(), start=1):
            ids = tuple(t.instance_id for t in group)
            names = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
            where = f"[{n}/{len(groups)}]"
            if not force and _exists(client, tag):
                log(f"{where} reused {tag} for {names} (unchanged)")
                results.append(TaskImage(tag, ids, "reused"))
                _BUILT.add(tag)
                continue
            log(f"{where} building {tag} for {names} ...")
            start = time.monotonic()
            _build_one(client, group[0], tag, ids)
            seconds = time.monotonic() - start
            log(f"{where} built {tag} in {seconds:.1f}s")
            results.append(TaskImage(tag, ids, "built", seconds))
            _BUILT.add(tag)
    return results
