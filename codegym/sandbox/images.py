"""Sandbox images: content-addressed tags, built offline when no registry is reachable.

`codegym images build` builds `codegym/python:<hash>` from `sandbox_images/python`, where the
hash covers the build context and the base image, so an unchanged image is never rebuilt.
With no `BASE_IMAGE` given, the base is bootstrapped with debootstrap and `docker import`
(`sandbox_images/bootstrap_base.sh`), itself tagged by the hash of its recipe.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from .base import SandboxError

IMAGES_DIR = Path(os.environ.get("CODEGYM_IMAGES_DIR", Path(__file__).resolve().parents[2] / "sandbox_images"))
BASE_SUITE = os.environ.get("CODEGYM_DEBIAN_SUITE", "bookworm")
BASE_MIRROR = os.environ.get("CODEGYM_DEBIAN_MIRROR", "http://deb.debian.org/debian")
_BUILD_LOCK = threading.Lock()


@dataclass(frozen=True)
class ImageSpec:
    name: str  # e.g. "python"
    context: Path

    @property
    def repository(self) -> str:
        return f"codegym/{self.name}"


def image_specs() -> dict[str, ImageSpec]:
    if not IMAGES_DIR.is_dir():
        raise SandboxError(
            f"No sandbox image definitions at {IMAGES_DIR}. Run codegym from its source checkout "
            "or set CODEGYM_IMAGES_DIR to the repository's sandbox_images directory."
        )
    return {p.name: ImageSpec(p.name, p) for p in sorted(IMAGES_DIR.iterdir()) if (p / "Dockerfile").is_file()}


def _hash_files(paths: list[Path], root: Path, extra: str = "") -> str:
    h = hashlib.sha256(extra.encode())
    for p in sorted(paths):
        h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:12]


def base_tag() -> str:
    script = IMAGES_DIR / "bootstrap_base.sh"
    packages = os.environ.get("CODEGYM_BASE_PACKAGES", "")
    return f"codegym/debian-base:{_hash_files([script], IMAGES_DIR, BASE_SUITE + packages)}"


def image_tag(spec: ImageSpec, base: str) -> str:
    files = [p for p in spec.context.rglob("*") if p.is_file()]
    return f"{spec.repository}:{_hash_files(files, spec.context, base)}"


def _exists(client, tag: str) -> bool:
    try:
        client.images.get(tag)
        return True
    except Exception:
        return False


def _log(msg: str) -> None:
    print(f"[codegym images] {msg}", file=sys.stderr, flush=True)


def ensure_base(client, base_image: str | None = None) -> str:
    """The base image to build from: `base_image` as given, or the offline Debian bootstrap."""
    if base_image:
        return base_image
    tag = base_tag()
    if _exists(client, tag):
        return tag
    script = IMAGES_DIR / "bootstrap_base.sh"
    if not shutil.which("debootstrap"):
        raise SandboxError(
            "No registry is configured and debootstrap is missing, so the base image cannot be "
            "bootstrapped. Install it (`apt-get install -y debootstrap`) or pass "
            "--base-image with an image your engine already has."
        )
    _log(f"bootstrapping Debian {BASE_SUITE} base {tag} with debootstrap (about a minute)...")
    proc = subprocess.run(["bash", str(script), tag, BASE_SUITE, BASE_MIRROR], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SandboxError(f"Bootstrapping the base image failed:\n{proc.stderr[-3000:]}")
    return tag


def build_image(client, name: str = "python", base_image: str | None = None, force: bool = False) -> str:
    """Build (or find) the image `name`; returns its content-addressed tag."""
    with _BUILD_LOCK:
        specs = image_specs()
        if name not in specs:
            raise SandboxError(f"Unknown image {name!r}; known: {', '.join(specs)}")
        base = ensure_base(client, base_image)
        tag = image_tag(specs[name], base)
        if _exists(client, tag) and not force:
            return tag
        _log(f"building {tag} from {base}...")
        try:
            client.images.build(path=str(specs[name].context), tag=tag, buildargs={"BASE_IMAGE": base},
                                rm=True, forcerm=True)
        except Exception as exc:
            raise SandboxError(f"Building {tag} failed: {exc}") from exc
        client.api.tag(tag, specs[name].repository, "latest")
        _log(f"built {tag}")
        return tag


def default_image(client) -> str:
    """The default Python task image, built on first use if it is missing."""
    return build_image(client, "python")


def list_images(client) -> list[dict]:
    rows = []
    for img in client.images.list():
        for tag in img.tags:
            if tag.startswith("codegym/"):
                rows.append({"tag": tag, "id": img.short_id, "size_mb": img.attrs.get("Size", 0) / 1e6,
                             "created": img.attrs.get("Created", "")})
    return sorted(rows, key=lambda r: r["tag"])
