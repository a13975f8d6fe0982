"""Tree-GRPO: intra-tree plus inter-tree group-relative advantages (Ji et al. 2025).

One episode per leaf: the whole root-to-leaf trajectory (in one or more rows; its rows share
``traj_ids``). With ``s_e`` the leaf's outcome score, ``p(e)`` its prompt (``group_ids``: all M*K
leaves of the prompt, own tree included) and ``tr(e)`` its tree (``tree_ids``)::

    inter_e = (s_e - mean_{p(e)} s) / (std_{p(e)} s + eps)
    intra_e = (s_e - mean_{tr(e)} s) / (std_{tr(e)} s + eps)
    A_{i,t} = (inter_e + intra_e) * [t >= b_i] * m_{i,t}                 (row i of leaf e)

``b_i`` (``branch_points``) is where the leaf's own steps begin in row ``i``: 0 for a tree's
initial trajectory (the backbone) and for a chain restarted from the root; for a leaf rolled out
from an intermediate node, the first token after that node (a row wholly inside the prefix has
``b_i`` = its length). So, as the design notes specify, a branch is trained only on the steps after
its branch point, for both terms, and the shared prefix is trained once, in the row that sampled
it (``shared_prefix="backbone"``, the default). Without ``branch_points`` every ``b_i = 0``.

Reference: AMAP-ML/Tree-GRPO ``ray_trainer_ts.py`` (``adv_estimator="tree"``) applies the sum to
every response token of every leaf row, the prefix copy included, so a prefix node is trained
once per descendant leaf with that leaf's advantage: ``shared_prefix="every_leaf"`` (then the
trainer also keeps the prefix in the loss mask). Its other choices are the defaults: eps = 1e-6,
unbiased std, no weighting or re-normalisation of the sum, and a group of one keeps its raw score
(a one-leaf tree's intra is its raw reward). ``mode="intra"`` is the repo's ``tree_inner`` (intra
only); ``mode="2norm"`` is its ``tree_2norm``, the two z-scores in sequence::

    A_e = (inter_e - mean_{tr(e)} inter) / (std_{tr(e)} inter + eps)

Statistics are over episodes (a leaf split into compaction segments counts once), float64, and
equal scores give exactly 0.
"""

from __future__ import annotations

from typing import Any, Literal

import torch

from ._registry import AdvantageResult, register
from ._stats import (
    as_mask,
    as_rows,
    broadcast,
    episode_index,
    episode_scores,
    group_index,
    group_zscore,
    pair_index,
    per_episode,
    result_dtype,
)


@register("tree_grpo")
@torch.no_grad()
def tree_grpo_advantages(
    *,
    response_mask: torch.Tensor,
    group_ids: Any,
    tree_ids: Any,
    scores: Any = None,
    token_level_rewards: torch.Tensor | None = None,
    traj_ids: Any = None,
    branch_points: Any = None,
    shared_prefix: Literal["backbone", "every_leaf"] = "backbone",
    mode: Literal["sum", "intra", "2norm"] = "sum",
    epsilon: float = 1e-6,
    singleton: Literal["raw", "zero"] = "raw",
) -> AdvantageResult:
    """Tree-GRPO advantages ``[B, T]`` over leaf rows; see the module docstring.

    ``info`` (per row): ``inter_advantages`` and ``intra_advantages`` (the two z-scores of ``s``).
    """
    if mode not in ("sum", "intra", "2norm"):
        raise ValueError(f"mode must be 'sum', 'intra' or '2norm', got {mode!r}")
    if shared_prefix not in ("backbone", "every_leaf"):
        raise ValueError(f"shared_prefix must be 'backbone' or 'every_leaf', got {shared_prefix!r}")
    m = as_mask(response_mask)
    b, t = m.shape
    device = m.device
    gid, n_groups = group_index(group_ids, b, device=device, name="group_ids")
    tid, n_tid = group_index(tree_ids, b, device=device, name="tree_ids")
    ep, first = episode_index(traj_ids, gid, n_groups, b, device=device)
    s = episode_scores(scores, token_level_rewards, ep, first, b, device=device)
    g = gid.index_select(0, first)
    tree, n_trees = pair_index(g, per_episode(tid, ep, first, name="tree_ids"), n_groups, n_tid, compact=False)

    def z(x: torch.Tensor, index: torch.Tensor, n: int) -> torch.Tensor:
        return group_zscore(x, index, n, scale="group", epsilon=epsilon, singleton=singleton)

    inter, intra = z(s, g, n_groups), z(s, tree, n_trees)
    if mode == "sum":
        a = inter + intra
    elif mode == "intra":
        a = intra
    else:  # 2norm: the tree z-score of the inter-tree z-scores
        a = z(inter, tree, n_trees)
    a = a.index_select(0, ep)

    dtype = result_dtype(token_level_rewards, scores if isinstance(scores, torch.Tensor) else None)
    trained = m
    if branch_points is not None and shared_prefix == "backbone":
        bp = as_rows(branch_points, b, name="branch_points", device=device)
        trained = (m != 0) & (torch.arange(t, device=device)[None, :] >= bp[:, None])
    adv = broadcast(a, trained, dtype)
    info = {"inter_advantages": inter.index_select(0, ep).to(dtype),
            "intra_advantages": intra.index_select(0, ep).to(dtype)}
    return AdvantageResult(adv, adv.clone(), info)
