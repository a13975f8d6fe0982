"""Harbor task folders: export writes Harbor's layout (hidden tests only under tests/, the fix
under solution/), load reads it back, and a built-in task round-trips to a task that grades the
same with the real grader in its built environment (one image); the exported test.sh and solve.sh
also work as Harbor's verifier and oracle in that image. A Harbor task codegym did not write (its
own Dockerfile, test.sh reward, solve.sh) loads, builds (one image) and grades by its reward in
real Docker episodes, and `codegym tasks validate` runs its solve.sh as the oracle."""

from __future__ import annotations

import io
import tarfile
import tomllib

import pytest

from codegym.tasks.harbor import _toml, export_harbor, load_harbor
from codegym.tasks.loader import load_tasks


def test_task_toml_strings_survive_tomllib():
    tricky = 'quote " back \\ tab \t newline \n nul \x00 del \x7f é 😀 ${x}'
    text = _toml({"metadata.codegym": {"s": tricky, "l": ["a", tricky], "n": 1.5, "b": False, "gone": None}},
                 {"version": "1.0"})  # fmt: skip
    back = tomllib.loads(text)
    assert back == {
        "version": "1.0",
        "metadata": {"codegym": {"s": tricky, "l": ["a", tricky], "n": 1.5, "b": False}},
    }


@pytest.fixture(scope="module")
def toy_task(codegym_cache):
    return load_tasks("toy").by_id("toy-add-typo")


@pytest.fixture(scope="module")
def exported(toy_task, tmp_path_factory):
    out = tmp_path_factory.mktemp("harbor")
    (folder,) = export_harbor([toy_task], out)
    return out, folder


def test_export_writes_harbors_layout_with_the_hidden_tests_only_under_tests(toy_task, exported):
    out, d = exported
    assert d == out / toy_task.instance_id
    names = sorted(str(p.relative_to(d)) for p in d.rglob("*") if p.is_file())
    assert names == ["environment/Dockerfile", "environment/codegym-workspace.tar", "instruction.md",
                     "solution/fix.patch", "solution/solve.sh", "task.toml", "tests/test.patch", "tests/test.sh"]  # fmt: skip
    assert (d / "instruction.md").read_text() == toy_task.problem_statement
    assert (d / "tests" / "test.patch").read_text() == toy_task.test_patch
    assert (d / "solution" / "fix.patch").read_text() == toy_task.patch
    config = tomllib.loads((d / "task.toml").read_text())
    assert config["version"] == "1.0" and config["verifier"]["timeout_sec"] > 0
    assert config["environment"]["allow_internet"] is False
    fields = config["metadata"]["codegym"]
    assert (
        fields["FAIL_TO_PASS"] == list(toy_task.FAIL_TO_PASS)
        and fields["base_commit"] == toy_task.base_commit
    )
    # The agent's container is built from environment/ alone: the hidden test file is not in it.
    with tarfile.open(fileobj=io.BytesIO((d / "environment" / "codegym-workspace.tar").read_bytes())) as tar:
        members = tar.getnames()
    assert "./tests/test_task.py" not in members and "tests/test_task.py" not in members
    assert any(m.endswith("calc.py") for m in members) and any(
        m.startswith((".git", "./.git")) for m in members
    )
    dockerfile = (d / "environment" / "Dockerfile").read_text()
    assert (
        "FROM ${CODEGYM_BASE_IMAGE}" in dockerfile
        and f"ADD codegym-workspace.tar {toy_task.workdir}/" in dockerfile
    )
    with pytest.raises(FileExistsError):  # a folder that is not an earlier export is never overwritten
        (out / "other").mkdir()
        (out / "other" / "notes.txt").write_text("mine")
        export_harbor([toy_task.replace(instance_id="other")], out)


def test_load_reads_a_task_folder_or_a_folder_of_them(toy_task, exported):
    out, d = exported
    for source in (d, out):
        (task,) = load_tasks(source)
        for name in (
            "instance_id",
            "base_commit",
            "problem_statement",
            "test_patch",
            "patch",
            "FAIL_TO_PASS",
            "PASS_TO_PASS",
            "upstream_refs",
            "protected_paths",
            "visible_tests",
            "workdir",
            "suite",
        ):
            assert getattr(task, name) == getattr(toy_task, name), name  # fmt: skip
        assert dict(task.metadata) == dict(toy_task.metadata)
        assert task.repo_location == "image" and task.image.startswith("codegym/env:")
        assert task.environment.context == str((d / "environment").resolve())


def test_bad_harbor_folders_are_clear_load_errors(tmp_path):
    d = tmp_path / "foreign"
    (d / "environment").mkdir(parents=True)
    (d / "instruction.md").write_text("Make an ssh key.")
    (d / "environment" / "Dockerfile").write_text("FROM ubuntu\n")
    (d / "task.toml").write_text('version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\n')
    result = load_harbor(tmp_path)
    assert not result and len(result.errors) == 1
    assert result.errors[0].field == "tests" and "tests/test.sh" in str(result.errors[0])
    (d / "tests").mkdir()
    (d / "tests" / "test.sh").write_text("echo 1 > /logs/verifier/reward.txt\n")
    (d / "environment" / "Dockerfile").write_text("FROM ubuntu\nWORKDIR $HOME/app\n")
    assert "WORKDIR '$HOME/app' uses a variable" in str(load_harbor(d).errors[0])
    (d / "environment" / "Dockerfile").write_text("FROM ubuntu\n")
    (d / "task.toml").write_text('[verifier]\ntimeout_sec = "soon"\n')
    assert load_harbor(d).errors[0].field == "verifier.timeout_sec"
    (d / "task.toml").write_text("version = \n")
    assert "invalid TOML" in str(load_harbor(d).errors[0])
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="no Harbor task"):
        load_harbor(tmp_path / "empty")


# ---- a Harbor task codegym did not write: graded by its own test.sh reward ----------------------

FOREIGN_TOML = """version = "1.0"

[metadata]
author_name = "someone else"
difficulty = "easy"
category = "programming"

[verifier]
timeout_sec = 60.0

[agent]
timeout_sec = 300.0

[environment]
build_timeout_sec = 600.0
cpus = 1
memory_mb = 1024
"""
BUGGY = "def add(a, b):\n    return a - b\n"
TEST_SH = """#!/bin/bash
# Harbor's verifier: runs in the workdir, tests at /tests, reward to /logs/verifier/reward.txt
mkdir -p /logs/verifier
if python3 /tests/check_calc.py; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
"""
CHECK = (
    "import sys\nsys.path.insert(0, '/srv/calc')\nimport calc\nassert calc.add(2, 3) == 5, calc.add(2, 3)\n"
)


def _foreign_task(root, name, test_sh=TEST_SH, toml=FOREIGN_TOML):
    d = root / name
    for sub in ("environment", "tests", "solution"):
        (d / sub).mkdir(parents=True)
    (d / "instruction.md").write_text("calc.add subtracts; make it add.\n")
    (d / "task.toml").write_text(toml)
    (d / "environment" / "Dockerfile").write_text(
        "FROM ${CODEGYM_BASE_IMAGE}\nUSER root\nWORKDIR /srv/calc\nCOPY calc.py /srv/calc/calc.py\n"
    )
    (d / "environment" / "calc.py").write_text(BUGGY)
    (d / "tests" / "test.sh").write_text(test_sh)
    (d / "tests" / "check_calc.py").write_text(CHECK)
    (d / "solution" / "solve.sh").write_text("#!/bin/bash\nsed -i 's/a - b/a + b/' calc.py\n")
    return d


def test_a_foreign_harbor_task_loads_with_its_dockerfile_and_hidden_tests(tmp_path):
    d = _foreign_task(tmp_path, "calc-add")
    (task,) = load_tasks(d, strict=True)
    assert task.instance_id == "calc-add" and task.problem_statement.startswith("calc.add subtracts")
    assert (
        task.workdir == "/srv/calc"
        and task.repo_location == "image"
        and task.image.startswith("codegym/env:")
    )
    assert (
        task.FAIL_TO_PASS == ("reward",)
        and task.log_parser == "harbor"
        and "bash /tests/test.sh" in task.test_cmd
    )
    assert "timeout -k 5 60 bash /tests/test.sh" in task.test_cmd  # [verifier] timeout_sec
    assert task.hidden_test_files() == (
        ".codegym-harbor/fingerprint",
        ".codegym-harbor/tests/check_calc.py",
        ".codegym-harbor/tests/test.sh",
    )
    # the grade cache is keyed by test_patch: a changed environment changes it
    (d / "environment" / "calc.py").write_text(BUGGY + "# v2\n")
    (changed,) = load_tasks(d, strict=True)
    assert changed.test_patch != task.test_patch and changed.image != task.image
    assert "new file mode 100644" in task.test_patch and "sys.path.insert" in task.test_patch
    original = (d / "environment" / "Dockerfile").read_text()
    assert task.environment.dockerfile.startswith("ARG CODEGYM_BASE_IMAGE\n" + original)
    assert task.environment.context == str((d / "environment").resolve())
    assert task.patch == "" and "solve.sh" in task.metadata["harbor"]["oracle_command"]
    assert task.metadata["harbor"]["agent_timeout_sec"] == 300.0
    # the hidden tests and the solution are nowhere in what the image is built from
    assert "check_calc" not in task.environment.dockerfile and "sed -i" not in task.environment.dockerfile


def test_the_harbor_log_parser_reads_the_reward_and_masks_a_missing_one():
    from base64 import b64encode

    from codegym.tasks.grading import GradingError
    from codegym.tasks.log_parsers import LOG_PARSERS

    parse = LOG_PARSERS["harbor"]

    def line(rc=0, threshold=1.0, txt=None, js=None):
        enc = lambda s: "-" if s is None else b64encode(s.encode()).decode()  # noqa: E731
        return f"noise\ncodegym-harbor-result rc={rc} threshold={threshold!r} txt={enc(txt)} json={enc(js)}\n"

    assert parse(line(txt="1\n"), ["reward"]) == {"reward": "passed"}
    assert parse(line(txt="0.99"), ["reward"]) == {"reward": "failed"}
    assert parse(line(threshold=0.5, txt="0.75"), ["reward"]) == {"reward": "passed"}
    assert parse(line(js='{"reward": 1.0}'), ["reward"]) == {"reward": "passed"}
    assert parse(line(js='{"accuracy": 0.2}'), ["reward"]) == {"reward": "failed"}
    # the graded code may print a fake result line; the one test_cmd prints last wins
    assert parse(line(txt="1") + line(txt="0"), ["reward"]) == {"reward": "failed"}
    assert parse("the run was killed", ["reward"]) == {"reward": "error"}
    assert parse(line(rc=124), ["reward"]) == {"reward": "failed"}  # test.sh timed out
    for bad in (line(), line(txt="yes"), line(txt="nan"), line(js='{"a": 1, "b": 2}'), line(js="[")):
        with pytest.raises(GradingError, match="no usable reward"):
            parse(bad, ["reward"])


@pytest.fixture(scope="module")
def foreign(tmp_path_factory, docker_client, python_image):
    """Two foreign task folders sharing one image: a working verifier, and one that writes no reward."""
    from codegym.sandbox.task_images import _BUILT, build_task_images

    root = tmp_path_factory.mktemp("foreign-harbor")
    _foreign_task(root, "calc-add")
    _foreign_task(root, "calc-noreward", test_sh="#!/bin/bash\npython3 /tests/check_calc.py\n")
    tasks = load_tasks(root, strict=True)
    results = build_task_images(tasks, docker_client, log=lambda line: None)
    assert len(results) == 1  # same Dockerfile and context: one image
    yield root, {t.instance_id: t for t in tasks}
    for r in results:
        _BUILT.discard(r.tag)
        try:
            docker_client.images.remove(r.tag, force=True)
        except Exception:
            pass


def _episode(task, actions, **kwargs):
    import gymnasium as gym

    env = gym.make("codegym/Tasks-v0", tasks=[task], backend="docker", max_turns=6, **kwargs)
    try:
        obs, info = env.reset(options={"task_id": task.instance_id})
        seen = []
        for action in actions:
            obs, reward, terminated, truncated, info = env.step(action)
            seen.append(obs)
            if terminated or truncated:
                return reward, info, seen
        raise AssertionError("the episode did not end")
    finally:
        env.close()


def test_a_foreign_harbor_task_grades_by_its_reward_in_its_own_image(foreign):
    from codegym.toolcall import ToolCall

    _, tasks = foreign
    task = tasks["calc-add"]
    # guards off: a look at /tests (where the hidden tests go) is a protected read the guards block
    look = ToolCall("bash", {"command": "pwd; cat calc.py; ls -A /tests/ 2>&1; ls -A"})
    fix = ToolCall("bash", {"command": "sed -i 's/a - b/a + b/' calc.py"})
    reward, info, seen = _episode(task, [look, fix, ToolCall("submit", {})], guards=False)
    assert reward == 1.0 and info["tests"] == {"reward": "passed"}, info
    first = str(seen[0])
    assert "/srv/calc" in first and "a - b" in first  # the agent works in the Dockerfile's WORKDIR
    assert "check_calc" not in first and ".codegym-harbor" not in first  # hidden tests are not there
    reward, info, _ = _episode(task, [ToolCall("submit", {})])
    assert reward == 0.0 and info["tests"] == {"reward": "failed"} and info["train_mask"], info
    # a verifier of the agent's own where the hidden tests go is wiped before grading
    plant = ToolCall(
        "bash",
        {
            "command": "mkdir -p .codegym-harbor/tests && printf '#!/bin/bash\\necho 1 > "
            "/logs/verifier/reward.txt\\n' > .codegym-harbor/tests/test.sh"
        },
    )
    reward, info, _ = _episode(task, [plant, ToolCall("submit", {})], guards=False)  # (the guards block it)
    assert ".codegym-harbor/tests/test.sh" in info["diff"]
    assert reward == 0.0 and info["tests"] == {"reward": "failed"} and info["train_mask"], info


def test_a_foreign_verifier_that_writes_no_reward_masks_the_episode(foreign):
    from codegym.toolcall import ToolCall

    _, tasks = foreign
    fix = ToolCall("bash", {"command": "sed -i 's/a - b/a + b/' calc.py"})
    reward, info, _ = _episode(tasks["calc-noreward"], [fix, ToolCall("submit", {})])
    assert info["train_mask"] is False and "no usable reward" in str(info), info


def test_codegym_tasks_validate_runs_solve_sh_as_the_oracle(foreign):
    from typer.testing import CliRunner

    from codegym.cli import app

    root, _ = foreign
    ok = CliRunner().invoke(
        app, ["tasks", "validate", str(root / "calc-add"), "--backend", "docker", "--workers", "1"]
    )
    assert ok.exit_code == 0 and "1/1 tasks valid" in ok.output, ok.output[-3000:]
    both = CliRunner().invoke(app, ["tasks", "validate", str(root), "--backend", "docker", "--workers", "2"])
    assert both.exit_code == 1 and "1/2 tasks valid" in both.output, both.output[-3000:]
    assert "FAIL calc-noreward" in both.output and "no usable reward" in both.output
    assert "FAIL calc-add" not in both.output


@pytest.fixture(scope="module")
def round_trip(exported, docker_client, python_image):
    from codegym.sandbox.task_images import _BUILT, build_task_images

    out, _ = exported
    tasks = load_tasks(out, strict=True)
    results = build_task_images(tasks, docker_client, log=lambda line: None)
    yield tasks[0]
    for r in results:
        _BUILT.discard(r.tag)
        try:
            docker_client.images.remove(r.tag, force=True)
        except Exception:
            pass


def test_the_round_trip_grades_the_same_with_the_real_grader(toy_task, round_trip):
    from codegym.agents import OracleAgent, ScriptedAgent
    from codegym.envs import CodingEnv, run_episode

    results = {}
    for task in (toy_task, round_trip):
        env = CodingEnv([task], backend="docker", max_turns=6)
        try:
            gold = run_episode(env, OracleAgent([task]), task.instance_id)
            empty = run_episode(env, ScriptedAgent([]), task.instance_id)
        finally:
            env.close()
        results[task.repo_location] = (gold.reward, gold.tests, empty.reward, empty.tests, empty.train_mask)
    assert results["upload"] == results["image"], results
    assert results["image"][0] == 1.0 and results["image"][2] == 0.0 and results["image"][4]


def test_the_exported_scripts_are_harbors_verifier_and_oracle(exported, round_trip, docker_client):
    _, d = exported
    mounts = {
        str(d / "tests"): {"bind": "/tests", "mode": "ro"},
        str(d / "solution"): {"bind": "/solution", "mode": "ro"},
    }
    rewards = {}
    for name, script in (
        ("gold", "bash /solution/solve.sh && bash /tests/test.sh"),
        ("empty", "bash /tests/test.sh"),
    ):
        out = docker_client.containers.run(round_trip.image, ["bash", "-c", f"{script} >/dev/null 2>&1; cat /logs/verifier/reward.txt"],
                                           volumes=mounts, network_mode="none", remove=True)  # fmt: skip
        rewards[name] = out.decode().strip()
    assert rewards == {"gold": "1", "empty": "0"}
    fix = next(ref for ref in round_trip.upstream_refs if len(ref) == 40)  # the upstream fix commit
    history = docker_client.containers.run(
        round_trip.image,
        ["bash", "-c", f"git for-each-ref --format='%(refname)'; git cat-file -e {fix} 2>/dev/null && echo FIX; true"],
        network_mode="none", remove=True,
    ).decode().split()  # fmt: skip
    assert history == ["refs/heads/main"]  # one branch, no tags; the upstream fix is not in the image


def test_a_task_with_swe_bench_environment_fields_exports_its_rendered_dockerfile(calc_repo, tmp_path):
    from codegym.tasks.loader import task_from_dict

    row = {
        **calc_repo.task.to_dict(),
        "environment": {"pip_packages": ["six"], "install": ["pip install -e ."]},
    }
    del row["workdir"]
    task = task_from_dict(row, file=tmp_path / "tasks.jsonl")
    (d,) = export_harbor([task], tmp_path / "out")
    dockerfile = (d / "environment" / "Dockerfile").read_text()
    assert 'RUN python3 -m pip install "six"' in dockerfile and "RUN pip install -e ." in dockerfile
    assert "ADD codegym-workspace.tar /testbed/" in dockerfile and "codegym-ca.crt" not in dockerfile
    assert (d / "environment" / "codegym-get-pip.py").is_file() and (
        d / "environment" / "codegym-workspace.tar"
    ).is_file()
    (back,) = load_tasks(tmp_path / "out")
    assert (
        back.workdir == "/testbed"
        and back.environment.dockerfile == dockerfile
        and back.repo_location == "image"
    )
    assert back.image != task.image  # another recipe (a Dockerfile now), another tag
