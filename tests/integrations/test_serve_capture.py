"""The proof of `codegym serve` + `capture`: mini-swe-agent's real `DefaultAgent`, its litellm
model pointed at `codegym serve` (the tiny model, in a background thread on 127.0.0.1), works a
codegym task in a Docker sandbox through `CodegymEnvironment`; the session becomes an `Episode`
whose ids are the server's records (nothing re-tokenized) and one trainer update runs on it.

The random tiny model never writes a valid command, so it fails the task: the first test's harness
config takes the whole reply as the command (the gibberish runs as bash in the sandbox, with the
guards on) and the step limit stops the agent; the second keeps mini-swe-agent's own
```` ```mswea_bash_command ```` format, whose format errors drop the model's reply from the history,
so every call starts a new segment.
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network lookup of prices
pytest.importorskip("minisweagent")
pytest.importorskip("litellm")

from minisweagent.agents.default import DefaultAgent  # noqa: E402
from minisweagent.exceptions import Submitted  # noqa: E402
from minisweagent.models.litellm_textbased_model import LitellmTextbasedModel  # noqa: E402

from codegym.agents.engines import TransformersEngine  # noqa: E402
from codegym.agents.tiny import build_tiny_model, build_tiny_tokenizer  # noqa: E402
from codegym.integrations.capture import episode_from_records  # noqa: E402
from codegym.integrations.mini_swe_agent import SUBMIT_SENTINEL, CodegymEnvironment  # noqa: E402
from codegym.integrations.serve import SESSION_HEADER, CaptureServer  # noqa: E402
from codegym.trainer.config import config_from_dict  # noqa: E402
from codegym.trainer.loop import Trainer  # noqa: E402

pytestmark = pytest.mark.docker

AGENT_CONFIG = {"system_template": "You are a careful engineer. Reply with one ```mswea_bash_command block.",
                "instance_template": "{{task}}", "step_limit": 3, "cost_limit": 0.0,
                "max_consecutive_format_errors": 0}


class ShortCommands(CodegymEnvironment):
    """Random commands get 10 s each (the harness passes no timeout)."""

    def execute(self, action, cwd="", *, timeout=None):
        return super().execute(action, cwd, timeout=timeout or 10)


@pytest.fixture(scope="module")
def server():
    tok = build_tiny_tokenizer()
    with CaptureServer(TransformersEngine(build_tiny_model(tok), tok), model_name="tiny") as s:
        yield s


def litellm_model(server, session, **config):
    return LitellmTextbasedModel(
        model_name="openai/tiny", cost_tracking="ignore_errors",
        model_kwargs={"api_base": server.url, "api_key": "codegym", "extra_headers": {SESSION_HEADER: session},
                      "temperature": 1.0, "max_tokens": 16, "seed": 0}, **config)


def assert_ids_are_the_records(episode, records):
    steps = episode.steps
    assert len(steps) == len(records)
    assert [s.completion_ids for s in steps] == [r.completion_ids for r in records]
    assert [s.logprobs for s in steps] == [r.logprobs for r in records]
    i = 0
    for segment in episode.segments:  # each call's prompt is its segment's tokens up to that call
        ids = segment.token_ids()
        for k, step in enumerate(segment.steps):
            r = records[i + k]
            assert ids[:len(r.prompt_ids)] == r.prompt_ids
            assert ids[len(r.prompt_ids):len(r.prompt_ids) + len(r.completion_ids)] == step.completion_ids
        i += len(segment.steps)


def test_default_agent_through_codegym_serve_becomes_a_trained_episode(server, tmp_path):
    session = "msa-toy-add-typo-0"
    with ShortCommands("codegym/Toy-v0", "toy-add-typo", backend="docker", max_turns=10) as env:
        model = litellm_model(server, session, action_regex=r"\A(.*)\Z")  # the whole reply is the command
        agent = DefaultAgent(model, env, **AGENT_CONFIG)
        exit_info = agent.run(env.task)
        assert exit_info["exit_status"] == "LimitsExceeded"
        assert sum(m["role"] == "assistant" for m in agent.messages) == 3
        with pytest.raises(Submitted):  # what the harness's submit does: codegym grades the diff
            env.execute({"command": f"echo {SUBMIT_SENTINEL}"})
        result = env.result
    assert result["stop_reason"] == "submitted" and result["reward"] == 0.0 and result["tests"]
    assert result["turns"] == 4  # three commands ran in the sandbox through env.step, then the submit

    records = server.records(session)
    assert len(records) == 3 and [r.extends for r in records] == [False, True, True]
    replies = [m["content"] for m in agent.messages if m["role"] == "assistant"]
    assert replies == [server._reply_text(r.completion_ids) for r in records]  # what the harness got
    episode = episode_from_records(records, task_id="toy-add-typo", result=result)
    assert len(episode.segments) == 1 and episode.stop_reason == "submitted"
    assert_ids_are_the_records(episode, records)
    assert all(s.observation_ids for s in episode.steps[:-1])  # the sandbox's outputs, as the model saw them

    cfg = config_from_dict({
        "algorithm": {"name": "ppo", "epochs": 1}, "model": {"lora_r": 4, "lora_alpha": 8},
        "rollout": {"temperature": 1.0},
        "run": {"out_dir": str(tmp_path / "run"), "progress": False, "tensorboard": False}})
    trainer = Trainer(cfg, task_ids=["toy-add-typo"])
    before = [p.detach().clone() for p in trainer.models.policy_parameters()]
    metrics = trainer.update_on([episode])
    assert metrics["update/policy_steps"] >= 1 and trainer.policy_version == 1
    assert metrics["policy/engine_logprob_diff"] < 1e-3  # the server's logprobs are the trainer's
    assert any(not a.equal(b) for a, b in zip(before, trainer.models.policy_parameters(), strict=True))


def test_format_errors_drop_the_reply_so_each_call_is_a_new_segment(server):
    session = "msa-format-errors"
    with CodegymEnvironment("codegym/Toy-v0", "toy-add-typo", backend="docker") as env:
        agent = DefaultAgent(litellm_model(server, session), env, **{**AGENT_CONFIG, "step_limit": 2})
        assert agent.run(env.task)["exit_status"] == "LimitsExceeded"
    records = server.records(session)
    assert [r.extends for r in records] == [False, False]  # the harness rewrote its context
    episode = episode_from_records(records, task_id="toy-add-typo")
    assert [s.start_reason for s in episode.segments] == ["start", "rewrite"]
    assert_ids_are_the_records(episode, records)
