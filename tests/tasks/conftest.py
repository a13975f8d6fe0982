"""Fixtures for the tasks tests: a private cache, and small real git repositories."""

from __future__ import annotations

import os

import pytest
from calc_fixtures import CalcRepo


@pytest.fixture(scope="session")
def codegym_cache(tmp_path_factory):
    """CODEGYM_CACHE pointed at a fresh folder for the whole session."""
    path = tmp_path_factory.mktemp("codegym-cache")
    old = os.environ.get("CODEGYM_CACHE")
    os.environ["CODEGYM_CACHE"] = str(path)
    yield path
    if old is None:
        os.environ.pop("CODEGYM_CACHE", None)
    else:
        os.environ["CODEGYM_CACHE"] = old


@pytest.fixture
def calc_repo(tmp_path, codegym_cache) -> CalcRepo:
    return CalcRepo(tmp_path)
