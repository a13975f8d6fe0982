"""`codegym doctor`: each piece codegym needs, whether it is here, and how to get it."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from dataclasses import dataclass


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str
    required: bool = True


def _docker() -> tuple[Check, object | None]:
    from codegym.sandbox import SandboxError, docker_client

    try:
        client = docker_client(timeout=10)
        version = client.version().get("Version", "?")
        return Check("docker engine", True, f"Docker {version} reachable", ""), client
    except SandboxError as exc:
        return Check("docker engine", False, str(exc), _docker_fix()), None


def _docker_fix() -> str:
    """What to do when no engine answers: a DOCKER_HOST that points nowhere comes first."""
    host = os.environ.get("DOCKER_HOST")
    if host:
        return (f"DOCKER_HOST is set to {host!r} and no engine answers there: point it at a running engine, "
                "or `unset DOCKER_HOST` to use the local one (/var/run/docker.sock)")
    installed = shutil.which("dockerd") is not None
    fix = ("start it: `dockerd > /var/log/dockerd.log 2>&1 &`" if installed
           else "install and start it: `apt-get install -y docker.io && dockerd &`")
    return fix + "; an engine elsewhere: set DOCKER_HOST (or use the bubblewrap backend)"


def _images(client) -> Check:
    fix = "build them: `codegym images build`"
    if client is None:
        return Check("sandbox images", False, "", "needs the Docker engine; then " + fix)
    from codegym.sandbox.images import base_tag, image_specs, image_tag

    try:
        client.images.get(base_tag())
        base = base_tag()
    except Exception:
        return Check("sandbox images", False, "", "base image missing; " + fix)
    missing = []
    for spec in image_specs().values():
        try:
            client.images.get(image_tag(spec, base))
        except Exception:
            missing.append(spec.name)
    if missing:
        return Check("sandbox images", False, "", f"{', '.join(missing)} missing or outdated; {fix}")
    return Check("sandbox images", True, f"up to date ({', '.join(image_specs())})", "")


def _bwrap() -> Check:
    path = shutil.which("bwrap")
    if path is None:
        return Check("bubblewrap", False, "", "`apt-get install -y bubblewrap` (fallback backend)", required=False)
    probe = subprocess.run([path, "--unshare-all", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin",
                            "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "true"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return Check("bubblewrap", False, probe.stderr.strip(),
                     "user namespaces seem disabled: `sysctl kernel.unprivileged_userns_clone=1`", required=False)
    return Check("bubblewrap", True, path, "")


def _torch() -> Check:
    if importlib.util.find_spec("torch") is None:
        return Check("torch (training)", False, "", "`pip install torch==2.13.0 && pip install -e '.[train]'`",
                     required=False)
    import torch

    return Check("torch (training)", True, f"torch {torch.__version__}, cuda={torch.cuda.is_available()}", "",
                 required=False)


def run_checks() -> list[Check]:
    docker, client = _docker()
    return [docker, _images(client), _bwrap(), _torch()]
