"""Turn mined folders into the `realmutants` data file, and drop what validation rejected.

    python -m codegym.tasks.mutate.suite_data assemble OUT.json mined/inflection mined/toolz ...
    python -m codegym.tasks.mutate.suite_data assemble OUT.json realmutants.json mined/idna  # grow
    python -m codegym.tasks.mutate.suite_data prune OUT.json valid.jsonl

`assemble` reads each folder's `mined.jsonl` (written by `codegym tasks mutate --pypi`), or a
data file it wrote before (its projects and tasks, `p2p_removed` included, join as they are), and
stores per project its pin, sdist sha256 and baseline (the tests that pass on the pristine
release: a task's PASS_TO_PASS is the baseline without its FAIL_TO_PASS), per task the mutation,
fix, FAIL_TO_PASS and statement. `prune` keeps only the tasks of a `codegym tasks validate
--write-valid` file and records the flaky tests it removed (`p2p_removed`, F2P shortened).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def assemble(out: Path, folders: list[Path]) -> dict:
    """Write the data file `out` from mined folders (one project may come from several seeds;
    a task mined twice is kept once). Tasks are interleaved across projects, so the first N of
    the suite (`validate --limit N`) cover every project."""
    projects: dict[str, dict] = {}
    by_project: dict[str, list[dict]] = {}
    seen: set[str] = set()
    for folder in folders:
        if folder.is_file():  # an earlier data file: its projects and tasks as they are
            earlier = json.loads(folder.read_text(encoding="utf-8"))
            for project in earlier["projects"]:
                if project["name"] in projects:
                    raise ValueError(f"{folder}: {project['name']} is already in another source")
                projects[project["name"]] = project
            for task in earlier["tasks"]:
                if task["instance_id"] not in seen:
                    seen.add(task["instance_id"])
                    by_project.setdefault(task["project"], []).append(task)
            continue
        rows = [
            json.loads(line) for line in (folder / "mined.jsonl").read_text().splitlines() if line.strip()
        ]
        for row in rows:
            baseline = set(row["FAIL_TO_PASS"]) | set(row["PASS_TO_PASS"])
            project = projects.get(row["project"])
            if project is None:
                order = [*row["PASS_TO_PASS"], *row["FAIL_TO_PASS"]]
                project = projects[row["project"]] = {
                    "name": row["project"],
                    "version": row["version"],
                    "sha256": row["sdist_sha256"],
                    "baseline": order,
                }
            if (row["version"], row["sdist_sha256"]) != (project["version"], project["sha256"]):
                raise ValueError(
                    f"{row['instance_id']}: another release of {row['project']} than {project['version']}"
                )
            if baseline != set(project["baseline"]):
                raise ValueError(f"{row['instance_id']}: F2P + P2P is not the baseline of {row['project']}")
            if row["instance_id"] in seen:
                continue
            seen.add(row["instance_id"])
            keys = ("instance_id", "project", "mutation", "patch", "FAIL_TO_PASS", "problem_statement")
            by_project.setdefault(row["project"], []).append({k: row[k] for k in keys})
    queues = list(by_project.values())
    tasks = [q[i] for i in range(max(map(len, queues), default=0)) for q in queues if i < len(q)]
    data = {"projects": list(projects.values()), "tasks": tasks}
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return data


def prune(path: Path, valid_jsonl: Path) -> tuple[int, int]:
    """Keep the tasks of `valid_jsonl`; returns (kept, dropped)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    valid = {}
    for line in valid_jsonl.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            valid[row["instance_id"]] = row
    baselines = {p["name"]: p["baseline"] for p in data["projects"]}
    kept = []
    for task in data["tasks"]:
        row = valid.get(task["instance_id"])
        if row is None:
            continue
        f2p = [t for t in task["FAIL_TO_PASS"] if t in set(row["FAIL_TO_PASS"])]
        p2p = set(row["PASS_TO_PASS"])
        removed = [t for t in baselines[task["project"]] if t not in p2p and t not in f2p]
        task = {**task, "FAIL_TO_PASS": f2p}
        if removed:
            task["p2p_removed"] = removed
        kept.append(task)
    dropped = len(data["tasks"]) - len(kept)
    data["tasks"] = kept
    used = {t["project"] for t in kept}
    data["projects"] = [p for p in data["projects"] if p["name"] in used]
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return len(kept), dropped


def main(argv: list[str]) -> int:
    if len(argv) >= 3 and argv[0] == "assemble":
        data = assemble(Path(argv[1]), [Path(a) for a in argv[2:]])
        print(f"{len(data['tasks'])} tasks from {len(data['projects'])} projects -> {argv[1]}")
        return 0
    if len(argv) == 3 and argv[0] == "prune":
        kept, dropped = prune(Path(argv[1]), Path(argv[2]))
        print(f"kept {kept} tasks, dropped {dropped} -> {argv[1]}")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
