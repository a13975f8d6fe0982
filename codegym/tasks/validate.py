"""Check, without Docker, that a task grades the way it claims to.

A task is valid when, on a host copy of its prepared workspace and with the grading script
the env runs in its sandbox (`codegym.tasks.grading`):

- the workspace holds none of the hidden test files and none of the upstream refs;
- the empty submission leaves every FAIL_TO_PASS test failing and every PASS_TO_PASS test
  passing (score 0);
- the reference `patch` makes every graded test pass (score 1);
- the reference patch touches no test file.

    result = validate_task_locally(task)
    assert result.ok, result.problems

With `repeats=N` both submissions are graded N times: a test whose outcome differs across the
runs of one submission is flaky (`result.flaky` maps it to its flake rate) and is judged no
further; the task stays valid when a stable FAIL_TO_PASS test is left. `validate_in_sandboxes`
does the same through real env episodes (and probes the agent's sandbox for leaks), and
`write_valid` writes a task file without the broken tasks and the flaky tests:

    results = validate_tasks(tasks, repeats=3)
    write_valid("tasks.jsonl", results, "valid.jsonl")
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from codegym.sandbox.base import ExecResult
from codegym.tasks.gitrepo import GIT_ENV
from codegym.tasks.grading import GradeResult, GradingError, GradingOptions, run_grading
from codegym.tasks.task import Task
from codegym.tasks.workspace import workspace_archive


@dataclass
class ValidationResult:
    """What validating one task found; `ok` when `problems` is empty."""

    instance_id: str
    problems: list[str] = field(default_factory=list)
    empty: GradeResult | None = None
    reference: GradeResult | None = None
    seconds: float = 0.0
    #: flaky graded tests -> flake rate (runs whose outcome differs from the test's usual one
    #: for that submission, over all runs of both submissions)
    flaky: dict[str, float] = field(default_factory=dict)
    repeats: int = 1

    @property
    def ok(self) -> bool:
        """No problem: the task is valid once its flaky tests are removed."""
        return not self.problems


def flake_rates(runs_by_submission: Iterable[list[dict[str, str]]], tests: Iterable[str]) -> dict[str, float]:
    """The tests whose outcome differs across the runs of one submission, with their flake rate:
    the runs whose outcome is not the test's most common one for that submission, over all runs."""
    groups = [runs for runs in runs_by_submission if runs]
    total = sum(len(runs) for runs in groups)
    rates: dict[str, float] = {}
    for test in tests:
        odd = 0
        for runs in groups:
            seen = [run.get(test, "missing") for run in runs]
            odd += len(seen) - max(seen.count(o) for o in set(seen))
        if odd:
            rates[test] = odd / total
    return rates


def judge_outcomes(task: Task, empty_runs: list[dict[str, str]],
                   reference_runs: list[dict[str, str]]) -> tuple[list[str], dict[str, float]]:
    """Problems and flaky tests from the per-test outcomes of graded runs of the empty and the
    reference submission: every stable FAIL_TO_PASS test fails at base and passes with the
    reference, every stable PASS_TO_PASS test passes with both, and a FAIL_TO_PASS test is left."""
    flaky = flake_rates((empty_runs, reference_runs), task.tests_to_run())

    def stable(ids: Iterable[str], runs: list[dict[str, str]], bad: Callable[[str], bool]) -> dict[str, str]:
        return {i: runs[0].get(i, "missing") for i in ids if i not in flaky and runs and bad(runs[0].get(i, "missing"))}

    problems = []
    if empty_runs:
        f2p = stable(task.FAIL_TO_PASS, empty_runs, lambda o: o == "passed")
        p2p = stable(task.PASS_TO_PASS, empty_runs, lambda o: o != "passed")
        if f2p:
            problems.append(f"FAIL_TO_PASS tests pass without a fix: {_outcomes(f2p)}")
        if p2p:
            problems.append(f"PASS_TO_PASS tests fail at base: {_outcomes(p2p)}")
    if reference_runs:
        bad = stable(task.tests_to_run(), reference_runs, lambda o: o != "passed")
        if bad:
            problems.append(f"tests that do not pass with the reference patch: {_outcomes(bad)}")
    if (empty_runs or reference_runs) and all(i in flaky for i in task.FAIL_TO_PASS):
        problems.append("no FAIL_TO_PASS test is left once the flaky ones are removed")
    return problems, flaky


def _outcomes(outcomes: dict[str, str], most: int = 5) -> str:
    shown = ", ".join(f"{i}={o}" for i, o in list(outcomes.items())[:most])
    return shown + (f" (+{len(outcomes) - most} more)" if len(outcomes) > most else "")


def _add(problems: list[str], problem: str) -> None:
    if problem not in problems:
        problems.append(problem)


def _extract(archive: Path, dest: Path) -> None:
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(dest, filter="data")
        else:  # Python < 3.11.4: the archive is ours, written by write_workspace_tar
            tar.extractall(dest)


class HostIO:
    """`GradingIO` on this host: commands run in `workdir` as the current user (no second user
    here: validation grades the task's own reference, not an agent)."""

    def __init__(self, workdir: Path):
        self.workdir = workdir

    def write(self, path: str, data: bytes) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_bytes(data)

    def run(self, cmd: str, *, stdin: bytes = b"", as_grader: bool = False, timeout: float = 600.0):
        # Entry-point plugins of the host's environment are not part of any task.
        env = {**os.environ, **GIT_ENV, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        try:
            proc = subprocess.run(["bash", "-c", cmd], input=stdin, capture_output=True, env=env,
                                  timeout=timeout, cwd=self.workdir)
            return ExecResult(proc.returncode, proc.stdout.decode("utf-8", "replace"),
                              proc.stderr.decode("utf-8", "replace"))
        except subprocess.TimeoutExpired as e:
            return ExecResult(-9, (e.stdout or b"").decode("utf-8", "replace"),
                              (e.stderr or b"").decode("utf-8", "replace") + f"\ntimed out after {timeout}s",
                              timed_out=True)


def run_grading_locally(
    task: Task,
    workspace: Path,
    agent_patch: str,
    *,
    python: str = sys.executable,
    timeout_s: float = 300,
    base_workspace: Callable[[], Path] | None = None,
) -> tuple[GradeResult, str]:
    """Grade `agent_patch` in an extracted `workspace` on this host, with the same preparation,
    runner and collector the env uses in its sandbox. Returns the result and the log.
    `base_workspace()`, when given, extracts a fresh copy of the workspace: where PASS_TO_PASS
    tests that could not be collected are collected at the base (see `run_grading`)."""
    grade_dir = workspace.parent / f"{workspace.name}-grade"
    options = GradingOptions(timeout_s=timeout_s, python=python, kill_strays=False)

    @contextlib.contextmanager
    def base_io():
        fresh = base_workspace()
        yield HostIO(fresh), str(fresh)

    return run_grading(task, agent_patch, HostIO(workspace), grade_dir=str(grade_dir), workdir=str(workspace),
                       options=options, base_io=base_io if base_workspace else None)


def _reachable_refs(workspace: Path, refs: Iterable[str]) -> list[str]:
    """The refs (shas, tags, versions) that resolve to an object in the workspace's git."""
    refs = [r for r in refs if r and "\n" not in r]
    if not refs:
        return []
    proc = subprocess.run(
        ["git", "-c", "safe.directory=*", "cat-file", "--batch-check"],
        input="\n".join(refs) + "\n",
        capture_output=True,
        text=True,
        cwd=workspace,
        env={**os.environ, **GIT_ENV},
        check=True,
    )
    return [
        ref
        for ref, line in zip(refs, proc.stdout.splitlines(), strict=False)
        if not line.endswith(" missing")
    ]


def _stop_cause(label: str, status) -> str:
    """Which grading stage stopped the run, in words, with the raw status after it."""
    if status.get("agent_patch") not in ("applied", "empty"):
        what = f"the {label} patch does not apply"
    elif status.get("test_patch") != "applied":
        what = "the test patch (hidden tests) does not apply"
    else:
        what = "grading stopped early"
    return f"{what} (grading status {dict(status)})"


def validate_task_locally(
    task: Task, *, python: str = sys.executable, timeout_s: float = 300, repeats: int = 1
) -> ValidationResult:
    """Validate one task on this host, grading each submission `repeats` times (see the module
    docstring)."""
    start = time.monotonic()
    res = ValidationResult(task.instance_id, repeats=repeats)
    if not task.patch.strip():
        res.problems.append("no reference patch")
    touched_tests = set(task.patch_files()) & set(task.reset_paths())
    if touched_tests:
        res.problems.append(f"reference patch touches test files {sorted(touched_tests)}")
    try:
        archive = workspace_archive(task)
    except Exception as e:  # noqa: BLE001 - reported, not raised: one broken task must not stop a suite
        res.problems.append(f"workspace: {e}")
        res.seconds = time.monotonic() - start
        return res
    runs: dict[str, list[dict[str, str]]] = {"empty": [], "reference": []}
    logs: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix=f"codegym-validate-{task.instance_id}-") as tmp:
        for n in range(max(1, repeats)):
            for label, patch in (("empty", ""), ("reference", task.patch)):
                ws = Path(tmp) / f"{label}-{n}"
                _extract(archive, ws)
                if label == "empty" and n == 0:
                    present = [p for p in task.hidden_test_files() if (ws / p).exists()]
                    if present:
                        res.problems.append(f"hidden test files present in the workspace: {present}")
                    leaked = _reachable_refs(ws, task.upstream_refs)
                    if leaked:
                        res.problems.append(f"upstream refs reachable from the workspace: {leaked}")
                try:
                    result, log = run_grading_locally(task, ws, patch, python=python, timeout_s=timeout_s)
                except GradingError as e:
                    _add(res.problems, f"{label}: {e}")
                    continue
                setattr(res, label, result)
                if result.status.get("test_patch") != "applied" or result.status.get("agent_patch") not in (
                    "applied",
                    "empty",
                ):
                    if not any(p.startswith(f"{label}: ") for p in res.problems):
                        res.problems.append(f"{label}: {_stop_cause(label, result.status)}\n{log[-2000:]}")
                    continue
                runs[label].append(dict(result.outcomes))
                logs[label] = log
    problems, res.flaky = judge_outcomes(task, runs["empty"], runs["reference"])
    for problem in problems:
        if problem.startswith("tests that do not pass with the reference patch"):
            problem += f"\n{logs.get('reference', '')[-2000:]}"
        res.problems.append(problem)
    res.seconds = time.monotonic() - start
    return res


def validate_tasks(
    tasks: Iterable[Task],
    *,
    jobs: int = 2,
    python: str = sys.executable,
    on_result: Callable[[ValidationResult], None] | None = None,
    repeats: int = 1,
) -> list[ValidationResult]:
    """Validate many tasks, `jobs` at a time (each runs its own pytest processes), each
    submission graded `repeats` times."""
    tasks = list(tasks)
    # Build workspaces one by one first: each is a few git processes, cached afterwards.
    for task in tasks:
        try:
            workspace_archive(task)
        except Exception:  # noqa: BLE001 - validate_task_locally reports it
            pass

    def one(task: Task) -> ValidationResult:
        result = validate_task_locally(task, python=python, repeats=repeats)
        if on_result:
            on_result(result)
        return result

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, tasks))


#: run in the agent's sandbox right after reset (python3 is in every sandbox image): prints
#: `HIDDEN path` for a hidden test file present, `REF ref` for an upstream ref that resolves and
#: `FUTURE sha` for a commit object that is not an ancestor of HEAD (base_commit).
_LEAK_PROBE = r"""
import json, os, subprocess, sys
spec = json.loads(sys.stdin.read())
for path in spec["hidden"]:
    if os.path.lexists(path):
        print("HIDDEN", path)
def git(*args, stdin=""):
    return subprocess.run(["git", "-c", "safe.directory=*", *args], input=stdin, capture_output=True, text=True)
if git("rev-parse", "--git-dir").returncode == 0:
    refs = [r for r in spec["refs"] if r and "\n" not in r]
    if refs:
        out = git("cat-file", "--batch-check", stdin="\n".join(refs) + "\n").stdout.splitlines()
        for ref, line in zip(refs, out):
            if not line.endswith(" missing"):
                print("REF", ref)
    objects = git("cat-file", "--batch-all-objects", "--batch-check=%(objecttype) %(objectname)").stdout.split("\n")
    commits = {line.split()[1] for line in objects if line.startswith("commit ")}
    ancestors = set(git("rev-list", "HEAD").stdout.split())
    for sha in sorted(commits - ancestors)[:5]:
        print("FUTURE", sha)
"""


def leak_problems(sandbox, task: Task) -> list[str]:
    """What of the future leaks into an agent's sandbox: hidden test files present, upstream refs
    that resolve, commits that are not ancestors of base_commit (later history, tags, stashes,
    reflog, unreachable objects in packs)."""
    spec = json.dumps({"hidden": list(task.hidden_test_files()), "refs": list(task.upstream_refs)})
    result = sandbox.exec("python3 -c \"$CODEGYM_PROBE\"", timeout=120, workdir=task.workdir,
                          env={"CODEGYM_PROBE": _LEAK_PROBE}, stdin=spec.encode())
    if result.exit_code != 0:
        return [f"leak probe failed in the sandbox (exit {result.exit_code}): {result.stderr.strip()[-300:]}"]
    found: dict[str, list[str]] = {}
    for line in result.stdout.splitlines():
        kind, _, what = line.partition(" ")
        found.setdefault(kind, []).append(what)
    words = {"HIDDEN": "hidden test files present in the sandbox",
             "REF": "upstream refs reachable in the sandbox",
             "FUTURE": "commits that are not ancestors of base_commit reachable in the sandbox"}
    return [f"{words[kind]}: {found[kind]}" for kind in words if kind in found]


def validate_in_sandboxes(
    tasks: Iterable[Task],
    *,
    repeats: int = 1,
    backend: str = "auto",
    workers: int = 4,
    progress: bool = False,
) -> list[ValidationResult]:
    """Validate tasks through real env episodes: each repeat, the oracle applies the reference
    patch with the bash tool and submits, and an empty agent submits at once; the grader's
    per-test outcomes are judged as `validate_task_locally`'s. The first empty episode of each
    task also probes its sandbox for leaks (`leak_problems`)."""
    import gymnasium as gym

    from codegym.agents import OracleAgent, ScriptedAgent
    from codegym.envs import CodingEnv, run_episodes
    from codegym.evaluation import EpisodeEnd, failure_cause

    class LeakProbe(gym.Wrapper):
        def __init__(self, env, sink: dict[str, list[str]]):
            super().__init__(env)
            self.sink = sink

        def reset(self, **kwargs):
            obs, info = self.env.reset(**kwargs)
            inner = self.env.unwrapped
            self.sink[inner.task.instance_id] = leak_problems(inner.sandbox, inner.task)
            return obs, info

    tasks = list(tasks)
    ids = [t.instance_id for t in tasks]
    start = time.monotonic()
    results = {t.instance_id: ValidationResult(t.instance_id, repeats=repeats) for t in tasks}
    runs: dict[str, dict[str, list[dict[str, str]]]] = {i: {"empty": [], "reference": []} for i in ids}
    leaks: dict[str, list[str]] = {}
    for n in range(max(1, repeats)):
        for label, agent, want in (("reference", OracleAgent(tasks), 1.0), ("empty", ScriptedAgent([]), 0.0)):
            ends: dict[str, dict] = {}

            def make(ends=ends, probe=label == "empty" and n == 0):
                env = EpisodeEnd(CodingEnv(tasks, backend=backend), ends)
                return LeakProbe(env, leaks) if probe else env

            for rec in run_episodes(make, agent, ids, max_workers=workers, progress=progress):
                end = ends.get(rec.task_id, {})
                info = end.get("info") or {}
                status = info.get("grade_status") or {}
                graded = (not rec.error and not info.get("sandbox_error") and rec.train_mask
                          and status.get("agent_patch") in ("applied", "empty")
                          and status.get("test_patch") == "applied" and bool(rec.tests))
                if graded and not (want == 1.0 and end.get("failed_commands")):
                    runs[rec.task_id][label].append(dict(rec.tests))
                else:
                    task = next(t for t in tasks if t.instance_id == rec.task_id)
                    name = "reference" if want == 1.0 else "empty submission"
                    cause = failure_cause(rec, end, task, should_pass=want == 1.0)
                    _add(results[rec.task_id].problems, f"{name} scored {rec.reward}: {cause}")
    for task in tasks:
        res = results[task.instance_id]
        res.problems.extend(leaks.get(task.instance_id, []))
        problems, res.flaky = judge_outcomes(task, runs[task.instance_id]["empty"],
                                             runs[task.instance_id]["reference"])
        res.problems.extend(p for p in problems if p not in res.problems)
        res.seconds = time.monotonic() - start
    return [results[i] for i in ids]


def write_valid(source: str | Path, results: Iterable[ValidationResult], out: str | Path) -> tuple[int, int]:
    """Write `source`'s lines (a task JSONL file) to `out` without the tasks that are not valid
    and without their flaky tests; a task that did not validate at all (not in `results`) is left
    out too. Lines keep their form (a SWE-bench row stays one); a relative `repo` path is
    rewritten for `out`'s folder. Returns (tasks written, flaky tests removed)."""
    source, out = Path(source), Path(out)
    by_id = {r.instance_id: r for r in results}
    written = removed = 0
    lines = []
    for text in source.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(text)
        except json.JSONDecodeError:
            continue
        result = by_id.get(row.get("instance_id")) if isinstance(row, dict) else None
        if result is None or not result.ok:
            continue
        for name in ("FAIL_TO_PASS", "PASS_TO_PASS"):
            value = row.get(name)
            if value is None:
                continue
            as_text = isinstance(value, str)
            tests = (json.loads(value) if value.strip() else []) if as_text else list(value)
            kept = [t for t in tests if t not in result.flaky]
            removed += len(tests) - len(kept)
            row[name] = json.dumps(kept) if as_text else kept
        repo = row.get("repo")
        if isinstance(repo, str) and not Path(repo).is_absolute() and (source.parent / repo).exists() \
                and source.parent.resolve() != out.parent.resolve():
            row["repo"] = str((source.parent / repo).resolve())
        lines.append(json.dumps(row) + "\n")
        written += 1
    out.write_text("".join(lines), encoding="utf-8")
    return written, removed


def summary(source: str, results: list[ValidationResult], load_errors: int = 0) -> list[str]:
    """The closing lines of a validation report: tasks valid / total, the flaky tests with their
    rates, and each broken task with a one-line reason."""
    valid = sum(r.ok for r in results)
    flaky = [(r.instance_id, t, rate) for r in results for t, rate in r.flaky.items()]
    lines = [f"flaky {tid} {test} ({rate:.0%} of runs)" for tid, test, rate in flaky]
    lines += [f"broken {r.instance_id}: {r.problems[0].splitlines()[0]}" for r in results if not r.ok]
    repeats = max((r.repeats for r in results), default=1)
    lines.append(f"{source}: {valid}/{len(results)} tasks valid, {load_errors} load error(s), "
                 f"{len(flaky)} flaky test(s), {len(results) - valid} broken"
                 + (f", {repeats} runs of each submission" if repeats > 1 else ""))
    return lines
