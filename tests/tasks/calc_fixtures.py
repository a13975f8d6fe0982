"""Helpers of the tasks tests: git without the user's configuration, and the calc repository.

A module of its own name (not ``conftest``): with pytest's prepend import mode every folder's
``conftest.py`` is imported as the module ``conftest``, so ``from conftest import ...`` finds
whichever folder's conftest was imported last (tests/trainer's when both folders are given).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from codegym.tasks.gitrepo import GIT_ENV, Commit, build_repo
from codegym.tasks.task import Task


def git(*args: str, cwd: Path | str) -> subprocess.CompletedProcess:
    """Run git in `cwd` without the user's configuration; never raises."""
    return subprocess.run(
        ["git", "-c", "safe.directory=*", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_ENV, "GIT_CEILING_DIRECTORIES": str(Path(cwd).resolve().parent)},
    )


CALC_BUGGY = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
CALC_FIXED = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
VISIBLE = "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"
HIDDEN = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


class CalcRepo:
    """A bare source repository: two commits up to the base, then the tagged fix and one more."""

    def __init__(self, root: Path):
        self.path = root / "calc.git"
        self.base_files = {"calc.py": CALC_BUGGY, "tests/test_calc.py": VISIBLE, "conftest.py": ""}
        shas = build_repo(
            self.path,
            [
                Commit("Initial commit", self.base_files),
                Commit("Add README", {"README.md": "# calc\n"}),
                Commit("Fix add", {"calc.py": CALC_FIXED, "tests/test_add.py": HIDDEN}, tag="v1.0.1"),
                Commit("Start 1.0.2", {"README.md": "# calc\n\nDevelopment.\n"}),
            ],
        )
        self.first, self.base, self.fix, self.later = shas
        self.task = Task(
            instance_id="calc-1",
            repo=str(self.path),
            base_commit=self.base,
            problem_statement="add(2, 3) returns -1.",
            test_patch=(
                "diff --git a/tests/test_add.py b/tests/test_add.py\nnew file mode 100644\n"
                "--- /dev/null\n+++ b/tests/test_add.py\n@@ -0,0 +1,5 @@\n"
                + "".join(f"+{line}\n" for line in HIDDEN.splitlines())
            ),
            FAIL_TO_PASS=("tests/test_add.py::test_add",),
            PASS_TO_PASS=("tests/test_calc.py::test_mul",),
            patch=(
                "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,5 +1,5 @@\n"
                " def add(a, b):\n-    return a - b\n+    return a + b\n \n \n def mul(a, b):\n"
            ),
            upstream_refs=(self.fix, "v1.0.1", self.later),
            protected_paths=("tests/test_add.py",),
            visible_tests=("tests/test_calc.py",),
        )
