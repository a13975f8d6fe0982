"""The grading core, shared by the env's sandbox grader and the local validator.

Grading runs in a pristine copy of the task's workspace (never the agent's sandbox):

1. apply the agent's diff against `base_commit` (`git apply`, then `patch` as a fallback);
2. restore test configuration (`conftest.py`, `pytest.ini`, `tox.ini`, `setup.cfg`,
   `pyproject.toml`, `sitecustomize.py`) to `base_commit` wherever it exists there and
   delete it where the agent added it; delete bytecode;
3. restore the test files (`Task.reset_paths()`) to `base_commit`, then apply `test_patch`:
   the hidden tests exist only from here on;
4. run pytest on the graded files with a small plugin that keeps exactly the listed node ids
   (pytest aborts the whole run when one id on its command line is missing, so ids are
   passed in a file instead) and tags every JUnit case with its node id. pytest runs with
   `-p no:cacheprovider -o addopts=""`, in isolated mode (`python -I`) with the workspace at
   the *end* of `sys.path`, so files the agent adds cannot shadow pytest or the stdlib;
5. read per-test outcomes from the JUnit XML report, never from the exit code.

    script = build_grading_script(task)          # the env writes it, the diffs, then runs it
    sandbox.exec(f"bash {GRADE_DIR}/grade.sh", timeout=600)
    outcomes = parse_junit_xml(sandbox.read_file(f"{GRADE_DIR}/junit.xml"), task.tests_to_run())
    result = grade(task, outcomes)               # result.resolved, result.score, fractions

Write the script to a file and run that: a big test list makes it longer than one
command-line argument may be (128 KiB on Linux).
"""

from __future__ import annotations

import re
import shlex
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from codegym.tasks.task import Task, node_file

Outcome = Literal["passed", "failed", "error", "skipped", "missing"]
OUTCOMES: tuple[Outcome, ...] = ("passed", "failed", "error", "skipped", "missing")

GRADE_DIR = "/tmp/codegym-grade"
#: Files that configure pytest or Python start-up; grading takes them from base_commit.
CONFIG_FILES = ("conftest.py", "pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml",
                "sitecustomize.py", "usercustomize.py")  # fmt: skip
NODE_ID_PROPERTY = "codegym_nodeid"
PLUGIN_NAME = "codegym_select"
STATUS_PREFIX = "CODEGYM_GRADE"
MAX_JUNIT_BYTES = 64 * 1024 * 1024

# Loaded with -p; runs inside the graded pytest process. Keep it compatible with old pytest.
PLUGIN_SOURCE = f'''"""codegym: keep only the node ids listed in $CODEGYM_NODE_IDS; tag JUnit cases."""
import os


def _wanted():
    with open(os.environ["CODEGYM_NODE_IDS"], encoding="utf-8") as fh:
        return set(line.rstrip("\\n") for line in fh if line.strip())


def _selected(nodeid, wanted):
    if nodeid in wanted or nodeid.split("[", 1)[0] in wanted:
        return True
    parts = nodeid.split("::")  # a listed file or class selects what it holds
    return any("::".join(parts[:i]) in wanted for i in range(1, len(parts)))


def pytest_collection_modifyitems(config, items):
    wanted = _wanted()
    keep = [item for item in items if _selected(item.nodeid, wanted)]
    drop = [item for item in items if not _selected(item.nodeid, wanted)]
    if drop:
        config.hook.pytest_deselected(items=drop)
    items[:] = keep
    for item in keep:
        item.user_properties.append(("{NODE_ID_PROPERTY}", item.nodeid))


def _ancestors():
    pids, pid = set(), os.getpid()
    while pid > 1 and pid not in pids:
        pids.add(pid)
        try:
            with open("/proc/%d/stat" % pid) as fh:
                pid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return pids


def _kill_strays():
    """Kill every process of this user but this one and its ancestors: a process the graded code
    started (a fork, a detached child) must not outlive the tests to rewrite the report. Only in
    a grading sandbox (CODEGYM_KILL_STRAYS=1) and never as root: on a host it would kill the
    user's own programs."""
    import signal
    if os.environ.get("CODEGYM_KILL_STRAYS") != "1" or os.getuid() == 0:
        return
    spare, uid = _ancestors(), os.getuid()
    try:
        names = os.listdir("/proc")
    except OSError:
        return
    for name in names:
        if name.isdigit() and int(name) not in spare:
            try:
                if os.stat("/proc/" + name).st_uid == uid:
                    os.kill(int(name), signal.SIGKILL)
            except OSError:
                pass


try:
    import pytest

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(session, exitstatus):  # before the JUnit report is written
        _kill_strays()
except (ImportError, AttributeError):  # very old pytest: no hookimpl
    def pytest_sessionfinish(session, exitstatus):
        _kill_strays()
'''

# Run pytest without the working directory at the front of sys.path (python -I), then append
# it at the end so the repository stays importable without shadowing pytest or the stdlib.
# os._exit after the report: no atexit handler of the graded code runs after it is written.
_RUNNER = (
    "import os, sys; sys.path.insert(0, os.environ['CODEGYM_GRADE_DIR']); "
    "sys.path += [p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep) if p] + [os.getcwd()]; "
    "import pytest; code = int(pytest.main()); sys.stdout.flush(); sys.stderr.flush(); os._exit(code)"
)


def _heredoc(text: str, tag: str) -> str:
    if f"\n{tag}\n" in f"\n{text}\n":
        raise ValueError(f"text contains the heredoc terminator {tag}")
    return f"<<'{tag}'\n{text.rstrip(chr(10))}\n{tag}\n"


def build_grading_script(
    task: Task,
    *,
    agent_patch: str = f"{GRADE_DIR}/agent.diff",
    test_patch: str = f"{GRADE_DIR}/test.diff",
    junit_xml: str = f"{GRADE_DIR}/junit.xml",
    workdir: str | None = None,
    python: str = "python",
    timeout_s: float | None = None,
    kill_strays: bool = False,
) -> str:
    """The bash script that grades `task` in a pristine workspace (see the module docstring).

    `kill_strays` (only for a disposable sandbox whose user runs nothing else: the env's grader)
    kills every other process of the user before the report is written.

    The caller puts the agent's diff at `agent_patch` (empty or absent = no change) and
    `task.test_patch` at `test_patch`, runs the script, then reads `junit_xml`. The script
    prints `CODEGYM_GRADE <stage> <result>` lines (see `parse_grade_log`); a failure before
    the tests ran leaves no report, so every test reads as missing.
    """
    q = shlex.quote
    grade_dir = junit_xml.rsplit("/", 1)[0] or "/"
    config_re = "(^|/)(" + "|".join(re.escape(n) for n in CONFIG_FILES) + ")$"
    find_names = " -o ".join(f"-name {q(n)}" for n in CONFIG_FILES)
    reset = " ".join(q(p) for p in task.reset_paths())
    files = " ".join(q(f) for f in dict.fromkeys(node_file(n) for n in task.tests_to_run()))
    limit = f"timeout -k 10 {int(timeout_s)} " if timeout_s else ""
    return f"""#!/usr/bin/env bash
# Grades task {task.instance_id}: built by codegym.tasks.grading.build_grading_script.
set -u
export PYTHONDONTWRITEBYTECODE=1
unset PYTEST_ADDOPTS PYTEST_PLUGINS
BASE={q(task.base_commit)}
AGENT_PATCH={q(agent_patch)}
TEST_PATCH={q(test_patch)}
JUNIT={q(junit_xml)}
GRADE_DIR={q(grade_dir)}
g() {{ git -c safe.directory='*' -c core.hooksPath=/dev/null -c core.fsmonitor=false -c core.quotepath=off "$@"; }}
say() {{ echo "{STATUS_PREFIX} $*"; }}
cd -- {q(workdir or task.workdir)} || {{ say workdir missing; exit 2; }}
mkdir -p -- "$GRADE_DIR" && rm -f -- "$JUNIT"

# 1. The agent's changes.
if [ -s "$AGENT_PATCH" ]; then
  if g apply --binary --whitespace=nowarn -- "$AGENT_PATCH"; then say agent_patch applied
  elif command -v patch >/dev/null && patch --batch --forward -p1 --dry-run -i "$AGENT_PATCH" >/dev/null \\
       && patch --batch --forward -p1 -i "$AGENT_PATCH" >/dev/null; then say agent_patch fuzzy
  else say agent_patch failed; exit 3; fi
else say agent_patch empty; fi

# 2. Test configuration and bytecode: base_commit's, never the agent's.
g ls-tree -r --name-only "$BASE" | grep -E {q(config_re)} | while IFS= read -r f; do
  g checkout -q "$BASE" -- "$f"
done
find . -path ./.git -prune -o \\( {find_names} \\) -print0 | while IFS= read -r -d '' f; do
  g cat-file -e "$BASE:${{f#./}}" 2>/dev/null || rm -rf -- "$f"
done
find . -path ./.git -prune -o \\( -name __pycache__ -o -name '*.py[co]' \\) -print0 | xargs -0 -r rm -rf --

# 3. Test files back to base_commit (gone where absent there), then the hidden tests.
for f in {reset}; do
  if g cat-file -e "$BASE:$f" 2>/dev/null; then g checkout -q "$BASE" -- "$f"; else rm -rf -- "$f"; fi
done
if [ -s "$TEST_PATCH" ]; then
  if g apply --binary --whitespace=nowarn -- "$TEST_PATCH"; then say test_patch applied
  else say test_patch failed; exit 4; fi
fi

# 4. The graded tests, and only them.
cat > "$GRADE_DIR/{PLUGIN_NAME}.py" {_heredoc(PLUGIN_SOURCE, "CODEGYM_PLUGIN_EOF")}
cat > "$GRADE_DIR/node_ids.txt" {_heredoc(chr(10).join(task.tests_to_run()), "CODEGYM_NODE_IDS_EOF")}
files=()
for f in {files}; do [ -e "$f" ] && files+=("$f"); done
if [ "${{#files[@]}}" -eq 0 ]; then say tests none; exit 0; fi
CODEGYM_GRADE_DIR="$GRADE_DIR" CODEGYM_NODE_IDS="$GRADE_DIR/node_ids.txt" CODEGYM_KILL_STRAYS={int(kill_strays)} \\
  {limit}{q(python)} -I -B --check-hash-based-pycs always -c {q(_RUNNER)} \\
  -p {PLUGIN_NAME} -p no:cacheprovider -o addopts="" -o junit_family=xunit1 \\
  --rootdir=. --continue-on-collection-errors --junitxml="$JUNIT" -q -- "${{files[@]}}"
say tests exit=$?
"""


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


def parse_grade_log(output: str) -> dict[str, str]:
    """`{stage: result}` from the script's `CODEGYM_GRADE` lines, e.g.
    `{"agent_patch": "applied", "test_patch": "applied", "tests": "exit=1"}`."""
    status: dict[str, str] = {}
    for line in output.splitlines():
        parts = line.strip().split(" ", 2)
        if len(parts) == 3 and parts[0] == STATUS_PREFIX:
            status[parts[1]] = parts[2]
    return status


def mangle_node_id(node_id: str) -> tuple[str, str]:
    """The (classname, name) pytest's JUnit report gives a node id (as `_pytest.junitxml`)."""
    path, bracket, params = node_id.partition("[")
    names = path.split("::")
    names[0] = re.sub(r"\.py$", "", names[0].replace("/", "."))
    names[-1] += bracket + params
    return ".".join(names[:-1]), names[-1]


_SEVERITY = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}


def _case_outcome(case: ET.Element) -> Outcome:
    outcome: Outcome = "passed"
    for child in case:
        tag = {"failure": "failed", "error": "error", "skipped": "skipped"}.get(child.tag)
        if tag and _SEVERITY[tag] > _SEVERITY[outcome]:
            outcome = tag  # type: ignore[assignment]
    return outcome


def parse_junit_xml(
    xml_text: str | bytes | None, node_ids: Iterable[str] | None = None
) -> dict[str, Outcome]:
    """Per-test outcomes from a pytest JUnit XML report.

    With `node_ids`, the result has exactly those keys; an id the report lacks is `missing`,
    and every listed id in a file that failed to import is `error`. Without them, every case
    in the report, keyed by node id. A test reported twice (say, failed and then errored in
    teardown) keeps its worst outcome. An absent or unreadable report gives all `missing`.
    """
    by_node: dict[str, Outcome] = {}
    by_mangled: dict[tuple[str, str], Outcome] = {}
    broken_modules: set[str] = set()

    def worst(table: dict, key, outcome: Outcome) -> None:
        if key not in table or _SEVERITY[outcome] > _SEVERITY[table[key]]:
            table[key] = outcome

    root = None
    if xml_text and len(xml_text) <= MAX_JUNIT_BYTES:
        try:
            root = ET.fromstring(xml_text)
        except ET.ParseError:
            root = None
    for case in root.iter("testcase") if root is not None else ():
        classname, name = case.get("classname", ""), case.get("name", "")
        outcome = _case_outcome(case)
        if not classname and outcome == "error":  # a module that failed to collect
            broken_modules.add(name)
            continue
        prop = case.find(f"properties/property[@name='{NODE_ID_PROPERTY}']")
        if prop is not None and prop.get("value"):
            worst(by_node, prop.get("value"), outcome)
        worst(by_mangled, (classname, name), outcome)

    if node_ids is None:
        result = dict(by_node)
        if not by_node:
            result = {f"{c}::{n}" if c else n: o for (c, n), o in by_mangled.items()}
        return result
    result: dict[str, Outcome] = {}
    for node_id in node_ids:
        if node_id in by_node:
            result[node_id] = by_node[node_id]
        elif mangle_node_id(node_id) in by_mangled:
            result[node_id] = by_mangled[mangle_node_id(node_id)]
        elif under := [o for n, o in by_node.items() if n.startswith((f"{node_id}[", f"{node_id}::"))]:
            # A function listed without its parameters, or a whole class or file: the worst
            # of the tests it holds.
            result[node_id] = max(under, key=_SEVERITY.__getitem__)
        elif mangle_node_id(node_file(node_id))[1] in broken_modules:
            result[node_id] = "error"
        else:
            result[node_id] = "missing"
    return result


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


def grade(task: Task, outcomes: Mapping[str, Outcome], log: str = "") -> GradeResult:
    """Combine parsed outcomes (and the script's output, for its status lines) into a result."""
    return GradeResult(
        instance_id=task.instance_id,
        outcomes=dict(outcomes),
        fail_to_pass=tuple(task.FAIL_TO_PASS),
        pass_to_pass=tuple(task.PASS_TO_PASS),
        status=parse_grade_log(log),
    )
