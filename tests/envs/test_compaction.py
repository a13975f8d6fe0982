"""`Compaction`: token counting, the three strategies on long scripted episodes in real Docker
sandboxes, segment bookkeeping, what survives a compaction, and forking across one."""

from __future__ import annotations

import copy
import json

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import codegym  # noqa: F401  (registers the ids)
from codegym.agents import ScriptedAgent
from codegym.envs import CodingEnv
from codegym.envs.state_keys import workspace_key
from codegym.envs.tools import ToolResult
from codegym.envs.wrappers import Compaction, TokenCounter
from codegym.envs.wrappers.compaction import _shrink_block
from codegym.envs.wrappers.compaction_strategies import (
    SUMMARY_PROMPT,
    cap_text,
    mask_block,
    shrink_to_fit,
    turn_ranges,
)

BUDGET, RESERVE, MAX_OUTPUT = 2600, 256, 1200


def call(name, **arguments):
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def long_script(n_big: int = 14) -> list[str]:
    """Sizeable outputs, a failing command, a test run, the fix, and more output."""
    big = [call("bash", command=f"seq {1000 * i} {1000 * i + 300}") for i in range(n_big)]
    return [*big[:4], call("bash", command="seq 1 100000"), call("run_tests"), call("bash", command="false"),
            call("view", path="calc.py"), call("str_replace", path="calc.py", old_str="a - b", new_str="a + b"),
            *big[4:], call("bash", command="ls")]


def wrapped(strategy="digest", **kwargs) -> Compaction:
    env = CodingEnv("toy", backend="docker", max_turns=40, max_output_chars=MAX_OUTPUT)
    return Compaction(env, BUDGET, strategy, reserve_tokens=RESERVE, **kwargs)


def play(env, actions, task_id="toy-add-typo"):
    """Run a ScriptedAgent episode; return the reset pair and every step's (obs, reward, info) plus
    the observation each action was chosen from."""
    agent = ScriptedAgent(actions)
    obs, info = env.reset(options={"task_id": task_id})
    agent.reset(info)
    first, steps, done = (obs, info), [], False
    while not done:
        action = agent.act(obs, info)
        seen = obs
        obs, reward, terminated, truncated, info = env.step(action)
        steps.append({"seen": seen, "obs": obs, "reward": reward, "info": info,
                      "done": terminated or truncated})
        done = terminated or truncated
    return first, steps


def check_segments(env: Compaction, first, steps, count):
    """The invariants every strategy keeps."""
    head = first[0]
    segments = env.get_wrapper_attr("segments")
    n = len(steps)
    # every turn belongs to exactly one segment, in order, and segments are numbered 0, 1, ...
    assert [s["index"] for s in segments] == list(range(len(segments)))
    assert sorted(t for s in segments for t in s["turns"]) == list(range(1, n + 1))
    assert [t for s in segments for t in s["turns"]] == list(range(1, n + 1))
    # the segment index only moves forward, by one, exactly on compaction steps
    indices = [first[1]["segment"]] + [s["info"]["segment"] for s in steps]
    assert indices[0] == 0 and all(b - a == int("compaction" in s["info"]) for a, b, s in
                                   zip(indices[:-1], indices[1:], steps, strict=True))
    for i, s in enumerate(steps):
        turn = s["info"]["turn"]
        assert turn == i + 1 and env.segment_of(turn) == indices[i]  # the segment the policy acted in
        if s["done"]:
            continue
        # within budget, with room for the next completion, and the system prompt and task kept verbatim
        assert count(s["obs"]) == s["info"]["context_tokens"] and count(s["obs"]) + RESERVE <= BUDGET
        assert s["obs"][:2] == head
        if "compaction" in s["info"]:
            c = s["info"]["compaction"]
            assert c["segment"] == s["info"]["segment"] and c["turn"] == turn
            assert c["tokens_before"] + RESERVE > BUDGET >= c["tokens_after"] + RESERVE
            assert c["tokens_after"] == count(s["obs"])
    # each segment's token sequence (what the policy saw plus its completion) fits the budget
    for s in steps:
        assert count([*s["seen"], s["info"]["new_messages"][0]]) <= BUDGET
    # the env keeps the full, uncompacted history: head plus two messages a turn
    history = env.history
    assert history[:2] == head and len(history) == 2 + 2 * n
    assert [m["content"] for m in history[3::2]] == [s["info"]["new_messages"][1]["content"] for s in steps]
    return segments


# ---- no Docker ---------------------------------------------------------------------------------

def test_token_counter_estimate_callable_and_hf_tokenizer():
    msgs = [{"role": "user", "content": "x" * 35}, {"role": "assistant", "content": "y" * 8}]
    assert TokenCounter()(msgs) == 13 + 2 * 4  # ceil(43 / 3.5) + 4 per message
    assert TokenCounter(lambda m: 7 * len(m))(msgs) == 14
    transformers = pytest.importorskip("transformers")
    from tokenizers import Tokenizer, models, pre_tokenizers

    words = Tokenizer(models.WordLevel({"[UNK]": 0, "hello": 1, "world": 2}, unk_token="[UNK]"))
    words.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = transformers.PreTrainedTokenizerFast(tokenizer_object=words, unk_token="[UNK]")
    plain = TokenCounter(tok)
    assert plain.kind == "encode" and plain([{"role": "user", "content": "hello world again"}]) == 3 + 4
    tok.chat_template = ("{% for m in messages %}{{ m.role }} {{ m.content }} {% endfor %}"
                         "{% if add_generation_prompt %}assistant{% endif %}")
    templated = TokenCounter(tok)
    assert templated.kind == "chat_template"
    assert templated([{"role": "user", "content": "hello world"}]) == 4  # user hello world assistant


def test_strategy_helpers():
    assert turn_ranges([5, 1, 2, 3, 7, 8]) == "1-3, 5, 7-8"
    text = "a" * 100
    assert cap_text(text, 20).startswith("a" * 10) and "80 characters elided" in cap_text(text, 20)
    assert cap_text(text, 0) == "[... 100 characters elided ...]"
    cut = shrink_to_fit(text, lambda t: len(t) <= 50)
    assert len(cut) <= 50 and "elided" in cut
    turn, msgs = mask_block((3, [{"role": "assistant", "content": "call"}, {"role": "tool", "content": "x" * 9}]))
    assert msgs == [{"role": "assistant", "content": "call"},
                    {"role": "tool", "content": "[output of turn 3 elided: 9 characters]"}]
    assert mask_block((turn, msgs)) == (turn, msgs)  # masking twice changes nothing
    # a kept turn too big for its share is cut: its output first, head and tail kept
    count = TokenCounter()
    block = (4, [{"role": "assistant", "content": "call"}, {"role": "tool", "content": "0123456789" * 200}])
    turn, msgs = _shrink_block(block, lambda b: count(b[1]) <= 100)
    assert count(msgs) <= 100 and msgs[0]["content"] == "call"
    assert msgs[1]["content"].startswith("0123") and msgs[1]["content"].endswith("789") and "elided" in msgs[1]["content"]


def test_bad_settings_are_clear_errors():
    env = CodingEnv("toy", backend="docker")
    with pytest.raises(ValueError, match="reserve_tokens"):
        Compaction(env, 100, reserve_tokens=100)
    with pytest.raises(ValueError, match="summarizer"):
        Compaction(env, 1000, "summarize")
    with pytest.raises(ValueError, match="unknown compaction strategy"):
        Compaction(env, 1000, "forget")


# ---- real episodes -------------------------------------------------------------------------------

def test_long_episode_with_digest_gives_segments_within_budget():
    env = wrapped("digest")
    first, steps = play(env, long_script())
    segments = check_segments(env, first, steps, env.count)
    assert len(segments) >= 3
    compactions = [s["info"]["compaction"] for s in steps if "compaction" in s["info"]]
    assert compactions == env.get_wrapper_attr("compactions") and len(compactions) == len(segments) - 1
    for c in compactions:
        assert c["strategy"] == "digest" and c["dropped_turns"] and c["kept_turns"] == [c["turn"]]
        assert c["summary"].startswith("<context_digest")
    last = compactions[-1]["summary"]
    # files changed with their diff stat, tool calls with exit codes, the last test results
    assert "calc.py | 2 +-" in last and "1 file changed" in last
    assert "bash        exit 1   false" in last and "run_tests   exit 0" in last
    assert "Last test results (turn 6: run_tests exit 0" in last and "1 passed" in last
    # every dropped turn stays dropped; the context after a compaction holds the digest and kept turns
    obs = next(s["obs"] for s in steps if "compaction" in s["info"])
    assert [m["role"] for m in obs] == ["system", "user", "user", "assistant", "tool"]
    # tool outputs were capped per turn (head and tail, the true size) before entering the context
    capped = steps[4]["info"]["new_messages"][1]["content"]
    assert len(capped) <= MAX_OUTPUT + 80 and capped.startswith("1\n2\n")
    assert "[... 588,895 bytes of output; " in capped  # all of `seq 1 100000`, not what the sandbox kept
    final = steps[-1]
    assert final["reward"] == 1.0 and final["info"]["rewards"]["correctness"] == 1.0
    assert final["info"]["stop_reason"] == "submitted"
    env.close()


class ScriptedSummarizer:
    """An agent-like summarizer: answers each summary request with a numbered summary; fails on
    the call numbered `fail_on` (the wrapper then falls back to a digest)."""

    def __init__(self, fail_on: int | None = None):
        self.requests: list[list[dict]] = []
        self.fail_on = fail_on

    def act(self, messages, info):
        self.requests.append(copy.deepcopy(messages))
        if len(self.requests) == self.fail_on:
            raise RuntimeError("the backend is down")
        return f"SUMMARY {len(self.requests)}: ran seq a lot; calc.py fixed; nothing left but to submit."


def test_summarize_with_a_scripted_summarizer_records_request_and_answer():
    summarizer = ScriptedSummarizer(fail_on=3)
    env = wrapped("summarize", summarizer=summarizer)
    first, steps = play(env, long_script(n_big=18))
    segments = check_segments(env, first, steps, env.count)
    compactions = [s["info"]["compaction"] for s in steps if "compaction" in s["info"]]
    assert len(segments) >= 4 and len(summarizer.requests) == len(compactions)
    for i, (c, request) in enumerate(zip(compactions, summarizer.requests, strict=True)):
        assert c["summary_request"] == request and request[:2] == first[0]
        assert request[-1] == {"role": "user", "content": SUMMARY_PROMPT}
        assert env.count(request) + RESERVE <= BUDGET  # the summarizer has room to answer
        if i == 2:  # the failed call: a digest stands in, and the error is on record
            assert c["summary_error"] == "RuntimeError: the backend is down" and c["summary_answer"] is None
            assert c["summary"].startswith("<context_digest")
        else:
            assert c["summary_answer"].startswith(f"SUMMARY {i + 1}:") and c["summary_answer"] in c["summary"]
    # the summary is in the next context, and the next request builds on it
    obs = next(s["obs"] for s in steps if "compaction" in s["info"])
    assert obs[2]["content"] == compactions[0]["summary"]
    assert {"role": "user", "content": compactions[0]["summary"]} in summarizer.requests[1]
    assert steps[-1]["reward"] == 1.0
    env.close()


def test_window_keeps_the_last_turns_and_masks_older_outputs():
    env = wrapped("window", keep_turns=2)
    first, steps = play(env, long_script(n_big=18))
    segments = check_segments(env, first, steps, env.count)
    assert len(segments) >= 3
    compactions = [(s, s["info"]["compaction"]) for s in steps if "compaction" in s["info"]]
    cut = {t for _, c in compactions for t in c["cut_turns"]}  # cut to fit while kept: not verbatim
    for s, c in compactions:
        obs = s["obs"]
        kept, carried = c["kept_turns"], c["carried_turns"]
        assert kept and kept[-1] == c["turn"] and len(kept) <= 2
        if cut & {*kept, *carried}:
            continue
        # the kept turns are verbatim at the end of the context
        tail = [m for t in kept for m in env.history[2 + 2 * (t - 1): 2 + 2 * t]]
        assert obs[len(obs) - len(tail):] == tail
        # older turns still in the context have their outputs masked
        masked = [m["content"] for m in obs[2:len(obs) - len(tail)] if m["role"] == "tool"]
        assert masked == [f"[output of turn {t} elided: {len(env.history[2 + 2 * t - 1]['content'])} characters]"
                          for t in carried]
    # once turns are dropped entirely, a note says so
    later = [(s, c) for s, c in compactions if c["dropped_turns"]]
    assert later
    s, c = later[-1]
    first_in_context = (c["carried_turns"] or c["kept_turns"])[0]
    assert s["obs"][2]["content"].startswith(f"[Turns {turn_ranges(range(1, first_in_context))} were removed")
    env.close()


def test_hack_events_state_keys_and_rewards_survive_and_snapshots_fork_across_compaction():
    def flag_curl(tool_call, env):  # a stand-in guard: flags, penalizes and blocks `curl`
        if tool_call.name == "bash" and "curl" in tool_call.arguments.get("command", ""):
            env.pending_events.append({"category": "network", "rule": "test-curl", "turn": env.turn})
            env.extra_rewards["hack_penalty"] = -1.0
            return ToolResult("Blocked: no network in the sandbox.", exit_code=1)
        return None

    def make():
        e = wrapped("digest")
        e.unwrapped.add_call_interceptor(flag_curl)
        return e

    env = make()
    env.reset(options={"task_id": "toy-add-typo"})
    *_, info = env.step(call("bash", command="curl http://example.com/answer"))
    assert info["hack_events"] == [{"category": "network", "rule": "test-curl", "turn": 1}]
    env.step(call("str_replace", path="calc.py", old_str="a - b", new_str="a + b"))
    i = 0
    while env.segment == 0:
        obs, _, _, _, info = env.step(call("bash", command=f"seq {1000 * i} {1000 * i + 300}"))
        i += 1
    # the compaction step still reports the workspace's state key; the event stays on the env
    assert "compaction" in info and info["state_key"] == workspace_key(env.unwrapped)
    key = info["state_key"]
    assert env.unwrapped.hack_events[0]["rule"] == "test-curl"
    obs, _, _, _, info = env.step(call("view", path="calc.py"))
    assert info["state_key"] == key and info["segment"] == 1

    snap = env.get_wrapper_attr("snapshot")()
    assert snap.extra["compaction"]["segment"] == 1 and snap.messages == obs
    other = make()
    other.get_wrapper_attr("restore")(snap)
    assert other.unwrapped.messages == env.unwrapped.messages and other.history == env.history
    assert other.segments == env.segments and other.segment == 1
    assert other.unwrapped.hack_events == env.unwrapped.hack_events
    # both branches go on identically: same observations, the same next compaction, same segment index
    for j in range(8):
        a = call("bash", command=f"seq {50_000 + 1000 * j} {50_000 + 1000 * j + 300}")
        o1, *_, i1 = env.step(a)
        o2, *_, i2 = other.step(a)
        assert o1 == o2 and i1["segment"] == i2["segment"] and ("compaction" in i1) == ("compaction" in i2)
    assert other.segment >= 2 and other.segments == env.segments
    # the restored branch finishes with the penalty and the fix carried over
    *_, info = other.step(call("submit"))
    assert info["rewards"]["hack_penalty"] == -1.0 and info["rewards"]["correctness"] == 1.0
    assert other.unwrapped.hack_events[0]["rule"] == "test-curl"
    assert sorted(t for s in other.segments for t in s["turns"]) == list(range(1, other.unwrapped.turn + 1))
    env.close()
    other.close()


def test_on_by_default_in_every_id_and_configurable_through_gym_make():
    env = gym.make("codegym/Toy-v0", backend="docker", max_turns=40)
    assert env.get_wrapper_attr("budget") == 32_768 and env.get_wrapper_attr("strategy_name") == "digest"
    obs, info = env.reset(options={"task_id": "toy-add-typo"})
    assert info["segment"] == 0 and info["context_tokens"] == env.get_wrapper_attr("count")(obs)
    env.close()
    env = gym.make("codegym/Toy-v0", backend="docker", compaction=False)
    with pytest.raises(AttributeError):
        env.get_wrapper_attr("segments")
    env.close()

    env = gym.make("codegym/Toy-v0", backend="docker", max_turns=40, max_output_chars=MAX_OUTPUT,
                   context_budget=BUDGET, compaction_strategy="summarize", summarizer=lambda m: "short summary")
    env.reset(options={"task_id": "toy-add-typo"})
    info = {"segment": 0}
    for i in range(12):
        *_, info = env.step(call("bash", command=f"seq {1000 * i} {1000 * i + 300}"))
    assert info["segment"] >= 1 and "short summary" in env.get_wrapper_attr("compactions")[0]["summary"]
    # forking through the whole default stack (guards included) keeps the segment
    snap = env.get_wrapper_attr("snapshot")()
    other = gym.make("codegym/Toy-v0", backend="docker", max_turns=40, max_output_chars=MAX_OUTPUT,
                     context_budget=BUDGET, compaction_strategy="summarize", summarizer=lambda m: "short summary")
    other.get_wrapper_attr("restore")(snap)
    assert other.get_wrapper_attr("segment") == info["segment"]
    env.close()
    other.close()

    # Gymnasium's checker passes with the wrapper on (it warns that the env is wrapped)
    checked = Compaction(CodingEnv("toy", backend="docker", max_turns=3))
    with pytest.warns(UserWarning, match="wrapper"):
        check_env(checked, skip_render_check=True)
    checked.close()

    tight = Compaction(CodingEnv("toy", backend="docker"), 800, reserve_tokens=100)
    with pytest.raises(ValueError, match="too small"):
        tight.reset(options={"task_id": "toy-add-typo"})
    tight.close()


def test_restoring_a_snapshot_taken_without_the_wrapper_starts_at_segment_zero():
    plain = CodingEnv("toy", backend="docker", max_turns=40, max_output_chars=MAX_OUTPUT)
    plain.reset(options={"task_id": "toy-add-typo"})
    for i in range(3):
        plain.step(call("bash", command=f"seq {1000 * i} {1000 * i + 300}"))
    env = wrapped("digest")
    env.restore(plain.snapshot())
    assert env.segment == 0 and env.segments[0]["turns"] == [1, 2, 3]
    while env.segment == 0:
        *_, info = env.step(call("bash", command="seq 1 300"))
    assert info["compaction"]["dropped_turns"][:3] == [1, 2, 3] and info["compaction"]["turn"] == env.unwrapped.turn
    assert env.unwrapped.messages[:2] == plain.messages[:2]
    plain.close()
    env.close()
