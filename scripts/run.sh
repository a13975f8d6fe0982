#!/usr/bin/env bash
# The main job: sets up what it needs, then runs codegym's demo.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
exec .venv/bin/codegym demo "$@"
