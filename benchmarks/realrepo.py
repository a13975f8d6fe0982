"""Validation throughput on real-repository tasks: pooled grading vs a fresh container per grading.

    .venv/bin/python benchmarks/realrepo.py [--suites repofix realmutants] [--tasks 6] [--pool 2] [--isolate-f2p 3]

Validating a task grades two submissions: the empty one (it must score 0) and the reference
patch (it must score 1). Three ways grade the same tasks in the same run, interleaved task by
task so that all see the same machine load, one grading at a time:

- **pooled** (codegym): `SandboxGrader` over a warm `SandboxPool`: a released sandbox is reset
  off the caller's thread and handed out again, so a grading pays no container start.
- **fresh container (harness)**, the SWE-bench harness's way: for each grading a new container
  from the same image (`docker run`), the task's workspace copied in, `git apply` of the patch
  and of the hidden tests, one `python3 -m pytest -rA` of the graded files, outcomes parsed from
  that log's summary lines (`outcomes_from_log`), then `docker rm -f` (the quickest teardown:
  the harness stops its containers with a timeout first).
- **fresh container (codegym)**: codegym's own grading (`run_grading`) in a sandbox created for
  the grading and closed after it: the same work as pooled, without the pool.

Prints tasks validated per minute for each, and the ratios. The pooled grader does more work
per grading than the harness baseline (pristine test tree, fresh test names, each FAIL_TO_PASS
test in its own process, outcomes streamed from a second user), so that ratio is what pooling
buys in spite of that; the codegym-in-a-fresh-container ratio is what the pool alone buys. The
pool's warm-up is printed apart and not counted: a pool lives as long as training does. Every
grade is checked (reference 1, empty 0) in every way. `--isolate-f2p 0` runs all of a task's
graded tests in one pytest process, as the harness baseline does (the same work per grading). A suite that cannot be loaded here
(`realmutants` needs its sdists fetched once) is skipped with the reason.
"""

from __future__ import annotations

import argparse
import io
import re
import statistics
import tarfile
import time
from collections.abc import Iterable

from codegym.envs.grader import SandboxGrader, SandboxIO, workspace_bytes
from codegym.sandbox import SandboxConfig, SandboxPool, docker_client
from codegym.sandbox.images import default_image
from codegym.sandbox.pool import make_sandbox
from codegym.tasks import load_tasks
from codegym.tasks.grade_stream import SEVERITY, Outcome
from codegym.tasks.grading import GradingOptions, grade, run_grading
from codegym.tasks.task import Task

#: the ways of grading compared, by key: what the report calls them.
WAYS = {
    "pooled": "pooled (codegym)",
    "fresh": "fresh container per grading (harness)",
    "fresh-codegym": "fresh container per grading (codegym)",
}


def _tar(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


_SUMMARY = re.compile(r"^(PASSED|FAILED|ERROR) (\S.*?)(?: - .*)?$", re.M)
_OUTCOME = {"PASSED": "passed", "FAILED": "failed", "ERROR": "error"}


def outcomes_from_log(log: str, wanted: Iterable[str]) -> dict[str, Outcome]:
    """Per wanted id, from pytest's `-rA` summary lines: the worst outcome of the tests it
    selects (itself, its parametrized cases, a class's methods), `missing` when none ran."""
    found: dict[str, list[Outcome]] = {}
    for status, node_id in _SUMMARY.findall(log):
        found.setdefault(node_id, []).append(_OUTCOME[status])
    out: dict[str, Outcome] = {}
    for w in wanted:
        hits = [
            o for nid, os_ in found.items() if nid == w or nid.startswith((w + "[", w + "::")) for o in os_
        ]
        out[w] = max(hits, key=SEVERITY.__getitem__) if hits else "missing"
    return out


def grade_in_fresh_container(client, image: str, task: Task, diff: str) -> float:
    """One grading the SWE-bench harness's way; returns the score."""
    container = client.containers.run(image, command=["sleep", "infinity"], detach=True, user="root",
                                      network_mode="none", init=True)  # fmt: skip
    try:
        container.exec_run(["mkdir", "-p", task.workdir])
        container.put_archive(task.workdir, workspace_bytes(task))
        container.put_archive("/tmp", _tar({"fix.diff": diff, "test.diff": task.test_patch}))
        files = " ".join(dict.fromkeys(t.split("::")[0] for t in task.tests_to_run()))
        git = "git -c safe.directory='*'"
        apply_fix = f"{git} apply /tmp/fix.diff && " if diff.strip() else ""
        script = f"{apply_fix}{git} apply /tmp/test.diff && python3 -m pytest -rA -p no:cacheprovider {files}"
        result = container.exec_run(["bash", "-c", script], workdir=task.workdir)
        return grade(
            task, outcomes_from_log(result.output.decode("utf-8", "replace"), task.tests_to_run())
        ).score
    finally:
        container.remove(force=True)


def grade_codegym_in_fresh_container(
    client, image: str, task: Task, diff: str, options: GradingOptions
) -> float:
    """codegym's own grading, in a container created for this grading and removed after it."""
    sandbox = make_sandbox(SandboxConfig(image=image), "docker", client=client)
    try:
        sandbox.upload(workspace_bytes(task), task.workdir, clean=True)
        io = SandboxIO(sandbox, task.workdir)
        result, _ = run_grading(
            task, diff, io, grade_dir=f"{sandbox.config.home}/.codegym-grade", options=options
        )
        return result.score
    finally:
        sandbox.close()


def _container_overhead(client, pool: SandboxPool, image: str, task: Task, n: int = 4) -> dict[str, float]:
    """p50 seconds of what each way pays for a container alone, without grading in it."""
    fresh, pooled = [], []
    for _ in range(n):
        t0 = time.monotonic()
        container = client.containers.run(image, command=["sleep", "infinity"], detach=True, init=True)
        container.remove(force=True)
        fresh.append(time.monotonic() - t0)
        t0 = time.monotonic()
        pool.release(pool.acquire(workspace_bytes(task)))
        pooled.append(time.monotonic() - t0)
    return {"fresh": statistics.median(fresh), "pooled": statistics.median(pooled)}


def _check(got: float, want: float, task: Task, way: str, diff: str) -> None:
    if got != want:
        raise SystemExit(
            f"{way}: {task.instance_id} {'reference' if diff else 'empty'} scored {got}, not {want}"
        )


def bench_suite(
    suite: str, n: int, pool_size: int, client, options: GradingOptions
) -> dict[str, float] | None:
    try:
        tasks = [t for t in load_tasks(suite) if not t.repo_in_image][:n]
    except Exception as exc:  # noqa: BLE001 - a suite missing here is reported, not fatal
        print(f"{suite}: skipped ({type(exc).__name__}: {str(exc).splitlines()[0][:200]})")
        return None
    if not tasks:
        print(f"{suite}: skipped (no task with an uploadable workspace)")
        return None
    images = {t.image or default_image(client) for t in tasks}
    t0 = time.monotonic()
    pools = {img: SandboxPool(SandboxConfig(image=img), size=pool_size, backend="docker", client=client)
             for img in images}  # fmt: skip
    for pool in pools.values():
        pool.warm()
    warm_s = time.monotonic() - t0
    times: dict[str, list[float]] = {way: [] for way in WAYS}
    try:
        for task in tasks:
            image = task.image or default_image(client)
            grader = SandboxGrader(pools[image], options=options)
            ways = {
                "pooled": lambda d, g=grader, t=task: g.grade(t, d).result.score,
                "fresh": lambda d, i=image, t=task: grade_in_fresh_container(client, i, t, d),
                "fresh-codegym": lambda d, i=image, t=task: grade_codegym_in_fresh_container(
                    client, i, t, d, options
                ),
            }
            for diff, want in ((task.patch, 1.0), ("", 0.0)):
                for way, grade_once in ways.items():
                    t1 = time.monotonic()
                    got = grade_once(diff)
                    times[way].append(time.monotonic() - t1)
                    _check(got, want, task, way, diff)
        overhead = _container_overhead(client, pools[image], image, task)
    finally:
        for pool in pools.values():
            pool.close()
    rates = {way: len(tasks) / sum(ts) * 60 for way, ts in times.items()}
    print(
        f"{suite}: {len(tasks)} tasks x 2 gradings (reference, empty); pool of {pool_size} warmed in {warm_s:.1f} s"
    )
    for way, label in WAYS.items():
        p50 = statistics.median(times[way])
        print(f"  {label:42s} {rates[way]:6.1f} tasks/min   p50 {p50 * 1000:6.0f} ms per grading")
    print(f"  container per grading, p50: docker run + rm -f {overhead['fresh'] * 1000:.0f} ms, "
          f"pool acquire + release {overhead['pooled'] * 1000:.0f} ms")  # fmt: skip
    print(f"  ratio pooled / fresh container (harness):   {rates['pooled'] / rates['fresh']:.2f}x")
    print(f"  ratio pooled / fresh container (codegym):   {rates['pooled'] / rates['fresh-codegym']:.2f}x")
    return {"tasks": len(tasks), **{way: sum(ts) for way, ts in times.items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suites", nargs="+", default=["repofix", "realmutants"])
    ap.add_argument("--tasks", type=int, default=6, help="tasks per suite")
    ap.add_argument("--pool", type=int, default=2, help="warm sandboxes in the pool")
    ap.add_argument(
        "--isolate-f2p",
        type=int,
        default=GradingOptions().isolate_f2p,
        help="codegym grading: FAIL_TO_PASS tests in a process each up to this many (0: never)",
    )
    args = ap.parse_args()
    client = docker_client()
    options = GradingOptions(isolate_f2p=args.isolate_f2p)
    print(f"codegym grading options: isolate_f2p={options.isolate_f2p}")
    results = [r for s in args.suites if (r := bench_suite(s, args.tasks, args.pool, client, options))]
    if len(results) > 1:
        n = sum(r["tasks"] for r in results)
        pooled, fresh = (n / sum(r[way] for r in results) * 60 for way in ("pooled", "fresh"))
        print(f"all suites: {n} tasks, pooled {pooled:.1f} tasks/min, fresh {fresh:.1f} tasks/min, "
              f"ratio {pooled / fresh:.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
