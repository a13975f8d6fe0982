"""A task whose image holds the repository (`repo_location: "image"`, SWE-bench's /testbed), in
real Docker: reset checks out base_commit and scrubs the history in the container, every tool
works in /testbed, the future is unreachable with the guards off, grading runs there too, and a
pooled sandbox comes back pristine."""

from __future__ import annotations

import json
import subprocess

import pytest

from codegym.envs import CodingEnv
from codegym.tasks.gitrepo import GIT_ENV
from codegym.tasks.loader import task_from_dict

BUGGY = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
FIXED = BUGGY.replace("a - b", "a + b")
VISIBLE = "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"
HIDDEN = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def _git(*args, cwd):
    proc = subprocess.run(
        ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.org", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**GIT_ENV, "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def _commit(repo, message, files):
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    _git("add", "-A", cwd=repo)
    _git("commit", "-q", "-m", message, cwd=repo)
    return _git("rev-parse", "HEAD", cwd=repo)


@pytest.fixture(scope="module")
def image_task(docker_client, python_image, tmp_path_factory):
    """An image FROM codegym's Python image holding a repository with history at /testbed, left
    at its latest commit (past the base), with a tag and a branch: the future is in the image."""
    root = tmp_path_factory.mktemp("image-repo")
    repo = root / "testbed"
    repo.mkdir()
    _git("init", "-q", "-b", "main", cwd=repo)
    _commit(repo, "first", {"calc.py": BUGGY, "tests/test_calc.py": VISIBLE, "conftest.py": ""})
    base = _commit(repo, "docs", {"README.md": "# calc\n"})
    fix = _commit(repo, "Fix add", {"calc.py": FIXED, "tests/test_add.py": HIDDEN})
    _git("tag", "-a", "v1.0.1", "-m", "release", cwd=repo)
    later = _commit(repo, "later", {"README.md": "# calc\n\nlater\n"})
    _git("branch", "feature", fix, cwd=repo)
    (root / "Dockerfile").write_text(f"FROM {python_image}\nCOPY --chown=1000:1000 testbed /testbed\n")
    tag = f"codegym-test/image-repo:{base[:12]}"
    docker_client.images.build(path=str(root), tag=tag, rm=True, labels={"codegym.test": "1"})
    fix_diff = _git("diff", base, fix, "--", "calc.py", cwd=repo) + "\n"
    test_patch = _git("diff", base, fix, "--", "tests/test_add.py", cwd=repo) + "\n"
    task = task_from_dict(
        {
            "instance_id": "calc-in-image",
            "repo": "example/calc",
            "base_commit": base,
            "problem_statement": "add(2, 3) returns -1.",
            "patch": fix_diff,
            "test_patch": test_patch,
            "FAIL_TO_PASS": json.dumps(["tests/test_add.py::test_add"]),
            "PASS_TO_PASS": json.dumps(["tests/test_calc.py::test_mul"]),
            "image": tag,
            "workdir": "/testbed",
            "repo_location": "image",
            "visible_tests": ["tests/test_calc.py"],
        }
    )
    yield task, {"base": base, "fix": fix, "later": later}
    try:
        docker_client.images.remove(tag, force=True)
    except Exception:
        pass


def call(name, **arguments):
    return {"name": name, "arguments": arguments}


def test_image_repository_is_checked_out_scrubbed_and_graded_in_its_workdir(image_task):
    task, shas = image_task
    env = CodingEnv([task], backend="docker", max_turns=10)  # no guards: the scrub itself must hold
    try:
        env.reset(seed=0)
        *_, info = env.step(
            call(
                "bash",
                command=(
                    "pwd; git rev-parse HEAD; git branch -a --format='%(refname)'; git tag; git stash list; "
                    f"git cat-file -e {shas['fix']} && echo FIX-REACHABLE; git cat-file -e {shas['later']} && echo LATER; "
                    "git log --all --reflog --format=%H | wc -l; ls tests; git status --porcelain"
                ),
            )
        )
        out = info["new_messages"][-1]["content"]
        assert out.startswith(f"/testbed\n{shas['base']}\nrefs/heads/main\n"), out
        assert "FIX-REACHABLE" not in out and "LATER" not in out and "v1.0.1" not in out
        assert "test_add.py" not in out and "\n2\n" in out, out  # base and its parent only
        *_, info = env.step(call("view", path="calc.py"))
        assert "return a - b" in info["new_messages"][-1]["content"]
        *_, info = env.step(call("run_tests", paths=["tests/test_calc.py"]))
        assert "1 passed" in info["new_messages"][-1]["content"], info["new_messages"][-1]["content"]
        *_, info = env.step(call("str_replace", path="calc.py", old_str="a - b", new_str="a + b"))
        env.step(call("bash", command="git commit -qam 'my fix' && git log --oneline | head -1"))
        _, reward, terminated, _, info = env.step(call("submit"))
        assert terminated and reward == 1.0 and info["train_mask"], info.get("sandbox_error") or info["tests"]
        assert "a + b" in info["diff"] and info["tests"] == {
            "tests/test_add.py::test_add": "passed",
            "tests/test_calc.py::test_mul": "passed",
        }

        env.reset(seed=1)  # the pooled sandbox again: pristine, the agent's commit gone
        *_, info = env.step(
            call("bash", command="git rev-parse HEAD; git log --all --format=%s; grep -c 'a - b' calc.py")
        )
        assert info["new_messages"][-1]["content"].split("\n")[0] == shas["base"]
        assert "my fix" not in info["new_messages"][-1]["content"]
        _, reward, _, _, info = env.step(call("submit"))
        assert (
            reward == 0.0 and info["train_mask"] and info["tests"]["tests/test_add.py::test_add"] == "failed"
        )
        assert info["diff"] == ""
    finally:
        env.close()


def test_oracle_patch_scores_one_and_the_empty_submission_zero(image_task):
    from codegym.agents import OracleAgent, ScriptedAgent
    from codegym.envs import run_episode

    task, _ = image_task
    env = CodingEnv([task], backend="docker", max_turns=6)
    try:
        assert run_episode(env, OracleAgent([task]), task.instance_id).reward == 1.0
        assert run_episode(env, ScriptedAgent([]), task.instance_id).reward == 0.0
    finally:
        env.close()
