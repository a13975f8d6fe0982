"""`OpenAIEngine` against a local OpenAI-compatible server (127.0.0.1) backed by the tiny model."""

from __future__ import annotations

import pytest

from codegym.agents.engines import EngineError, GenerationRequest, OpenAIEngine
from codegym.agents.engines.openai_engine import tool_calls_as_text
from codegym.antihack import LLMJudge
from codegym.antihack.types import Flag, GuardContext
from codegym.toolcall import ToolCall


def test_generate_sends_token_ids_and_gets_the_servers_ids_and_logprobs(openai_server, engine, tok):
    url, state = openai_server("token_ids")
    remote = OpenAIEngine(url, "tiny", api_key="k", max_workers=2)
    prompts = [tok.encode("fix calc.py", add_special_tokens=False), tok.encode("hi", add_special_tokens=False)]
    reqs = [GenerationRequest(p, 6, temperature=0.9, seed=i) for i, p in enumerate(prompts)]
    got = remote.generate(reqs)
    want = [engine.generate([r])[0] for r in reqs]  # the same engine, same seeds, one at a time
    assert [c.token_ids for c in got] == [c.token_ids for c in want]
    assert all(abs(a - b) < 1e-6 for g, w in zip(got, want, strict=True) for a, b in zip(g.logprobs, w.logprobs, strict=True))
    path, body = state.requests[0]
    assert path == "/v1/completions" and body["prompt"] in prompts and body["return_token_ids"] is True
    assert body["logprobs"] == 1 and body["model"] == "tiny" and "seed" in body


def test_older_servers_and_servers_without_ids(openai_server, tok):
    url, _ = openai_server("as_token_ids")
    [c] = OpenAIEngine(url, "tiny").generate([GenerationRequest([5, 6, 7], 4, seed=0)])
    assert len(c.token_ids) == 4 and not c.meta
    url, _ = openai_server("text_only")
    with pytest.raises(EngineError, match="no token ids"):
        OpenAIEngine(url, "tiny").generate([GenerationRequest([5, 6, 7], 4, seed=0)])
    for seed in range(6):  # re-tokenized text; where it splits unlike the server's tokens, no logprobs
        [c] = OpenAIEngine(url, "tiny", tokenizer=tok).generate([GenerationRequest([5, 6, 7], 4, seed=seed)])
        assert c.meta["retokenized"] is True and c.token_ids == tok.encode(c.text, add_special_tokens=False)
        assert c.meta.get("logprobs_missing", False) == (len(c.token_ids) != 4)


def test_chat_complete_and_the_llm_judge(openai_server):
    url, state = openai_server("token_ids", chat_reply={
        "content": '{"verdict": "hack", "category": "vcs-future-leak", "rationale": "reads future commits"}'})
    remote = OpenAIEngine(url, "judge-model")
    assert '"hack"' in remote.complete("is this a hack?")
    verdict = LLMJudge(remote).judge(ToolCall("bash", {"command": "git log --all"}), GuardContext(),
                                     [Flag("vcs-future-leak", "VCS-REV", "git log --all")])
    assert verdict.is_hack and verdict.judge == "llm"
    assert state.requests[-1][1]["messages"][0]["role"] == "user"


def test_chat_turns_structured_tool_calls_into_text(openai_server):
    url, state = openai_server("token_ids", chat_reply={"content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}]})
    c = OpenAIEngine(url, "m").chat([{"role": "system", "content": "s"}, {"role": "tool", "name": "bash", "content": "x"}],
                                    tools=[{"type": "function", "function": {"name": "bash"}}])
    assert c.text == '<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>' and c.token_ids == []
    sent = state.requests[-1][1]
    assert sent["messages"][1] == {"role": "user", "content": "<tool_response>\nx\n</tool_response>"} and sent["tools"]
    assert tool_calls_as_text(None) == ""


def test_load_adapter_errors_and_unreachable_servers(openai_server):
    url, state = openai_server()
    remote = OpenAIEngine(url, "base")
    remote.load_adapter("/adapters/v1", version=1)
    remote.load_adapter("/adapters/v2", version=2)
    remote.load_adapter("/adapters/v3", version=3)
    # the previous adapter stays loaded (async rollouts may still name it); the one before goes
    assert [r for r in state.requests] == [
        ("/v1/load_lora_adapter", {"lora_name": "base-v1", "lora_path": "/adapters/v1"}),
        ("/v1/load_lora_adapter", {"lora_name": "base-v2", "lora_path": "/adapters/v2"}),
        ("/v1/load_lora_adapter", {"lora_name": "base-v3", "lora_path": "/adapters/v3"}),
        ("/v1/unload_lora_adapter", {"lora_name": "base-v1"})]
    assert remote.model == "base-v3" and remote.policy_version == 3
    with pytest.raises(EngineError, match="HTTP 404"):
        remote._post("/nowhere", {})
    with pytest.raises(EngineError, match="cannot reach"):
        OpenAIEngine("http://127.0.0.1:9/v1", "m", timeout=2).generate([GenerationRequest([1], 1)])


def test_a_completion_records_the_version_of_the_adapter_its_request_named(openai_server, tok):
    url, state = openai_server("token_ids")
    remote = OpenAIEngine(url, "tiny")
    remote.load_adapter("/adapters/v4", version=4)
    [c] = remote.generate([GenerationRequest([5, 6, 7], 3, seed=0)])
    assert c.policy_version == 4 and state.requests[-1][1]["model"] == "tiny-v4"
