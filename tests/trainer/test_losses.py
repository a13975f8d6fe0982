"""PPO policy / value losses, aggregation modes, KL estimators; verl reference numbers."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from codegym.trainer.losses import (
    AGG_MODES,
    adaptive_kl_coef,
    agg_loss,
    kl_estimate,
    kl_in_reward,
    kl_loss,
    masked_mean,
    policy_loss,
    value_loss,
)

T64 = torch.float64


def one(x):
    return torch.tensor([[x]], dtype=T64)


def test_policy_loss_hand_worked_clip_cases():
    m = torch.ones(1, 1)
    lp = lambda ratio: one(math.log(ratio))  # noqa: E731
    # inside the clip range: -A * rho
    assert torch.isclose(policy_loss(lp(1.1), one(0.0), one(2.0), m).loss, torch.tensor(-2.2, dtype=T64))
    # A > 0, rho above 1 + clip_high: the clipped (flat) term wins
    assert torch.isclose(
        policy_loss(lp(1.5), one(0.0), one(2.0), m, clip_high=0.28).loss, torch.tensor(-2.56, dtype=T64)
    )
    # A < 0, rho below 1 - clip_low: clipped at -A (1 - .2)
    assert torch.isclose(policy_loss(lp(0.5), one(0.0), one(-1.0), m).loss, torch.tensor(0.8, dtype=T64))
    # A < 0, rho = 5 > c = 3: dual clip caps the loss at -A c = 3
    out = policy_loss(lp(5.0), one(0.0), one(-1.0), m)
    assert torch.isclose(out.loss, torch.tensor(3.0, dtype=T64)) and out.clipfrac_lower == 1
    assert torch.isclose(
        policy_loss(lp(5.0), one(0.0), one(-1.0), m, dual_clip=None).loss, torch.tensor(5.0, dtype=T64)
    )
    with pytest.raises(ValueError, match="dual_clip must be > 1"):
        policy_loss(lp(1.0), one(0.0), one(1.0), m, dual_clip=0.5)


def test_policy_loss_gradient_is_zero_when_clipped():
    logp = torch.tensor([[math.log(1.5), math.log(1.1)]], dtype=T64, requires_grad=True)
    policy_loss(
        logp, torch.zeros(1, 2, dtype=T64), torch.ones(1, 2, dtype=T64), torch.ones(1, 2)
    ).loss.backward()
    assert logp.grad[0, 0] == 0 and torch.isclose(logp.grad[0, 1], torch.tensor(-1.1 / 2, dtype=T64))


# verl @ b178a3cd compute_policy_loss_vanilla (clip .2 / .28, clip_ratio_c 3) and compute_value_loss
# (cliprange_value .5) on these inputs; row 2 is fully masked.
MASK = torch.tensor([[1, 1, 1, 0], [1, 0, 1, 1], [0, 0, 0, 0]], dtype=torch.float32)
LOGP = torch.tensor([[-1.0, -0.5, -0.4, -1.0], [-0.2, -3.0, -1.5, -0.1], [-1.0, -1.0, -1.0, -1.0]])
OLD = torch.tensor([[-1.3, -0.5, -2.0, -9.0], [-0.9, -1.0, -1.6, -0.05], [-1.0, -1.0, -1.0, -1.0]])
ADV = torch.tensor([[1.0, -1.0, -2.0, 5.0], [0.5, 0.5, -1.5, 2.0], [1.0, 1.0, 1.0, 1.0]])
PG = {
    "token-mean": 0.805883,
    "seq-mean-token-sum": 2.417649,
    "seq-mean-token-mean": 0.805883,
    "seq-mean-token-sum-norm": 1.208824,
}
V = torch.tensor([[0.5, 1.0, -0.2, 3.0], [0.0, 0.4, 1.1, 2.0], [0, 0, 0, 0.0]])
OLD_V = torch.tensor([[0.1, 1.2, 0.9, 0.0], [0.0, 0.0, 0.0, 1.0], [0, 0, 0, 0.0]])
RET = torch.tensor([[1.0, 1.0, 1.0, 1.0], [-1.0, 0.5, 1.2, 0.0], [0, 0, 0, 0.0]])


@pytest.mark.parametrize("mode", AGG_MODES)
def test_policy_loss_matches_verl(mode):
    out = policy_loss(LOGP, OLD, ADV, MASK, clip_low=0.2, clip_high=0.28, agg_mode=mode)
    assert abs(out.loss.item() - PG[mode]) < 1e-5
    assert abs(out.clipfrac.item() - 1 / 3) < 1e-5
    assert abs(out.clipfrac_lower.item() - 1 / 6) < 1e-5
    assert abs(out.approx_kl.item() - -0.441667) < 1e-5


@pytest.mark.parametrize("mode", ["token-mean", "seq-mean-token-mean"])
def test_value_loss_matches_verl(mode):
    out = value_loss(V, OLD_V, RET, MASK, clip_range=0.5, agg_mode=mode)
    assert abs(out.loss.item() - 0.598333) < 1e-5 and abs(out.clipfrac.item() - 1 / 6) < 1e-5


def test_value_loss_hand_worked():
    # v = 2, V_old = 0, R = 0: unclipped (2)^2 = 4, clipped (.5)^2 = .25 -> pessimistic max 4, times .5
    out = value_loss(one(2.0), one(0.0), one(0.0), torch.ones(1, 1))
    assert out.loss.item() == 2.0 and out.clipfrac.item() == 0
    # v = 2, V_old = 0, R = 3: unclipped 1, clipped (0.5 - 3)^2 = 6.25 -> 3.125
    out = value_loss(one(2.0), one(0.0), one(3.0), torch.ones(1, 1))
    assert out.loss.item() == 3.125 and out.clipfrac.item() == 1
    assert value_loss(one(2.0), one(0.0), one(3.0), torch.ones(1, 1), clip_range=None).loss.item() == 0.5


def test_aggregation_modes_hand_worked():
    loss = torch.tensor([[1.0, 2.0, 3.0], [4.0, 0.0, float("nan")], [7.0, 7.0, 7.0]])
    m = torch.tensor([[1, 1, 1], [1, 0, 0], [0, 0, 0]])
    assert agg_loss(loss, m, "token-mean").item() == 10 / 4  # NaN under the mask is ignored
    assert agg_loss(loss, m, "seq-mean-token-sum").item() == (6 + 4) / 2  # empty row excluded
    assert agg_loss(loss, m, "seq-mean-token-mean").item() == (2 + 4) / 2
    assert agg_loss(loss, m, "seq-mean-token-sum-norm").item() == pytest.approx(10 / 3)
    assert agg_loss(loss, m, "seq-mean-token-sum-norm", loss_scale_factor=5).item() == 2
    assert agg_loss(loss, m, "token-mean", num_tokens=8).item() == 10 / 8
    assert agg_loss(loss, torch.zeros(3, 3)).item() == 0  # empty mask: 0, not NaN
    with pytest.raises(ValueError, match="agg_mode must be one of"):
        agg_loss(loss, m, "mean")


@settings(max_examples=50, deadline=None)
@given(data=st.data(), length=st.integers(2, 12), rows=st.integers(1, 4))
def test_splitting_a_sequence_into_segments_leaves_token_mean_unchanged(data, length, rows):
    torch.manual_seed(data.draw(st.integers(0, 1000)))
    logp, old, adv = (
        -torch.rand(rows, length, dtype=T64),
        -torch.rand(rows, length, dtype=T64),
        torch.randn(rows, length, dtype=T64),
    )
    m = (torch.rand(rows, length) < 0.7).to(T64)
    m[:, 0] = 1
    whole = policy_loss(logp, old, adv, m)
    cut = data.draw(st.integers(1, length - 1))

    # row 0 becomes two rows (segments), each right-padded to the full length
    def split(x):
        a = torch.nn.functional.pad(x[0:1, :cut], (0, length - cut))
        b = torch.nn.functional.pad(x[0:1, cut:], (0, cut))
        return torch.cat([a, b, x[1:]])

    seg = policy_loss(split(logp), split(old), split(adv), split(m))
    assert torch.isclose(seg.loss, whole.loss, atol=1e-12)
    # and micro-batches with the mini-batch token count sum to the same loss
    n = m.sum()
    micro = sum(
        policy_loss(
            split(logp)[i : i + 1],
            split(old)[i : i + 1],
            split(adv)[i : i + 1],
            split(m)[i : i + 1],
            num_tokens=n,
        ).loss
        for i in range(rows + 1)
    )
    assert torch.isclose(micro, whole.loss, atol=1e-12)


def test_kl_estimators():
    logp, ref = torch.tensor([[-1.0, -2.0]], dtype=T64), torch.tensor([[-1.5, -1.0]], dtype=T64)
    d = ref - logp  # (-.5, 1)
    assert torch.allclose(kl_estimate(logp, ref, "k1"), -d)
    assert torch.allclose(kl_estimate(logp, ref, "kl"), -d)
    assert torch.allclose(kl_estimate(logp, ref, "abs"), d.abs())
    assert torch.allclose(kl_estimate(logp, ref, "k2"), 0.5 * d**2)
    assert torch.allclose(kl_estimate(logp, ref, "k3"), torch.exp(d) - d - 1)
    assert torch.allclose(kl_estimate(logp, ref, "low_var_kl"), torch.exp(d) - d - 1)
    big = kl_estimate(torch.tensor([[-30.0]]), torch.tensor([[0.0]]), "k3")
    assert big.item() == 10.0  # clamped, as verl
    with pytest.raises(ValueError, match="KL kind"):
        kl_estimate(logp, ref, "k4")


def test_straight_through_kl_has_k3_value_and_k2_gradient():
    logp = torch.tensor([[-1.0, -2.0]], dtype=T64, requires_grad=True)
    ref = torch.tensor([[-1.5, -1.0]], dtype=T64)
    kl = kl_estimate(logp, ref, "k3+")
    assert torch.allclose(kl, kl_estimate(logp, ref, "k3"))
    kl.sum().backward()
    assert torch.allclose(logp.grad, (logp - ref).detach())


def test_kl_loss_and_kl_in_reward():
    logp = torch.tensor([[-1.0, -2.0, -3.0]], dtype=T64)
    ref = torch.tensor([[-1.5, -1.0, 0.0]], dtype=T64)
    m = torch.tensor([[1, 1, 0]])
    assert torch.isclose(kl_loss(logp, ref, m), kl_estimate(logp, ref, "k3")[0, :2].mean())
    scores = torch.tensor([[0.0, 1.0, 0.0]], dtype=T64)
    out = kl_in_reward(scores, logp, ref, m, beta=0.1)
    assert torch.allclose(out.rewards, torch.tensor([[-0.05, 1.1, 0.0]], dtype=T64))
    assert torch.isclose(out.current_kl, torch.tensor(-0.25, dtype=T64))


def test_adaptive_kl_coef():
    assert adaptive_kl_coef(0.1, current_kl=0.2, target_kl=0.1, n_steps=100, horizon=1000) == pytest.approx(
        0.102
    )
    assert adaptive_kl_coef(0.1, current_kl=0.1, target_kl=0.1, n_steps=100, horizon=1000) == pytest.approx(
        0.1
    )
    with pytest.raises(ValueError):
        adaptive_kl_coef(0.1, 0.1, 0.1, 1, 0)


def test_masked_mean_empty_is_zero():
    assert masked_mean(torch.ones(2, 2), torch.zeros(2, 2)).item() == 0
