"""Building a task's own environment for real (Docker): pip through the host's CA bundle, an
`install: pip install -e .` with the repository baked at /testbed (history scrubbed), graded for
real; the second build reuses the image; an unbuilt environment names the command to run.

One image for the module. The pip steps need PyPI through the host's CA bundle: where PyPI is
not reachable from here the module is skipped (tests/tasks/test_environment.py checks the CA
plumbing of the rendered Dockerfile without the network)."""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from codegym.sandbox import SandboxError
from codegym.sandbox.task_images import _BUILT, build_task_images
from codegym.tasks.environment import HOST_CA_BUNDLE, IMAGE_CA_PATH
from codegym.tasks.gitrepo import Commit, build_repo
from codegym.tasks.loader import load_tasks

PYPROJECT = (
    '[project]\nname = "calc"\nversion = "0.1"\n\n'
    '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
)
ENV_TEST = (
    "import importlib.metadata\nimport os\n\nimport six\n\n\n"
    "def test_environment():\n"
    '    assert importlib.metadata.version("calc") == "0.1"  # the editable install\n'
    '    assert six.__version__ == "1.16.0" and os.environ["CALC_MODE"] == "strict"\n'
)
HIDDEN = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
ENVIRONMENT = {
    "python": "3.11",
    "pip_packages": ["six==1.16.0"],
    "install": ["python3 -m pip install -e ."],
    "env": {"CALC_MODE": "strict"},
}


def _pypi_reachable() -> bool:
    try:
        context = ssl.create_default_context(
            cafile=HOST_CA_BUNDLE if Path(HOST_CA_BUNDLE).is_file() else None
        )
        urllib.request.urlopen("https://pypi.org/simple/six/", timeout=15, context=context).close()
        return True
    except Exception:
        return False


def _rows(root: Path, shas: list[str], environment: dict) -> Path:
    base, fix = shas[0], shas[1]
    test_patch = (
        "diff --git a/tests/test_add.py b/tests/test_add.py\nnew file mode 100644\n--- /dev/null\n"
        "+++ b/tests/test_add.py\n@@ -0,0 +1,5 @@\n" + "".join(f"+{line}\n" for line in HIDDEN.splitlines())
    )
    patch = (
        "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n"
        " def add(a, b):\n-    return a - b\n+    return a + b\n"
    )
    row = {
        "instance_id": "calc-env",
        "repo": "calc.git",
        "base_commit": base,
        "problem_statement": "add(2, 3) returns -1.",
        "test_patch": test_patch,
        "patch": patch,
        "FAIL_TO_PASS": ["tests/test_add.py::test_add"],
        "PASS_TO_PASS": ["tests/test_env.py::test_environment"],
        "upstream_refs": [fix],
        "protected_paths": ["tests/test_add.py"],
        "environment": environment,
    }
    path = root / f"tasks-{len(list(root.glob('tasks-*.jsonl')))}.jsonl"
    path.write_text(json.dumps(row) + "\n")
    return path


@pytest.fixture(scope="module")
def built(docker_client, python_image, tmp_path_factory):
    if not _pypi_reachable():
        pytest.skip("PyPI is not reachable through the host's CA bundle from here")
    root = tmp_path_factory.mktemp("task-env")
    old_cache = os.environ.get("CODEGYM_CACHE")
    os.environ["CODEGYM_CACHE"] = str(root / "cache")  # the workspace tar the build bakes in
    shas = build_repo(
        root / "calc.git",
        [
            Commit("Initial", {"calc.py": "def add(a, b):\n    return a - b\n", "pyproject.toml": PYPROJECT,
                               "tests/test_env.py": ENV_TEST}),
            Commit("Fix add", {"calc.py": "def add(a, b):\n    return a + b\n", "tests/test_add.py": HIDDEN}),
            Commit("Later", {"README.md": "later\n"}, tag="v2"),
        ],
    )  # fmt: skip
    path = _rows(root, shas, ENVIRONMENT)
    tasks = load_tasks(path, strict=True)
    lines: list[str] = []
    first = build_task_images(tasks, docker_client, log=lines.append)
    yield {"root": root, "path": path, "tasks": tasks, "shas": shas, "first": first, "lines": lines}
    if old_cache is None:
        os.environ.pop("CODEGYM_CACHE", None)
    else:
        os.environ["CODEGYM_CACHE"] = old_cache
    for tag in {r.tag for r in first}:
        _BUILT.discard(tag)
        try:
            docker_client.images.remove(tag, force=True)
        except Exception:
            pass


def test_the_build_makes_one_image_and_the_second_run_reuses_it(built, docker_client):
    (result,) = built["first"]
    task = built["tasks"][0]
    assert result.status == "built" and result.tag == task.image and result.task_ids == ("calc-env",)
    assert built["lines"][0] == f"[1/1] building {task.image} for calc-env ..."
    assert built["lines"][1].startswith(f"[1/1] built {task.image} in ")
    image_id = docker_client.images.get(task.image).id
    lines: list[str] = []
    (again,) = build_task_images(load_tasks(built["path"], strict=True), docker_client, log=lines.append)
    assert again.status == "reused" and lines == [f"[1/1] reused {task.image} for calc-env (unchanged)"]
    assert docker_client.images.get(task.image).id == image_id
    # The command prints the same per image, and builds nothing.
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("codegym")), "images", "build", "--tasks", str(built["path"])],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (
        f"reused {task.image} for calc-env" in proc.stderr
        and f"reused\t{task.image}\tcalc-env" in proc.stdout
    )


def test_the_image_holds_the_scrubbed_repository_the_packages_and_no_ca_settings(built, docker_client):
    task, (base, fix, later) = built["tasks"][0], built["shas"]
    script = (
        "cd /testbed && git rev-parse HEAD && git for-each-ref --format='%(refname)' && git rev-list --all | wc -l"
        f" && (git cat-file -e {fix} 2>/dev/null && echo FIX-REACHABLE; git cat-file -e {later} 2>/dev/null"
        " && echo LATER-REACHABLE; true) && stat -c %u calc.py && ls tests"
        f" && python3 -c 'import six; print(six.__version__)' && (test -e {IMAGE_CA_PATH} && echo CA-LEFT; true)"
    )
    out = docker_client.containers.run(task.image, ["bash", "-c", script], network_mode="none", remove=True)
    lines = out.decode().split()
    assert lines[:4] == [base, "refs/heads/main", "1", "1000"], lines
    assert "FIX-REACHABLE" not in lines and "LATER-REACHABLE" not in lines and "CA-LEFT" not in lines
    assert "test_add.py" not in lines and "1.16.0" in lines
    env = docker_client.images.get(task.image).attrs["Config"]["Env"]
    assert "CALC_MODE=strict" in env and not any(e.startswith(("PIP_CERT", "SSL_CERT_FILE")) for e in env)


def test_the_task_is_graded_for_real_in_its_environment(built):
    from codegym.agents import OracleAgent, ScriptedAgent
    from codegym.envs import CodingEnv, run_episode

    task = built["tasks"][0]
    assert task.repo_location == "image" and task.workdir == "/testbed"
    env = CodingEnv([task], backend="docker", max_turns=6)
    try:
        gold = run_episode(env, OracleAgent([task]), task.instance_id)
        empty = run_episode(env, ScriptedAgent([]), task.instance_id)
    finally:
        env.close()
    assert gold.reward == 1.0, (gold.error, gold.tests)
    assert gold.tests == {
        "tests/test_add.py::test_add": "passed",
        "tests/test_env.py::test_environment": "passed",
    }
    assert "a + b" in gold.diff and "egg-info" not in gold.diff  # the install's files are not the agent's
    assert empty.reward == 0.0 and empty.train_mask and empty.diff == ""
    assert empty.tests == {
        "tests/test_add.py::test_add": "failed",
        "tests/test_env.py::test_environment": "passed",
    }


def test_an_environment_that_is_not_built_names_the_command_to_run(built):
    from codegym.envs import CodingEnv

    path = _rows(built["root"], built["shas"], {**ENVIRONMENT, "env": {"CALC_MODE": "other"}})
    (task,) = load_tasks(path, strict=True)
    assert task.image != built["tasks"][0].image
    env = CodingEnv([task], backend="docker", max_turns=2)
    try:
        with pytest.raises(SandboxError, match="not built") as e:
            env.reset(seed=0)
    finally:
        env.close()
    assert f"codegym images build --tasks {path}" in str(e.value) and task.image in str(e.value)


def test_a_failed_build_says_why(docker_client, python_image, tmp_path):
    """No network needed: the Python check is the first step after FROM."""
    row = {
        "instance_id": "wants-39",
        "repo": "example/none",
        "base_commit": "a" * 40,
        "problem_statement": "x",
        "test_patch": "",
        "FAIL_TO_PASS": ["tests/test_x.py::test_x"],
        "repo_location": "image",
        "workdir": "/workspace",
        "environment": {"python": "3.9", "env": {"WHO": "test"}},
    }
    (tmp_path / "tasks.jsonl").write_text(json.dumps(row) + "\n")
    tasks = load_tasks(tmp_path / "tasks.jsonl", strict=True)
    with pytest.raises(SandboxError, match="wants-39") as e:
        build_task_images(tasks, docker_client, log=lambda line: None)
    assert "the environment wants Python 3.9; the base image has 3.11" in str(e.value)
    with pytest.raises(Exception, match="not found|No such image"):
        docker_client.images.get(tasks[0].image)
