"""The grading core, shared by the env's sandbox grader and the host-side validator.

Grading runs in a pristine copy of the task's workspace (never the agent's sandbox), in two
processes that never share a user:

1. **Prepare** (`codegym.tasks.grade_prep`, run by the grader's own executor before any of the
   agent's code runs): apply the agent's diff; take start-up and configuration files
   (`conftest.py`, pytest/tox/setup configuration, `sitecustomize`, `*.pth`,
   `*.dist-info`...) from `base_commit` only; replace every test directory by the base's and
   apply `test_patch` (the hidden tests exist only from here on); drop bytecode; give graded
   test files and functions fresh random names. Its inputs (the diffs, the plan) live in a
   directory only that user can read and are deleted before step 2.
2. **Run** (`codegym.tasks.grade_runner`, as `SandboxConfig.grader_user` on Docker): pytest
   with plugin autoload off and one plugin of ours, which reads the selection from stdin,
   shuffles the order and streams each test's outcome, as it happens, to a private channel.
   No test path is on the command line.
3. **Collect** (`codegym.tasks.grade_stream`, on the host): outcomes come from that stream,
   checked for consistency; a missing or inconsistent stream fails, it never passes. No
   report file the graded code could rewrite is read.

With `isolate_f2p`, every FAIL_TO_PASS test runs in a fresh process of its own, so state
(call counters, caches) cannot carry between the graded tests. A task with its own `test_cmd`
(a suite pytest cannot run) skips steps 2-3: its command runs as the grader user and a log
parser reads the outcomes (`codegym.tasks.log_parsers`; weaker: the graded code can print).

    io = SandboxIO(sandbox, task.workdir)              # or a host directory (validate --local)
    result, log = run_grading(task, agent_diff, io, grade_dir="/home/agent/.codegym-grade")
    result.resolved, result.score, result.status["stream"]

An environment failure (a `test_patch` that does not apply, no pytest, pytest refusing the
task's configuration) raises `GradingError`, never a 0 the agent earned; graded code that ends
its own run (killing pytest or the process relaying its events) fails every test.

PASS_TO_PASS tests that cannot even be collected (an import error, a missing dependency, a
file pytest cannot parse) are the agent's doing only if they can be collected at the base.
Given `base_io` (a fresh copy of the unchanged workspace), grading then collects them there,
with nothing of the agent's applied: uncollectable at base too raises `GradingError` (the
environment or the task is broken: the episode is masked); collectable at base leaves them
errors (the submission broke them, e.g. with a syntax error: it scores 0).
"""

from __future__ import annotations

import dataclasses
import json
import secrets
import shlex
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from codegym.sandbox import SandboxError
from codegym.tasks.grade_stream import SEVERITY, Outcome, collect
from codegym.tasks.task import Task

OUTCOMES: tuple[Outcome, ...] = ("passed", "failed", "error", "skipped", "missing")
PREP_SOURCE = Path(__file__).with_name("grade_prep.py").read_text()
RUNNER_SOURCE = Path(__file__).with_name("grade_runner.py").read_text()
EVENTS_LIMIT = 64 * 1024 * 1024  # bytes of events kept from one run


class GradingError(SandboxError):
    """The environment, not the submission, failed: the episode is masked, never scored."""


class GradingIO(Protocol):
    """Where grading runs: a sandbox (`codegym.envs.grader.SandboxIO`) or a host directory."""

    def write(self, path: str, data: bytes) -> None: ...

    def run(self, cmd: str, *, stdin: bytes = b"", as_grader: bool = False, timeout: float = 600.0): ...


#: opens `(io, workdir)` over a fresh, unchanged copy of a task's workspace (see `run_grading`).
BaseIO = Callable[[], AbstractContextManager[tuple[GradingIO, str]]]


@dataclass(frozen=True)
class GradingOptions:
    """How a submission is graded. `rename`: fresh random test file and function names;
    `isolate_f2p`: each FAIL_TO_PASS test runs in a fresh process of its own when the task has
    at most this many (0: never; each process costs a pytest start, ~50-100 ms:
    `benchmarks/grading.py`); `kill_strays`: kill the graded user's leftover processes before
    the run is declared finished (a disposable sandbox only)."""

    timeout_s: float = 600.0
    python: str = "python3"
    rename: bool = True
    isolate_f2p: int = 3
    kill_strays: bool = True

    def fingerprint(self) -> str:
        """What, besides the task and the diff, decides a grade (for the grade cache)."""
        return json.dumps([PREP_SOURCE, RUNNER_SOURCE, self.rename, self.isolate_f2p, self.python])


def _plan(task: Task, grade_dir: str, workdir: str, options: GradingOptions) -> dict:
    return {"base": task.base_commit, "workdir": workdir, "agent_patch": f"{grade_dir}/agent.diff",
            "test_patch": f"{grade_dir}/test.diff", "reset_paths": list(task.reset_paths()),
            "node_ids": list(task.tests_to_run()), "rename": options.rename}


def _groups(task: Task, isolate_f2p: int) -> list[list[str]]:
    """Which graded ids share a pytest process."""
    ids = list(task.tests_to_run())
    f2p = list(dict.fromkeys(task.FAIL_TO_PASS))
    if not f2p or len(f2p) > isolate_f2p:
        return [ids]
    rest = [i for i in ids if i not in f2p]
    return [[i] for i in f2p] + ([rest] if rest else [])


def _prepare(task: Task, agent_diff: str, io: GradingIO, grade_dir: str, workdir: str,
             options: GradingOptions) -> tuple[dict, str]:
    q = shlex.quote
    io.write(f"{grade_dir}/agent.diff", agent_diff.encode("utf-8", errors="surrogateescape"))
    io.write(f"{grade_dir}/test.diff", task.test_patch.encode("utf-8", errors="surrogateescape"))
    io.write(f"{grade_dir}/prep.py", PREP_SOURCE.encode())
    io.write(f"{grade_dir}/plan.json", json.dumps(_plan(task, grade_dir, workdir, options)).encode())
    gd = q(grade_dir)
    r = io.run(f"{q(options.python)} -I {gd}/prep.py {gd}/plan.json; rc=$?; rm -rf -- {gd}; exit $rc",
               timeout=options.timeout_s)
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    try:
        prep = json.loads(lines[-1])
    except (IndexError, ValueError):
        raise GradingError(f"preparing the grading tree of {task.instance_id} failed (exit {r.exit_code}): "
                           f"{(r.stdout + r.stderr).strip()[-600:]}") from None
    test_patch = prep["status"].get("test_patch", "")
    if test_patch.startswith("failed"):
        raise GradingError(f"the hidden tests of {task.instance_id} do not apply to its base_commit "
                           f"({test_patch}): the task is broken, not the submission")
    return prep, r.stderr


def _run_group(task: Task, io: GradingIO, prep: dict, group: list[str], options: GradingOptions,
               check_runner, collect_only: bool = False) -> tuple[dict[str, Outcome], dict[str, str], str]:
    originals, chosen = prep["ids"], set(group)
    renamed = [new for new, old in originals.items() if old in chosen]
    wanted_files = {new.split("::", 1)[0].split("[", 1)[0] for new in renamed}
    files = [f for f in prep["files"] if f in wanted_files]  # those that exist after preparation
    if not files:  # no graded file exists: nothing to run, every test is missing
        status = {"stream": "no test files", "uncollected": json.dumps([originals[k] for k in renamed])}
        return {originals[k]: "missing" for k in renamed}, status, ""
    nonce = secrets.token_hex(16)
    config = {"files": files, "ids": renamed, "expected": {f: prep["expected"].get(f, {}) for f in files},
              "nonce": nonce, "seed": secrets.randbelow(1 << 30), "pythonpath": [], "modules": prep.get("modules", []),
              "kill_strays": options.kill_strays, "collect_only": collect_only}
    r = io.run(f"{shlex.quote(options.python)} -I -B -c {shlex.quote(RUNNER_SOURCE)}",
               stdin=json.dumps(config).encode(), as_grader=True, timeout=options.timeout_s)
    outcomes, status = collect(r.stdout, nonce, renamed)
    if "uncollected" in status:
        status["uncollected"] = json.dumps([originals[k] for k in json.loads(status["uncollected"])])
    if status["stream"] == "usage_error":
        raise GradingError(f"pytest refused the configuration of {task.instance_id} (a usage error): "
                           f"{r.stderr.strip()[-600:]}")
    if status["stream"] == "empty":
        # No event at all, not even the one sent before any graded code is imported: either the
        # sandbox has no working pytest (masked, by check_runner) or the graded code ended the
        # run and its relay (the agent's own doing: every test fails).
        check_runner()
        outcomes = dict.fromkeys(renamed, "error")
    return {originals[k]: v for k, v in outcomes.items()}, status, r.stderr


def _run_test_cmd(task: Task, io: GradingIO, options: GradingOptions) -> tuple[dict[str, Outcome], str]:
    """A task's own test command, as the grader user; outcomes from its log (see `log_parsers`)."""
    from codegym.tasks.log_parsers import LOG_PARSERS

    wanted = list(task.tests_to_run())
    cmd = task.test_cmd.replace("{tests}", " ".join(shlex.quote(t) for t in wanted))
    r = io.run(cmd, as_grader=True, timeout=options.timeout_s)
    log = r.stdout + r.stderr
    return LOG_PARSERS[task.log_parser](log, wanted), log


def _few(ids: list[str], most: int = 3) -> str:
    return ", ".join(ids[:most]) + (f" (+{len(ids) - most} more)" if len(ids) > most else "")


def _uncollected_at_base(task: Task, ids: list[str], base_io: BaseIO, grade_dir: str, options: GradingOptions,
                         check_runner) -> str:
    """Collect the PASS_TO_PASS `ids` the submission's run could not collect, at the base (a fresh
    workspace, nothing of the agent's applied, the hidden tests added as always). Raises
    `GradingError` when they cannot be collected there either; else says so, for the status."""
    with base_io() as (io, workdir):
        prep, _ = _prepare(task, "", io, grade_dir, workdir, options)
        _, st, err = _run_group(task, io, prep, ids, options, check_runner, collect_only=True)
    at_base = json.loads(st.get("uncollected", "[]"))
    if at_base or st["stream"] != "complete":
        raise GradingError(
            f"PASS_TO_PASS tests of {task.instance_id} cannot be collected at its base_commit either "
            f"({_few(at_base or ids)}; stream {st['stream']}): the environment or the task is broken, not the "
            f"submission. {err.strip()[-600:]}")
    return f"{len(ids)} collected at base: the submission broke them ({_few(ids)})"


def run_grading(task: Task, agent_diff: str, io: GradingIO, *, grade_dir: str, workdir: str | None = None,
                options: GradingOptions | None = None, check_runner=lambda: None,
                base_io: BaseIO | None = None) -> tuple[GradeResult, str]:
    """Grade `agent_diff` (see the module docstring); returns the result and the log.

    `check_runner()` is called when a run produced no events at all; it raises `GradingError`
    when the environment has no working pytest. `base_io()`, when given, opens `(io, workdir)`: a
    `GradingIO` over a fresh, unchanged copy of the task's workspace at `workdir`; it is used only
    when PASS_TO_PASS tests could not be collected, to tell a broken environment (masked) from a
    broken submission (0)."""
    options = options or GradingOptions()
    workdir = workdir or task.workdir
    if task.test_cmd is not None:  # names and order belong to the task's runner: nothing to rename
        options = dataclasses.replace(options, rename=False)
    prep, log = _prepare(task, agent_diff, io, grade_dir, workdir, options)
    status: dict[str, str] = dict(prep["status"])
    wanted = list(task.tests_to_run())
    if status["agent_patch"] == "failed":
        return grade(task, dict.fromkeys(wanted, "missing"), status), log
    if task.test_cmd is not None:
        outcomes, cmd_log = _run_test_cmd(task, io, options)
        status["stream"] = f"log:{task.log_parser}"
        return grade(task, outcomes, status), log + cmd_log
    outcomes: dict[str, Outcome] = {}
    streams, tampering, uncollected = [], [], set()
    for group in _groups(task, options.isolate_f2p):
        outs, st, err = _run_group(task, io, prep, group, options, check_runner)
        for k, v in outs.items():
            if k not in outcomes or SEVERITY[v] > SEVERITY[outcomes[k]]:
                outcomes[k] = v
        streams.append(st["stream"])
        if "tampering" in st:
            tampering.append(st["tampering"])
        if not st["stream"].startswith("inconsistent"):
            uncollected.update(json.loads(st.get("uncollected", "[]")))
        log += err
    p2p_uncollected = [i for i in dict.fromkeys(task.PASS_TO_PASS) if i in uncollected]
    if p2p_uncollected and base_io is not None:
        status["p2p_uncollected"] = _uncollected_at_base(task, p2p_uncollected, base_io, grade_dir, options,
                                                         check_runner)
    for k in wanted:
        outcomes.setdefault(k, "missing")
    status["stream"] = next((s for s in streams if s != "complete"), "complete")
    status["processes"] = str(len(streams))
    status["renamed"] = json.dumps(prep.get("renamed", {}))
    if tampering:
        status["tampering"] = "; ".join(tampering)
    return grade(task, outcomes, status), log


def build_diff_script(
    base_commit: str, workdir: str = "/workspace", out_path: str = "/tmp/codegym-agent.diff"
) -> str:
    """The bash script that writes the agent's changes against `base_commit` to `out_path`
    (run in the agent's sandbox at submission). Uses a private index, so nothing the agent
    staged, stashed or committed changes the result; new files count, bytecode does not."""
    q = shlex.quote
    return f"""set -eu
cd -- {q(workdir)}
export GIT_INDEX_FILE="$(mktemp -u /tmp/codegym-index.XXXXXX)"
trap 'rm -f "$GIT_INDEX_FILE"' EXIT
g() {{ git -c safe.directory='*' -c core.hooksPath=/dev/null -c core.fsmonitor=false -c core.quotepath=off "$@"; }}
g add -A -- . ':(exclude,glob)**/__pycache__/**' ':(exclude,glob)**/*.py[co]'
g diff --cached --binary --no-color --no-ext-diff --no-renames {q(base_commit)} > {q(out_path)}
"""


@dataclass(frozen=True)
class GradeResult:
    """The outcome of grading one submission.

    `resolved` (and `score` = 1.0) when every FAIL_TO_PASS and PASS_TO_PASS test passed.
    """

    instance_id: str
    outcomes: Mapping[str, Outcome]
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    status: Mapping[str, str] = field(default_factory=dict)

    def _passed(self, ids: tuple[str, ...]) -> int:
        return sum(self.outcomes.get(i) == "passed" for i in ids)

    @property
    def f2p_passed(self) -> int:
        return self._passed(self.fail_to_pass)

    @property
    def p2p_passed(self) -> int:
        return self._passed(self.pass_to_pass)

    @property
    def f2p_fraction(self) -> float:
        return self.f2p_passed / len(self.fail_to_pass) if self.fail_to_pass else 1.0

    @property
    def p2p_fraction(self) -> float:
        return self.p2p_passed / len(self.pass_to_pass) if self.pass_to_pass else 1.0

    @property
    def resolved(self) -> bool:
        return (
            bool(self.fail_to_pass)
            and self.f2p_passed == len(self.fail_to_pass)
            and (self.p2p_passed == len(self.pass_to_pass))
        )

    @property
    def score(self) -> float:
        return 1.0 if self.resolved else 0.0

    def to_dict(self) -> dict:
        return {
            "instance_id": self.instance_id,
            "resolved": self.resolved,
            "f2p": [self.f2p_passed, len(self.fail_to_pass)],
            "p2p": [self.p2p_passed, len(self.pass_to_pass)],
            "outcomes": dict(self.outcomes),
            "status": dict(self.status),
        }


def grade(task: Task, outcomes: Mapping[str, Outcome], status: Mapping[str, str] | None = None) -> GradeResult:
    """Combine per-test outcomes (and grading status notes) into a result."""
    return GradeResult(
        instance_id=task.instance_id,
        outcomes=dict(outcomes),
        fail_to_pass=tuple(task.FAIL_TO_PASS),
        pass_to_pass=tuple(task.PASS_TO_PASS),
        status=dict(status or {}),
    )
