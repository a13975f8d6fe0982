"""`codegym eval --agent` with models: the tiny model, a model directory, an OpenAI-compatible URL."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from codegym.agents import LLMAgent
from codegym.agents.engines import OpenAIEngine, TransformersEngine
from codegym.cli import app
from codegym.evaluation import evaluate, make_agent


def test_make_agent_builds_engines(tiny_model, tok, tmp_path, openai_server):
    agent = make_agent("tiny", None, max_new_tokens=7, temperature=0.5)
    assert isinstance(agent, LLMAgent) and isinstance(agent.engine, TransformersEngine)
    assert agent.max_new_tokens == 7 and agent.temperature == 0.5
    tiny_model.save_pretrained(tmp_path / "m")
    tok.save_pretrained(tmp_path / "m")
    local = make_agent(str(tmp_path / "m"), None)
    assert isinstance(local.engine, TransformersEngine) and local.tokenizer.eos_token == "<|im_end|>"
    url, _ = openai_server()
    remote = make_agent(url, None, model="served")
    assert isinstance(remote.engine, OpenAIEngine) and remote.tokenizer is None and remote.engine.model == "served"
    with_ids = make_agent(url, None, model="served", tokenizer=str(tmp_path / "m"))
    assert with_ids.tokenizer is not None and with_ids.engine.tokenizer is with_ids.tokenizer
    with pytest.raises(ValueError, match="needs --model"):
        make_agent(url, None)
    with pytest.raises(ValueError, match="unknown agent 'orcale'"):
        make_agent("orcale", None)


def test_eval_runs_a_served_model_with_the_guards_on(openai_server, tmp_path):
    url, state = openai_server(chat_reply={"content": '<tool_call>{"name": "bash", "arguments": '
                                                      '{"command": "git log --all --oneline"}}</tool_call>'})
    summary = evaluate(make_agent(url, None, model="served", max_new_tokens=32), "toy", tmp_path, limit=1,
                       workers=1, progress=False, env_kwargs={"max_turns": 2, "backend": "docker"})
    assert summary["episodes"] == 1 and summary["hack_events"] >= 1 and summary["pass_rate"] == 0.0
    assert [p for p, _ in state.requests] == ["/v1/chat/completions"] * 2
    record = json.loads((tmp_path / "episodes.jsonl").read_text().splitlines()[0])
    assert record["hack_events"][0]["blocked"]


def test_cli_eval_with_the_tiny_model(tmp_path):
    result = CliRunner().invoke(app, ["eval", "--agent", "tiny", "--suite", "toy", "--limit", "2", "--max-turns", "2",
                                      "--max-new-tokens", "8", "--workers", "2", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["episodes"] == 2 and summary["masked"] == 0


def test_seeded_llm_agent_samples_each_replicate_differently_and_reproducibly(engine, tok):
    from codegym.envs import CodingEnv, run_episodes

    def completions():
        agent = LLMAgent(engine, tok, max_new_tokens=12, temperature=1.0, seed=7)
        records = run_episodes(lambda: CodingEnv("toy", backend="docker", max_turns=1), agent, ["toy-max-of"],
                               n_per_task=2, max_workers=1, seed=3)
        return [r.messages[2]["content"] for r in records]

    first = completions()
    assert first[0] != first[1]  # replicates are not copies of one sample
    assert completions() == first  # and a seeded evaluation is reproducible
