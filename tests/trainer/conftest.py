"""Fixtures shared by the trainer tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def ray_cluster():
    """A small local Ray cluster for one test module (2 CPUs, 4 sandbox slots), gone after it."""
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, resources={"sandbox": 4}, include_dashboard=False, log_to_driver=False)
    yield ray
    if started:
        ray.shutdown()
