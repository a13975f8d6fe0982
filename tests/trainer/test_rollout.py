"""Rollout collection end to end: the tiny model acting in real Docker sandboxes on Toy-v0.

Token ids in segments are exactly what the engine produced and saw, masks cover completions
only, compaction splits segments, trees have the right shape and branch points, failures of
the sandbox or the engine mask one episode while the batch goes on, and episodes round-trip
through JSONL.
"""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import codegym  # noqa: F401  (registers the ids)
from codegym.agents import LLMAgent
from codegym.agents.engines import EngineError, ScriptedEngine, TransformersEngine
from codegym.trainer.data import load_episodes, save_episodes, to_sequences
from codegym.trainer.rollout import collect, collect_trees


class Recording:
    """Wraps an engine: keeps (prompt ids, completion) pairs and batch sizes; can fail on purpose."""

    def __init__(self, inner, fail_if=None):
        self.inner, self.fail_if = inner, fail_if
        self.pairs, self.batches = [], []
        self.eos_token_ids, self.max_context = inner.eos_token_ids, getattr(inner, "max_context", None)

    @property
    def policy_version(self):
        return self.inner.policy_version

    def generate(self, requests):
        if self.fail_if is not None and any(self.fail_if(r) for r in requests):
            raise EngineError("out of memory (on purpose)")
        out = self.inner.generate(requests)
        self.batches.append(len(requests))
        self.pairs += [(list(r.prompt_ids), c) for r, c in zip(requests, out, strict=True)]
        return out


@pytest.fixture(scope="module")
def tok():
    from codegym.agents.tiny import build_tiny_tokenizer

    return build_tiny_tokenizer()


@pytest.fixture(scope="module")
def model(tok):
    from codegym.agents.tiny import build_tiny_model

    return build_tiny_model(tok)


def toy(**kwargs):
    return lambda: gym.make("codegym/Toy-v0", backend="docker", **kwargs)


def prefix_before(segment, k):
    """The segment's tokens before step k's completion: what the engine got as the prompt."""
    ids = list(segment.prompt_ids)
    for s in segment.steps[:k]:
        ids += s.completion_ids + s.observation_ids
    return ids


def assert_token_exact(episodes, engine):
    """Every step an episode made itself (after its branch point) is one engine completion,
    sampled from exactly the segment's tokens before it; and every completion is used once."""
    seen = {tuple(c.token_ids): (prompt, c) for prompt, c in engine.pairs}
    n_steps = 0
    for ep in episodes:
        i = 0
        for seg in ep.segments:
            for k, step in enumerate(seg.steps):
                i += 1
                if i <= ep.branch_step:
                    continue  # copied from the parent (checked against it)
                prompt, c = seen[tuple(step.completion_ids)]
                assert step.logprobs == c.logprobs and step.policy_version == c.policy_version
                assert prompt == prefix_before(seg, k)
                n_steps += 1
    assert n_steps == len(engine.pairs) == len(seen)


def test_collect_groups_token_exact_segments_and_masks(model, tok):
    engine = Recording(TransformersEngine(model, tok))
    agent = LLMAgent(engine, tok, max_new_tokens=24)
    stats = {}
    episodes = collect(toy(max_turns=3), agent, ["toy-add-typo", "toy-hello-file"], group_size=2, max_envs=4,
                       batch_id="it0", stats=stats)
    assert [e.episode_id for e in episodes] == ["it0/0:toy-add-typo/0", "it0/0:toy-add-typo/1",
                                                "it0/1:toy-hello-file/0", "it0/1:toy-hello-file/1"]
    assert [e.group_id for e in episodes] == ["it0/0:toy-add-typo"] * 2 + ["it0/1:toy-hello-file"] * 2
    for ep in episodes:
        assert ep.train_mask and ep.stop_reason == "max_turns" and ep.num_steps == 3
        assert set(ep.reward_components) >= {"correctness", "hack_penalty"} and ep.reward == 0.0
        assert all(s.state_key.startswith("ws:") for s in ep.steps) and ep.metadata["turns"] == 3
        assert [s.start_reason for s in ep.segments] == ["start"]
    assert_token_exact(episodes, engine)
    assert max(engine.batches) == 4  # one generate call per turn across the four envs
    assert stats["episodes"] == 4 and stats["generated_tokens"] == sum(e.completion_tokens for e in episodes)
    # two rollouts of one task sample differently (distinct seeds)
    assert episodes[0].steps[0].completion_ids != episodes[1].steps[0].completion_ids
    batch = to_sequences(episodes, tok.pad_token_id)
    assert batch.completion_mask.sum() == sum(e.completion_tokens for e in episodes)
    for r, ep_i in enumerate(batch.episode_index.tolist()):
        seg = episodes[ep_i].segments[batch.segment_index[r]]
        row = batch.input_ids[r, : len(seg)].tolist()
        assert row == seg.token_ids()
        mask = batch.completion_mask[r, : len(seg)].tolist()
        engine_made = [0] * len(seg.prompt_ids)
        for s in seg.steps:
            engine_made += [1] * len(s.completion_ids) + [0] * len(s.observation_ids)
        assert mask == engine_made


def test_compaction_starts_new_segments(model, tok):
    engine = Recording(TransformersEngine(model, tok))
    agent = LLMAgent(engine, tok, max_new_tokens=32)
    make = toy(max_turns=6, parse_error_limit=10, context_budget=1000, tokenizer=tok)
    [ep] = collect(make, agent, ["toy-add-typo"], max_envs=1, batch_id="c")
    assert len(ep.segments) >= 2 and ep.train_mask
    assert [s.start_reason for s in ep.segments[1:]] == ["compaction"] * (len(ep.segments) - 1)
    assert [s.env_segment for s in ep.segments] == list(range(len(ep.segments)))
    assert sum(len(s.steps) for s in ep.segments) == ep.num_steps == 6
    assert_token_exact([ep], engine)
    assert len(to_sequences([ep], tok.pad_token_id).segment_index) == len(ep.segments)


def test_tree_rollouts_have_the_right_shape_and_branch_points(model, tok):
    engine = Recording(TransformersEngine(model, tok))
    agent = LLMAgent(engine, tok, max_new_tokens=16)
    m, rounds, n = 1, 2, 2
    episodes = collect_trees(toy(max_turns=4), agent, ["toy-is-even"], trees=m, rounds=rounds, expand=n, max_envs=2,
                             batch_id="tr")
    assert len(episodes) == m * (rounds * n + 1) == 5
    assert {e.group_id for e in episodes} == {"tr/0:toy-is-even"} and {e.tree_id for e in episodes} == {"tr/0:toy-is-even/t0"}
    assert [e.branch_id for e in episodes] == [0, 1, 2, 3, 4]
    by_id = {e.episode_id: e for e in episodes}
    root = episodes[0]
    assert root.parent_id is None and root.branch_step == 0
    for leaf in episodes[1:]:
        parent = by_id[leaf.parent_id]
        assert 1 <= leaf.branch_step < parent.num_steps and leaf.train_mask
        if parent is not root:  # expanded in round 2 from a round-1 branch: at one of its own nodes
            assert leaf.branch_step > parent.branch_step
        k = leaf.branch_step
        # the shared prefix is token-exact, observations included; the leaf goes on by itself
        assert [s.completion_ids for s in leaf.steps[:k]] == [s.completion_ids for s in parent.steps[:k]]
        assert prefix_before(leaf.segments[0], k) == prefix_before(parent.segments[0], k)
        assert leaf.num_steps == 4 and leaf.steps[k].completion_ids != parent.steps[k].completion_ids
    assert_token_exact(episodes, engine)
    batch = to_sequences(episodes, tok.pad_token_id)
    for r, ep_i in enumerate(batch.episode_index.tolist()):
        ep = episodes[ep_i]
        assert batch.branch_points[r] == batch.step_spans[r][ep.branch_step][0]


def test_a_killed_sandbox_or_a_failing_engine_masks_one_episode(model, tok):
    class KillAtTurn(gym.Wrapper):
        def step(self, action):
            env = self.env.unwrapped
            if env.task.instance_id == "toy-is-even" and env.turn == 1:
                env.sandbox.container.kill()
            return self.env.step(action)

    engine = Recording(TransformersEngine(model, tok), fail_if=lambda r: "greet" in tok.decode(r.prompt_ids))
    agent = LLMAgent(engine, tok, max_new_tokens=8)
    episodes = collect(lambda: KillAtTurn(toy(max_turns=3)()), agent, ["toy-is-even", "toy-greeting-typo", "toy-max-of"],
                       max_envs=3, batch_id="f")
    killed, starved, fine = episodes
    assert not killed.train_mask and killed.stop_reason == "sandbox_error" and killed.mask_reason
    assert not starved.train_mask and starved.stop_reason == "engine_error"
    assert "out of memory (on purpose)" in starved.mask_reason and starved.num_steps == 0
    assert fine.train_mask and fine.num_steps == 3 and fine.stop_reason == "max_turns"
    assert to_sequences(episodes, tok.pad_token_id).episode_index.unique().tolist() == [2]


def test_scripted_policy_solves_a_task_with_hack_events_and_round_trips_jsonl(tok, tmp_path):
    fix = json.dumps({"name": "str_replace", "arguments": {"path": "calc.py", "old_str": "return a - b",
                                                            "new_str": "return a + b"}})
    script = ['<tool_call>{"name": "bash", "arguments": {"command": "git log --all --oneline"}}</tool_call>',
              f"<tool_call>{fix}</tool_call>", '<tool_call>{"name": "submit", "arguments": {}}</tool_call>']

    def respond(prompt):
        return script[min(prompt.count("<tool_response>"), 2)]

    agent = LLMAgent(ScriptedEngine(tok, respond), tok, max_new_tokens=128)
    [ep] = collect(toy(), agent, ["toy-add-typo"], batch_id="s")
    assert ep.reward == 1.0 and ep.stop_reason == "submitted" and ep.reward_components["hack_penalty"] < 0
    assert ep.steps[0].hack_events and ep.steps[0].hack_events[0]["category"] == "vcs-future-leak"
    assert [s.tool_name for s in ep.steps] == ["bash", "str_replace", "submit"]
    assert ep.metadata["tests"] and ep.metadata["seed"] == 0
    path = save_episodes([ep], tmp_path / "episodes.jsonl")
    assert load_episodes(path) == [ep]
