"""`LLMAgent`: chat-template rendering, token-exact segments, new segments on rewrites."""

from __future__ import annotations

import copy

import pytest

from codegym.agents import ContextLimitError, LLMAgent
from codegym.agents.engines import Completion, GenerationRequest
from codegym.envs.tools import tool_schemas


class Recording:
    """Wraps an engine; keeps every request and completion."""

    def __init__(self, inner):
        self.inner, self.requests, self.completions = inner, [], []
        self.policy_version = 0
        self.eos_token_ids = getattr(inner, "eos_token_ids", [])

    def generate(self, requests):
        out = self.inner.generate(requests)
        self.requests += list(requests)
        self.completions += out
        return out


class Fixed:
    """Returns the given token ids (e.g. a tokenization the tokenizer itself would never produce)."""

    def __init__(self, *ids_list):
        self.ids_list, self.i, self.policy_version = list(ids_list), 0, 7

    def generate(self, requests):
        out = []
        for _ in requests:
            ids = self.ids_list[self.i % len(self.ids_list)]
            self.i += 1
            out.append(Completion(list(ids), [-0.5] * len(ids), "stop", self.policy_version))
        return out


def start(task="Fix add in calc.py."):
    msgs = [{"role": "system", "content": "You are an engineer."}, {"role": "user", "content": task}]
    return msgs, {"tools": tool_schemas(["bash", "submit"]), "state_key": "s0", "segment": 0, "hack_events": []}


def spelled(tok, text):
    """`text` one character per token: a valid but non-canonical tokenization."""
    return [tok.convert_tokens_to_ids(tok.convert_ids_to_tokens(tok.encode(ch, add_special_tokens=False))[0])
            for ch in text]


def test_segments_are_built_from_engine_ids_and_observation_deltas_only(tok):
    call = '<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>'
    odd = spelled(tok, "submit") + [tok.eos_token_id]
    canonical = tok.encode("submit", add_special_tokens=False)
    assert odd[:-1] != canonical  # BPE would merge these characters
    engine = Recording(Fixed(tok.encode(call, add_special_tokens=False) + [tok.eos_token_id], odd))
    agent = LLMAgent(engine, tok, max_new_tokens=64)
    msgs, info = start()
    agent.reset(info)
    text = agent.act(msgs, info)
    assert text == call  # the eos is not part of the action
    msgs = msgs + [{"role": "assistant", "content": text}, {"role": "tool", "name": "bash", "content": "calc.py"}]
    info = {"state_key": "s1", "segment": 0, "hack_events": [{"rule": "x"}], "tool_call": {"name": "bash"}}
    text2 = agent.act(msgs, info)
    assert text2 == "submit"
    first, second = agent.turns
    assert first.start_reason == "start" and second.start_reason is None and first.segment == second.segment == 0
    assert first.prompt_ids == engine.requests[0].prompt_ids == tok.encode(agent.render(msgs[:2], {}), add_special_tokens=False)
    # the second prompt extends the first with the engine's ids, then the tokenized delta
    assert engine.requests[1].prompt_ids == first.prompt_ids + first.completion_ids + second.prompt_ids
    assert tok.decode(engine.requests[1].prompt_ids) == agent.render(msgs, {})
    assert second.completion_ids == odd and second.logprobs == [-0.5] * len(odd) and second.policy_version == 7
    assert first.state_key == "s0" and second.state_key == "s1"
    assert first.hack_events == [{"rule": "x"}] and first.tool_call == {"name": "bash"}  # from the next info
    assert agent._ids[-len(odd):] == odd  # never re-tokenized


def test_a_rewritten_history_or_a_new_env_segment_starts_a_new_segment(tok):
    engine = Recording(Fixed(tok.encode("ok", add_special_tokens=False) + [tok.eos_token_id]))
    agent = LLMAgent(engine, tok)
    msgs, info = start()
    agent.act(msgs, info)
    long = msgs + [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "Error: no tool call"}]
    agent.act(long, {"segment": 0})
    # compaction: older turns replaced by a digest, the wrapper bumps the segment
    compacted = msgs + [{"role": "user", "content": "[digest of turns 1-2]"}]
    agent.act(compacted, {"segment": 1})
    # a template/harness that rewrites history without a segment change
    rewritten = [{"role": "system", "content": "Different system prompt."}] + compacted[1:]
    agent.act(rewritten, {"segment": 1})
    assert [(t.segment, t.start_reason) for t in agent.turns] == [(0, "start"), (0, None), (1, "compaction"),
                                                                 (2, "rewrite")]
    assert agent.turns[2].prompt_ids == tok.encode(agent.render(compacted, {}), add_special_tokens=False)
    assert engine.requests[2].prompt_ids == agent.turns[2].prompt_ids and agent.turns[2].env_segment == 1
    assert engine.requests[3].prompt_ids == agent.turns[3].prompt_ids


def test_tiny_model_turns_keep_what_the_engine_sampled(engine, tok):
    rec = Recording(engine)
    agent = LLMAgent(rec, tok, max_new_tokens=12, temperature=1.0, seed=5)
    msgs, info = start()
    text = agent.act(msgs, info)
    msgs = msgs + [{"role": "assistant", "content": text}, {"role": "user", "content": "Error: no tool call found"}]
    agent.act(msgs, {"state_key": "s0", "segment": 0})
    assert [t.completion_ids for t in agent.turns] == [c.token_ids for c in rec.completions]
    assert [t.logprobs for t in agent.turns] == [c.logprobs for c in rec.completions]
    assert rec.requests[1].prompt_ids[: len(rec.requests[0].prompt_ids)] == rec.requests[0].prompt_ids
    assert [r.seed for r in rec.requests] == [5, 6]


def test_context_limit_clamps_then_raises(tok):
    engine = Recording(Fixed([5] * 3))
    msgs, info = start()
    n = len(tok.encode(LLMAgent(engine, tok).render(msgs, info), add_special_tokens=False))
    agent = LLMAgent(engine, tok, max_new_tokens=50, max_context=n + 10)
    agent.act(msgs, info)
    assert engine.requests[0].max_new_tokens == 10
    with pytest.raises(ContextLimitError, match="no room"):
        agent.act(msgs + [{"role": "assistant", "content": "x"}, {"role": "user", "content": "more " * 20}], {})


def test_copies_share_the_engine_snapshots_restore(tok):
    engine = Fixed(tok.encode("ok", add_special_tokens=False) + [tok.eos_token_id])
    agent = LLMAgent(engine, tok, stop_at_call=True, parser="hermes")
    msgs, info = start()
    agent.act(msgs, info)
    twin = copy.deepcopy(agent)
    assert twin.engine is agent.engine and twin.tokenizer is agent.tokenizer and twin.turns == []
    state = agent.snapshot()
    twin.restore(state)
    assert twin.turns == agent.turns and twin._ids == agent._ids
    req = twin.prepare(msgs + [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "go"}], {})
    assert isinstance(req, GenerationRequest) and req.stop == ("</tool_call>",) and twin._pending.start_reason is None  # continues the segment
    with pytest.raises(RuntimeError, match="twice"):
        twin.prepare(msgs, {})


def test_chat_mode_without_a_tokenizer():
    class Chat:
        policy_version = 0

        def chat(self, messages, tools=None, **kw):
            self.seen = (messages, tools, kw)
            return Completion([], [], "stop", 0, "<tool_call>{}</tool_call>")

    engine = Chat()
    agent = LLMAgent(engine, None, max_new_tokens=9)
    msgs, info = start()
    assert agent.act(msgs, info) == "<tool_call>{}</tool_call>"
    assert engine.seen[1] == info["tools"] and engine.seen[2]["max_tokens"] == 9
    assert agent.turns[0].completion_ids == [] and agent.turns[0].text == "<tool_call>{}</tool_call>"
