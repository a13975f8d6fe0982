"""The repository's pytest setup: the package's docstring examples are part of the suite.

``pytest`` (and so ``scripts/test.sh``) collects ``tests/`` and the doctests of every module in
``codegym/`` (``testpaths`` in pyproject.toml): the same items as ``pytest --doctest-modules codegym``.
``tests/`` itself is not searched for doctests (its conftest files share a basename, which
``--doctest-modules`` cannot import side by side).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _pytest.doctest import DoctestModule  # pytest's own doctest collector (not re-exported)

_PACKAGE = Path(__file__).resolve().parent / "codegym"

# A script run inside the sandbox, not a module: it reads its instructions from stdin on import.
collect_ignore = ["codegym/tasks/grade_runner.py"]
# Task data, not the project's tests (tests/tasks/test_repofix_dirs.py runs each folder's tests in a
# copy). Ignored here rather than by a conftest.py among them: a conftest there joins sys.path, and
# `from conftest import ...` in the project's tests would find it.
collect_ignore_glob = ["codegym/tasks/suites/repofix/*"]


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> DoctestModule | None:
    """A `DoctestModule` for each module under ``codegym/`` (unless ``--doctest-modules`` already
    collects them)."""
    if (
        file_path.suffix == ".py"
        and file_path.name != "__main__.py"
        and _PACKAGE in file_path.parents
        and not parent.config.option.doctestmodules
    ):
        return DoctestModule.from_parent(parent, path=file_path)
    return None
