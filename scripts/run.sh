#!/usr/bin/env bash
# The main job: sets up what it needs, then trains a tiny LoRA policy on the toy suite
# (behaviour-cloning warm start + GiGPO, guards on), evaluates it with hack rates and writes
# runs/main/report.md, learning_curve.png and hack_rates.png (codegym main; see docs/training.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
exec .venv/bin/codegym main "$@"
