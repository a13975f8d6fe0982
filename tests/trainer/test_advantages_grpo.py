"""GRPO (verl and TRL flavours): hand-worked cases, reference numbers and the float trap."""

import math

import numpy as np
import pytest
import torch

from codegym.trainer.advantages import compute_advantages

NAN = float("nan")


def grpo(scores, groups, **kw):
    s = torch.as_tensor(scores, dtype=torch.float32)
    return compute_advantages("grpo", response_mask=torch.ones(len(s), 2), group_ids=groups, scores=s, **kw)


def test_hand_worked_group():
    # scores 1, 0, 0, 1: mean .5, unbiased std sqrt(1/3)
    out = grpo([1, 0, 0, 1], [0, 0, 0, 0])
    a = 0.5 / (math.sqrt(1 / 3) + 1e-6)
    assert torch.allclose(out.advantages[:, 0], torch.tensor([a, -a, -a, a]))
    assert torch.equal(out.advantages[:, 0], out.advantages[:, 1])
    trl = grpo([1, 0, 0, 1], [0, 0, 0, 0], flavour="trl")
    assert torch.allclose(
        trl.advantages[:, 0], torch.tensor([1, -1, -1, 1]) * 0.5 / (math.sqrt(1 / 3) + 1e-4)
    )


def test_token_level_rewards_are_summed_and_masked():
    tl = torch.tensor([[0.0, 0.0, 1.0], [0.0, 0.5, -0.5]])
    m = torch.tensor([[1, 1, 1], [1, 1, 0]])
    out = compute_advantages("grpo", token_level_rewards=tl, response_mask=m, group_ids=["q", "q"])
    a = 0.5 / (math.sqrt(0.5) + 1e-6)
    assert torch.allclose(out.advantages, torch.tensor([[a, a, a], [-a, -a, 0.0]]))
    with pytest.raises(ValueError, match="exactly one of"):
        compute_advantages(
            "grpo", token_level_rewards=tl, scores=tl.sum(1), response_mask=m, group_ids=[0, 0]
        )


def test_float_trap_equal_rewards_give_exact_zero():
    # verl's float32 statistics give -0.00739 for eight scores of 0.1; we give exactly 0.
    for flavour in ("verl", "trl"):
        for scale in ("group", "batch", "none"):
            out = grpo([0.1] * 8, [0] * 8, flavour=flavour, scale=scale)
            assert torch.equal(out.advantages, torch.zeros(8, 2)), (flavour, scale)


def test_singleton_group_raw_in_verl_zero_in_trl():
    assert torch.allclose(grpo([0.7], ["x"]).advantages, torch.full((1, 2), 0.7 / (1 + 1e-6)))
    assert torch.equal(grpo([0.7], ["x"], scale=False).advantages, torch.full((1, 2), 0.7))
    assert torch.equal(grpo([0.7], ["x"], flavour="trl").advantages, torch.zeros(1, 2))
    assert torch.equal(grpo([0.7], ["x"], singleton="zero").advantages, torch.zeros(1, 2))


def test_batch_scaling_uses_group_mean_and_batch_std():
    s = [1.0, 0.0, 2.0, 2.0]
    out = grpo(s, [0, 0, 1, 1], flavour="trl", scale="batch")
    std = float(np.std(s, ddof=1))
    assert torch.allclose(out.advantages[:, 0], torch.tensor([0.5, -0.5, 0.0, 0.0]) / (std + 1e-4))


def test_nan_scores_excluded_and_zero():
    out = grpo([1.0, NAN, 0.0, 1.0], [0, 0, 0, 0], flavour="trl")
    ref = grpo([1.0, 0.0, 1.0], [0, 0, 0], flavour="trl")
    assert out.advantages[1].eq(0).all()
    assert torch.allclose(out.advantages[[0, 2, 3]], ref.advantages)
    lone = grpo([NAN, 1.0], [0, 0], flavour="trl")  # one valid value left: a group of one
    assert torch.equal(lone.advantages, torch.zeros(2, 2))


# verl @ b178a3cd compute_grpo_outcome_advantage on these scores and uids.
SCORES = [1.0, 0.0, 0.5, 1.0, 0.3, 2.0, 2.0]
UIDS = ["a", "a", "a", "a", "b", "c", "c"]
GRPO_VERL = [0.783348, -1.30558, -0.261116, 0.783348, 0.3, 0.0, 0.0]
GRPO_DR = [0.375, -0.625, -0.125, 0.375, 0.3, 0.0, 0.0]


def test_matches_verl_reference_numbers():
    assert torch.allclose(grpo(SCORES, UIDS).advantages[:, 0], torch.tensor(GRPO_VERL), atol=1e-5)
    assert torch.allclose(grpo(SCORES, UIDS, scale="none").advantages[:, 0], torch.tensor(GRPO_DR), atol=1e-5)


def test_episodes_count_once_as_in_verl_agent_without_cross_steps():
    # verl-agent compute_grpo_outcome_advantage(compute_mean_std_cross_steps=False) counts each
    # (uid, traj_uid) once, as the default here does: rows 0 and 3 are two segments of episode t0
    scores, uids, traj = [1.0, 0.0, 0.5, 1.0, 0.3, 2.0, 2.0], UIDS, ["t0", "t1", "t2", "t0", "t3", "t4", "t5"]
    a = 0.5 / (0.5 + 1e-6)  # group a: episodes 1, 0, .5 (mean .5, std .5)
    want = [a, -a, 0.0, a, 0.3 / (1 + 1e-6), 0.0, 0.0]
    out = grpo(scores, uids, traj_ids=traj)
    assert torch.allclose(out.advantages[:, 0], torch.tensor(want), atol=1e-6)
    # cross steps (verl-agent's default): the two-row episode is counted twice
    steps = grpo(scores, uids, traj_ids=traj, stats_over="steps")
    assert torch.allclose(steps.advantages[:, 0], grpo(scores, uids).advantages[:, 0])
    with pytest.raises(ValueError, match="rows of one episode"):
        grpo([1.0, 0.0], ["u", "u"], traj_ids=["t", "t"])


# TRL @ f2cd5771 GRPOTrainer advantages (sum_then_normalize, num_generations = 4, weights (1, .5)).
RPF = [[1.0, 0.5], [0.0, NAN], [1.0, 1.0], [NAN, NAN], [0.0, 0.0], [1.0, 0.0], [0.5, 1.0], [0.0, 1.0]]
TRL_GROUP = [0.414729, -1.140505, 0.725776, 0.0, -1.30531, 0.783186, 0.783186, -0.261062]
TRL_BATCH = [0.560018, -1.540049, 0.980031, 0.0, -1.050034, 0.63002, 0.63002, -0.210007]


@pytest.mark.parametrize("scale, want", [("group", TRL_GROUP), ("batch", TRL_BATCH)])
def test_matches_trl_reference_numbers(scale, want):
    r = torch.tensor(RPF)
    s = (r * torch.tensor([1.0, 0.5])).nansum(1)
    s[torch.isnan(r).all(1)] = NAN  # TRL: a row with every reward None is unscorable
    out = grpo(s, np.repeat(np.arange(2), 4), flavour="trl", scale=scale)
    assert torch.allclose(out.advantages[:, 0], torch.tensor(want), atol=1e-5)


def test_multi_step_rows_cross_steps_vs_trajectories():
    # a lone trajectory of two steps: per trajectory (default) it is a group of one, raw;
    # cross-steps sees two equal entries (0)
    traj = grpo([0.5, 0.5], ["u", "u"], traj_ids=["t", "t"])
    assert torch.allclose(traj.advantages, torch.full((2, 2), 0.5 / (1 + 1e-6)))
    steps = grpo([0.5, 0.5], ["u", "u"], traj_ids=["t", "t"], stats_over="steps")
    assert torch.equal(steps.advantages, torch.zeros(2, 2))
    # a 3-step trajectory scoring 1 and a 1-step one scoring 0
    s, g, t = [1.0, 1.0, 1.0, 0.0], [0] * 4, ["a", "a", "a", "b"]
    per_traj = grpo(s, g, traj_ids=t, scale="none")
    assert torch.allclose(per_traj.advantages[:, 0], torch.tensor([0.5] * 3 + [-0.5]))
    cross = grpo(s, g, traj_ids=t, scale="none", stats_over="steps")
    assert torch.allclose(cross.advantages[:, 0], torch.tensor([0.25] * 3 + [-0.75]))
    # without traj_ids every row is an episode
    assert torch.equal(grpo(s, g, scale="none").advantages, cross.advantages)


def test_token_rewards_sum_over_the_rows_of_an_episode():
    # episode 0 in two segments, its reward on the last token of the second; episode 1 in one row
    r = torch.tensor([[0.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    out = compute_advantages("grpo", response_mask=torch.ones(3, 2), group_ids=[0, 0, 0], traj_ids=[0, 0, 1],
                             token_level_rewards=r)
    a = 0.5 / (math.sqrt(0.5) + 1e-6)
    assert torch.allclose(out.advantages, torch.tensor([[a, a], [a, a], [-a, -a]]))


def test_returns_equal_advantages_and_float64_inputs_keep_dtype():
    s = torch.tensor([1.0, 0.0], dtype=torch.float64)
    out = compute_advantages("grpo", response_mask=torch.ones(2, 3), group_ids=[0, 0], scores=s)
    assert out.advantages.dtype == torch.float64 and torch.equal(out.advantages, out.returns)
