"""Real dataset rows load unchanged: SWE-bench (all 12 fields of `swebench.types.SWEbenchInstance`,
list fields as JSON strings), SWE-Gym and SWE-smith rows, with "owner/name" repos found in a repos
directory (a clone, a bare repository or a bundle)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile

import pytest
from calc_fixtures import CALC_BUGGY, CALC_FIXED, HIDDEN, VISIBLE, git

from codegym.tasks.loader import REPOS_DIR_ENV, TaskLoadErrors, load_tasks
from codegym.tasks.workspace import prepare_workspace


def _swebench_row(calc, **changes) -> dict:
    """One SWE-bench instance: exactly the 12 fields of SWEbenchInstance, lists as JSON strings."""
    row = {
        "repo": "example/calc",
        "instance_id": "example__calc-1",
        "base_commit": calc.base,
        "patch": calc.task.patch,
        "test_patch": calc.task.test_patch,
        "problem_statement": calc.task.problem_statement,
        "hints_text": "see add()",
        "created_at": "2023-11-20T10:00:00Z",
        "version": "1.0",
        "FAIL_TO_PASS": json.dumps(list(calc.task.FAIL_TO_PASS)),
        "PASS_TO_PASS": json.dumps(list(calc.task.PASS_TO_PASS)),
        "environment_setup_commit": calc.base,
    }
    row.update(changes)
    return row


def _write(path, *rows) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


@pytest.mark.parametrize("layout", ["clone", "bare", "bundle"])
def test_a_swebench_instance_loads_unchanged_from_a_repos_dir(calc_repo, tmp_path, layout):
    repos = tmp_path / "repos"
    (repos / "example").mkdir(parents=True)
    if layout == "clone":
        assert (
            git("clone", "-q", str(calc_repo.path), str(repos / "example" / "calc"), cwd=tmp_path).returncode
            == 0
        )
    elif layout == "bare":
        assert (
            git(
                "clone", "-q", "--bare", str(calc_repo.path), str(repos / "example" / "calc"), cwd=tmp_path
            ).returncode
            == 0
        )
    else:
        assert (
            git(
                "bundle", "create", "-q", str(repos / "example" / "calc.bundle"), "--all", cwd=calc_repo.path
            ).returncode
            == 0
        )
    path = _write(tmp_path / "swe-bench.jsonl", _swebench_row(calc_repo))
    (task,) = load_tasks(path, repos_dir=repos, strict=True)
    assert task.repo.startswith(str(repos / "example" / "calc")) and task.repo_location == "upload"
    assert (
        task.FAIL_TO_PASS == calc_repo.task.FAIL_TO_PASS and task.PASS_TO_PASS == calc_repo.task.PASS_TO_PASS
    )
    assert task.metadata == {
        "hints_text": "see add()",
        "created_at": "2023-11-20T10:00:00Z",
        "version": "1.0",
        "environment_setup_commit": calc_repo.base,
    }
    with tarfile.open(fileobj=io.BytesIO(prepare_workspace(task))) as tar:
        assert tar.extractfile("calc.py").read().decode() == CALC_BUGGY


def test_the_repos_dir_comes_from_the_environment_and_a_missing_repo_names_the_paths(
    calc_repo, tmp_path, monkeypatch
):
    repos = tmp_path / "repos"
    (repos / "example").mkdir(parents=True)
    assert (
        git(
            "clone", "-q", "--bare", str(calc_repo.path), str(repos / "example" / "calc.git"), cwd=tmp_path
        ).returncode
        == 0
    )
    path = _write(
        tmp_path / "t.jsonl",
        _swebench_row(calc_repo),
        _swebench_row(calc_repo, instance_id="x-2", repo="example/nope"),
    )
    monkeypatch.setenv(REPOS_DIR_ENV, str(repos))
    tasks = load_tasks(path)
    assert [t.instance_id for t in tasks] == ["example__calc-1"] and tasks[0].repo == str(
        repos / "example" / "calc.git"
    )
    (err,) = tasks.errors
    assert err.line == 2 and err.field == "repo"
    for looked in ("example/nope", "example/nope.git", "example/nope.bundle"):
        assert str(repos / looked) in str(err)
    monkeypatch.delenv(REPOS_DIR_ENV)
    with pytest.raises(TaskLoadErrors) as info:
        load_tasks(path, strict=True)
    assert "repos directory" in str(info.value.exceptions[0]) and "--repos-dir" in str(
        info.value.exceptions[0]
    )


def test_a_swegym_row_loads(calc_repo, tmp_path):
    """SWE-Gym rows are SWE-bench rows (lists as real lists there)."""
    repos = tmp_path / "repos"
    (repos / "example").mkdir(parents=True)
    git("clone", "-q", "--bare", str(calc_repo.path), str(repos / "example" / "calc"), cwd=tmp_path)
    row = _swebench_row(
        calc_repo,
        instance_id="example__calc-2",
        FAIL_TO_PASS=list(calc_repo.task.FAIL_TO_PASS),
        PASS_TO_PASS=list(calc_repo.task.PASS_TO_PASS),
    )
    (task,) = load_tasks(_write(tmp_path / "swe-gym.jsonl", row), repos_dir=repos, strict=True)
    assert task.FAIL_TO_PASS == ("tests/test_add.py::test_add",) and task.suite == "swe-gym"


def test_a_swesmith_row_becomes_the_reverse_of_its_bug(tmp_path, codegym_cache):
    """SWE-smith: the repo is clean code, `patch` introduces the bug, F2P tests are in the repo.
    The task's base is an orphan commit with the bug and without the F2P test file; the gold fix
    is the bug reversed; the clean code is in no history the workspace holds."""
    from codegym.tasks.validate import validate_task_locally

    clean = tmp_path / "repos" / "swesmith" / "example__calc.1a2b3c4d"
    clean.mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=clean)
    for name, text in {
        "calc.py": CALC_FIXED,
        "tests/test_calc.py": VISIBLE,
        "tests/test_add.py": HIDDEN,
        "conftest.py": "",
    }.items():
        (clean / name).parent.mkdir(parents=True, exist_ok=True)
        (clean / name).write_text(text)
    git("add", "-A", cwd=clean)
    assert (
        git("-c", "user.name=Dev", "-c", "user.email=d@e.org", "commit", "-qm", "clean", cwd=clean).returncode
        == 0
    )
    clean_sha = git("rev-parse", "HEAD", cwd=clean).stdout.strip()
    (clean / "calc.py").write_text(CALC_BUGGY)
    bug = git("diff", cwd=clean).stdout
    git("checkout", "-q", "--", "calc.py", cwd=clean)
    row = {
        "instance_id": "example__calc.1a2b3c4d.func_pm_op_swap__abc",
        "repo": "swesmith/example__calc.1a2b3c4d",
        "patch": bug,
        "FAIL_TO_PASS": ["tests/test_add.py::test_add"],
        "PASS_TO_PASS": ["tests/test_calc.py::test_mul"],
        "image_name": "swebench/swesmith.x86_64.example__calc.1a2b3c4d",
        "problem_statement": "add is wrong",
    }
    path = _write(tmp_path / "swe-smith.jsonl", row)
    (task,) = load_tasks(path, repos_dir=tmp_path / "repos", strict=True)
    (again,) = load_tasks(path, repos_dir=tmp_path / "repos", strict=True)
    assert again.base_commit == task.base_commit  # deterministic, and cached
    assert (
        "-    return a + b" in bug and "+    return a + b" in task.patch and "-    return a - b" in task.patch
    )
    assert task.hidden_test_files() == ("tests/test_add.py",) and task.protected_paths == (
        "tests/test_add.py",
    )
    assert task.metadata["bug_patch"] == bug and task.metadata["image_name"] == row["image_name"]
    ws = tmp_path / "ws"
    with tarfile.open(fileobj=io.BytesIO(prepare_workspace(task))) as tar:
        tar.extractall(ws, filter="data")
    assert (ws / "calc.py").read_text() == CALC_BUGGY and not (ws / "tests" / "test_add.py").exists()
    assert git("log", "--all", "--format=%H", cwd=ws).stdout.split() == [task.base_commit]
    assert git("cat-file", "-e", clean_sha, cwd=ws).returncode != 0
    result = validate_task_locally(task)
    assert result.ok, result.problems


def test_gym_make_takes_a_repos_dir(calc_repo, tmp_path):
    import gymnasium as gym

    import codegym  # noqa: F401

    repos = tmp_path / "repos"
    (repos / "example").mkdir(parents=True)
    git("clone", "-q", "--bare", str(calc_repo.path), str(repos / "example" / "calc"), cwd=tmp_path)
    path = _write(tmp_path / "swe-bench.jsonl", _swebench_row(calc_repo))
    env = gym.make("codegym/Tasks-v0", tasks=path, repos_dir=str(repos), backend="local")
    try:
        assert env.unwrapped.tasks[0].repo == str(repos / "example" / "calc")
    finally:
        env.close()


def test_cli_commands_take_repos_dir(calc_repo, tmp_path):
    repos = tmp_path / "repos"
    (repos / "example").mkdir(parents=True)
    git("clone", "-q", "--bare", str(calc_repo.path), str(repos / "example" / "calc"), cwd=tmp_path)
    path = _write(tmp_path / "swe-bench.jsonl", _swebench_row(calc_repo))
    run = lambda *a: subprocess.run([sys.executable, "-m", "codegym.cli", "tasks", *a], capture_output=True, text=True)  # noqa: E731
    shown = run("show", path, "example__calc-1", "--repos-dir", str(repos))
    assert shown.returncode == 0 and json.loads(shown.stdout)["repo"] == str(repos / "example" / "calc"), (
        shown.stderr
    )
    listed = run("list", path, "--repos-dir", str(repos))
    assert listed.returncode == 0 and "example__calc-1" in listed.stdout
    checked = run("validate", path, "--local", "--repos-dir", str(repos))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    missing = run("list", path, "--repos-dir", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "no such directory" in missing.stderr
