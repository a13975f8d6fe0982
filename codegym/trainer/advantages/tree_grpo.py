"""Tree-GRPO: intra-tree plus inter-tree group-relative advantages (Ji et al. 2025).

One row per sampled leaf, holding the whole root-to-leaf trajectory. With ``s_i`` the leaf's
outcome score, ``p(i)`` its prompt (``group_ids``, all M*K leaves of the prompt) and ``tr(i)`` its
tree (``tree_ids``, the K leaves of one tree)::

    inter_i = (s_i - mean_{p(i)} s) / (std_{p(i)} s + eps)
    intra_i = (s_i - mean_{tr(i)} s) / (std_{tr(i)} s + eps)
    A_{i,t} = (inter_i + intra_i * [t >= b_i]) * m_{i,t}

Reference: AMAP-ML/Tree-GRPO ``ray_trainer_ts.py`` (``adv_estimator="tree"``), which applies both
terms to every response token (``b_i = 0``, the default here): eps = 1e-6, unbiased std, no
weighting or re-normalisation of the sum, and a group of one keeps its raw score, so a tree with
one leaf gets intra = its raw reward. ``mode="intra"`` is the repo's ``tree_inner`` (intra only).

``branch_points[i]`` (optional) is the response position where leaf ``i`` leaves the prefix shared
by all leaves of its tree (the first token of its tree's first branching node). The inter-tree
term applies from the root (every token); the intra-tree term only from ``b_i`` on. On the shared
prefix the reference's intra terms sum to exactly 0 over the tree's leaves, so this removes a
term that cancels in the token-mean gradient anyway (up to clipping) and only lowers variance.

The inter-tree group includes the row's own tree, as in the reference. Statistics are float64 and
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
    group_index,
    group_zscore,
    outcome_scores,
    pair_index,
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
    branch_points: Any = None,
    mode: Literal["sum", "intra"] = "sum",
    epsilon: float = 1e-6,
    singleton: Literal["raw", "zero"] = "raw",
) -> AdvantageResult:
    """Tree-GRPO advantages ``[B, T]`` over leaf rows; see the module docstring.

    ``info``: ``inter_advantages`` and ``intra_advantages`` per row.
    """
    if mode not in ("sum", "intra"):
        raise ValueError(f"mode must be 'sum' or 'intra', got {mode!r}")
    m = as_mask(response_mask)
    b, t = m.shape
    device = m.device
    s = outcome_scores(scores, token_level_rewards, b, device=device)
    gid, n_groups = group_index(group_ids, b, device=device, name="group_ids")
    tid, n_tid = group_index(tree_ids, b, device=device, name="tree_ids")
    tree, n_trees = pair_index(gid, tid, n_groups, n_tid, compact=False)  # trees never span prompts

    inter = group_zscore(s, gid, n_groups, scale="group", epsilon=epsilon, singleton=singleton)
    intra = group_zscore(s, tree, n_trees, scale="group", epsilon=epsilon, singleton=singleton)
    if mode == "intra":
        inter = torch.zeros_like(inter)

    dtype = result_dtype(token_level_rewards, scores if isinstance(scores, torch.Tensor) else None)
    if branch_points is None:
        adv = broadcast(inter + intra, m, dtype)
    else:
        adv = broadcast(inter, m, dtype)
        bp = as_rows(branch_points, b, name="branch_points", device=device)
        after = torch.arange(t, device=device)[None, :] >= bp[:, None]
        adv += broadcast(intra, (m != 0) & after, dtype)
    info = {"inter_advantages": inter.to(dtype), "intra_advantages": intra.to(dtype)}
    return AdvantageResult(adv, adv.clone(), info)
