"""GRPO: group-relative outcome advantages (Shao et al. 2024), verl and TRL flavours.

    s_i = sum_t r_{i,t}                                     (or the given per-row scores)
    A_{i,t} = (s_i - mean_{j in g(i)} s_j) / (std_{j in g(i)} s_j + eps) * m_{i,t}

Defaults follow verl ``compute_grpo_outcome_advantage`` (``flavour="verl"``): eps = 1e-6, unbiased
std, and a group of one keeps its raw score (mean 0, std 1). ``flavour="trl"`` follows TRL
``GRPOTrainer`` (``sum_then_normalize``): eps = 1e-4 and a group of one gets 0. NaN scores (a
``None`` reward in TRL) are excluded from the statistics and get advantage 0 in both flavours.

``scale`` is TRL's ``scale_rewards``: ``"group"`` (default; verl ``norm_adv_by_std_in_grpo=True``),
``"batch"`` (group mean, batch std) or ``"none"`` (Dr.GRPO, verl ``norm_adv_by_std_in_grpo=False``).

Multi-step rows (verl-agent): with ``traj_ids``, ``stats_over="steps"`` (default, verl-agent's
``compute_mean_std_cross_steps=True``) lets every step row count in its group's statistics;
``"trajectories"`` counts each ``(group, trajectory)`` once (its first row).

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
    first_of_group,
    group_index,
    group_zscore,
    outcome_scores,
    pair_index,
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
    stats_over: Literal["steps", "trajectories"] = "steps",
) -> AdvantageResult:
    """GRPO advantages ``A[B, T]`` from per-row outcome scores and group ids (``uid``).

    Pass ``scores[B]`` or ``token_level_rewards[B, T]`` (summed per row). ``epsilon`` and
    ``singleton`` default to the ``flavour``'s values (verl: 1e-6, "raw"; trl: 1e-4, "zero").
    Returns ``advantages == returns`` (verl's convention); ``info["row_advantages"]`` is ``a[B]``.
    """
    if flavour not in FLAVOURS:
        raise ValueError(f"flavour must be one of {sorted(FLAVOURS)}, got {flavour!r}")
    if stats_over not in ("steps", "trajectories"):
        raise ValueError(f"stats_over must be 'steps' or 'trajectories', got {stats_over!r}")
    m = as_mask(response_mask)
    b, device = m.shape[0], m.device
    s = outcome_scores(scores, token_level_rewards, b, device=device)
    gid, n_groups = group_index(group_ids, b, device=device, name="group_ids")

    population = None
    if stats_over == "trajectories":
        if traj_ids is None:
            raise ValueError("stats_over='trajectories' needs traj_ids")
        tid, n_traj = group_index(traj_ids, b, device=device, name="traj_ids")
        pid, n_pairs = pair_index(gid, tid, n_groups, n_traj)
        population = first_of_group(pid, n_pairs)

    default_eps, default_singleton = FLAVOURS[flavour]
    a = group_zscore(
        s,
        gid,
        n_groups,
        scale=_scale_name(scale),
        epsilon=default_eps if epsilon is None else epsilon,
        singleton=default_singleton if singleton is None else singleton,
        population=population,
    )
    dtype = result_dtype(token_level_rewards, scores if isinstance(scores, torch.Tensor) else None)
    adv = broadcast(a, m, dtype)
    return AdvantageResult(adv, adv.clone(), {"row_advantages": a.to(dtype)})
