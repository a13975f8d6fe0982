"""How often grading can give the graded tests fresh names: the share of tasks (and of graded
files and functions) that `codegym.tasks.grade_prep` renames, per built-in suite.

    .venv/bin/python benchmarks/renaming.py [--suites toy repofix humaneval]

Grades each task's empty submission on this host (the validator's path) and reads the
`renamed` counts the preparation step reports. A file keeps its name when another file refers
to its module; a function keeps its name when it is named more than once in its file, or when
the base configures `python_functions`.
"""

from __future__ import annotations

import argparse
import io
import json
import tarfile
import tempfile
from pathlib import Path

from codegym.tasks import load_tasks
from codegym.tasks.validate import run_grading_locally
from codegym.tasks.workspace import workspace_archive


def renamed_counts(task) -> dict[str, int]:
    with tempfile.TemporaryDirectory(prefix="codegym-renaming-") as tmp:
        ws = Path(tmp) / "ws"
        with tarfile.open(fileobj=io.BytesIO(workspace_archive(task).read_bytes())) as tar:
            tar.extractall(ws, filter="data")
        result, _ = run_grading_locally(task, ws, "")
        return json.loads(result.status["renamed"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suites", nargs="+", default=["toy", "repofix", "humaneval"])
    args = ap.parse_args()
    for suite in args.suites:
        tasks = list(load_tasks(suite))
        totals = {"files": 0, "files_kept": 0, "functions": 0, "functions_kept": 0}
        fully = 0
        for task in tasks:
            counts = renamed_counts(task)
            for k in totals:
                totals[k] += counts.get(k, 0)
            fully += counts.get("files_kept", 0) == 0 and counts.get("functions_kept", 0) == 0
        files = totals["files"] + totals["files_kept"]
        funcs = totals["functions"] + totals["functions_kept"]
        print(f"{suite}: {fully}/{len(tasks)} tasks fully renamed; files {totals['files']}/{files}, "
              f"functions {totals['functions']}/{funcs}")


if __name__ == "__main__":
    main()
