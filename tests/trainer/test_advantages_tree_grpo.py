"""Tree-GRPO: intra-tree + inter-tree z-scores, branch points, reference numbers."""

import math

import pytest
import torch

from codegym.trainer.advantages import compute_advantages


def tree(scores, groups, trees, **kw):
    s = torch.tensor(scores)
    kw.setdefault("response_mask", torch.ones(len(scores), 4))
    return compute_advantages("tree_grpo", group_ids=groups, tree_ids=trees, scores=s, **kw)


def test_hand_worked_two_trees():
    # prompt p: tree 0 leaves (1, 0), tree 1 leaves (1, 1)
    out = tree([1.0, 0.0, 1.0, 1.0], ["p"] * 4, [0, 0, 1, 1])
    # inter: mean .75, unbiased std .5 ; intra: tree 0 -> +-.5/(sqrt(.5)+eps), tree 1 -> 0
    inter = torch.tensor([0.25, -0.75, 0.25, 0.25]) / (0.5 + 1e-6)
    intra = torch.tensor([1.0, -1.0, 0.0, 0.0]) * 0.5 / (math.sqrt(0.5) + 1e-6)
    assert torch.allclose(out.info["inter_advantages"], inter)
    assert torch.allclose(out.info["intra_advantages"], intra)
    assert torch.allclose(out.advantages, (inter + intra)[:, None].expand(4, 4))
    only = tree([1.0, 0.0, 1.0, 1.0], ["p"] * 4, [0, 0, 1, 1], mode="intra")
    assert torch.allclose(only.advantages, intra[:, None].expand(4, 4))


def test_branches_are_trained_only_after_their_branch_point():
    # tree 0: backbone (b = 0) and a branch from its step 2 (b = 2); tree 1: backbone, and a leaf
    # whose first row lies wholly inside its prefix (b = row length)
    m = torch.tensor([[1, 1, 0, 1], [1, 1, 1, 0], [1, 1, 1, 1], [1, 1, 1, 1]])
    bp = [0, 2, 0, 4]
    out = tree([1.0, 0.0, 1.0, 1.0], ["p"] * 4, [0, 0, 1, 1], response_mask=m, branch_points=bp)
    a = out.info["inter_advantages"] + out.info["intra_advantages"]
    after = torch.tensor([[1, 1, 1, 1], [0, 0, 1, 1], [1, 1, 1, 1], [0, 0, 0, 0]])
    assert torch.allclose(out.advantages, a[:, None] * after * m)  # both terms, only after b
    # the reference (AMAP-ML/Tree-GRPO) trains every leaf on its whole row, prefix copy included
    ref = tree([1.0, 0.0, 1.0, 1.0], ["p"] * 4, [0, 0, 1, 1], response_mask=m, branch_points=bp,
               shared_prefix="every_leaf")
    assert torch.allclose(ref.advantages, a[:, None] * m)
    assert torch.equal(tree([1.0, 0.0, 1.0, 1.0], ["p"] * 4, [0, 0, 1, 1], response_mask=m).advantages,
                       ref.advantages)  # no branch points: every row is a whole trajectory


def test_2norm_is_the_tree_zscore_of_the_prompt_zscore():
    # AMAP-ML/Tree-GRPO compute_tree_grpo_outcome_advantage (adv_estimator="tree_2norm")
    out = tree(SCORES, UID, TREE, mode="2norm")
    inter = torch.tensor(TREE_INTER, dtype=torch.float64)
    want = torch.zeros(8, dtype=torch.float64)
    for t in set(TREE):
        rows = [i for i, x in enumerate(TREE) if x == t]
        v = inter[rows]
        want[rows] = v / (1 + 1e-6) if len(rows) == 1 else (v - v.mean()) / (v.std() + 1e-6)
    assert torch.allclose(out.advantages[:, 0].double(), want, atol=1e-5)
    assert torch.allclose(out.info["inter_advantages"], torch.tensor(TREE_INTER), atol=1e-5)


def test_a_leaf_in_several_segments_counts_once():
    # leaf 0 of tree 0 compacted into two rows (same traj id): the statistics see three leaves
    split = tree([1.0, 1.0, 0.0, 1.0], ["p"] * 4, [0, 0, 0, 1], traj_ids=[0, 0, 1, 2])
    whole = tree([1.0, 0.0, 1.0], ["p"] * 3, [0, 0, 1])
    assert torch.allclose(split.advantages[[0, 1, 2, 3]], whole.advantages[[0, 0, 1, 2]])


def test_single_leaf_tree_and_zero_variance():
    out = tree([0.5, 1.0, 0.0], ["p"] * 3, ["a", "b", "b"])
    assert torch.isclose(out.info["intra_advantages"][0], torch.tensor(0.5 / (1 + 1e-6)))  # raw reward
    flat = tree([0.1] * 4, ["p"] * 4, [0, 0, 1, 1])
    assert torch.equal(flat.advantages, torch.zeros(4, 4))
    single = tree([0.3], ["p"], [0])
    assert not torch.isnan(single.advantages).any()
    assert torch.equal(tree([0.5], ["p"], [0], singleton="zero").advantages, torch.zeros(1, 4))


def test_tree_ids_are_scoped_by_prompt():
    a = tree([1.0, 0.0, 1.0, 0.0], ["p", "p", "q", "q"], [0, 0, 0, 0])
    b = tree([1.0, 0.0, 1.0, 0.0], ["p", "p", "q", "q"], [0, 0, 1, 1])
    assert torch.equal(a.advantages, b.advantages)


# AMAP-ML/Tree-GRPO @ 90b17099 compute_grpo_outcome_advantage with uid and with tree_uid.
SCORES = [1.0, 0.0, 1.0, 0.5, 0.0, 0.0, 1.0, 1.0]
UID = ["p"] * 6 + ["q"] * 2
TREE = ["p0", "p0", "p0", "p1", "p1", "p2", "q0", "q1"]
TREE_INTER = [1.186609, -0.847578, 1.186609, 0.169516, -0.847578, -0.847578, 0.0, 0.0]
TREE_INTRA = [0.577349, -1.154699, 0.577349, 0.707105, -0.707105, 0.0, 0.999999, 0.999999]


def test_matches_reference_numbers():
    out = tree(SCORES, UID, TREE)
    assert torch.allclose(out.info["inter_advantages"], torch.tensor(TREE_INTER), atol=1e-5)
    assert torch.allclose(out.info["intra_advantages"], torch.tensor(TREE_INTRA), atol=1e-5)
    want = torch.tensor(TREE_INTER) + torch.tensor(TREE_INTRA)
    assert torch.allclose(out.advantages[:, 0], want, atol=1e-5)


def test_bad_mode():
    with pytest.raises(ValueError, match="mode must be"):
        tree([1.0], ["p"], [0], mode="inter")
    with pytest.raises(ValueError, match="shared_prefix must be"):
        tree([1.0], ["p"], [0], shared_prefix="all")
