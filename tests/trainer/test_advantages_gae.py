"""GAE: hand-worked cases, verl reference numbers, and compaction segments."""

import itertools

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from codegym.trainer.advantages import compute_advantages

T64 = torch.float64


def gae(**kw):
    return compute_advantages("gae", **kw)


def test_hand_worked_single_row():
    # delta_2 = 1 - .7 = .3 ; delta_1 = .5*.7 - .6 = -.25 ; delta_0 = .5*.6 - .5 = -.2
    # A_2 = .3 ; A_1 = -.25 + .25*.3 = -.175 ; A_0 = -.2 + .25*(-.175) = -.24375
    r = torch.tensor([[0.0, 0.0, 1.0]], dtype=T64)
    v = torch.tensor([[0.5, 0.6, 0.7]], dtype=T64)
    out = gae(
        token_level_rewards=r, values=v, response_mask=torch.ones(1, 3), gamma=0.5, lam=0.5, whiten=False
    )
    assert torch.allclose(out.advantages, torch.tensor([[-0.24375, -0.175, 0.3]], dtype=T64))
    assert torch.allclose(out.returns, out.advantages + v)


def test_gamma_lam_one_is_return_minus_value():
    r = torch.tensor([[0.0, 0.0, 1.0]], dtype=T64)
    v = torch.tensor([[0.5, 0.6, 0.7]], dtype=T64)
    out = gae(token_level_rewards=r, values=v, response_mask=torch.ones(1, 3), whiten=False)
    assert torch.allclose(out.advantages, torch.tensor([[0.5, 0.4, 0.3]], dtype=T64))
    assert torch.allclose(out.returns, torch.ones(1, 3, dtype=T64))


def test_observation_tokens_skipped_or_not():
    # mask [1, 0, 1]; gamma = lam = .5; the observation value 9 is ignored (masked by the critic)
    r = torch.tensor([[0.0, 0.0, 1.0]], dtype=T64)
    v = torch.tensor([[0.5, 9.0, 0.7]], dtype=T64)
    m = torch.tensor([[1.0, 0.0, 1.0]])
    kw = dict(token_level_rewards=r, values=v, response_mask=m, gamma=0.5, lam=0.5, whiten=False)
    # skip (current verl): delta_0 = .5*.7 - .5 = -.15 ; A_0 = -.15 + .25*.3 = -.075
    assert torch.allclose(gae(**kw).advantages, torch.tensor([[-0.075, 0.0, 0.3]], dtype=T64))
    # no skip (forks, TRL): delta_1 = .5*.7 - 0 = .35, A_1 = .425 ; delta_0 = -.5, A_0 = -.5 + .25*.425
    out = gae(**kw, skip_masked=False)
    assert torch.allclose(out.advantages, torch.tensor([[-0.39375, 0.0, 0.3]], dtype=T64))


# Reference numbers: verl @ b178a3cd compute_gae_advantage_return (skip) and verl-agent's copy (no
# skip), run on these inputs (values masked as verl's critic does), compared on the mask.
MASK = torch.tensor(
    [[1, 1, 0, 0, 1, 1, 0], [1, 1, 1, 0, 0, 0, 0], [0, 1, 1, 1, 1, 0, 0]], dtype=torch.float32
)
REW = torch.zeros(3, 7)
REW[0, 5], REW[1, 2], REW[2, 4], REW[0, 1] = 1.0, -0.5, 2.0, 0.25
VALS = torch.tensor(
    [[0.1, 0.2, 9.0, 9.0, 0.3, 0.4, 9.0], [0.5, -0.1, 0.2, 0, 0, 0, 0], [9.0, 0.3, 0.6, 0.9, 1.2, 0, 0]]
)
GAE_VERL_ADV = [
    [0.583734, 0.534377, 0.0, 0.0, 0.158473, 0.08481, 0.0],
    [-1.793913, -1.088362, -1.503281, 0.0, 0.0, 0.0, 0.0],
    [0.0, 1.169551, 0.902672, 0.622806, 0.329132, 0.0, 0.0],
]
GAE_VERL_RET = [
    [1.108416, 1.168012, 0.0, 0.0, 0.9603, 1.0, 0.0],
    [-0.437909, -0.46035, -0.5, 0.0, 0.0, 0.0, 0.0],
    [0.0, 1.787961, 1.869496, 1.9404, 2.0, 0.0, 0.0],
]
GAE_FORK_ADV = [
    [0.491092, 0.43329, 0.0, 0.0, 0.183669, 0.10905, 0.0],
    [-1.794066, -1.079354, -1.49966, 0.0, 0.0, 0.0, 0.0],
    [0.0, 1.207875, 0.937531, 0.654031, 0.356543, 0.0, 0.0],
]
GAE_FORK_RET = [
    [1.008729, 1.062019, 0.0, 0.0, 0.9603, 1.0, 0.0],
    [-0.437909, -0.46035, -0.5, 0.0, 0.0, 0.0, 0.0],
    [0.0, 1.787961, 1.869496, 1.9404, 2.0, 0.0, 0.0],
]


@pytest.mark.parametrize(
    "skip, adv, ret", [(True, GAE_VERL_ADV, GAE_VERL_RET), (False, GAE_FORK_ADV, GAE_FORK_RET)]
)
def test_matches_reference_numbers(skip, adv, ret):
    out = gae(
        token_level_rewards=REW, values=VALS, response_mask=MASK, gamma=0.99, lam=0.95, skip_masked=skip
    )
    assert out.advantages.dtype == torch.float32
    assert torch.allclose(out.advantages, torch.tensor(adv), atol=1e-5)
    assert torch.allclose(out.returns, torch.tensor(ret), atol=1e-5)


def test_whitened_over_policy_tokens_and_zero_elsewhere():
    out = gae(token_level_rewards=REW, values=VALS, response_mask=MASK, gamma=0.99, lam=0.95)
    sel = out.advantages.double()[MASK.bool()]
    assert abs(sel.mean().item()) < 1e-6 and abs(sel.std().item() - 1) < 1e-3
    assert torch.all(out.advantages[~MASK.bool()] == 0) and torch.all(out.returns[~MASK.bool()] == 0)


def test_too_few_tokens_give_zeros_not_nan():
    for m in (torch.zeros(2, 3), torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])):
        out = gae(token_level_rewards=torch.ones(2, 3), values=torch.ones(2, 3), response_mask=m)
        assert torch.equal(out.advantages, torch.zeros(2, 3))
        assert not torch.isnan(out.returns).any()


def split_rows(r, v, m, cuts):
    """Split one row [1, T] into len(cuts)+1 rows at the cut positions, right-padded."""
    bounds = [0, *cuts, r.shape[1]]
    width = max(b - a for a, b in itertools.pairwise(bounds))
    rows = []
    for x in (r, v, m):
        parts = [x[0, a:b] for a, b in itertools.pairwise(bounds)]
        rows.append(torch.stack([torch.nn.functional.pad(p, (0, width - p.numel())) for p in parts]))
    return rows


def scatter_back(x, cuts, length):
    bounds = [0, *cuts, length]
    return torch.cat([x[i, : b - a] for i, (a, b) in enumerate(itertools.pairwise(bounds))])[None]


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    length=st.integers(2, 24),
    skip=st.booleans(),
    gamma=st.sampled_from([1.0, 0.99, 0.5]),
    lam=st.sampled_from([1.0, 0.95, 0.0]),
    whiten=st.booleans(),
)
def test_identity_compaction_equals_unsplit(data, length, skip, gamma, lam, whiten):
    bits = data.draw(st.lists(st.booleans(), min_size=length, max_size=length))
    m = torch.tensor([bits], dtype=T64)
    m[0, -1] = 1.0  # the episode ends on a policy token (where its reward sits)
    r = torch.zeros(1, length, dtype=T64)
    r[0, -1] = data.draw(st.sampled_from([0.0, 1.0, -2.0]))
    r = r + m * torch.tensor(
        data.draw(st.lists(st.sampled_from([0.0, 0.5]), min_size=length, max_size=length))
    )
    v = torch.tensor([data.draw(st.lists(st.floats(-2, 2), min_size=length, max_size=length))], dtype=T64)
    # without skipping, a segment must end on a policy token (trailing masked tokens are padding)
    allowed = [c for c in range(1, length) if skip or m[0, c - 1] == 1]
    cuts = sorted(set(data.draw(st.lists(st.sampled_from(allowed), max_size=3)))) if allowed else []
    kw = dict(gamma=gamma, lam=lam, skip_masked=skip, whiten=whiten)
    whole = gae(token_level_rewards=r, values=v, response_mask=m, **kw)
    rs, vs, ms = split_rows(r, v, m, cuts)
    n = len(cuts) + 1
    perm = torch.tensor(data.draw(st.permutations(range(n))))  # rows in any batch order
    seg = gae(
        token_level_rewards=rs[perm],
        values=vs[perm],
        response_mask=ms[perm],
        episode_ids=["ep"] * n,
        segment_index=perm,
        **kw,
    )
    inv = torch.argsort(perm)
    assert torch.allclose(scatter_back(seg.advantages[inv], cuts, length), whole.advantages, atol=1e-9)
    assert torch.allclose(scatter_back(seg.returns[inv], cuts, length), whole.returns, atol=1e-9)


def test_segment_boundary_bootstraps_from_first_policy_token_of_next_segment():
    # segment 0: one policy token; segment 1 starts with two observation tokens, then a policy token.
    r = torch.tensor([[0.0, 0.0, 0.0], [0.0, 0.0, 1.0]], dtype=T64)
    v = torch.tensor([[0.2, 0.0, 0.0], [5.0, 5.0, 0.6]], dtype=T64)
    m = torch.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    out = gae(
        token_level_rewards=r, values=v, response_mask=m, gamma=0.9, lam=0.5, whiten=False, episode_ids=[7, 7]
    )
    a1 = 1.0 - 0.6
    a0 = (0.9 * 0.6 - 0.2) + 0.9 * 0.5 * a1  # bootstrap V = 0.6 (not the observation's 5.0), A carried
    assert torch.allclose(out.advantages, torch.tensor([[a0, 0, 0], [0, 0, a1]], dtype=T64))
    alone = gae(token_level_rewards=r, values=v, response_mask=m, gamma=0.9, lam=0.5, whiten=False)
    assert torch.isclose(
        alone.advantages[0, 0], torch.tensor(-0.2, dtype=T64)
    )  # no episode ids: no bootstrap


def test_two_episodes_interleaved_in_the_batch():
    torch.manual_seed(0)
    r, v = torch.randn(2, 6, dtype=T64), torch.randn(2, 6, dtype=T64)
    m = torch.ones(2, 6)
    whole = gae(token_level_rewards=r, values=v, response_mask=m, gamma=0.9, lam=0.9)
    rows = [(0, 0, 3), (1, 0, 2), (0, 1, 3), (1, 1, 4)]  # (episode, segment, length)
    starts = {0: 0, 1: 0}
    rr, vv, mm = torch.zeros(4, 6, dtype=T64), torch.zeros(4, 6, dtype=T64), torch.zeros(4, 6)
    for i, (e, _, n) in enumerate(rows):
        s = starts[e]
        rr[i, :n], vv[i, :n], mm[i, :n] = r[e, s : s + n], v[e, s : s + n], 1
        starts[e] += n
    seg = gae(
        token_level_rewards=rr,
        values=vv,
        response_mask=mm,
        gamma=0.9,
        lam=0.9,
        episode_ids=torch.tensor([100 + 7 * e for e, _, _ in rows]),  # ints, not contiguous
        segment_index=[s for _, s, _ in rows],
    )
    assert torch.allclose(torch.cat([seg.advantages[0, :3], seg.advantages[2, :3]]), whole.advantages[0])
    assert torch.allclose(torch.cat([seg.advantages[1, :2], seg.advantages[3, :4]]), whole.advantages[1])


def test_bad_inputs():
    with pytest.raises(ValueError, match="must all be"):
        gae(token_level_rewards=torch.ones(2, 3), values=torch.ones(2, 4), response_mask=torch.ones(2, 3))
    with pytest.raises(ValueError, match="segments must be distinct"):
        gae(
            token_level_rewards=torch.ones(2, 3),
            values=torch.ones(2, 3),
            response_mask=torch.ones(2, 3),
            episode_ids=[0, 0],
            segment_index=[1, 1],
        )


def test_whiten_rewards_follows_trl():
    # TRL PPOTrainer(whiten_rewards=True): masked_whiten(rewards, mask, shift_mean=False) over the
    # response (here its TD positions: the policy tokens), then GAE on the whitened rewards
    r = torch.tensor([[0.1, -0.2, 1.0], [0.0, 0.3, 0.5]], dtype=T64)
    v = torch.tensor([[0.5, 0.6, 0.7], [0.2, 9.0, 0.1]], dtype=T64)
    m = torch.tensor([[1, 1, 1], [1, 0, 1]])
    on = m.bool()
    mu = r[on].mean()
    var = ((r[on] - mu) ** 2).sum() / (on.sum() - 1)
    white = torch.where(on, (r - mu) / torch.sqrt(var + 1e-8) + mu, 0.0)
    out = gae(token_level_rewards=r, values=v, response_mask=m, gamma=0.9, lam=0.8, whiten=False,
              whiten_rewards=True)
    want = gae(token_level_rewards=white, values=v, response_mask=m, gamma=0.9, lam=0.8, whiten=False)
    assert torch.allclose(out.advantages, want.advantages) and torch.allclose(out.returns, want.returns)
    assert not torch.allclose(out.advantages, gae(token_level_rewards=r, values=v, response_mask=m, gamma=0.9,
                                                  lam=0.8, whiten=False).advantages)
    # equal rewards keep their value (centred to 0, the mean added back)
    flat = gae(token_level_rewards=torch.full((1, 3), 0.1, dtype=T64), values=v[:1], response_mask=m[:1],
               whiten=False, whiten_rewards=True)
    assert torch.allclose(flat.advantages, gae(token_level_rewards=torch.full((1, 3), 0.1, dtype=T64), values=v[:1],
                                               response_mask=m[:1], whiten=False).advantages)
