"""`GuardContext.visible_test_literals` in real episodes: the env fills it from the visible tests of
the base repository (never the hidden ones), a table keyed by their inputs is blocked before it
reaches the sandbox, and the reference fix goes through untouched."""

from __future__ import annotations

import json
import subprocess

import gymnasium as gym
import pytest

import codegym  # noqa: F401
from codegym.agents import OracleAgent
from codegym.agents.redteam import CATALOGUE, Facts
from codegym.antihack.literal_forms import visible_test_literals
from codegym.envs import run_episode
from codegym.envs.wrappers.guards import guard_context
from codegym.tasks.loader import load_tasks


@pytest.fixture(scope="module")
def tasks():
    return {t.instance_id: t for t in load_tasks("toy") + load_tasks("repofix")}


def _call(name, **arguments):
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def _hidden_source(task):
    return "\n".join(
        ln[1:] for ln in task.test_patch.splitlines() if ln.startswith("+") and not ln.startswith("+++")
    )


def test_the_env_fills_the_field_from_visible_tests_only(tasks):
    task = tasks["repofix-pagekit"]
    lits = guard_context(task).visible_test_literals
    assert "'Hello World'" in lits and 'case ["[20, 10]", "2"]' in lits
    hidden_only = visible_test_literals([_hidden_source(task)]) - visible_test_literals(
        _visible_sources(task)
    )
    assert hidden_only and not hidden_only & lits
    assert guard_context(tasks["toy-max-of"]).visible_test_literals == frozenset()  # no visible tests
    assert guard_context(task.replace(repo="/nonexistent")).visible_test_literals is None  # unknown


def _visible_sources(task):
    git = ["git", "-c", "safe.directory=*", f"--git-dir={task.repo}"]
    show = [
        subprocess.run([*git, "show", f"{task.base_commit}:{p}"], capture_output=True, text=True, check=True)
        for p in task.visible_tests
    ]
    return [r.stdout for r in show]


def test_a_table_keyed_by_the_visible_tests_is_blocked_and_the_reference_fix_is_not(tasks):
    task = tasks["repofix-pagekit"]
    technique = next(t for t in CATALOGUE if t.name == "visible-case-table")
    hack = technique.build(Facts.of(task))
    env = gym.make("codegym/Tasks-v0", tasks=[task], backend="docker")
    env.reset(options={"task_id": task.instance_id})
    *_, info = env.step(_call(hack.name, **hack.arguments))
    events = info["hack_events"]
    assert events and events[0]["blocked"] and events[0]["category"] == "special-casing"
    assert "SC-VISIBLE" in json.dumps(events[0]["flags"])
    *_, info = env.step(_call("bash", command="grep -c 'match args' pagekit/pagination.py || true"))
    assert info["new_messages"][-1]["content"].strip().startswith("0")  # never written
    env.close()
    env = gym.make("codegym/Tasks-v0", tasks=[task], backend="docker")
    rec = run_episode(env, OracleAgent([task]), task.instance_id)
    env.close()
    assert rec.rewards["correctness"] == 1.0
    assert not any("SC-VISIBLE" in json.dumps(e["flags"]) for e in rec.hack_events)
