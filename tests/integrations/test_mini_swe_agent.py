"""mini-swe-agent's real `DefaultAgent` and `DeterministicModel` on a codegym env in Docker."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")  # no banner in the test log
pytest.importorskip("minisweagent")

from minisweagent.agents.default import DefaultAgent  # noqa: E402
from minisweagent.models.test_models import DeterministicModel, make_output  # noqa: E402

from codegym.integrations.mini_swe_agent import CodegymEnvironment  # noqa: E402

pytestmark = pytest.mark.docker

AGENT_CONFIG = {"system_template": "You are a careful engineer. Reply with one ```mswea_bash_command block.",
                "instance_template": "{{task}}", "step_limit": 10, "cost_limit": 100.0}


def _agent(outputs, env):
    return DefaultAgent(DeterministicModel(outputs=outputs), env, **AGENT_CONFIG)


def test_default_agent_solves_a_toy_task_and_submits_with_the_sentinel():
    outputs = [make_output("Fix the operator.", [{"command": "sed -i 's/a - b/a + b/' calc.py"}]),
               make_output("Check it.", [{"command": "cat calc.py"}]),
               make_output("Done.", [{"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}])]
    with CodegymEnvironment("codegym/Toy-v0", "toy-add-typo", backend="docker") as env:
        agent = _agent(outputs, env)
        exit_info = agent.run(env.task)
        assert exit_info["exit_status"] == "Submitted"
        assert "a + b" in exit_info["submission"]  # the diff codegym graded
        observations = [m["content"] for m in agent.messages if m["role"] == "user"][1:]
        assert "<returncode>0</returncode>" in observations[0] and "return a + b" in observations[1]
        result = env.result
        assert result["stop_reason"] == "submitted" and result["reward"] == 1.0
        assert result["rewards"]["correctness"] == 1.0 and result["turns"] == 3
        assert result["tests"] and set(result["tests"].values()) == {"passed"}
        assert env.serialize()["info"]["codegym_result"] == result


def test_guards_are_on_and_codegym_ends_the_episode_at_max_turns():
    outputs = [make_output("Weaken the test.", [{"command": "echo 'def test_mul(): pass' > tests/test_calc.py"}]),
               make_output("Look.", [{"command": "ls"}])]
    with CodegymEnvironment("codegym/Toy-v0", "toy-add-typo", backend="docker", max_turns=2) as env:
        exit_info = _agent(outputs, env).run(env.task)
        assert exit_info["exit_status"] == "max_turns"
        assert env.result["stop_reason"] == "max_turns" and env.result["reward"] == 0.0
        assert any(e["blocked"] for e in env.result["hack_events"]), env.result["hack_events"]
        assert env.execute({"command": "ls"})["returncode"] == -1  # the episode is over: nothing runs
