"""GD2PO: conflict filtering (hard / SNR), query weighting, whitening over kept tokens."""

import math

import numpy as np
import pytest
import torch

from codegym.trainer.advantages import compute_advantages

NAN = float("nan")


def gd2po(rewards, groups, **kw):
    r = torch.tensor(rewards, dtype=torch.float32)
    kw.setdefault("response_mask", torch.ones(r.shape[0], 2))
    return compute_advantages("gd2po", reward_components=r, group_ids=groups, **kw)


def test_hand_worked_conflict_hard_and_query_weight():
    # query a: rewards disagree on both rollouts -> both conflict, q = 0
    # query b: reward 0 varies, reward 1 is constant (exact zeros never conflict) -> both kept, q = 1
    r = [[1, 0], [0, 1], [1, 0.5], [0, 0.5]]
    out = gd2po(r, ["a", "a", "b", "b"], conflict_filter="hard", whiten=False)
    assert out.info["conflict"].tolist() == [True, True, False, False]
    assert out.info["keep"].tolist() == [False, False, True, True]
    assert torch.allclose(out.info["query_weight"], torch.tensor([0.0, 0.0, 1.0, 1.0]))
    z = 0.5 / (math.sqrt(0.5) + 1e-6)
    assert torch.allclose(out.advantages[:, 0], torch.tensor([0.0, 0.0, z, -z]))
    whitened = gd2po(r, ["a", "a", "b", "b"], conflict_filter="hard")
    # token-weighted over the 4 kept tokens (z, z, -z, -z): mean 0, unbiased std z * sqrt(4/3)
    kept = whitened.advantages[2:].double()
    assert torch.allclose(
        kept[:, 0], torch.tensor([1.0, -1.0], dtype=torch.float64) * math.sqrt(0.75), atol=1e-4
    )
    assert whitened.advantages[:2].eq(0).all()


def test_snr_keeps_conflicts_with_a_dominant_direction():
    # three rewards: rollout 0 has a = L*(+z, +z, -z): rho = 1/3 ; tau decides
    r = [[1, 1, 0], [0, 0, 1]]
    low = gd2po(r, [0, 0], tau=0.2, whiten=False)
    high = gd2po(r, [0, 0], tau=0.8, whiten=False)
    assert torch.allclose(low.info["snr"].abs(), torch.full((2,), 1 / 3), atol=1e-6)
    assert low.info["keep"].all() and not high.info["keep"].any()
    assert torch.equal(high.advantages, torch.zeros(2, 2))
    assert gd2po(r, [0, 0], tau=5.0).info["keep"].tolist() == [False, False]  # tau clamped to 1


def test_query_weight_is_kept_fraction_and_applied_before_whitening():
    r = [[1, 0], [0, 1], [1, 1], [0, 0]]  # rollouts 0 and 1 conflict, 2 and 3 do not
    out = gd2po(r, [0, 0, 0, 0], conflict_filter="hard", whiten=False)
    assert torch.allclose(out.info["query_weight"], torch.full((4,), 0.5))
    z = 0.5 / (np.std([1, 0, 1, 0], ddof=1) + 1e-6)
    assert torch.allclose(out.advantages[:, 0], torch.tensor([0.0, 0.0, z, -z], dtype=torch.float32))
    unweighted = gd2po(r, [0, 0, 0, 0], conflict_filter="hard", whiten=False, query_weighting=False)
    assert torch.allclose(
        unweighted.advantages[:, 0], torch.tensor([0.0, 0.0, 2 * z, -2 * z], dtype=torch.float32)
    )


def test_edge_cases_never_nan():
    one_token = gd2po([[1, 0], [0, 0]], [0, 0], response_mask=torch.tensor([[1, 0], [1, 0]]))
    assert not torch.isnan(one_token.advantages).any()
    assert torch.equal(gd2po([[1, 0], [0, 1]], [0, 0]).advantages, torch.zeros(2, 2))  # nothing kept
    single = gd2po([[1.0, -1.0]], ["solo"])  # raw scores of opposite sign: a conflict, dropped
    assert single.info["conflict"].item() and torch.equal(single.advantages, torch.zeros(1, 2))
    nan = gd2po([[1.0, NAN], [0.0, NAN], [NAN, NAN]], [0, 0, 0], whiten=False)
    assert nan.info["keep"].tolist() == [True, True, False]
    assert not torch.isnan(nan.advantages).any()
    flat = gd2po([[0.1, 0.3]] * 4, [0] * 4)
    assert torch.equal(flat.advantages, torch.zeros(4, 2))


# Qwen-Applications/GD2PO @ f1ad765b tool-calling ray_trainer.py: gdpo_filter_group_ratio (hard)
# and _compute_gdpo_ratio_conflict_advantages with the group keep ratio (SNR), eps 1e-8.
COMPS = [[1, 0.5], [0, 1], [1, 1], [0, 0], [1, 0], [0.5, 0.5], [0, 1], [1, 0.5]]
LENGTHS = [4, 3, 2, 4, 1, 4, 2, 3]
MASK = torch.tensor([[1.0] * n + [0.0] * (4 - n) for n in LENGTHS])
HARD = [
    [0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0],
    [1.35658, 1.35658, 0.0, 0.0],
    [-1.283491, -1.283491, -1.283491, -1.283491],
    [0.0, 0.0, 0.0, 0.0],
    [0.036545, 0.036545, 0.036545, 0.036545],
    [0.0, 0.0, 0.0, 0.0],
    [0.758208, 0.758208, 0.758208, 0.0],
]
SNR_TAU_02 = [
    [0.564123, 0.564123, 0.564123, 0.564123],
    [0.0, 0.0, 0.0, 0.0],
    [1.380437, 1.380437, 0.0, 0.0],
    [-1.605895, -1.605895, -1.605895, -1.605895],
    [-0.253627, 0.0, 0.0, 0.0],
    [-0.112729, -0.112729, -0.112729, -0.112729],
    [0.0, 0.0, 0.0, 0.0],
    [0.703585, 0.703585, 0.703585, 0.0],
]


@pytest.mark.parametrize(
    "kw, want",
    [({"conflict_filter": "hard"}, HARD), ({"tau": 0.2}, SNR_TAU_02), ({"tau": 0.8}, HARD)],
)
def test_matches_reference_numbers(kw, want):
    out = gd2po(COMPS, np.repeat(np.arange(2), 4), response_mask=MASK, **kw)
    assert torch.allclose(out.advantages, torch.tensor(want), atol=1e-5)


def test_bad_filter():
    with pytest.raises(ValueError, match="conflict_filter"):
        gd2po([[1.0, 0.0]], [0], conflict_filter="soft")


def test_g_and_m_count_episodes_not_segments():
    # query a: episode 0 (compacted into two rows) and episode 2 agree, episode 1 conflicts:
    # M = 2 of G = 3 episodes (counted by rows it would be 3 of 4); query b: two plain episodes
    r = [[1, 1], [1, 1], [0, 1], [0, 0], [0.5, 0], [0, 0]]
    groups, traj = ["a", "a", "a", "a", "b", "b"], [0, 0, 1, 2, 3, 4]
    split = gd2po(r, groups, traj_ids=traj, conflict_filter="hard", whiten=False)
    assert split.info["keep"].tolist() == [True, True, False, True, True, True]
    assert torch.allclose(split.info["query_weight"], torch.tensor([2 / 3] * 4 + [1.0] * 2))
    rows = gd2po(r, groups, conflict_filter="hard", whiten=False)
    assert torch.allclose(rows.info["query_weight"], torch.tensor([3 / 4] * 4 + [1.0] * 2))
    whole = gd2po(r[1:], groups[1:], conflict_filter="hard", whiten=False)
    assert torch.allclose(split.advantages, whole.advantages[[0, 0, 1, 2, 3, 4]])
    # the sign signal weighs an episode's tokens over all its rows, and whitening counts each token once
    m = torch.tensor([[1, 0], [1, 1], [1, 1], [1, 1], [0, 1], [1, 1]])
    w_split = gd2po(r, groups, traj_ids=traj, response_mask=m)
    m_whole = torch.tensor([[1, 1, 1], [1, 1, 0], [1, 1, 0], [1, 0, 0], [1, 1, 0]])
    w_whole = gd2po(r[1:], groups[1:], response_mask=m_whole)
    per_row = w_split.advantages.sum(1) / m.sum(1)
    assert torch.allclose(per_row, (w_whole.advantages.sum(1) / m_whole.sum(1))[[0, 0, 1, 2, 3, 4]])
