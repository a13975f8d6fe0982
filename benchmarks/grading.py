"""Grading latency per episode: the default grader against a bare pytest run, same run, same tasks.

    .venv/bin/python benchmarks/grading.py [--suites toy repofix] [--tasks 8] [--repeats 3]

For each task, the reference fix and the empty submission are graded `--repeats` times each by
`SandboxGrader` with the default options (pristine test tree, fresh names, shuffled order,
each of up to 3 FAIL_TO_PASS tests in its own process, outcomes streamed from the grader user), with
`isolate_f2p=0`, and with nothing but a bare `python3 -m pytest -q` of the graded files
in a pooled sandbox holding the fixed workspace (the cost of running the tests at all: the
baseline). Prints p50 seconds per grading and the ratios to the baseline. Grades are checked
too: the fix must score 1 and the empty submission 0.
"""

from __future__ import annotations

import argparse
import statistics
import time

from codegym.envs.grader import SandboxGrader, workspace_bytes
from codegym.envs.pools import shared_pool
from codegym.tasks import load_tasks
from codegym.tasks.grading import GradingOptions


def _bare(pool, task, n):
    times = []
    files = " ".join(dict.fromkeys(t.split("::")[0] for t in task.tests_to_run()))
    for _ in range(n):
        t0 = time.monotonic()
        sb = pool.acquire(workspace_bytes(task))
        try:
            sb.write_file("/tmp/fix.diff", task.patch + "\n")
            sb.write_file("/tmp/test.diff", task.test_patch + "\n")
            sb.exec(f"git apply /tmp/fix.diff && git apply /tmp/test.diff && python3 -m pytest -q -p no:cacheprovider {files}",
                    workdir=task.workdir, timeout=300)
        finally:
            pool.release(sb)
        times.append(time.monotonic() - t0)
    return times


def _graded(grader, task, n):
    times = []
    for _ in range(n):
        for diff, want in ((task.patch, 1.0), ("", 0.0)):
            t0 = time.monotonic()
            got = grader.grade(task, diff).result.score
            times.append(time.monotonic() - t0)
            assert got == want, (task.instance_id, "fix" if diff else "empty", got)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suites", nargs="+", default=["toy", "repofix"])
    ap.add_argument("--tasks", type=int, default=8, help="tasks per suite")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    for suite in args.suites:
        tasks = list(load_tasks(suite))[: args.tasks]
        pool = shared_pool(None, "docker", purpose="grade")
        variants = {"default": SandboxGrader(pool), "no-f2p-isolation": SandboxGrader(
            pool, options=GradingOptions(isolate_f2p=0))}
        results = {name: [] for name in ["bare pytest", *variants]}
        for task in tasks:  # interleaved per task: the same load for every variant
            results["bare pytest"] += _bare(pool, task, args.repeats)
            for name, grader in variants.items():
                results[name] += _graded(grader, task, args.repeats)
        base = statistics.median(results["bare pytest"])
        print(f"{suite}: {len(tasks)} tasks, {args.repeats} repeats")
        for name, times in results.items():
            p50 = statistics.median(times)
            print(f"  {name:18s} p50 {p50 * 1000:7.1f} ms  ({p50 / base:.2f}x bare pytest, n={len(times)})")


if __name__ == "__main__":
    main()
