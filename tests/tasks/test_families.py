"""The task families: thousands of seeded instances, deterministic, split train/held-out by statement,
every sampled instance valid (reference 1, empty 0) on the host and through the real env."""

from __future__ import annotations

import re

import gymnasium as gym
import pytest
from calc_fixtures import git
from gymnasium.utils.env_checker import check_env

import codegym  # noqa: F401  (registers the ids)
from codegym.tasks.suites.families import (
    _FIELDS,
    FAMILIES,
    LOOKUP_VALUES,
    family_tasks,
    instances,
    to_task,
    write_family_repo,
)
from codegym.tasks.validate import validate_task_locally
from codegym.toolcall import ToolCall
from codegym.trainer.sft import demonstration


@pytest.fixture(scope="module")
def splits():
    return {s: family_tasks(s) for s in ("train", "heldout")}


def sample(tasks, family, n):
    return [t for t in tasks if t.metadata["family"] == family][:n]


def test_thousands_of_instances_split_by_statement(splits):
    train, heldout = splits["train"], splits["heldout"]
    assert len(train) + len(heldout) >= 3000
    for family in FAMILIES:
        n_train, n_held = len(sample(train, family, 10**6)), len(sample(heldout, family, 10**6))
        assert n_train >= 800 and 0.1 < n_held / (n_train + n_held) < 0.3, family
    ids = [t.instance_id for t in train + heldout]
    assert len(set(ids)) == len(ids)
    # what makes an instance distinct (its statement; lookup's data file) never crosses the split
    assert not {t.metadata["split_key"] for t in train} & {t.metadata["split_key"] for t in heldout}
    for t in train + heldout:
        if t.metadata["family"] != "lookup":
            assert t.metadata["split_key"] == t.problem_statement.strip()
    assert not ({t.problem_statement for t in train if t.metadata["family"] != "lookup"}
                & {t.problem_statement for t in heldout})
    assert {t.metadata["split"] for t in train} == {"train"} and {t.metadata["split"] for t in heldout} == {"heldout"}
    assert family_tasks("heldout", "lookup") == sample(heldout, "lookup", 10**6)
    with pytest.raises(ValueError, match="split 'test'"):
        family_tasks("test")
    with pytest.raises(ValueError, match="unknown task families"):
        family_tasks("train", ["nope"])


def test_an_instance_is_a_function_of_family_and_seed(tmp_path):
    for family in FAMILIES:
        a, b = instances(family, range(6)), instances(family, range(6))
        assert [(i.statement, i.base, i.fixed, i.hidden) for i in a] == [(i.statement, i.base, i.fixed, i.hidden)
                                                                          for i in b]
        assert len({i.split_key for i in a}) == 6  # distinct instances (lookup: its data file)
    insts = instances("bug_location", range(4))
    assert write_family_repo(tmp_path / "a.git", insts) == write_family_repo(tmp_path / "b.git", insts)


def test_the_information_needed_is_only_behind_a_tool_call(splits):
    lookups = sample(splits["train"], "lookup", 200)
    assert len({t.problem_statement for t in lookups}) == 1  # only the data file tells the value
    assert len({t.patch.splitlines()[-1] for t in lookups}) == len(LOOKUP_VALUES)
    for t in lookups[:20]:
        value = t.patch.splitlines()[-1].split(" = ")[1]
        assert value not in t.problem_statement and t.metadata["source"] in t.problem_statement
        assert f"= {value}\n" in t.metadata["split_key"]  # the data file holds it
        assert [c["name"] for c in t.metadata["demonstration"]] == ["view", "create", "submit"]
        # the flawed demonstration skips the read and writes a value of the family's alphabet
        guess = t.metadata["flawed_demonstration"]
        assert [c["name"] for c in guess] == ["create", "submit"]
        assert int(guess[0]["arguments"]["file_text"].split(" = ")[1]) in LOOKUP_VALUES
    guesses = [t.metadata["flawed_demonstration"][0]["arguments"]["file_text"] == t.patch.splitlines()[-1][1:] + "\n"
               for t in lookups]
    assert 0.03 < sum(guesses) / len(guesses) < 0.3  # right about 1 time in 8
    noisy = sample(splits["train"], "noisy_log", 200)
    for t in noisy[:20]:
        assert t.metadata["log_chars"] >= 2000  # over a small context budget (~1-2k tiny tokens)
        # its flawed demonstration skips the view and guesses one of the family's fields
        guess = t.metadata["flawed_demonstration"]
        assert [c["name"] for c in guess] == ["create", "submit"]
        assert re.fullmatch(r"EXTRA_FIELDS = \('(\w+)',\)\n", guess[0]["arguments"]["file_text"])[1] in _FIELDS
    right = [t.metadata["flawed_demonstration"][0]["arguments"]["file_text"] == t.patch.splitlines()[-1][1:] + "\n"
             for t in noisy]
    assert sum(right) / len(right) < 0.15  # right about 1 time in 20
    for t in sample(splits["train"], "bug_location", 20):
        [bug_file] = t.patch_files()
        assert bug_file == t.metadata["bug_file"] and bug_file.split("/")[-1] not in t.problem_statement
        assert t.metadata["modules"] >= 3


def test_the_noisy_log_warning_is_its_first_or_last_line():
    # a compaction cuts the view it keeps to its head and tail (`shrink_to_fit`): the field stays visible
    places, statements = set(), set()
    for inst in instances("noisy_log", range(40)):
        [path] = [p for p in inst.base if p.startswith("logs/")]
        log = inst.base[path].splitlines()
        [field] = re.fullmatch(r"EXTRA_FIELDS = \('(\w+)',\)\n", inst.fixed["extra.py"]).groups()
        assert path in inst.statement
        statements.add(inst.statement.replace(path, "<log>"))  # the statement names the log, never the field
        assert [i + 1 for i, line in enumerate(log) if f"EXTRA_FIELDS = ('{field}',)" in line] == [
            inst.metadata["warning_line"]]
        assert inst.metadata["warning_line"] in (1, len(log)) and 2000 <= inst.metadata["log_chars"] <= 4200
        places.add(inst.metadata["warning_line"] == 1)
    assert places == {True, False} and len(statements) == 1


def test_one_repository_per_family_and_the_fix_stays_out_of_reach(splits):
    t = splits["train"][0]
    fix_sha, tag = t.upstream_refs
    assert git("rev-parse", f"{tag}^{{commit}}", cwd=t.repo).stdout.strip() == fix_sha
    assert git("merge-base", "--is-ancestor", t.base_commit, fix_sha, cwd=t.repo).returncode == 0
    assert git("rev-list", "--count", t.base_commit, cwd=t.repo).stdout.strip() == "1"


@pytest.mark.parametrize("family", list(FAMILIES))
def test_sampled_instances_validate_on_the_host(splits, family):
    for t in sample(splits["train"], family, 3) + sample(splits["heldout"], family, 2):
        result = validate_task_locally(t)
        assert result.ok, (t.instance_id, result.problems)


def test_a_task_from_one_instance(tmp_path):
    [inst] = instances("lookup", [7])
    [(base, fix)] = write_family_repo(tmp_path / "r.git", [inst])
    task = to_task(inst, tmp_path / "r.git", base, fix)
    assert task.FAIL_TO_PASS == ("tests/test_task.py::test_" + task.patch.splitlines()[-1].split()[0][1:].lower(),)
    assert task.protected_paths == ("tests/test_task.py",)


# ---- through the real env ----------------------------------------------------------------------------


def run_calls(env, task_id, calls):
    env.reset(options={"task_id": task_id})
    segments, reward = {0}, 0.0
    for call in calls:
        _, reward, terminated, truncated, info = env.step(call)
        segments.add(info.get("segment", 0))
        if terminated or truncated:
            break
    return reward, len(segments)


@pytest.mark.docker
@pytest.mark.parametrize("family", list(FAMILIES))
def test_reference_scores_one_and_empty_zero_through_the_env(splits, family):
    for split in ("train", "heldout"):
        [task] = sample(splits[split], family, 1)
        env = gym.make("codegym/Families-v0", split=split, families=[family], backend="docker", max_turns=6,
                       context_budget=1024)
        try:
            reward, segments = run_calls(env, task.instance_id, demonstration(task))
            assert reward == 1.0, (task.instance_id, reward)
            if family == "noisy_log":
                assert segments > 1  # the long log compacted the context
            assert run_calls(env, task.instance_id, [ToolCall("submit", {})])[0] == 0.0
        finally:
            env.close()


@pytest.mark.docker
def test_check_env_passes_for_families():
    env = gym.make("codegym/Families-v0", split="heldout", families="lookup", backend="docker", max_turns=3)
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_the_trainer_config_knows_the_splits(splits):
    from codegym.trainer.config import ConfigError, config_from_dict

    held = splits["heldout"][0].instance_id
    cfg = config_from_dict({"env": {"id": "codegym/Families-v0", "tasks": [held], "kwargs": {"split": "heldout"}}})
    assert cfg.env.tasks == [held]
    with pytest.raises(ConfigError, match=r"env.tasks: unknown task id\(s\) \['" + held):
        config_from_dict({"env": {"id": "codegym/Families-v0", "tasks": [held]}})  # split train by default
    with pytest.raises(ConfigError, match="split 'dev'"):
        config_from_dict({"env": {"id": "codegym/Families-v0", "kwargs": {"split": "dev"}}})
