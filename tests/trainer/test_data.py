"""Episode -> Segment -> Step: JSONL round trip, agent turns to episodes, padded training tensors."""

from __future__ import annotations

import pytest
import torch

from codegym.agents.llm import Turn
from codegym.trainer.advantages import compute_advantages
from codegym.trainer.data import (
    Episode,
    Segment,
    Step,
    episode_from_turns,
    load_episodes,
    save_episodes,
    to_sequences,
)

PAD = 0


def step(ids, obs=(), key="k", version=1):
    return Step(list(ids), [-0.1 * (i + 1) for i in range(len(ids))], version, list(obs), key)


def two_episodes():
    # episode a: one segment, two steps; episode b: compacted into two segments, branch of a
    a = Episode("t1", "g", [Segment([1, 2, 3], [step([10, 11], [4, 5], "s0"), step([12], [], "s1")])],
                reward=1.0, reward_components={"correctness": 1.0, "format": 1.0}, episode_id="a", tree_id="T")
    b = Episode("t1", "g", [Segment([1, 2, 3], [step([10, 11], [4, 5], "s0")]),
                            Segment([1, 9], [step([20, 21, 22], [6], "s2", 2), step([23], [], "s3", 2)], "compaction", 1)],
                reward=0.0, reward_components={"correctness": 0.0}, episode_id="b", tree_id="T", branch_id=1,
                parent_id="a", branch_step=1)
    return [a, b]


def test_jsonl_round_trip(tmp_path):
    eps = two_episodes()
    eps[1].steps[0].hack_events = [{"rule": "vcs", "blocked": True}]
    eps[1].mask("sandbox_error: gone")
    path = save_episodes(eps, tmp_path / "runs" / "episodes.jsonl")
    save_episodes(eps[:1], path, append=True)
    back = load_episodes(path)
    assert back[:2] == eps and back[2] == eps[0] and len(path.read_text().splitlines()) == 3
    assert back[1].train_mask is False and back[1].mask_reason == "sandbox_error: gone"
    with pytest.raises(ValueError, match="logprobs"):
        Step([1, 2], [0.0], 0)


def test_episode_from_agent_turns():
    turns = [Turn(0, "start", [1, 2], [10, 11], [-1.0, -2.0], 3, "stop", "x", "s0", 0, [], None, {"name": "bash"}),
             Turn(0, None, [4, 5], [12], [-3.0], 3, "length", "y", "s1", 0, [{"rule": "r"}], "bad call"),
             Turn(1, "compaction", [1, 9], [13], [-4.0], 4, "stop", "z", "s2", 1)]
    ep = episode_from_turns(turns, task_id="t", group_id="g")
    assert [s.start_reason for s in ep.segments] == ["start", "compaction"]
    assert ep.segments[0].token_ids() == [1, 2, 10, 11, 4, 5, 12] and ep.segments[1].token_ids() == [1, 9, 13]
    assert ep.steps[0].tool_name == "bash" and ep.steps[1].parse_error == "bad call"
    assert ep.steps[1].hack_events == [{"rule": "r"}] and ep.steps[2].policy_version == 4
    assert ep.num_steps == 3 and ep.completion_tokens == 4


def test_to_sequences_masks_logprobs_steps_and_ids():
    eps = two_episodes()
    batch = to_sequences(eps, PAD)
    assert batch.input_ids.shape == (3, 8) and batch.num_rows == 3
    assert batch.input_ids.tolist() == [[1, 2, 3, 10, 11, 4, 5, 12], [1, 2, 3, 10, 11, 4, 5, PAD],
                                        [1, 9, 20, 21, 22, 6, 23, PAD]]
    assert batch.completion_mask[0].tolist() == [0, 0, 0, 1, 1, 0, 0, 1]
    assert batch.attention_mask.tolist() == [[1] * 8, [1] * 7 + [0], [1] * 7 + [0]]
    assert torch.allclose(batch.old_logprobs[0, 3:5], torch.tensor([-0.1, -0.2])) and batch.old_logprobs[0, 5] == 0
    assert batch.token_steps[0].tolist() == [-1, -1, -1, 0, 0, -1, -1, 1]
    assert batch.step_spans == [[(3, 5), (7, 8)], [(3, 5)], [(2, 5), (6, 7)]]
    assert batch.token_steps[2].tolist() == [-1, -1, 3, 3, 3, -1, 4, -1]
    assert batch.policy_versions[2, 2].item() == 2 and batch.policy_versions[2, 0].item() == -1
    assert batch.episode_index.tolist() == [0, 1, 1] and batch.segment_index.tolist() == [0, 0, 1]
    assert batch.group_ids == ["g"] * 3 and batch.tree_ids == ["T"] * 3
    assert batch.scores.tolist() == [1.0, 0.0, 0.0] and batch.reward_names == ["correctness", "format"]
    assert batch.reward_components.tolist() == [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]
    # the reward sits on the episode's last completion token (in its last segment)
    assert batch.token_level_rewards[0, 7] == 1.0 and batch.token_level_rewards.sum() == 1.0
    # branch point of b (branch_step=1): its first segment is all shared, the second all its own
    assert batch.branch_points.tolist() == [3, 7, 2]
    assert batch.step_episode.tolist() == [0, 0, 1, 1, 1] and batch.step_index.tolist() == [0, 1, 0, 1, 2]
    assert batch.step_state_keys == ["s0", "s1", "s0", "s2", "s3"] and batch.step_rewards.tolist() == [0, 1, 0, 0, 0]
    # masks cover completions only, and b's copy of a's first step (its shared prefix) is not trained
    assert batch.shared_prefix_mask[1].tolist() == [0, 0, 0, 1, 1, 0, 0, 0] and batch.shared_prefix_mask[[0, 2]].sum() == 0
    assert batch.completion_mask[1].sum() == 0
    assert (batch.completion_mask.bool() == ((batch.token_steps >= 0) & (batch.shared_prefix_mask == 0))).all()
    every_leaf = to_sequences(eps, PAD, mask_shared_prefix=False)  # the reference Tree-GRPO's rows
    assert (every_leaf.completion_mask.bool() == (every_leaf.token_steps >= 0)).all()
    assert torch.equal(every_leaf.shared_prefix_mask, batch.shared_prefix_mask)
    # Insight 5: equal sampled tokens give equal action keys (a's and b's first step are the same call)
    keys = batch.step_action_keys
    assert keys[0] == keys[2] and len(set(keys)) == 4


def test_masked_episodes_are_left_out_unless_asked():
    eps = two_episodes()
    eps[0].mask("engine_error")
    assert to_sequences(eps, PAD).episode_index.tolist() == [1, 1]
    assert to_sequences(eps, PAD, include_masked=True).num_rows == 3


@pytest.mark.parametrize("name", ["grpo", "gigpo", "tree_grpo", "gdpo", "gd2po", "gae"])
def test_batches_feed_every_advantage_estimator(name):
    eps = two_episodes() + [Episode("t1", "g", [Segment([1], [step([30, 31], [], "s0")])], reward=0.5,
                                    reward_components={"correctness": 0.5, "format": 1.0}, episode_id="c",
                                    tree_id="T2")]
    batch = to_sequences(eps, PAD)
    kwargs = batch.advantage_inputs(name)
    if name == "gae":
        kwargs["values"] = torch.zeros_like(batch.old_logprobs)
    adv = compute_advantages(name, **kwargs).advantages
    assert adv.shape == batch.input_ids.shape
    assert (adv[batch.completion_mask == 0] == 0).all() and adv.abs().sum() > 0


def test_unknown_states_are_none():
    ep = Episode("t", "g", [Segment([1], [step([5], [], None), step([6], [], "unknown"), step([7], [], "s1")])])
    assert to_sequences([ep], PAD).step_state_keys == [None, None, "s1"]


def compacted(ep, at):
    """The same episode with its steps in two segments, the second from step `at` (a compaction)."""
    [seg] = ep.segments
    first = Segment(seg.prompt_ids, seg.steps[:at])
    second = Segment([1, 9, 9], seg.steps[at:], "compaction", 1)
    return Episode(ep.task_id, ep.group_id, [first, second], reward=ep.reward,
                   reward_components=dict(ep.reward_components), episode_id=ep.episode_id, tree_id=ep.tree_id)


def per_step_advantages(batch, adv):
    out = {}
    for r in range(batch.num_rows):
        for t in range(adv.shape[1]):
            if batch.completion_mask[r, t]:
                out.setdefault(int(batch.token_steps[r, t]), []).append(round(float(adv[r, t]), 5))
    return out


@pytest.mark.parametrize("name", ["grpo", "gigpo", "tree_grpo", "gdpo", "gd2po"])
def test_compaction_changes_no_advantage_through_the_data_path(name):
    # four rollouts of a task (two trees); the first is compacted into two segments
    def rollout(i, reward, comps, keys):
        steps = [step([10 + i, 11], [4], keys[0]), step([12, 13 + i], [5], keys[1]), step([14], [], keys[2])]
        return Episode("t", "g", [Segment([1, 2, 3], steps)], reward=reward, reward_components=comps,
                       episode_id=f"e{i}", tree_id=f"T{i % 2}")

    eps = [rollout(0, 1.0, {"correctness": 1.0, "format": 0.0}, ["s0", "s1", "s2"]),
           rollout(1, 0.0, {"correctness": 0.0, "format": 1.0}, ["s0", "s1", "s3"]),
           rollout(2, 0.5, {"correctness": 0.5, "format": 1.0}, ["s0", "s4", None]),
           rollout(3, 0.0, {"correctness": 0.0, "format": 0.0}, ["s0", "s1", "s2"])]
    results = []
    for episodes in (eps, [compacted(eps[0], 1), *eps[1:]]):
        batch = to_sequences(episodes, PAD)
        results.append((batch, compute_advantages(name, **batch.advantage_inputs(name)).advantages))
    (whole, a), (split, b) = results
    assert split.num_rows == whole.num_rows + 1
    assert per_step_advantages(whole, a) == per_step_advantages(split, b)


def test_a_tree_branch_trains_only_its_own_steps():
    eps = two_episodes()  # b branches from a after a's first step, which b's first row holds
    for mask_prefix, prefix_trained in ((True, False), (False, True)):
        batch = to_sequences(eps, PAD, mask_shared_prefix=mask_prefix)
        kwargs = batch.advantage_inputs("tree_grpo")
        adv = compute_advantages("tree_grpo", **kwargs,
                                 shared_prefix="backbone" if mask_prefix else "every_leaf").advantages
        assert bool((adv[1] != 0).any()) is prefix_trained  # b's copy of the prefix
        assert (adv[0, [3, 4, 7]] != 0).all() and (adv[2, [2, 3, 4, 6]] != 0).all()  # a's steps, b's own
