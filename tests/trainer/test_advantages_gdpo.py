"""GDPO: per-reward group normalization, weighted sum, batch whitening (TRL and verl flavours)."""

import math

import numpy as np
import pytest
import torch

from codegym.trainer.advantages import compute_advantages

NAN = float("nan")


def gdpo(rewards, groups, **kw):
    r = torch.tensor(rewards, dtype=torch.float32)
    kw.setdefault("response_mask", torch.ones(r.shape[0], 3))
    return compute_advantages("gdpo", reward_components=r, group_ids=groups, **kw)


def test_advantage_collapse_worked_example():
    # group A rewards (0,0)/(1,1) vs group B (0,0)/(0,1)
    r = [[0, 0], [1, 1], [0, 0], [0, 1]]
    groups = ["A", "A", "B", "B"]
    summed = compute_advantages(
        "grpo", response_mask=torch.ones(4, 3), group_ids=groups, scores=torch.tensor([0.0, 2.0, 0.0, 1.0])
    )
    assert torch.allclose(summed.advantages[:, 0], torch.tensor([-0.707, 0.707, -0.707, 0.707]), atol=1e-3)
    out = gdpo(r, groups)
    assert torch.allclose(out.advantages[:, 0], torch.tensor([-1.095, 1.095, -0.548, 0.548]), atol=1e-3)
    # the same from the equations, to float precision: Z = +-.5/(sqrt(.5)+1e-4) per varying reward
    z = 0.5 / (math.sqrt(0.5) + 1e-4)
    pre = np.array([-2 * z, 2 * z, -z, z])
    want = (pre - pre.mean()) / (pre.std(ddof=1) + 1e-4)
    assert torch.allclose(out.advantages[:, 0], torch.tensor(want, dtype=torch.float32), atol=1e-6)
    assert torch.allclose(out.info["pre_whiten"], torch.tensor(pre, dtype=torch.float32))


def test_weights_scale_each_reward_before_the_sum():
    r = [[0, 0], [1, 1], [0, 0], [0, 1]]
    out = gdpo(r, ["A", "A", "B", "B"], reward_weights=[1.0, 0.5], batch_norm="none")
    z = 0.5 / (math.sqrt(0.5) + 1e-4)
    assert torch.allclose(out.advantages[:, 0], torch.tensor([-1.5 * z, 1.5 * z, -0.5 * z, 0.5 * z]))


def test_nan_rewards_are_excluded():
    r = [[1.0, 0.0], [0.0, NAN], [0.5, 1.0], [NAN, NAN]]
    out = gdpo(r, [0] * 4, batch_norm="none")
    # reward 0 over rows 0-2, reward 1 over rows 0 and 2 only; row 3 (all NaN) gets 0
    z0 = (np.array([1.0, 0.0, 0.5]) - 0.5) / (0.5 + 1e-4)
    z1 = np.array([-0.5, 0.5]) / (math.sqrt(0.5) + 1e-4)
    want = [z0[0] + z1[0], z0[1], z0[2] + z1[1], 0.0]
    assert torch.allclose(out.advantages[:, 0], torch.tensor(want, dtype=torch.float32), atol=1e-6)
    whitened = gdpo(r, [0] * 4)
    assert whitened.advantages[3].eq(0).all() and not torch.isnan(whitened.advantages).any()


def test_singleton_group_and_zero_variance():
    assert torch.equal(gdpo([[1.0, 0.3]], ["x"]).advantages, torch.zeros(1, 3))  # TRL: 0
    assert torch.equal(gdpo([[0.1, 0.7]] * 4, [0] * 4).advantages, torch.zeros(4, 3))  # exact 0
    verl = gdpo([[1.0, 0.5], [0.0, 0.0], [1.0, 0.0]], ["x", "y", "y"], flavour="verl", batch_norm="none")
    assert torch.allclose(verl.advantages[0], torch.full((3,), 1.5 / (1 + 1e-6)))  # verl: raw scores


# TRL @ f2cd5771 GRPOTrainer, multi_objective_aggregation="normalize_then_sum", num_generations 4,
# reward weights (1, .5), rewards with None (NaN).
RPF = [[1.0, 0.5], [0.0, NAN], [1.0, 1.0], [NAN, NAN], [0.0, 0.0], [1.0, 0.0], [0.5, 1.0], [0.0, 1.0]]
TRL_NORMALIZE_THEN_SUM = [0.242871, -1.252899, 1.010028, 0.0, -1.319774, 0.946724, 0.753149, -0.3801]


def test_matches_trl_reference_numbers():
    out = gdpo(RPF, np.repeat(np.arange(2), 4), reward_weights=[1.0, 0.5])
    assert torch.allclose(out.advantages[:, 0], torch.tensor(TRL_NORMALIZE_THEN_SUM), atol=1e-5)


# NVlabs verl-GDPO / GD2PO baseline: per-reward verl GRPO, summed, masked_whiten(., m) * m.
COMPS = [[1, 0.5], [0, 1], [1, 1], [0, 0], [1, 0], [0.5, 0.5], [0, 1], [1, 0.5]]
LENGTHS = [4, 3, 2, 4, 1, 4, 2, 3]
MASK = torch.tensor([[1.0] * n + [0.0] * (4 - n) for n in LENGTHS])
GDPO_VERL = [
    [0.634935, 0.634935, 0.634935, 0.634935],
    [0.023656, 0.023656, 0.023656, 0.0],
    [1.563488, 1.563488, 0.0, 0.0],
    [-1.83345, -1.83345, -1.83345, -1.83345],
    [-0.295253, 0.0, 0.0, 0.0],
    [-0.134981, -0.134981, -0.134981, -0.134981],
    [0.02529, 0.02529, 0.0, 0.0],
    [0.793572, 0.793572, 0.793572, 0.0],
]


def test_matches_verl_gdpo_reference_numbers():
    out = gdpo(COMPS, np.repeat(np.arange(2), 4), response_mask=MASK, flavour="verl")
    assert torch.allclose(out.advantages, torch.tensor(GDPO_VERL), atol=1e-5)


def test_bad_inputs():
    with pytest.raises(ValueError, match="reward_weights has 3"):
        gdpo([[1.0, 0.0]], [0], reward_weights=[1, 1, 1])
    with pytest.raises(ValueError, match="batch_norm"):
        gdpo([[1.0, 0.0]], [0], batch_norm="row")
    with pytest.raises(ValueError, match="reward_components must be"):
        gdpo([[1.0, 0.0]], [0], response_mask=torch.ones(2, 3))


@pytest.mark.parametrize("flavour", ["trl", "verl"])
def test_statistics_count_episodes_not_segments(flavour):
    # episode 0 compacted into two rows (same traj id) weighs once in the group and batch steps
    r = [[1, 0], [1, 0], [0, 0], [1, 1], [0, 0]]
    m = torch.tensor([[1, 0, 0], [1, 1, 0], [1, 1, 1], [1, 1, 1], [1, 1, 1]])
    split = gdpo(r, ["a", "a", "a", "b", "b"], traj_ids=[0, 0, 1, 2, 3], response_mask=m, flavour=flavour)
    whole = gdpo([r[0], r[2], r[3], r[4]], ["a", "a", "b", "b"], response_mask=torch.ones(4, 3), flavour=flavour)
    assert torch.allclose(split.advantages[:, 0], whole.advantages[[0, 0, 1, 2, 3], 0])
    by_rows = gdpo(r, ["a", "a", "a", "b", "b"], response_mask=m, flavour=flavour)
    assert not torch.allclose(by_rows.advantages[:, 0], split.advantages[:, 0])
