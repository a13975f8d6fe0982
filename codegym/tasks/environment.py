"""A task's own environment: what its image holds beyond codegym's Python sandbox image.

A task may name a prebuilt `image`, or describe one in an `environment` field, either as a
Dockerfile (Harbor style; text, or a path relative to the task file whose folder is the build
context) or in SWE-bench's fields:

    {"environment": {"python": "3.11", "pip_packages": ["six==1.16.0"],
                     "pre_install": ["apt-get install -y libxml2"],
                     "install": ["pip install -e ."], "env": {"MODE": "strict"}}}
    {"environment": {"dockerfile": "environment/Dockerfile"}}

An `install` runs in the repository, so the repository at `base_commit` is baked into the image
at the task's `workdir` (default /testbed), scrubbed as an uploaded workspace is (it *is* the
workspace tar, `codegym.tasks.workspace`), and the task becomes `repo_location: "image"`.

The image's tag is a hash of everything that goes into it (`environment_tag`): the rendered
Dockerfile, the build context, codegym's base image tag, the repository's base sha and the
host's CA bundle. `codegym images build --tasks FILE` builds it (`codegym.sandbox.task_images`);
an unchanged environment is not rebuilt.

Package installs reach PyPI through the host's CA bundle (`HOST_CA_BUNDLE`): the build copies it
into the image and points pip, requests, OpenSSL and curl at it for the build steps only (ARGs,
not ENV). pip itself is bootstrapped when the base image lacks it (a pinned wheel, sha256 checked).

    spec = parse_environment({"pip_packages": ["six"]}, base_dir=Path("."))
    print(render_dockerfile(spec, "codegym/python:abc", workdir="/testbed"))
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: where a task's repository goes when its environment bakes it in (SWE-bench's location).
BAKED_WORKDIR = "/testbed"
#: the host's CA bundle, given to every build step that may reach a package index.
HOST_CA_BUNDLE = os.environ.get("CODEGYM_CA_BUNDLE", "/etc/ssl/certs/ca-certificates.crt")
#: where the bundle sits inside the image during the build.
IMAGE_CA_PATH = "/etc/codegym/ca-certificates.crt"
#: the names of the files codegym adds to a build context.
CA_FILE = "codegym-ca.crt"
GET_PIP_FILE = "codegym-get-pip.py"
WORKSPACE_FILE = "codegym-workspace.tar"
#: a Dockerfile that starts `FROM ${CODEGYM_BASE_IMAGE}` derives from codegym's Python image.
BASE_ARG = "CODEGYM_BASE_IMAGE"
#: bump when the rendered layout changes, so every environment image is rebuilt.
ENVIRONMENT_FORMAT = 1

_SWE_FIELDS = ("python", "pip_packages", "pre_install", "install", "env")
_FIELDS = ("dockerfile", *_SWE_FIELDS)
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_FROM = re.compile(r"^\s*FROM\s", re.IGNORECASE)

#: bootstraps pip from PyPI's simple index (JSON form) when the base image has none; the wheel's
#: sha256 is checked against the index. Runs with the host's CA bundle (SSL_CERT_FILE).
GET_PIP = '''"""codegym: install pip from a pinned wheel (the base image has none)."""
import hashlib, json, subprocess, sys, urllib.request

VERSION = "24.3.1"
NAME = f"pip-{VERSION}-py3-none-any.whl"
request = urllib.request.Request("https://pypi.org/simple/pip/",
                                 headers={"Accept": "application/vnd.pypi.simple.v1+json"})
files = json.load(urllib.request.urlopen(request, timeout=120))["files"]
wheel = next(f for f in files if f["filename"] == NAME)
data = urllib.request.urlopen(wheel["url"], timeout=300).read()
if hashlib.sha256(data).hexdigest() != wheel["hashes"]["sha256"]:
    sys.exit(f"codegym: {NAME} does not match its sha256 on PyPI")
path = f"/tmp/{NAME}"
with open(path, "wb") as fh:
    fh.write(data)
subprocess.run([sys.executable, f"{path}/pip", "install", "--no-index", path], check=True)
'''


@dataclass(frozen=True)
class EnvironmentSpec:
    """A task's environment (see the module docstring).

    Attributes:
        dockerfile: the Dockerfile's text (Harbor style); excludes the SWE-bench fields.
        context: the build context folder of a Dockerfile read from a file (None: only the
            files codegym adds).
        python: the Python version the image must have (`3.11`); checked at build time.
        pip_packages: requirements installed with pip before the repository arrives.
        pre_install: shell commands run as root before the packages (apt-get, ...).
        install: shell commands run in the repository at `workdir`; the repository is baked in.
        env: environment variables set in the image (and so in the agent's and grader's shells).
        source: the task file it was read from, for messages (not part of the image).
    """

    dockerfile: str | None = None
    context: str | None = None
    python: str | None = None
    pip_packages: tuple[str, ...] = ()
    pre_install: tuple[str, ...] = ()
    install: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    source: str | None = None

    @property
    def bakes_repo(self) -> bool:
        """True when the repository is built into the image (an `install` runs in it)."""
        return bool(self.install)

    @property
    def needs_pip(self) -> bool:
        return bool(self.pip_packages) or any(
            re.search(r"\bpip\b", c) for c in (*self.pre_install, *self.install)
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON form `parse_environment` reads back (a Dockerfile as text with its context)."""
        if self.dockerfile is not None:
            out: dict[str, Any] = {"dockerfile": self.dockerfile}
            if self.context is not None:
                out["context"] = self.context
            return out
        out = {
            "python": self.python,
            "pip_packages": list(self.pip_packages),
            "pre_install": list(self.pre_install),
            "install": list(self.install),
            "env": dict(self.env),
        }
        return {k: v for k, v in out.items() if v}


def _commands(value: Any, name: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"environment.{name}: expected a command or a list of non-empty strings")
    return tuple(value)


def parse_environment(
    value: Any, *, base_dir: Path | None = None, source: str | None = None
) -> EnvironmentSpec:
    """An `EnvironmentSpec` from a task's `environment` field; a ValueError naming the bad part.

    A `dockerfile` value holding no newline that names a file (relative to `base_dir`, the task
    file's folder) is read from it, and its folder becomes the build context."""
    if not isinstance(value, Mapping):
        raise ValueError(f"environment: expected an object, got {type(value).__name__}")
    unknown = sorted(set(value) - set(_FIELDS) - {"context"})
    if unknown:
        raise ValueError(f"environment: unknown field(s) {unknown}; known: {', '.join(_FIELDS)}")
    if value.get("dockerfile") is not None:
        others = [k for k in _SWE_FIELDS if value.get(k)]
        if others:
            raise ValueError(
                f"environment: a dockerfile goes alone, not with {others} (put them in the Dockerfile)"
            )
        text, context = value["dockerfile"], value.get("context")
        if not isinstance(text, str) or not text.strip():
            raise ValueError("environment.dockerfile: expected Dockerfile text or a path to one")
        if "\n" not in text:
            path = Path(text).expanduser()
            path = path if path.is_absolute() or base_dir is None else base_dir / path
            if not path.is_file():
                raise ValueError(f"environment.dockerfile: {path} is not a file (a one-line value is a path)")
            text, context = path.read_text(encoding="utf-8"), str(path.parent.resolve())
        if not any(_FROM.match(line) for line in text.splitlines()):
            raise ValueError("environment.dockerfile: no FROM line")
        if context is not None and not Path(context).is_dir():
            raise ValueError(f"environment.context: {context} is not a folder")
        return EnvironmentSpec(dockerfile=text, context=context, source=source)
    python = value.get("python")
    if python is not None and (not isinstance(python, str) or not re.fullmatch(r"3(\.\d+){1,2}", python)):
        raise ValueError(f"environment.python: expected a version like '3.11', got {python!r}")
    pip = value.get("pip_packages") or []
    if isinstance(pip, str):
        pip = pip.split()
    if not isinstance(pip, list) or not all(isinstance(p, str) and p and not p.startswith("-") for p in pip):
        raise ValueError("environment.pip_packages: expected a list of requirement strings")
    env = value.get("env") or {}
    if not isinstance(env, Mapping) or not all(isinstance(v, str | int | float) for v in env.values()):
        raise ValueError("environment.env: expected an object of name -> string")
    bad = [k for k in env if not _ENV_NAME.match(str(k))]
    if bad:
        raise ValueError(f"environment.env: {bad} are not variable names")
    return EnvironmentSpec(
        python=python,
        pip_packages=tuple(pip),
        pre_install=_commands(value.get("pre_install") or [], "pre_install"),
        install=_commands(value.get("install") or [], "install"),
        env=tuple(sorted((str(k), str(v)) for k, v in env.items())),
        source=source,
    )


def _ca_lines(has_ca: bool) -> list[str]:
    """After a FROM: the host's CA bundle for this stage's RUN steps (build arguments only)."""
    if not has_ca:
        return []
    lines = [f"COPY {CA_FILE} {IMAGE_CA_PATH}"]
    for name in ("PIP_CERT", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO"):
        lines.append(f"ARG {name}={IMAGE_CA_PATH}")
    return lines


def _quote_env(value: str) -> str:
    return json.dumps(value)  # a double-quoted Dockerfile ENV value


def render_dockerfile(
    spec: EnvironmentSpec, base_image: str, *, workdir: str = BAKED_WORKDIR, has_ca: bool = True
) -> str:
    """The Dockerfile the build uses. A Dockerfile environment gets the CA lines after each FROM
    (and `CODEGYM_BASE_IMAGE` set to `base_image`); SWE-bench fields are rendered onto
    `base_image`: CA bundle, pip settings, `env`, the Python check, `pre_install`, pip (bootstrapped
    if missing) and `pip_packages`, then, when it bakes the repository, the workspace tar at
    `workdir` and `install` run there, the tree owned by the agent user (1000)."""
    if spec.dockerfile is not None:
        out = []
        for line in spec.dockerfile.splitlines():
            out.append(line)
            if _FROM.match(line):
                out += _ca_lines(has_ca)
        return "\n".join(out) + "\n"
    lines = [
        f"ARG {BASE_ARG}={base_image}",
        f"FROM ${{{BASE_ARG}}}",
        "USER root",
        *_ca_lines(has_ca),
        "ARG PIP_BREAK_SYSTEM_PACKAGES=1",
        "ARG PIP_DISABLE_PIP_VERSION_CHECK=1",
        "ARG PIP_NO_CACHE_DIR=1",
        "ARG PIP_ROOT_USER_ACTION=ignore",
    ]
    if spec.env:
        lines.append("ENV " + " ".join(f"{k}={_quote_env(v)}" for k, v in spec.env))
    if spec.python:
        check = (
            f"import sys; v = '%d.%d.%d' % sys.version_info[:3]; want = {spec.python!r}; "
            "sys.exit(0 if (v + '.').startswith(want + '.') else "
            "f'codegym: the environment wants Python {want}; the base image has {v}')"
        )
        lines.append(f"RUN python3 -c {json.dumps(check)}")
    for command in spec.pre_install:
        lines.append(f"RUN {command}")
    if spec.needs_pip:
        lines += [
            f"COPY {GET_PIP_FILE} /tmp/{GET_PIP_FILE}",
            f"RUN python3 -m pip --version >/dev/null 2>&1 || python3 /tmp/{GET_PIP_FILE}; rm -f /tmp/{GET_PIP_FILE}",
        ]
    if spec.pip_packages:
        lines.append("RUN python3 -m pip install " + " ".join(json.dumps(p) for p in spec.pip_packages))
    if spec.bakes_repo:
        lines += [
            f"RUN mkdir -p {workdir} && chown 1000:1000 {workdir}",
            f"ADD {WORKSPACE_FILE} {workdir}/",
            f"WORKDIR {workdir}",
        ]
        lines += [f"RUN {command}" for command in spec.install]
        # What the install left untracked (an editable install's *.egg-info) is the environment's,
        # not the agent's: excluded, it stays out of every diff and so out of grading.
        lines.append(
            "RUN mkdir -p .git/info && git ls-files --others --exclude-standard --directory "
            "| sed 's|^|/|' >> .git/info/exclude && chown -R 1000:1000 " + workdir
        )
    if has_ca:
        lines.append(f"RUN rm -f {IMAGE_CA_PATH}")
    return "\n".join(lines) + "\n"


def context_files(spec: EnvironmentSpec) -> list[Path]:
    """The files of a Dockerfile environment's build context (sorted), empty for SWE-bench fields."""
    if spec.context is None:
        return []
    root = Path(spec.context)
    return sorted(p for p in root.rglob("*") if p.is_file())


def environment_tag(
    spec: EnvironmentSpec,
    *,
    base_image: str,
    workdir: str,
    base_sha: str | None,
    ca_bundle: str | Path | None = HOST_CA_BUNDLE,
) -> str:
    """`codegym/env:<hash>`: sha256 over everything that goes into the image (the format version,
    codegym's base image tag, the rendered Dockerfile, the build context's paths and bytes, the
    repository's base sha and workdir when baked, the pip bootstrap and the CA bundle)."""
    from codegym.tasks.workspace import WORKSPACE_FORMAT

    ca = Path(ca_bundle) if ca_bundle else None
    has_ca = ca is not None and ca.is_file()
    h = hashlib.sha256(f"codegym-env-v{ENVIRONMENT_FORMAT}\0{base_image}\0".encode())
    h.update(render_dockerfile(spec, base_image, workdir=workdir, has_ca=has_ca).encode() + b"\0")
    for path in context_files(spec):
        h.update(str(path.relative_to(spec.context)).encode() + b"\0" + path.read_bytes() + b"\0")
    if spec.bakes_repo:
        h.update(f"repo\0{base_sha}\0{workdir}\0workspace-v{WORKSPACE_FORMAT}\0".encode())
    if spec.needs_pip:
        h.update(GET_PIP.encode() + b"\0")
    if has_ca:
        h.update(b"ca\0" + ca.read_bytes())
    return f"codegym/env:{h.hexdigest()[:16]}"
