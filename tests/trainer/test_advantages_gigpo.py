"""GiGPO: hand-worked cases from Eqs. 3-8, verl-agent reference numbers, edge cases."""

import numpy as np
import pytest
import torch

from codegym.trainer.advantages import compute_advantages


def gigpo(rows, **kw):
    """rows: (uid, traj, state, score) per step, in trajectory order."""
    n = len(rows)
    kw.setdefault("response_mask", torch.ones(n, 2))
    if "step_rewards" not in kw or "scores" in kw:
        kw.setdefault("scores", torch.tensor([r[3] for r in rows]))
    return compute_advantages(
        "gigpo",
        group_ids=[r[0] for r in rows],
        traj_ids=[r[1] for r in rows],
        state_keys=[r[2] for r in rows],
        **kw,
    )


# verl-agent's defaults (ppo_trainer.yaml mode, hard-coded cross-step episode statistics)
VERL_AGENT = {"mode": "mean_norm", "stats_over": "steps"}

# traj A: s0 -> s1, outcome 1 ; traj B: s0 -> s1, outcome 0 ; gamma = .5
TWO = [("g", "A", "s0", 1.0), ("g", "A", "s1", 1.0), ("g", "B", "s0", 0.0), ("g", "B", "s1", 0.0)]


def test_hand_worked_mean_norm():
    out = gigpo(TWO, gamma=0.5, mode="mean_norm")
    # R_A = (.5, 1), R_B = (0, 0); A^E = s - .5 ; A^S(s0) = (+-.25), A^S(s1) = (+-.5)
    assert torch.allclose(out.info["step_returns"], torch.tensor([0.5, 1.0, 0.0, 0.0]))
    assert torch.allclose(out.info["episode_advantages"], torch.tensor([0.5, 0.5, -0.5, -0.5]))
    assert torch.allclose(out.info["step_advantages"], torch.tensor([0.25, 0.5, -0.25, -0.5]))
    assert torch.allclose(out.advantages[:, 0], torch.tensor([0.75, 1.0, -0.75, -1.0]))
    half = gigpo(TWO, gamma=0.5, step_advantage_weight=0.5, mode="mean_norm")
    assert torch.allclose(half.advantages[:, 0], torch.tensor([0.625, 0.75, -0.625, -0.75]))


def test_hand_worked_mean_std_norm_over_trajectories_is_the_default():
    out = gigpo(TWO, gamma=0.5)
    e = 0.5 / (np.std([1, 0], ddof=1) + 1e-6)  # Eq. 3: one entry per trajectory
    s0 = 0.25 / (np.std([0.5, 0], ddof=1) + 1e-6)
    s1 = 0.5 / (np.std([1, 0], ddof=1) + 1e-6)
    want = torch.tensor([e + s0, e + s1, -e - s0, -e - s1], dtype=torch.float32)
    assert torch.allclose(out.advantages[:, 0], want)
    steps = gigpo(TWO, gamma=0.5, stats_over="steps")  # verl-agent: every step row counts
    e = 0.5 / (np.std([1, 1, 0, 0], ddof=1) + 1e-6)
    want = torch.tensor([e + s0, e + s1, -e - s0, -e - s1], dtype=torch.float32)
    assert torch.allclose(steps.advantages[:, 0], want)


def test_revisited_state_puts_both_visits_in_one_group():
    # traj C visits s0 twice: s0 -> s0 -> done (outcome 1), returns (.5, 1) with gamma .5
    rows = [*TWO, ("g", "C", "s0", 1.0), ("g", "C", "s0", 1.0)]
    out = gigpo(rows, gamma=0.5, mode="mean_norm")
    groups = out.info["step_groups"]
    assert groups[0] == groups[2] == groups[4] == groups[5]
    s0 = torch.tensor([0.5, 0.0, 0.5, 1.0])  # A0, B0, C0, C1
    assert torch.allclose(out.info["step_advantages"][[0, 2, 4, 5]], s0 - s0.mean())


def test_outcome_only_returns_are_discounted_from_the_last_step():
    rows = [("g", "A", f"s{t}", 2.0) for t in range(4)]
    out = gigpo(rows, gamma=0.9)
    assert torch.allclose(out.info["step_returns"], 2.0 * torch.tensor([0.9**3, 0.9**2, 0.9, 1.0]))


def test_step_rewards_give_dense_returns_and_score_is_their_sum():
    rows = [("g", "A", "s0", 0), ("g", "A", "s1", 0), ("g", "A", "s2", 0)]
    out = gigpo(rows, step_rewards=[0.5, -0.25, 1.0], gamma=0.5, stats_over="steps")
    assert torch.allclose(out.info["step_returns"], torch.tensor([0.5 - 0.125 + 0.25, -0.25 + 0.5, 1.0]))
    # the score is the undiscounted sum, 1.25; a lone trajectory: 3 equal step entries give 0,
    # counted once per trajectory it is a group of one and keeps the raw score
    assert torch.equal(out.info["episode_advantages"], torch.zeros(3))
    once = gigpo(rows, step_rewards=[0.5, -0.25, 1.0], gamma=0.5, stats_over="trajectories")
    assert torch.allclose(once.info["episode_advantages"], torch.full((3,), 1.25))


def test_singletons_and_lone_trajectory():
    out = gigpo([("u", "T", "s0", 3.0)], mode="mean_std_norm")
    assert torch.allclose(out.info["episode_advantages"], torch.tensor([3.0 / (1 + 1e-6)]))
    assert out.info["step_advantages"].eq(0).all()  # a singleton anchor state gives 0
    assert gigpo([("u", "T", "s0", 3.0)], mode="mean_norm").info["episode_advantages"].item() == 3.0


def test_zero_variance_is_exactly_zero():
    rows = [("g", t, "s0", 0.1) for t in "ABCD"]  # non-dyadic equal rewards
    out = gigpo(rows, mode="mean_std_norm", gamma=0.95)
    assert torch.equal(out.advantages, torch.zeros(4, 2))


def test_same_state_under_different_groups_never_merges():
    rows = [("g1", "A", "s0", 1.0), ("g2", "B", "s0", 0.0)]
    out = gigpo(rows)
    assert out.info["step_groups"][0] != out.info["step_groups"][1]
    assert out.info["step_advantages"].eq(0).all()


def test_episode_statistics_over_steps_or_trajectories():
    rows = [("g", "A", "a", 1.0), ("g", "A", "b", 1.0), ("g", "A", "c", 1.0), ("g", "B", "a", 0.0)]
    steps = gigpo(rows, **VERL_AGENT).info["episode_advantages"]
    assert torch.allclose(steps, torch.tensor([0.25, 0.25, 0.25, -0.75]))
    traj = gigpo(rows, mode="mean_norm").info["episode_advantages"]
    assert torch.allclose(traj, torch.tensor([0.5, 0.5, 0.5, -0.5]))


def test_averaging_identical_state_action_pairs():
    # three visits of s0: two take action "x" (returns 1 and 0), one takes "y" (return 1)
    rows = [("g", "A", "s0", 1.0), ("g", "B", "s0", 0.0), ("g", "C", "s0", 1.0)]
    out = gigpo(rows, action_keys=["x", "x", "y"], mode="mean_norm")
    q = torch.tensor([0.5, 0.5, 1.0])
    assert torch.allclose(out.info["step_advantages"], q - 2 / 3)
    assert out.info["step_advantages"][0] == out.info["step_advantages"][1]


def test_step_advantage_lands_only_on_its_own_action_tokens():
    rows = [*TWO, ("g", "C", "s0", 1.0), ("g", "C", "s0", 1.0)]
    per_step = gigpo(rows, gamma=0.5)
    a = per_step.advantages[:, 0]
    # the same six steps packed as three multi-turn rows: [act0 obs act1] per trajectory
    token_steps = torch.tensor([[0, 0, -1, 1, 1], [2, 2, -1, 3, -1], [4, -1, -1, 5, 5]])
    mask = torch.tensor([[1, 1, 0, 1, 1], [1, 1, 0, 1, 0], [1, 0, 0, 1, 1]])
    packed = gigpo(rows, gamma=0.5, response_mask=mask, token_steps=token_steps)
    want = torch.where(token_steps >= 0, a[token_steps.clamp(min=0)], 0.0)
    assert torch.allclose(packed.advantages, want)
    with pytest.raises(ValueError, match="names step 9"):
        gigpo(rows, response_mask=mask, token_steps=torch.full((3, 5), 9))


def test_step_index_orders_shuffled_rows():
    ordered = gigpo(TWO, gamma=0.5)
    perm = [3, 0, 2, 1]
    shuffled = gigpo([TWO[i] for i in perm], gamma=0.5, step_index=[[0, 1, 0, 1][i] for i in perm])
    assert torch.allclose(shuffled.advantages, ordered.advantages[perm])


def test_state_keys_may_be_arrays_or_dicts():
    obs = [np.zeros((2, 2)), np.ones((2, 2)), np.zeros((2, 2)), np.ones((2, 2))]
    a = gigpo([(u, t, o, s) for (u, t, _, s), o in zip(TWO, obs, strict=True)], gamma=0.5)
    assert torch.allclose(a.advantages, gigpo(TWO, gamma=0.5).advantages)
    d = [{"room": 1}, {"room": 2}, {"room": 1}, {"room": 2}]
    b = gigpo([(u, t, o, s) for (u, t, _, s), o in zip(TWO, d, strict=True)], gamma=0.5)
    assert torch.allclose(b.advantages, a.advantages)


# verl-agent gigpo/core_gigpo.py compute_gigpo_outcome_advantage with compute_step_discounted_returns
# (gamma = .95) on this batch (one row per step, outcome reward on the last step).
ROWS = [
    ("u0", "A", "s0", 0.0),
    ("u0", "A", "s1", 0.0),
    ("u0", "A", "s0", 0.0),
    ("u0", "A", "s2", 1.0),
    ("u0", "B", "s0", 0.0),
    ("u0", "B", "s2", 0.0),
    ("u0", "C", "s0", 0.0),
    ("u0", "C", "s1", 1.0),
    ("u1", "D", "s0", 1.0),
]
GIGPO_R = [0.857375, 0.9025, 0.95, 1.0, 0.0, 0.0, 0.95, 1.0, 1.0]
GIGPO_MEAN_NORM = [0.418031, 0.20125, 0.510656, 0.75, -1.439344, -1.25, 0.510656, 0.29875, 1.0]
GIGPO_MEAN_STD_NORM = [
    0.904053,
    -0.167036,
    1.1047,
    1.247166,
    -3.113453,
    -2.327287,
    1.1047,
    1.247158,
    0.999999,
]


@pytest.mark.parametrize(
    "mode, want", [("mean_norm", GIGPO_MEAN_NORM), ("mean_std_norm", GIGPO_MEAN_STD_NORM)]
)
def test_matches_verl_agent_reference_numbers(mode, want):
    episode = {"A": 1.0, "B": 0.0, "C": 1.0, "D": 1.0}
    out = compute_advantages(
        "gigpo",
        response_mask=torch.ones(len(ROWS), 3),
        group_ids=[r[0] for r in ROWS],
        traj_ids=[r[1] for r in ROWS],
        state_keys=[r[2] for r in ROWS],
        scores=torch.tensor([episode[r[1]] for r in ROWS]),
        step_rewards=torch.tensor([r[3] for r in ROWS]),
        gamma=0.95,
        mode=mode,
        stats_over="steps",
    )
    assert torch.allclose(out.info["step_returns"], torch.tensor(GIGPO_R), atol=1e-5)
    assert torch.allclose(out.advantages[:, 0], torch.tensor(want), atol=1e-5)
    # outcome-only input (no step rewards) gives the same numbers here
    same = compute_advantages(
        "gigpo",
        response_mask=torch.ones(len(ROWS), 3),
        group_ids=[r[0] for r in ROWS],
        traj_ids=[r[1] for r in ROWS],
        state_keys=[r[2] for r in ROWS],
        scores=torch.tensor([episode[r[1]] for r in ROWS]),
        gamma=0.95,
        mode=mode,
        stats_over="steps",
    )
    assert torch.allclose(same.advantages, out.advantages)


def test_bad_inputs():
    with pytest.raises(ValueError, match="mode must be"):
        gigpo(TWO, mode="std")
    with pytest.raises(ValueError, match="scores"):
        compute_advantages(
            "gigpo", response_mask=torch.ones(1, 1), group_ids=[0], traj_ids=[0], state_keys=[0]
        )


def test_steps_without_a_state_key_are_singletons():
    # two trajectories whose second step has no key: they are not one pooled "unknown" state
    rows = [("g", "A", "s0", 1.0), ("g", "A", None, 1.0), ("g", "B", "s0", 0.0), ("g", "B", None, 0.0)]
    out = gigpo(rows, gamma=0.5)
    assert out.info["step_advantages"][[1, 3]].eq(0).all()
    assert out.info["step_groups"][1] != out.info["step_groups"][3]
    assert out.info["step_advantages"][0] > 0 > out.info["step_advantages"][2]  # s0 is still an anchor
    pooled = gigpo([(u, t, k or "unknown", s) for u, t, k, s in rows], gamma=0.5)
    assert pooled.info["step_advantages"][1] != 0  # what one shared key would give
    # with identical actions too: a keyless step never joins another one
    agg = gigpo(rows, gamma=0.5, action_keys=["a", "x", "a", "x"])
    assert agg.info["step_advantages"][[1, 3]].eq(0).all()


def test_identical_actions_share_one_step_advantage_unless_turned_off():
    rows = [("g", "A", "s0", 1.0), ("g", "B", "s0", 0.0), ("g", "C", "s0", 1.0)]
    on = gigpo(rows, action_keys=["x", "x", "y"])
    assert on.info["step_advantages"][0] == on.info["step_advantages"][1]
    off = gigpo(rows, action_keys=["x", "x", "y"], aggregate_actions=False)
    assert torch.equal(off.advantages, gigpo(rows).advantages)


def test_similarity_grouping_follows_verl_agent():
    # verl-agent build_step_group(enable_similarity=True): greedy, in order, against the first member
    a, a2, far = "ls\nsrc/calc.py tests/", "ls\nsrc/calc.py tests/ ", "cat README.md"
    rows = [("g", "A", a, 1.0), ("g", "B", a2, 0.0), ("g", "C", far, 1.0), ("h", "D", a, 0.0)]
    out = gigpo(rows, enable_similarity=True, similarity_thresh=0.9, mode="mean_norm")
    groups = out.info["step_groups"].tolist()
    assert groups[0] == groups[1] and len({groups[0], groups[2], groups[3]}) == 3
    assert torch.allclose(out.info["step_advantages"], torch.tensor([0.5, -0.5, 0.0, 0.0]))
    exact = gigpo(rows, mode="mean_norm")
    assert exact.info["step_advantages"].eq(0).all()  # every text differs: all singletons
    strict = gigpo(rows, enable_similarity=True, similarity_thresh=0.999, mode="mean_norm")
    assert strict.info["step_advantages"].eq(0).all()
    with pytest.raises(ValueError, match="similarity_thresh"):
        gigpo(rows, enable_similarity=True, similarity_thresh=1.0)
    with pytest.raises(ValueError, match="text state keys"):
        gigpo([("g", "A", 3, 1.0)], enable_similarity=True)


def test_a_trajectory_has_one_score():
    with pytest.raises(ValueError, match="rows of one episode"):
        gigpo([("g", "A", "s0", 1.0), ("g", "A", "s1", 0.0)])
