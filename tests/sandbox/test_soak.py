"""A short soak (`benchmarks/soak.py`): envs stepping while sandboxes are broken on purpose lose
no episode, every masked episode says why, and no container outlives `close()` or a runner
killed with SIGKILL once `codegym sandbox gc` ran."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.docker

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "soak.py"
_spec = importlib.util.spec_from_file_location("codegym_soak", _PATH)
soak = sys.modules["codegym_soak"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(soak)


@pytest.mark.timeout(180)
def test_a_short_soak_with_faults_loses_nothing_and_leaks_nothing(docker_client):
    report = soak.run_soak(3, 12, seed=3, fault_rate=1.0, kill_every_s=0.7, hang_s=90,
                           client=docker_client, verbose=False)
    episodes = report["episodes"]
    assert episodes and not report["hung"]
    lost = [(e.task, e.faults, e.reason) for e in episodes if e.outcome == "lost"]
    assert lost == []
    masked = [e for e in episodes if e.outcome == "masked"]
    assert all(e.stop_reason == "sandbox_error" and e.reason for e in masked), [vars(e) for e in masked]
    assert sum(len(e.faults) for e in episodes) >= 3 and sum(report["kills"].values()) >= 1
    # Faults inside the sandbox (executor killed, runaway, 50 MB output) never cost the episode.
    inside = [e for e in episodes if e.faults and set(e.faults) <= set(soak.INSIDE_FAULTS)]
    assert inside and all(e.outcome == "completed" and e.reward == 1.0 for e in inside), [vars(e) for e in inside]
    assert all(e.outcome == "completed" and e.reward == 1.0 for e in episodes if not e.faults)
    assert report["left_after_close"] == 0


@pytest.mark.timeout(180)
def test_a_runner_killed_with_sigkill_leaves_nothing_after_gc(docker_client):
    report = soak.kill9_and_gc(2, run_for_s=3.0, client=docker_client, verbose=False)
    assert report["before_kill"] >= 2 and report["gc_exit"] == 0
    assert report["after_gc"] == 0 and report["after_gc_3s"] == 0
