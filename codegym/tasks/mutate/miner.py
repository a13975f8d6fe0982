"""Mine mutation tasks from a real project: mutate, run its own suite in the sandbox, keep the few.

    report = mine(pypi_tree("toolz", "0.12.1"), Path("out"), pool, max_tasks=20, seed=0)

1. Collect the suite in the sandbox and grade the pristine tree twice: the tests that pass
   both times are the baseline (`SuiteRunner`).
2. List every mutation site of every source module (`operators.find_sites`; test files,
   `conftest.py`, `setup.py`, docs and examples left out) and shuffle them with `seed`; each
   site's seeded choice (`off_by_one`'s +1 or -1) uses its own `Random(f"{seed}:{site}")`, so
   the mutants and their order depend on the seed and the tree only.
3. Grade each mutant as a diff against the pristine tree. Keep it when the suite still collects
   and runs to the end (every test has an outcome) and between 1 and `max_broken` baseline
   tests no longer pass; those are FAIL_TO_PASS, the other baseline tests PASS_TO_PASS. A
   plain pytest run of the failing tests gives their messages for the statement (and must
   fail them again, else the mutant is dropped as unstable).
4. Write each kept mutant's task (`build.build_mutant_task`) under `out/repos/`, the tasks to
   `out/tasks.jsonl` and the mined descriptions (project, version, sha256, mutation, fix,
   F2P, P2P, statement) to `out/mined.jsonl`.

One progress line per mutant tried; the report's `summary()` gives the yield (valid tasks per
mutant tried) and the time.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path

from codegym.antihack.paths import is_test_path
from codegym.sandbox import SandboxPool
from codegym.tasks.loader import write_tasks_jsonl
from codegym.tasks.mutate.build import build_mutant_task, mutation_diff
from codegym.tasks.mutate.operators import Mutation, find_sites
from codegym.tasks.mutate.sources import SourceTree
from codegym.tasks.mutate.statement import problem_statement, statement_leaks
from codegym.tasks.mutate.suite_run import SuiteRunner
from codegym.tasks.task import Task

MAX_BROKEN = 5
_NOT_SOURCE_DIRS = {
    "docs",
    "doc",
    "documentation",
    "examples",
    "example",
    "benchmarks",
    "bench",
    "scripts",
    "tools",
    "ci",
}
_NOT_SOURCE_FILES = {
    "setup.py",
    "conftest.py",
    "noxfile.py",
    "fabfile.py",
    "tasks.py",
    "__main__.py",
    "conf.py",
    "versioneer.py",
    "_version.py",
    "__about__.py",
    "benchmark.py",
}


def source_modules(tree: SourceTree) -> list[str]:
    """The Python files a mutation may touch: not tests, harness, packaging, docs or examples."""
    out = []
    for path in sorted(tree.files):
        parts = path.split("/")
        if (
            path.endswith(".py")
            and not is_test_path(path)
            and parts[-1] not in _NOT_SOURCE_FILES
            and not set(parts[:-1]) & _NOT_SOURCE_DIRS
        ):
            try:
                text = tree.text(path)
            except UnicodeDecodeError:
                continue
            if text.endswith("\n"):
                out.append(path)
    return out


def candidate_mutations(tree: SourceTree, seed: int) -> list[Mutation]:
    """Every distinct mutation of the tree's source modules, in the seeded order (step 2)."""
    sites = [s for path in source_modules(tree) for s in find_sites(path, tree.text(path))]
    random.Random(seed).shuffle(sites)
    seen: set[tuple[str, int, str]] = set()
    out = []
    for site in sites:
        rng = random.Random(f"{seed}:{site.path}:{site.line}:{site.col}:{site.end_col}:{site.operator}")
        mutation = site.mutation(tree.text(site.path), rng)
        if mutation and (mutation.path, mutation.line, mutation.after) not in seen:
            seen.add((mutation.path, mutation.line, mutation.after))
            out.append(mutation)
    return out


@dataclass
class Tried:
    """What one mutant did: the baseline tests it broke and the verdict."""

    mutation: Mutation
    broken: list[str]
    verdict: str
    seconds: float
    kept: bool = False


@dataclass
class MineReport:
    """The outcome of mining one tree: its tasks, every mutant tried, the times."""

    pin: str
    sha256: str
    baseline: list[str] = field(default_factory=list)
    tasks: list[Task] = field(default_factory=list)
    tried: list[Tried] = field(default_factory=list)
    candidates: int = 0
    seconds: float = 0.0

    @property
    def yield_(self) -> float:
        """Valid tasks per mutant tried."""
        return len(self.tasks) / len(self.tried) if self.tried else 0.0

    def summary(self) -> str:
        return (
            f"{self.pin}: {len(self.tasks)} task(s) from {len(self.tried)} mutant(s) tried "
            f"(yield {self.yield_:.2f}; {self.candidates} candidates; baseline {len(self.baseline)} tests) "
            f"in {self.seconds:.1f}s"
        )


def _verdict(broken: int, complete: bool, max_broken: int) -> str:
    if not complete:
        return "suite broken (collection or run did not finish)"
    if broken == 0:
        return "survived (no test fails)"
    if broken > max_broken:
        return f"{broken} tests fail (too many)"
    return f"{broken} tests fail" if broken > 1 else "1 test fails"


def mine(
    tree: SourceTree,
    out: Path,
    pool: SandboxPool,
    *,
    max_tasks: int = 20,
    seed: int = 0,
    max_broken: int = MAX_BROKEN,
    max_tried: int | None = None,
    suite: str = "mutants",
    log: Callable[[str], None] = print,
    only: Collection[int] | None = None,
) -> MineReport:
    """Mine up to `max_tasks` tasks from `tree` into `out` (see the module docstring). With
    `only`, try just those positions (1-based, as the progress lines number them) of the seeded
    order: a run cut short is finished by re-trying its kept positions."""
    start = time.monotonic()
    out = Path(out)
    (out / "repos").mkdir(parents=True, exist_ok=True)
    report = MineReport(tree.pin, tree.sha256)
    mined: list[dict] = []
    with SuiteRunner(tree, pool) as runner:
        ids = runner.collect()
        first, second = runner.run(), runner.run()
        report.baseline = [i for i in ids if first.outcomes.get(i) == second.outcomes.get(i) == "passed"]
        if not report.baseline:
            raise RuntimeError(
                f"{tree.pin}: no test passes on the pristine code in the sandbox "
                f"({len(ids)} collected; status {first.status})"
            )
        timeout = max(30.0, 5 * max(first.seconds, second.seconds))  # a mutant that loops is cut off
        log(
            f"{tree.pin}: {len(ids)} tests collected, {len(report.baseline)} pass on the pristine code "
            f"({first.seconds:.1f}s a run)"
        )
        candidates = candidate_mutations(tree, seed)
        report.candidates = len(candidates)
        for position, mutation in enumerate(candidates, 1):
            if len(report.tasks) >= max_tasks or (max_tried is not None and len(report.tried) >= max_tried):
                break
            if only is not None and position not in only:
                continue
            diff = mutation_diff(tree, mutation)
            run = runner.run(diff, timeout_s=timeout)
            broken = [i for i in report.baseline if run.outcomes.get(i) != "passed"]
            tried = Tried(mutation, broken, _verdict(len(broken), run.complete, max_broken), run.seconds)
            report.tried.append(tried)
            if run.complete and 1 <= len(broken) <= max_broken:
                task, record, why_not = _make_task(
                    tree, mutation, broken, report.baseline, diff, runner, out, suite
                )
                if task is None:
                    tried.verdict += f", dropped: {why_not}"
                else:
                    tried.kept = True
                    tried.verdict += " -> kept"
                    report.tasks.append(task)
                    mined.append(record)
                    _write(out, report.tasks, mined)  # an interrupted run keeps what it found
            log(
                f"[{position:4d}] {mutation.path}:{mutation.line} {mutation.operator}: {tried.verdict} "
                f"({tried.seconds:.1f}s)"
            )
    _write(out, report.tasks, mined)
    report.seconds = time.monotonic() - start
    log(report.summary())
    return report


def _write(out: Path, tasks: list[Task], mined: list[dict]) -> None:
    write_tasks_jsonl(tasks, out / "tasks.jsonl", relative_to=out)
    with (out / "mined.jsonl").open("w", encoding="utf-8") as fh:
        for record in mined:
            fh.write(json.dumps(record) + "\n")


def _make_task(
    tree: SourceTree,
    mutation: Mutation,
    broken: list[str],
    baseline: list[str],
    diff: str,
    runner: SuiteRunner,
    out: Path,
    suite: str,
) -> tuple[Task | None, dict, str]:
    collected, messages = runner.inspect(diff, broken)
    if collected != runner.collected:
        lost = len(set(runner.collected) - set(collected))
        return None, {}, f"the suite no longer collects ({lost} test(s) lost)"
    if any(not m for m in messages.values()):
        return None, {}, "a FAIL_TO_PASS test did not fail again in a plain pytest run (unstable)"
    hide = [mutation.before, mutation.after]
    statement = problem_statement(tree.name, messages, hide)
    if statement_leaks(statement, hide):
        return None, {}, "the statement would quote the mutated line"
    p2p = [i for i in baseline if i not in broken]
    task = build_mutant_task(tree, mutation, broken, p2p, statement, out / "repos", suite=suite)
    record = {
        "instance_id": task.instance_id,
        "project": tree.name,
        "version": tree.version,
        "sdist_sha256": tree.sha256,
        "mutation": mutation.to_dict(),
        "patch": task.patch,
        "FAIL_TO_PASS": broken,
        "PASS_TO_PASS": p2p,
        "problem_statement": statement,
    }
    return task, record, ""
