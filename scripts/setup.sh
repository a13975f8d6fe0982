#!/usr/bin/env bash
# Set up everything codegym needs on a fresh Debian/Ubuntu machine, idempotently:
# the virtualenv (.venv), Python deps, the Docker engine (started if not reachable),
# bubblewrap and debootstrap, and the sandbox images. Sourced by run.sh and test.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# ---- system packages ---------------------------------------------------------------
need=()
command -v dockerd >/dev/null || need+=(docker.io)
command -v bwrap >/dev/null || need+=(bubblewrap)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v git >/dev/null || need+=(git)
# the local (bubblewrap) backend runs the host's python3: its grader needs pytest there
/usr/bin/python3 -c 'import pytest' 2>/dev/null || need+=(python3-pytest)
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

# ---- Docker engine -------------------------------------------------------------------
if ! docker info >/dev/null 2>&1; then
  log "starting dockerd"
  as_root bash -c 'nohup dockerd >/var/log/codegym-dockerd.log 2>&1 &'
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { log "dockerd did not start; see /var/log/codegym-dockerd.log"; exit 1; }
fi

# ---- Python --------------------------------------------------------------------------
PY=${PYTHON:-python3}
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { log "Python >= 3.11 required"; exit 1; }
[ -x .venv/bin/python ] || { log "creating .venv"; "$PY" -m venv .venv; }
stamp=.venv/.codegym-deps
want=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  log "installing Python dependencies into .venv (log: .venv/pip.log)"
  {
    .venv/bin/pip install --upgrade pip &&
    # The CPU wheel first: the train extra's torch range is then already satisfied.
    { .venv/bin/python -c 'import torch' 2>/dev/null || .venv/bin/pip install torch==2.13.0; } &&
    .venv/bin/pip install -e ".[train,ray,dev,integrations]"
  } > .venv/pip.log 2>&1 || { tail -30 .venv/pip.log >&2; log "pip install failed"; exit 1; }
  echo "$want" > "$stamp"
fi

# ---- sandbox images (content-addressed: a no-op when up to date) ----------------------
.venv/bin/codegym images build >/dev/null

# ---- pinned sdists of the realmutants suite (sha256-checked; a no-op when cached) ---------
# the pins (name, version, sha256) are the "projects" of codegym/tasks/suites/realmutants.json
.venv/bin/python -m codegym.tasks.suites.realmutants fetch >/dev/null ||
  log "warning: realmutants sdists not cached (no network?); that suite cannot load until this step succeeds"
log "ready"
