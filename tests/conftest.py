"""Shared fixtures: one Docker engine, one image build and one warm pool for the whole run.

`scripts/test.sh` (the README's test command) installs and starts the Docker engine and
builds the images before pytest starts; these fixtures only find them.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def docker_client():
    from codegym.sandbox import docker_client as connect

    return connect()


@pytest.fixture(scope="session")
def python_image(docker_client):
    from codegym.sandbox.images import default_image

    return default_image(docker_client)


@pytest.fixture(scope="session")
def pool(docker_client, python_image):
    """The session's warm pool of default Python sandboxes (Docker)."""
    from codegym.sandbox import SandboxConfig, SandboxPool

    with SandboxPool(SandboxConfig(image=python_image), size=2, backend="docker", client=docker_client) as p:
        yield p


# Property tests draw the same examples on every run (CI must not fail at random), and keep no
# example database between runs.
try:
    from hypothesis import settings as _hypothesis_settings

    _hypothesis_settings.register_profile("codegym", derandomize=True, database=None, deadline=None)
    _hypothesis_settings.load_profile("codegym")
except ImportError:  # pragma: no cover - hypothesis is a dev dependency
    pass
