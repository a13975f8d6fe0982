#!/usr/bin/env bash
# The main job: sets up what it needs, then a warm start and GiGPO (guards on) on train instances
# of the lookup family, the controls, every arm evaluated on held-out instances; writes
# runs/main/report.md, heldout.png, learning_curve.png, hack_rates.png (codegym main; docs/training.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
# the copying tiny base the warm start starts from: ~9 min on 2 cores the first time, cached
# under ~/.cache/codegym/tiny after (part of setting up, like downloading a base model)
.venv/bin/codegym main --prepare-only "$@"
exec .venv/bin/codegym main "$@"
