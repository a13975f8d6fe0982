"""Harbor task folders written elsewhere: loaded into `Task`s graded by their own test.sh reward.

Harbor's contract (https://harborframework.com/docs/tasks): the agent works in the container of
environment/Dockerfile (its WORKDIR); after the agent, tests/ is copied to /tests and
`bash /tests/test.sh` runs, writing the reward to /logs/verifier/reward.txt (a number) or
/logs/verifier/reward.json (`{"reward": 0.75}`); solution/solve.sh is the oracle. codegym maps it:

- environment: the task's Dockerfile (context environment/) plus a few lines that make its WORKDIR
  (default `/app`) a git repository whose one commit, branch `main`, is `base_commit`, owned by
  the sandbox user; /logs links to /tmp/codegym-harbor-logs (the sandbox's root file system is
  read-only) and /tests to `<workdir>/.codegym-harbor/tests`, absent in the agent's sandbox.
- hidden tests: `test_patch` adds tests/ under `.codegym-harbor/tests/`, so they exist only in the
  grading sandbox (a pristine one built from the agent's diff, as for every task).
- grading: `test_cmd` runs test.sh as the grader user, within [verifier] timeout_sec, with
  [verifier] env; the `harbor` log parser (`codegym.tasks.log_parsers.parse_harbor`) turns the
  reward into one outcome, `reward`: passed when reward >= the threshold (1.0, or
  [metadata] reward_threshold). A missing or non-numeric reward masks the episode (GradingError).
- oracle: solution/ is kept in `metadata["harbor"]["oracle_command"]` (never in the agent's
  sandbox); `OracleAgent` runs it with the bash tool (solve.sh, in the workdir).

    data = foreign_task_dict(Path("hello-world"), tomllib.loads(Path("hello-world/task.toml").read_text()))
    task = task_from_dict(data, file=Path("hello-world/task.toml"), line=1)
"""

from __future__ import annotations

import base64
import hashlib
import io
import math
import re
import shlex
import subprocess
import tarfile
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

from codegym.tasks.environment import BASE_ARG
from codegym.tasks.loader import TaskLoadError
from codegym.tasks.workspace import WORKSPACE_BRANCH

#: the agent's working directory when the Dockerfile sets no WORKDIR (Harbor's tasks use /app).
DEFAULT_HARBOR_WORKDIR = "/app"
#: where test_patch puts tests/ in the grading tree; /tests links to it.
TESTS_IN_WORKDIR = ".codegym-harbor/tests"
#: where /logs points: the sandbox's root file system is read-only, /tmp is not.
LOGS_DIR = "/tmp/codegym-harbor-logs"
#: the one graded outcome of a Harbor task.
REWARD_ID = "reward"
#: the line test_cmd prints last, which the `harbor` log parser reads.
RESULT_MARK = "codegym-harbor-result"
_WORKDIR = re.compile(r"^\s*WORKDIR\s+(.+?)\s*$", re.IGNORECASE)
_FROM = re.compile(r"^\s*FROM\s", re.IGNORECASE)


def dockerfile_workdir(text: str) -> str | None:
    """The last WORKDIR of the Dockerfile's last stage (relative ones joined), None when unset."""
    workdir: str | None = None
    for line in text.splitlines():
        if _FROM.match(line):
            workdir = None
        m = _WORKDIR.match(line)
        if m:
            value = m.group(1).strip().strip('"').strip("'")
            if "$" in value:
                raise ValueError(f"WORKDIR {value!r} uses a variable: codegym needs a literal path")
            workdir = str(PurePosixPath(workdir or "/") / value) if not value.startswith("/") else value
    return workdir


def _setup_lines(workdir: str) -> str:
    q = shlex.quote(workdir)
    git = (
        "git -c safe.directory='*' -c user.name=harbor -c user.email=harbor@codegym.invalid -c init.defaultBranch="
        + WORKSPACE_BRANCH
    )
    return (
        "\n# codegym: the workdir as a git repository (base_commit: its one commit on main), /tests for\n"
        "# the verifier only (empty until grading), /logs on /tmp (the root file system is read-only)\n"
        "USER root\n"
        f"RUN mkdir -p {q} && rm -rf /logs /tests && ln -s {LOGS_DIR} /logs "
        f"&& ln -s {q}/{TESTS_IN_WORKDIR} /tests && cd {q} "
        f"&& {{ [ -d .git ] || {git} init -q; }} && {{ {git} checkout -q -B {WORKSPACE_BRANCH} 2>/dev/null || true; }} "
        f"&& {git} add -A && {git} commit -q --allow-empty -m 'harbor task environment' "
        f"&& chown -R 1000:1000 {q}\n"
        f"WORKDIR {workdir}\n"
    )


def _tests_patch(tests: Path, fingerprint: str) -> str:
    """A git diff adding every file of `tests` under TESTS_IN_WORKDIR (modes and binaries kept),
    and `.codegym-harbor/fingerprint`: the environment and the grading command, hashed, so that
    the grade cache (keyed by test_patch) never reuses a grade across a changed environment."""
    with tempfile.TemporaryDirectory(prefix="codegym-harbor-tests-") as tmp:
        dest = Path(tmp) / TESTS_IN_WORKDIR
        dest.parent.mkdir(parents=True)
        subprocess.run(["cp", "-a", str(tests), str(dest)], check=True)
        (dest.parent / "fingerprint").write_text(fingerprint + "\n")
        env = ["git", "-C", tmp, "-c", "core.autocrlf=false"]
        subprocess.run([*env, "init", "-q"], check=True)
        subprocess.run([*env, "add", "-A", "-f"], check=True)
        out = subprocess.run([*env, "diff", "--cached", "--binary", "--no-renames"], check=True,
                             capture_output=True)  # fmt: skip
    return out.stdout.decode("utf-8", errors="surrogateescape")


def _oracle_command(solution: Path) -> str:
    """A bash command that unpacks solution/ to /tmp/codegym-solution and runs its solve.sh."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(solution, arcname=".")
    data = base64.b64encode(buf.getvalue()).decode()
    return (
        "rm -rf /tmp/codegym-solution && mkdir -p /tmp/codegym-solution && "
        f"echo {data} | base64 -d | tar -xz -C /tmp/codegym-solution && bash /tmp/codegym-solution/solve.sh"
    )


def _number(value: Any, where: str, name: str, toml: Path) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value <= 0
    ):
        raise TaskLoadError(toml, 1, name, f"{where}: expected a positive number, got {value!r}")
    return float(value)


def harbor_test_cmd(timeout_s: float, threshold: float, env: dict[str, str]) -> str:
    """The grading command: test.sh within `timeout_s`, then the result line the parser reads."""
    prefix = "".join(f"{k}={shlex.quote(str(v))} " for k, v in env.items())
    return (
        f"mkdir -p {LOGS_DIR}/verifier {LOGS_DIR}/agent; rm -f /logs/verifier/reward.txt /logs/verifier/reward.json; "
        f"{'env ' + prefix if prefix else ''}timeout -k 5 {math.ceil(timeout_s)} bash /tests/test.sh 2>&1; rc=$?; "
        "t=-; j=-; [ -f /logs/verifier/reward.txt ] && t=$(base64 -w0 < /logs/verifier/reward.txt); "
        "[ -f /logs/verifier/reward.json ] && j=$(base64 -w0 < /logs/verifier/reward.json); "
        f'echo; echo "{RESULT_MARK} rc=$rc threshold={threshold!r} txt=$t json=$j"'
    )


def foreign_task_dict(d: Path, config: dict[str, Any]) -> dict[str, Any]:
    """The task fields (for `task_from_dict`) of the Harbor task folder `d` without
    [metadata.codegym]; `config` is its parsed task.toml. A TaskLoadError names what is missing."""
    toml = d / "task.toml"
    tables = {}
    for name in ("metadata", "verifier", "agent", "environment"):
        value = config.get(name, {})
        if not isinstance(value, dict):
            raise TaskLoadError(toml, 1, name, f"expected a table, got {type(value).__name__}")
        tables[name] = value
    instruction, test_sh = d / "instruction.md", d / "tests" / "test.sh"
    if not instruction.is_file():
        raise TaskLoadError(toml, 1, "instruction", "instruction.md is missing")
    if not test_sh.is_file():
        raise TaskLoadError(
            toml, 1, "tests", "tests/test.sh (the verifier that writes the reward) is missing"
        )
    dockerfile = d / "environment" / "Dockerfile"
    if dockerfile.is_file():
        text = dockerfile.read_text(encoding="utf-8")
    elif isinstance(tables["environment"].get("docker_image"), str):
        text = f"FROM {tables['environment']['docker_image']}\n"
    else:
        raise TaskLoadError(toml, 1, "environment", "environment/Dockerfile is missing (and no docker_image)")
    if BASE_ARG in text and not re.search(rf"^\s*ARG\s+{BASE_ARG}\b", text, re.MULTILINE | re.IGNORECASE):
        text = f"ARG {BASE_ARG}\n{text}"  # `FROM ${{CODEGYM_BASE_IMAGE}}` needs the ARG before it
    try:
        workdir = dockerfile_workdir(text) or DEFAULT_HARBOR_WORKDIR
    except ValueError as e:
        raise TaskLoadError(toml, 1, "environment", f"environment/Dockerfile: {e}") from None
    verifier_timeout = _number(tables["verifier"].get("timeout_sec", 600.0), "[verifier] timeout_sec",
                               "verifier.timeout_sec", toml)  # fmt: skip
    threshold = tables["metadata"].get("reward_threshold", 1.0)
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not math.isfinite(threshold):
        raise TaskLoadError(toml, 1, "metadata.reward_threshold", f"expected a number, got {threshold!r}")
    env = tables["verifier"].get("env", {})
    if not isinstance(env, dict) or not all(re.fullmatch(r"[A-Za-z_]\w*", str(k)) for k in env):
        raise TaskLoadError(toml, 1, "verifier.env", "expected a table of variable names -> values")
    solve = d / "solution" / "solve.sh"
    harbor: dict[str, Any] = {
        "verifier_timeout_sec": verifier_timeout,
        "agent_timeout_sec": tables["agent"].get("timeout_sec"),
        "reward_threshold": float(threshold),
        "task_toml": {k: v for k, v in tables["metadata"].items() if isinstance(v, str | int | float | bool)},
    }
    if solve.is_file():
        harbor["oracle_command"] = _oracle_command(solve.parent)
    context = d / "environment"
    environment: dict[str, Any] = {"dockerfile": text.rstrip("\n") + "\n" + _setup_lines(workdir)}
    if context.is_dir():
        environment["context"] = str(context.resolve())
    test_cmd = harbor_test_cmd(verifier_timeout, float(threshold), {str(k): v for k, v in env.items()})
    h = hashlib.sha256(f"{environment['dockerfile']}\0{test_cmd}\0".encode())
    for path in sorted(p for p in context.rglob("*") if p.is_file()) if context.is_dir() else ():
        h.update(str(path.relative_to(context)).encode() + b"\0" + path.read_bytes() + b"\0")
    return {
        "instance_id": d.name,
        "repo": f"harbor:{d.name}",
        "base_commit": WORKSPACE_BRANCH,
        "problem_statement": instruction.read_text(encoding="utf-8"),
        "test_patch": _tests_patch(d / "tests", h.hexdigest()),
        "FAIL_TO_PASS": [REWARD_ID],
        "workdir": workdir,
        "repo_location": "image",
        "environment": environment,
        "test_cmd": test_cmd,
        "log_parser": "harbor",
        "suite": "harbor",
        "metadata": {"harbor": harbor},
    }
