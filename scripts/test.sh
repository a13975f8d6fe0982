#!/usr/bin/env bash
# The test suite, on a fresh machine or this one: sets up what it needs, then runs pytest.
#   scripts/test.sh [pytest args]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@"
