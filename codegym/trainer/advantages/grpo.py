"""GRPO: group-relative outcome advantages (Shao et al. 2024), verl and TRL flavours.

Over the episodes ``e`` of group ``g`` (``group_ids``; the rows of one episode share its
``traj_ids``)::

    s_e = sum_t r_{e,t}                                     (or the given per-episode scores)
    A_{i,t} = (s_e - mean_{e' in g} s_e') / (std_{e' in g} s_e' + eps) * m_{i,t}     (row i of e)

Each episode counts once in its group's statistics, however many rows (compaction segments)
it was split into, and every row of an episode gets the episode's advantage: splitting an
episode changes no advantage (``stats_over="trajectories"``, the default; without ``traj_ids``
every row is an episode). ``stats_over="steps"`` is verl-agent's multi-step GRPO
(``compute_mean_std_cross_steps=True``): every row counts, so an episode split into k rows
weighs k times.

Defaults follow verl ``compute_grpo_outcome_advantage`` (``flavour="verl"``): eps = 1e-6, unbiased
std, and a group of one keeps its raw score (mean 0, std 1). ``flavour="trl"`` follows TRL
``GRPOTrainer`` (``sum_then_normalize``): eps = 1e-4 and a group of one gets 0. NaN scores (a
``None`` reward in TRL) are excluded from the statistics and get advantage 0 in both flavours.

``scale`` is TRL's ``scale_rewards``: ``"group"`` (default; verl ``norm_adv_by_std_in_grpo=True``),
``"batch"`` (group mean, batch std over episodes) or ``"none"`` (Dr.GRPO, verl
``norm_adv_by_std_in_grpo=False``).

Group statistics are float64 and equal scores give exactly 0 (verl's float32 gives -0.00739 for
eight scores of 0.1); this deliberately differs from the reference there.
"""

from __future__ import annotations

from typing import Any, Literal

import torch

from ._registry import AdvantageResult, register
from ._stats import (
    as_mask,
    broadcast,
    episode_index,
    episode_scores,
    group_index,
    group_zscore,
    outcome_scores,
    result_dtype,
)

FLAVOURS: dict[str, tuple[float, str]] = {"verl": (1e-6, "raw"), "trl": (1e-4, "zero")}


def _scale_name(scale: str | bool) -> str:
    if scale is True:
        return "group"
    if scale is False:
        return "none"
    if scale not in ("group", "batch", "none"):
        raise ValueError(f"scale must be 'group', 'batch', 'none' or a bool, got {scale!r}")
    return scale


@register("grpo")
@torch.no_grad()
def grpo_advantages(
    *,
    response_mask: torch.Tensor,
    group_ids: Any,
    scores: Any = None,
    token_level_rewards: torch.Tensor | None = None,
    flavour: Literal["verl", "trl"] = "verl",
    scale: Literal["group", "batch", "none"] | bool = "group",
    epsilon: float | None = None,
    singleton: Literal["raw", "zero"] | None = None,
    traj_ids: Any = None,
    stats_over: Literal["trajectories", "steps"] = "trajectories",
) -> AdvantageResult:
    """GRPO advantages ``A[B, T]`` from outcome scores, group ids (``uid``) and episode ids.

    Pass ``scores[B]`` (the episode's score on each of its rows) or ``token_level_rewards[B, T]``
    (summed over all rows of an episode). ``epsilon`` and ``singleton`` default to the
    ``flavour``'s values (verl: 1e-6, "raw"; trl: 1e-4, "zero"). Returns ``advantages ==
    returns`` (verl's convention); ``info["row_advantages"]`` is ``a[B]``.
    """
    if flavour not in FLAVOURS:
        raise ValueError(f"flavour must be one of {sorted(FLAVOURS)}, got {flavour!r}")
    if stats_over not in ("trajectories", "steps"):
        raise ValueError(f"stats_over must be 'trajectories' or 'steps', got {stats_over!r}")
    m = as_mask(response_mask)
    b, device = m.shape[0], m.device
    gid, n_groups = group_index(group_ids, b, device=device, name="group_ids")
    default_eps, default_singleton = FLAVOURS[flavour]
    kw = dict(
        scale=_scale_name(scale),
        epsilon=default_eps if epsilon is None else epsilon,
        singleton=default_singleton if singleton is None else singleton,
    )

    if stats_over == "steps":  # verl-agent: every row is a member of its group
        a = group_zscore(outcome_scores(scores, token_level_rewards, b, device=device), gid, n_groups, **kw)
    else:  # one member per episode; each row gets its episode's advantage
        ep, first = episode_index(traj_ids, gid, n_groups, b, device=device)
        s = episode_scores(scores, token_level_rewards, ep, first, b, device=device)
        a = group_zscore(s, gid.index_select(0, first), n_groups, **kw).index_select(0, ep)

    dtype = result_dtype(token_level_rewards, scores if isinstance(scores, torch.Tensor) else None)
    adv = broadcast(a, m, dtype)
    return AdvantageResult(adv, adv.clone(), {"row_advantages": a.to(dtype)})
