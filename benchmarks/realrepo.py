"""Validation throughput on real-repository tasks: pooled grading vs a fresh container per grading.

    .venv/bin/python benchmarks/realrepo.py [--suites repofix realmutants] [--tasks 6] [--pool 2] [--isolate-f2p 3]

Validating a task grades two submissions: the empty one (it must score 0) and the reference
patch (it must score 1). Four ways grade the same tasks in the same run, interleaved task by
task so that all see the same machine load, one grading at a time:

- **pooled** (codegym): `SandboxGrader` over a warm `SandboxPool`: a released sandbox is reset
  off the caller's thread and handed out again, so a grading pays no container start.
- **fresh container per grading (harness as written)**: what the SWE-bench harness does for
  one (instance, prediction), step by step, read from SWE-bench/SWE-bench
  (`swebench/harness/docker_build.py` @ 058fe38504cb73d0e17d77e8a28f6bdb14142706:
  `build_container`; `docker_utils.py` @ 6b6382036a29c5e167af737df898ed26b83742d8:
  `copy_to_container`, `exec_run_with_timeout`, `cleanup_container`; `run_evaluation.py`:
  `run_instance`; `test_spec/python.py`: `make_eval_script_list_py`): `containers.create` with
  `command="tail -f /dev/null"` as root, `start`; the patch copied in (`mkdir -p` + an archive)
  and applied (`git apply --verbose`, then `--reject`, then `patch --batch --fuzz=5 -p1`; after
  a success a look for `*.orig` files); `git diff` before; `eval.sh` copied in and run
  (`set -uxo pipefail`, `git status`, `git show`, `git diff <base>`, checkout of the test
  patch's files at base, `git apply -v` of the test patch, `pytest -rA` of its files, the same
  checkout again); `git diff` after; outcomes from the log's `-rA` lines; then
  `cleanup_container`: `stop(timeout=15)` and `remove(force=True)`. `tail -f /dev/null` is
  PID 1 and ignores SIGTERM, so the stop waits its full 15 s. Three things differ, all in the
  harness's favour or neutral: the workspace is copied in (the harness's instance image holds
  the repository already; codegym uploads it too), there is no conda environment to activate
  (the image's python3 runs pytest, with `-o addopts=` as codegym's runner: the image lacks the
  plugins a project's `addopts` may name, e.g. semver's `--cov`, which the harness's
  environment image would install), and the empty submission skips the apply step (the
  harness fails an empty patch at `git apply` without running a test; validation runs the
  tests at base). The test files run are the test patch's, plus the files of any graded test
  outside it (the harness grades only tests in its files).
- **fresh container per grading (quickest teardown)**, the lower bound of that way: `docker
  run`, the workspace copied in, `git apply` of the patch and of the hidden tests, one
  `python3 -m pytest -rA -o addopts=` of the graded files, outcomes parsed from that log's summary lines
  (`outcomes_from_log`), then `docker rm -f`: no eval-script steps and no stop timeout.
- **fresh container per grading (codegym)**: codegym's own grading (`run_grading`) in a sandbox
  created for the grading and closed after it: the same work as pooled, without the pool.

Prints tasks validated per minute for each, and the ratios of pooled against each: against
the harness as written (the faithful comparison) and against the quickest teardown (the lower
bound a tuned harness could reach). The pooled grader does more work per grading than the
harness (pristine test tree, fresh test names, each FAIL_TO_PASS test in its own process,
outcomes streamed from a second user), so those ratios are what pooling buys in spite of that;
the codegym-in-a-fresh-container ratio is what the pool alone buys. The pool's warm-up is
printed apart and not counted: a pool lives as long as training does. Every grade is checked
(reference 1, empty 0) in every way. `--isolate-f2p 0` runs all of a task's graded tests in one
pytest process, as the harness does (the same work per grading). A suite that cannot be loaded
here (`realmutants` needs its sdists fetched once) is skipped with the reason.
"""

from __future__ import annotations

import argparse
import io
import re
import statistics
import tarfile
import time
from collections.abc import Iterable
from pathlib import PurePosixPath

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
    "harness": "fresh container per grading (harness as written)",
    "fresh": "fresh container per grading (quickest teardown)",
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


_SUMMARY = re.compile(r"^(PASSED|FAILED|ERROR) (\S.*)$", re.M)
_OUTCOME = {"PASSED": "passed", "FAILED": "failed", "ERROR": "error"}


def outcomes_from_log(log: str, wanted: Iterable[str]) -> dict[str, Outcome]:
    """Per wanted id, from pytest's `-rA` summary lines: the worst outcome of the tests it
    selects (itself, its parametrized cases, a class's methods), `missing` when none ran.

    A line is ``STATUS <node id>``, and for a failure ``STATUS <node id> - <message>``; a node id
    may itself hold spaces and `` - `` (``test_cmp[a - interval '1 day']``), so the line is matched
    against the wanted ids rather than split."""
    lines = [(_OUTCOME[status], rest) for status, rest in _SUMMARY.findall(log)]
    out: dict[str, Outcome] = {}
    for w in wanted:
        hits = [o for o, rest in lines if rest == w or rest.startswith((w + " - ", w + "[", w + "::"))]
        out[w] = max(hits, key=SEVERITY.__getitem__) if hits else "missing"
    return out


# ---- the SWE-bench harness, as written (see the module docstring for the files and commits) ----

HARNESS_APPLY = ("git apply --verbose", "git apply --verbose --reject", "patch --batch --fuzz=5 -p1 -i")
HARNESS_PATCH = "/tmp/patch.diff"  # the harness's DOCKER_PATCH
HARNESS_STOP_TIMEOUT = 15  # cleanup_container: container.stop(timeout=15)
_HEREDOC = "EOF_114329324912"
#: a `src/` layout (cachetools) is importable through the harness's environment image, which
#: `pip install -e .`-s the repository once at build time (not per grading): the same, per run.
SRC_LAYOUT = 'if [ -d src ]; then export PYTHONPATH="$PWD/src"; fi'

_DIFF_FILE = re.compile(r"^diff --git a/(\S+) b/(\S+)$", re.M)


def _patch_files(patch: str) -> tuple[list[str], list[str]]:
    """(files the patch modifies, files it creates), as the harness's `get_modified_files` and
    `get_new_files` read them (a file is new where its source is `/dev/null`)."""
    modified, new = [], []
    for block in re.split(r"(?=^diff --git )", patch, flags=re.M):
        m = _DIFF_FILE.search(block)
        if m:
            (new if "\n--- /dev/null" in block else modified).append(m.group(2))
    return modified, new


def harness_eval_script(task: Task) -> str:
    """The harness's `eval.sh` for a task (`make_eval_script_list_py` joined under
    `#!/bin/bash` / `set -uxo pipefail`), with the image's python3 for conda's `testbed`."""
    base, workdir = task.base_commit, task.workdir
    modified, new = _patch_files(task.test_patch)
    reset = ([f"git checkout {base} {' '.join(modified)}"] if modified else []) + (
        [f"rm -f {' '.join(new)}"] if new else [])
    graded = [t.split("::")[0] for t in task.tests_to_run()]
    directives = list(dict.fromkeys([f for f in modified + new if f.endswith(".py")] + graded))
    lines = ["#!/bin/bash", "set -uxo pipefail", f"cd {workdir}",
             f"git config --global --add safe.directory {workdir}", f"cd {workdir}",
             "git status", "git show", f"git -c core.fileMode=false diff {base}", *reset,
             f"git apply -v - <<'{_HEREDOC}'\n{task.test_patch}\n{_HEREDOC}",
             SRC_LAYOUT, ": '>>>>> Start Test Output'", "python3 -m pytest -rA -o addopts= " + " ".join(directives),
             ": '>>>>> End Test Output'", *reset]  # fmt: skip
    return "\n".join(lines) + "\n"


def _copy_to_container(container, data: bytes, dst: str) -> None:
    """The harness's `copy_to_container`: `mkdir -p` of the parent, then one archive."""
    path = PurePosixPath(dst)
    container.exec_run(f"mkdir -p {path.parent}")
    container.put_archive(str(path.parent), _tar({path.name: data.decode("utf-8", "surrogateescape")}))


def _exec_streamed(container, cmd: str) -> str:
    """The harness's `exec_run_with_timeout`: `exec_create`, then `exec_start` streamed."""
    exec_id = container.client.api.exec_create(container.id, cmd)["Id"]
    return b"".join(container.client.api.exec_start(exec_id, stream=True)).decode("utf-8", "replace")


def grade_like_the_harness(client, image: str, task: Task, diff: str, teardown: list[float]) -> float:
    """One grading as the SWE-bench harness does it (module docstring); returns the score and
    appends the seconds its `cleanup_container` took to `teardown`."""
    container = client.containers.create(image=image, user="root", detach=True, command="tail -f /dev/null")
    try:
        container.start()
        container.exec_run(["mkdir", "-p", task.workdir])
        container.put_archive(task.workdir, workspace_bytes(task))  # the instance image's /testbed
        if diff.strip():
            _copy_to_container(container, diff.encode("utf-8", "surrogateescape"), HARNESS_PATCH)
            for cmd in HARNESS_APPLY:
                if container.exec_run(f"{cmd} {HARNESS_PATCH}", workdir=task.workdir, user="root").exit_code == 0:
                    container.exec_run(f"find {task.workdir} -name '*.orig' -type f | head -1", workdir=task.workdir,
                                       user="root")  # fmt: skip
                    break
            else:
                return 0.0  # APPLY_PATCH_FAIL: the harness stops here
        container.exec_run("git -c core.fileMode=false diff", workdir=task.workdir)
        _copy_to_container(container, harness_eval_script(task).encode(), "/eval.sh")
        log = _exec_streamed(container, "/bin/bash /eval.sh")
        container.exec_run("git -c core.fileMode=false diff", workdir=task.workdir)
        return grade(task, outcomes_from_log(log, task.tests_to_run())).score
    finally:
        t0 = time.monotonic()
        try:
            container.stop(timeout=HARNESS_STOP_TIMEOUT)
        finally:
            container.remove(force=True)
            teardown.append(time.monotonic() - t0)


def grade_in_fresh_container(client, image: str, task: Task, diff: str) -> float:
    """One grading with the quickest teardown (the harness's way's lower bound); returns the score."""
    container = client.containers.run(image, command=["sleep", "infinity"], detach=True, user="root",
                                      network_mode="none", init=True)  # fmt: skip
    try:
        container.exec_run(["mkdir", "-p", task.workdir])
        container.put_archive(task.workdir, workspace_bytes(task))
        container.put_archive("/tmp", _tar({"fix.diff": diff, "test.diff": task.test_patch}))
        files = " ".join(dict.fromkeys(t.split("::")[0] for t in task.tests_to_run()))
        git = "git -c safe.directory='*'"
        apply_fix = f"{git} apply /tmp/fix.diff && " if diff.strip() else ""
        script = (f"{apply_fix}{git} apply /tmp/test.diff && {SRC_LAYOUT} && "
                  f"python3 -m pytest -rA -o addopts= -p no:cacheprovider {files}")  # fmt: skip
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
    teardown: list[float] = []
    try:
        for task in tasks:
            image = task.image or default_image(client)
            grader = SandboxGrader(pools[image], options=options)
            ways = {
                "pooled": lambda d, g=grader, t=task: g.grade(t, d).result.score,
                "harness": lambda d, i=image, t=task: grade_like_the_harness(client, i, t, d, teardown),
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
        print(f"  {label:50s} {rates[way]:6.1f} tasks/min   p50 {p50 * 1000:6.0f} ms per grading")
    print(f"  container per grading, p50: docker run + rm -f {overhead['fresh'] * 1000:.0f} ms, "
          f"the harness's stop(timeout=15) + remove {statistics.median(teardown) * 1000:.0f} ms, "
          f"pool acquire + release {overhead['pooled'] * 1000:.0f} ms")  # fmt: skip
    for way in ("harness", "fresh", "fresh-codegym"):
        print(f"  ratio pooled / {WAYS[way]:48s} {rates['pooled'] / rates[way]:6.2f}x")
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
        rates = {way: n / sum(r[way] for r in results) * 60 for way in WAYS}
        print(f"all suites: {n} tasks; " + ", ".join(f"{way} {rate:.1f} tasks/min" for way, rate in rates.items()))
        print("  ratios pooled / " + ", ".join(f"{way} {rates['pooled'] / rates[way]:.2f}x" for way in WAYS
                                              if way != "pooled"))  # fmt: skip


if __name__ == "__main__":
    main()
