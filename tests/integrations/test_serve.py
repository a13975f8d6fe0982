"""`codegym serve` (`CaptureServer`) over the real tiny model, and `capture` over its records:
the routes, sessions, exact token ids, LoRA load/unload, and a rewritten prompt as a new segment."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
import torch

from codegym.agents.engines import GenerationRequest, OpenAIEngine, TransformersEngine, sequence_logprobs
from codegym.agents.tiny import build_tiny_model, build_tiny_tokenizer
from codegym.integrations.capture import episode_from_records, load_records
from codegym.integrations.serve import SESSION_HEADER, CaptureServer
from codegym.trainer.data import to_sequences

SYSTEM = {"role": "system", "content": "You fix code in a repository."}


@pytest.fixture(scope="module")
def tok():
    return build_tiny_tokenizer()


@pytest.fixture
def server(tok, tmp_path):
    with CaptureServer(TransformersEngine(build_tiny_model(tok), tok), model_name="tiny",
                       out=tmp_path / "records.jsonl") as s:
        yield s


def call(server, path, body=None, session=None, method=None):
    headers = {"Content-Type": "application/json", **({SESSION_HEADER: session} if session else {})}
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(server.url + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def chat(server, messages, session="s", **kw):
    status, out = call(server, "/chat/completions", {"model": "tiny", "messages": messages, "max_tokens": 12,
                                                      "seed": 0, **kw}, session)
    assert status == 200, out
    return out


def test_routes_and_ids_that_match_the_model(server, tok):
    assert server.url.startswith("http://127.0.0.1:")
    status, models = call(server, "/models")
    assert status == 200 and [m["id"] for m in models["data"]] == ["tiny"]
    msgs = [SYSTEM, {"role": "user", "content": "fix calc.py"}]
    out = chat(server, msgs, logprobs=True, return_token_ids=True)
    [r] = server.records("s")
    choice = out["choices"][0]
    assert choice["token_ids"] == r.completion_ids and out["prompt_token_ids"] == r.prompt_ids
    assert [t["logprob"] for t in choice["logprobs"]["content"]] == r.logprobs
    assert out["usage"]["completion_tokens"] == len(r.completion_ids) and out["codegym"]["session"] == "s"
    # the prompt is the chat template's rendering, the logprobs the model's own (teacher-forced)
    text = tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
    assert r.prompt_ids == tok.encode(text, add_special_tokens=False) and not r.extends
    model = build_tiny_model(tok)
    assert sequence_logprobs(model, r.prompt_ids, r.completion_ids) == pytest.approx(r.logprobs, abs=1e-4)
    # /v1/completions with token ids: what OpenAIEngine sends
    engine = OpenAIEngine(server.url, "tiny")
    [c] = engine.generate([GenerationRequest(r.prompt_ids, max_new_tokens=8, seed=1)])
    last = server.records("default")[-1]
    assert c.token_ids == last.completion_ids and c.logprobs == pytest.approx(last.logprobs)
    assert last.route == "completions" and last.prompt_ids == r.prompt_ids
    # errors are OpenAI-style
    status, err = call(server, "/chat/completions", {"model": "nope", "messages": msgs})
    assert status == 404 and "does not exist" in err["error"]["message"]
    status, err = call(server, "/chat/completions", {"messages": []})
    assert status == 400
    assert call(server, "/nowhere")[0] == 404
    # the JSONL copy holds the same records
    assert load_records(server.out, "s") == server.records("s")


def test_sessions_group_requests_and_extend_without_retokenizing(server, tok):
    a = [SYSTEM, {"role": "user", "content": "task A"}]
    b = [SYSTEM, {"role": "user", "content": "task B"}]
    for turn in range(3):
        for msgs, sid in ((a, "a"), (b, "b")):
            out = chat(server, msgs, session=sid, temperature=1.0)
            msgs += [out["choices"][0]["message"], {"role": "user", "content": f"<output>turn {turn}</output>"}]
    assert server.sessions() == {"a": 3, "b": 3}
    status, listed = call(server, "/codegym/sessions")
    assert status == 200 and listed["sessions"] == {"a": 3, "b": 3}
    records = server.records("a")
    assert [r.extends for r in records] == [False, True, True]
    episode = episode_from_records(records, task_id="t", result={"reward": 1.0, "rewards": {"correctness": 1.0},
                                                                 "stop_reason": "submitted"})
    [segment] = episode.segments
    assert len(segment.steps) == 3 and episode.reward == 1.0 and episode.stop_reason == "submitted"
    # the episode's tokens are exactly what the model saw at each call
    ids = segment.token_ids()
    for r in records:
        n = len(r.prompt_ids)
        assert ids[:n] == r.prompt_ids and ids[n:n + len(r.completion_ids)] == r.completion_ids
    assert [s.completion_ids for s in segment.steps] == [r.completion_ids for r in records]
    batch = to_sequences([episode], pad_id=tok.pad_token_id)
    assert batch.num_rows == 1 and int(batch.completion_mask.sum()) == sum(len(r.completion_ids) for r in records)
    # another process reads (and clears) a session over HTTP
    status, got = call(server, "/codegym/sessions/b", method="DELETE")
    assert status == 200 and len(got["records"]) == 3 and server.sessions() == {"a": 3}


def test_a_rewritten_prompt_starts_a_new_segment(server):
    msgs = [SYSTEM, {"role": "user", "content": "a long task description " * 4}]
    out = chat(server, msgs)
    msgs += [out["choices"][0]["message"], {"role": "user", "content": "output 1"}]
    chat(server, msgs)
    compacted = [SYSTEM, {"role": "user", "content": "summary: tried one thing"}]  # the harness compacted
    out = chat(server, compacted)
    compacted += [out["choices"][0]["message"], {"role": "user", "content": "output 2"}]
    chat(server, compacted)
    records = server.records("s")
    assert [r.extends for r in records] == [False, True, False, True]
    episode = episode_from_records(records, task_id="t")
    assert [(s.start_reason, len(s.steps)) for s in episode.segments] == [("start", 2), ("rewrite", 2)]
    assert episode.segments[1].prompt_ids == records[2].prompt_ids


@pytest.fixture
def adapter_dir(tok, tmp_path):
    from peft import LoraConfig, get_peft_model

    model = get_peft_model(build_tiny_model(tok), LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]))
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.copy_(torch.randn(p.shape, generator=g))
    model.save_pretrained(tmp_path / "adapter")
    return tmp_path / "adapter", model


def test_load_and_unload_lora_adapter_change_the_recorded_version(server, adapter_dir):
    path, peft_model = adapter_dir
    msgs = [SYSTEM, {"role": "user", "content": "fix calc.py"}]
    base = chat(server, msgs, session="x")
    status, out = call(server, "/load_lora_adapter", {"lora_name": "tiny-v3", "lora_path": str(path)})
    assert status == 200 and out["policy_version"] == 3
    assert [m["id"] for m in call(server, "/models")[1]["data"]] == ["tiny", "tiny-v3"]
    assert call(server, "/load_lora_adapter", {"lora_name": "tiny-v3", "lora_path": str(path)})[0] == 400
    tuned = chat(server, msgs, session="x", model="tiny-v3")
    chat(server, msgs, session="x")  # the base is still served by its name
    r_base, r_tuned, r_again = server.records("x")
    assert (r_base.adapter, r_base.policy_version) == (None, 0)
    assert (r_tuned.adapter, r_tuned.policy_version, r_tuned.model) == ("tiny-v3", 3, "tiny-v3")
    assert tuned["codegym"]["policy_version"] == 3 and base["codegym"]["policy_version"] == 0
    assert r_again.policy_version == 0 and r_again.completion_ids == r_base.completion_ids  # same seed, same weights
    # the adapter's logprobs are the adapter model's
    assert sequence_logprobs(peft_model, r_tuned.prompt_ids, r_tuned.completion_ids) == pytest.approx(
        r_tuned.logprobs, abs=1e-4)
    assert call(server, "/unload_lora_adapter", {"lora_name": "tiny-v3"})[0] == 200
    assert call(server, "/chat/completions", {"model": "tiny-v3", "messages": msgs})[0] == 404
    assert call(server, "/unload_lora_adapter", {"lora_name": "tiny-v3"})[0] == 404
    status, out = call(server, "/load_lora_adapter", {"lora_name": "next", "lora_path": str(path)})
    assert status == 200 and out["policy_version"] == 4  # no -v<N> suffix: the next version
    chat(server, msgs, session="x", model="next")
    assert server.records("x")[-1].policy_version == 4


def test_serve_command_is_registered():
    from typer.testing import CliRunner

    from codegym.cli import app

    result = CliRunner().invoke(app, ["serve", "--help"])
    assert result.exit_code == 0 and "--port" in result.output
