"""Property tests over every estimator: shift invariance, permutation equivariance, masks, no NaN,
and splitting episodes into segments changes no advantage."""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from codegym.trainer.advantages import ADVANTAGES, compute_advantages

VALUES = [0.0, 0.1, 0.25, 0.5, 1.0, 2.0, -1.0]
SETTINGS = settings(max_examples=40, deadline=None)


@st.composite
def batches(draw, min_rows=1, nan=False):
    """A random batch with every field any estimator takes."""
    b = draw(st.integers(min_rows, 10))
    t = draw(st.integers(1, 5))
    mask = torch.tensor(
        draw(st.lists(st.lists(st.booleans(), min_size=t, max_size=t), min_size=b, max_size=b))
    )
    values = st.sampled_from(VALUES + ([float("nan")] if nan else []))
    k = draw(st.integers(1, 3))
    return {
        "mask": mask,
        "groups": draw(st.lists(st.integers(0, 2), min_size=b, max_size=b)),
        "trajs": draw(st.lists(st.integers(0, 3), min_size=b, max_size=b)),
        "states": draw(st.lists(st.sampled_from("abc"), min_size=b, max_size=b)),
        "trees": draw(st.lists(st.integers(0, 1), min_size=b, max_size=b)),
        "scores": torch.tensor(draw(st.lists(st.sampled_from(VALUES), min_size=b, max_size=b))),
        "comps": torch.tensor(
            draw(st.lists(st.lists(values, min_size=k, max_size=k), min_size=b, max_size=b))
        ),
        "tensor_ids": draw(st.booleans()),  # ids as int tensors (used as they are) or Python lists
        "tokens": torch.tensor(
            draw(st.lists(st.lists(st.sampled_from(VALUES), min_size=t, max_size=t), min_size=b, max_size=b))
        ),
    }


def run(name, d, **kw):
    d = dict(d)
    if d["tensor_ids"]:
        for k in ("groups", "trajs", "trees"):
            d[k] = torch.tensor(d[k]) * 5 + 3
    m, g = d["mask"], d["groups"]
    common = {"response_mask": m, "group_ids": g}
    if name == "gae":
        args = {"response_mask": m, "token_level_rewards": d["tokens"], "values": d["tokens"].flip(-1)}
    elif name == "grpo":
        args = {**common, "scores": d["scores"]}
    elif name == "gigpo":
        # a trajectory has one score: its first row's
        first = {}
        for i, key in enumerate(zip(d["groups"], d["trajs"], strict=True)):
            first.setdefault((int(key[0]), int(key[1])), i)
        traj_scores = d["scores"][[first[(int(g), int(t))] for g, t in zip(d["groups"], d["trajs"], strict=True)]]
        args = {
            **common,
            "scores": traj_scores,
            "traj_ids": d["trajs"],
            "state_keys": d["states"],
            "gamma": 0.9,
        }
    elif name == "tree_grpo":
        args = {**common, "scores": d["scores"], "tree_ids": d["trees"]}
    else:
        args = {**common, "reward_components": d["comps"]}
    return compute_advantages(name, **args, **kw)


def permuted(d, perm):
    p = torch.tensor(perm)
    out = dict(d)
    out.update({k: [v[i] for i in perm] for k, v in d.items() if isinstance(v, list)})
    out.update({k: v[p] for k, v in d.items() if isinstance(v, torch.Tensor)})
    return out


@SETTINGS
@given(d=batches(nan=True), name=st.sampled_from(sorted(ADVANTAGES)))
def test_masked_positions_are_zero_and_nothing_is_nan(d, name):
    out = run(name, d)
    assert out.advantages.shape == out.returns.shape == d["mask"].shape
    assert not torch.isnan(out.advantages).any() and not torch.isnan(out.returns).any()
    assert torch.all(out.advantages[~d["mask"]] == 0) and torch.all(out.returns[~d["mask"]] == 0)


@SETTINGS
@given(d=batches(), name=st.sampled_from(sorted(ADVANTAGES)), data=st.data())
def test_permuting_rows_permutes_outputs(d, name, data):
    perm = data.draw(st.permutations(range(d["mask"].shape[0])))
    # GiGPO orders a trajectory's steps by batch order; give it explicit step indices instead
    kw = {"step_index": list(range(len(perm)))} if name == "gigpo" else {}
    base = run(name, d, **kw)
    if name == "gigpo":
        kw = {"step_index": perm}
    moved = run(name, permuted(d, perm), **kw)
    assert torch.allclose(moved.advantages, base.advantages[list(perm)], atol=1e-5)
    assert torch.allclose(moved.returns, base.returns[list(perm)], atol=1e-5)


@SETTINGS
@given(
    d=batches(),
    shifts=st.lists(st.sampled_from([-3.0, -0.5, 0.25, 1.0, 8.0]), min_size=3, max_size=3),
    flavour=st.sampled_from(["verl", "trl"]),
    scale=st.sampled_from(["group", "batch", "none"]),
)
def test_shifting_a_group_leaves_grpo_unchanged(d, shifts, flavour, scale):
    # groups of one keep their raw score in verl, so use the zero rule to test the invariance;
    # the batch std sees every group, so with scale="batch" all groups share one shift
    kw = {"flavour": flavour, "scale": scale, "singleton": "zero"}
    if scale == "batch":
        shifts = [shifts[0]] * 3
    base = run("grpo", d, **kw)
    shifted = dict(d, scores=d["scores"] + torch.tensor([shifts[g] for g in d["groups"]]))
    assert torch.allclose(run("grpo", shifted, **kw).advantages, base.advantages, atol=1e-5)


@SETTINGS
@given(d=batches(), shifts=st.lists(st.sampled_from([-2.0, 0.5, 4.0]), min_size=3, max_size=3))
def test_shifting_a_reward_within_a_group_leaves_gdpo_and_gd2po_unchanged(d, shifts):
    # In float64: adding a shift to float32 rewards rounds them (eps ~1e-6 at 12), and a small
    # group std magnifies that input error past any fixed tolerance; the invariance is exact math.
    d = dict(d, comps=d["comps"].double())
    shift = torch.tensor([shifts[g] for g in d["groups"]], dtype=torch.float64)[:, None] * torch.arange(
        1, d["comps"].shape[1] + 1, dtype=torch.float64)
    shifted = dict(d, comps=d["comps"] + shift)
    for name, kw in (
        ("gdpo", {}),
        ("gdpo", {"flavour": "verl", "singleton": "zero"}),
        ("gd2po", {"singleton": "zero"}),
    ):
        assert torch.allclose(run(name, shifted, **kw).advantages, run(name, d, **kw).advantages, atol=1e-5)


@SETTINGS
@given(d=batches(), shift=st.sampled_from([-2.0, 0.5, 4.0]))
def test_shifting_a_prompt_leaves_tree_grpo_unchanged(d, shift):
    kw = {"singleton": "zero"}
    shifted = dict(d, scores=d["scores"] + shift * (torch.tensor(d["groups"]) == 0))
    assert torch.allclose(
        run("tree_grpo", shifted, **kw).advantages, run("tree_grpo", d, **kw).advantages, atol=1e-5
    )


@SETTINGS
@given(d=batches(min_rows=2))
def test_grpo_group_advantages_have_zero_mean(d):
    out = run("grpo", dict(d, mask=torch.ones_like(d["mask"])), singleton="zero", scale="none")
    a = out.advantages[:, 0].double()
    for g in set(d["groups"]):
        rows = [i for i, x in enumerate(d["groups"]) if x == g]
        assert abs(a[rows].sum().item()) < 1e-5


# ---- splitting an episode into segments (compaction) changes no advantage of any row --------------


@st.composite
def episodes(draw):
    """Episodes with every field any estimator takes; each is one token sequence of length L."""
    n = draw(st.integers(1, 6))
    k = draw(st.integers(1, 3))
    out = []
    for _ in range(n):
        length = draw(st.integers(1, 6))
        n_steps = draw(st.integers(1, 3))
        out.append({
            "group": draw(st.integers(0, 2)),
            "tree": draw(st.integers(0, 1)),
            "score": draw(st.sampled_from(VALUES)),
            "comps": draw(st.lists(st.sampled_from(VALUES + [float("nan")]), min_size=k, max_size=k)),
            "mask": draw(st.lists(st.booleans(), min_size=length, max_size=length)),
            "branch": draw(st.integers(0, length)),
            # the step of each token (non-decreasing), and per step a state key (None: unknown) and action
            "token_step": sorted(draw(st.lists(st.integers(0, n_steps - 1), min_size=length, max_size=length))),
            "states": draw(st.lists(st.sampled_from(["a", "b", None]), min_size=n_steps, max_size=n_steps)),
            "actions": draw(st.lists(st.sampled_from("xy"), min_size=n_steps, max_size=n_steps)),
            "rewards": draw(st.lists(st.sampled_from(VALUES), min_size=length, max_size=length)),
            "values": draw(st.lists(st.sampled_from(VALUES), min_size=length, max_size=length)),
            # where the episode is cut into segments, and the prompt tokens (mask 0) each segment starts with
            "cuts": sorted(set(draw(st.lists(st.integers(1, max(1, length - 1)), max_size=3)))) if length > 1 else [],
            "prompts": draw(st.lists(st.integers(0, 2), min_size=4, max_size=4)),
        })
    return out


def layout(eps, split, order=None):
    """Rows (one per episode, or one per segment with its prompt tokens in front) and, for every
    token (e, p) of every episode, where it landed: ``where[(e, p)] = (row, column)``."""
    rows = []  # (episode, start, end, prompt)
    for e, ep in enumerate(eps):
        bounds = [0, *(ep["cuts"] if split else []), len(ep["mask"])]
        for j in range(len(bounds) - 1):
            rows.append((e, j, bounds[j], bounds[j + 1], ep["prompts"][j] if split else 0))
    if order is not None:
        rows = [rows[i] for i in order]
    width = max(pr + end - start for _, _, start, end, pr in rows)
    b = len(rows)
    f = {"mask": torch.zeros(b, width, dtype=torch.long), "rewards": torch.zeros(b, width),
         "values": torch.full((b, width), 7.0), "token_steps": torch.full((b, width), -1, dtype=torch.long),
         "branch": [], "episode": [], "segment": []}
    step_base = [0]
    for ep in eps:
        step_base.append(step_base[-1] + len(ep["states"]))
    where = {}
    for r, (e, j, start, end, pr) in enumerate(rows):
        ep = eps[e]
        for p in range(start, end):
            c = pr + p - start
            where[(e, p)] = (r, c)
            f["mask"][r, c] = int(ep["mask"][p])
            f["rewards"][r, c] = ep["rewards"][p] + (ep["score"] if p == len(ep["mask"]) - 1 else 0.0)
            f["values"][r, c] = ep["values"][p]
            f["token_steps"][r, c] = step_base[e] + ep["token_step"][p]
        f["branch"].append(pr + min(max(ep["branch"] - start, 0), end - start))
        f["episode"].append(e)
        f["segment"].append(j)
    f["rows"] = rows
    return f, where


def split_inputs(name, eps, f):
    e = f["episode"]
    rows = {"response_mask": f["mask"], "group_ids": [eps[i]["group"] for i in e], "traj_ids": e}
    if name == "grpo":
        return {**rows, "scores": torch.tensor([eps[i]["score"] for i in e])}
    if name == "tree_grpo":  # token rewards: the outcome on the episode's last token, in its last segment
        return {**rows, "token_level_rewards": _outcome_only(eps, f), "tree_ids": [eps[i]["tree"] for i in e],
                "branch_points": f["branch"]}
    if name in ("gdpo", "gd2po"):
        return {**rows, "reward_components": torch.tensor([eps[i]["comps"] for i in e])}
    if name == "gigpo":
        steps = [(i, k) for i, ep in enumerate(eps) for k in range(len(ep["states"]))]
        return {"response_mask": f["mask"], "token_steps": f["token_steps"],
                "group_ids": [eps[i]["group"] for i, _ in steps], "traj_ids": [i for i, _ in steps],
                "state_keys": [eps[i]["states"][k] for i, k in steps], "step_index": [k for _, k in steps],
                "action_keys": [eps[i]["actions"][k] for i, k in steps],
                "scores": torch.tensor([eps[i]["score"] for i, _ in steps])}
    return {"response_mask": f["mask"], "token_level_rewards": f["rewards"], "values": f["values"],
            "episode_ids": e, "segment_index": f["segment"]}


def _outcome_only(eps, f):
    out = torch.zeros_like(f["rewards"])
    for r, (e, _, start, end, pr) in enumerate(f["rows"]):
        if end == len(eps[e]["mask"]):
            out[r, pr + end - 1 - start] = eps[e]["score"]
    return out


OPTIONS = {
    "grpo": st.fixed_dictionaries({"flavour": st.sampled_from(["verl", "trl"]),
                                   "scale": st.sampled_from(["group", "batch", "none"])}),
    "tree_grpo": st.fixed_dictionaries({"mode": st.sampled_from(["sum", "intra", "2norm"]),
                                        "shared_prefix": st.sampled_from(["backbone", "every_leaf"])}),
    "gdpo": st.fixed_dictionaries({"flavour": st.sampled_from(["trl", "verl"])}),
    "gd2po": st.fixed_dictionaries({"conflict_filter": st.sampled_from(["snr", "hard", "none"]),
                                    "whiten": st.booleans()}),
    "gigpo": st.fixed_dictionaries({"mode": st.sampled_from(["mean_std_norm", "mean_norm"]),
                                    "stats_over": st.sampled_from(["trajectories", "steps"]),
                                    "gamma": st.sampled_from([1.0, 0.9])}),
    "gae": st.fixed_dictionaries({"lam": st.sampled_from([1.0, 0.9]), "gamma": st.sampled_from([1.0, 0.95]),
                                  "whiten_rewards": st.booleans()}),
}


@settings(max_examples=60, deadline=None)
@given(eps=episodes(), name=st.sampled_from(sorted(OPTIONS)), data=st.data())
def test_splitting_an_episode_into_segments_changes_no_advantage(eps, name, data):
    opts = data.draw(OPTIONS[name])
    whole, at_whole = layout(eps, split=False)
    n_rows = len(layout(eps, split=True)[0]["rows"])
    order = data.draw(st.permutations(range(n_rows)))  # segments in any order
    split, at_split = layout(eps, split=True, order=order)
    a = compute_advantages(name, **split_inputs(name, eps, whole), **opts)
    b = compute_advantages(name, **split_inputs(name, eps, split), **opts)
    for out, f in ((a, whole), (b, split)):
        assert torch.all(out.advantages[f["mask"] == 0] == 0)
    for key, (r, c) in at_whole.items():
        rs, cs = at_split[key]
        assert torch.isclose(a.advantages[r, c], b.advantages[rs, cs], rtol=1e-5, atol=1e-5), key
        assert torch.isclose(a.returns[r, c], b.returns[rs, cs], rtol=1e-5, atol=1e-5), key
