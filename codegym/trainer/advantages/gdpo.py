"""GDPO: group reward-decoupled normalization (NVlabs GDPO, also TRL ``normalize_then_sum``).

For K reward components ``r_{e,k}`` of episode ``e`` with weights ``w_k`` and groups ``g``
(``group_ids``)::

    Z_{e,k} = (r_{e,k} - mean_g r_k) / (std_g r_k + eps)     per reward, per group
    pre_e   = sum_k w_k Z_{e,k}                                 weighted sum (NaN terms skipped)
    A_e     = (pre_e - mean pre) / (std pre + eps)              batch normalisation
    A_{i,t} = A_e * m_{i,t}                                     every row i of episode e

The statistics run over episodes: the rows of one episode (its compaction segments, sharing
``traj_ids``) count once, so splitting an episode changes no advantage. Without ``traj_ids``
every row is an episode.

``flavour="trl"`` (default; TRL ``GRPOTrainer`` with ``multi_objective_aggregation=
"normalize_then_sum"``, the method of NVlabs' README snippet): eps = 1e-4, a group of one gives
``Z = 0``, NaN rewards (a ``None`` from a reward function) are excluded from ``mean_g``/``std_g``,
rows whose rewards are all NaN are left out of the batch statistics and get 0, and the batch step
is over samples (one weight per episode, unbiased std): ``batch_norm="sample"``.

``flavour="verl"`` (NVlabs verl-GDPO fork): eps = 1e-6, a group of one keeps its raw score, and
the batch step is verl's token-weighted ``masked_whiten`` over the response tokens
(``batch_norm="token"``: long episodes weigh more; an episode weighs its tokens over all its rows). ``batch_norm="none"`` skips the batch step.
The fork sums exactly two unweighted rewards; here any K with optional weights (default all 1).
NaN rewards are excluded in every flavour (the TRL 0.18 fork turned them into real zeros).

Statistics are float64 and equal values give exactly 0. Worked example (advantage collapse):
group A rewards (0,0)/(1,1) vs group B (0,0)/(0,1): GRPO on the sum gives +-0.707 in both groups,
GDPO gives +-1.095 and +-0.548.
"""

from __future__ import annotations

from typing import Any, Literal

import torch

from ._registry import AdvantageResult, register
from ._stats import (
    F64,
    as_mask,
    broadcast,
    episode_index,
    group_index,
    group_zscore,
    per_episode,
    result_dtype,
    row_whiten,
    token_counts,
)

FLAVOURS: dict[str, dict[str, Any]] = {
    "trl": {"epsilon": 1e-4, "singleton": "zero", "batch_norm": "sample"},
    "verl": {"epsilon": 1e-6, "singleton": "raw", "batch_norm": "token"},
}


def reward_matrix(reward_components: Any, n: int, *, device: torch.device) -> torch.Tensor:
    """The ``[B, K]`` reward matrix as float64 (a 1-D input is one component)."""
    r = torch.as_tensor(reward_components, device=device).to(F64)
    if r.ndim == 1:
        r = r[:, None]
    if r.ndim != 2 or r.shape[0] != n:
        raise ValueError(f"reward_components must be [B, K] with B = {n}, got {tuple(r.shape)}")
    return r


def reward_weights_vector(reward_weights: Any, k: int, *, device: torch.device) -> torch.Tensor:
    """``w[K]`` as float64; ones when not given."""
    if reward_weights is None:
        return torch.ones(k, dtype=F64, device=device)
    w = torch.as_tensor(reward_weights, device=device).to(F64).reshape(-1)
    if w.numel() != k:
        raise ValueError(f"reward_weights has {w.numel()} entries for {k} reward components")
    return w


def per_reward_zscores(
    rewards: torch.Tensor, gid: torch.Tensor, n_groups: int, *, epsilon: float, singleton: str
) -> torch.Tensor:
    """``Z[B, K]``: each reward column z-scored within its group (all columns in one pass); NaN -> 0."""
    return group_zscore(rewards, gid, n_groups, epsilon=epsilon, singleton=singleton)  # type: ignore[arg-type]


@register("gdpo")
@torch.no_grad()
def gdpo_advantages(
    *,
    reward_components: Any,
    group_ids: Any,
    response_mask: torch.Tensor,
    reward_weights: Any = None,
    traj_ids: Any = None,
    flavour: Literal["trl", "verl"] = "trl",
    epsilon: float | None = None,
    singleton: Literal["raw", "zero"] | None = None,
    batch_norm: Literal["sample", "token", "none"] | None = None,
) -> AdvantageResult:
    """GDPO advantages ``[B, T]`` from ``reward_components[B, K]`` (each row holds its episode's
    rewards); see the module docstring.

    ``epsilon``, ``singleton`` and ``batch_norm`` default to the ``flavour``'s values.
    ``info`` (per row): ``reward_advantages`` (``Z[B, K]``) and ``pre_whiten`` (``pre[B]``).
    """
    if flavour not in FLAVOURS:
        raise ValueError(f"flavour must be one of {sorted(FLAVOURS)}, got {flavour!r}")
    cfg = FLAVOURS[flavour]
    eps = cfg["epsilon"] if epsilon is None else epsilon
    batch_norm = cfg["batch_norm"] if batch_norm is None else batch_norm
    m = as_mask(response_mask)
    b, device = m.shape[0], m.device
    rows = reward_matrix(reward_components, b, device=device)
    gid, n_groups = group_index(group_ids, b, device=device, name="group_ids")
    ep, first = episode_index(traj_ids, gid, n_groups, b, device=device)
    r = per_episode(rows, ep, first, name="reward_components")
    w = reward_weights_vector(reward_weights, r.shape[1], device=device)
    tokens = torch.zeros(first.numel(), dtype=F64, device=device).index_add_(0, ep, token_counts(m).to(F64))

    z = per_reward_zscores(
        r, gid.index_select(0, first), n_groups, epsilon=eps,
        singleton=cfg["singleton"] if singleton is None else singleton,
    )
    pre = (z * w).sum(dim=1)
    scorable = ~torch.isnan(r).all(dim=1)

    if batch_norm == "sample":
        vals = pre[scorable]
        if vals.numel() < 2 or bool(vals.min() == vals.max()):
            a = torch.zeros_like(pre)
        else:
            a = torch.where(scorable, (pre - vals.mean()) / (vals.std(unbiased=True) + eps), 0.0)
    elif batch_norm == "token":
        a = row_whiten(pre, tokens * scorable)
    elif batch_norm == "none":
        a = torch.where(scorable, pre, 0.0)
    else:
        raise ValueError(f"batch_norm must be 'sample', 'token' or 'none', got {batch_norm!r}")

    dtype = result_dtype(reward_components if isinstance(reward_components, torch.Tensor) else None)
    adv = broadcast(a.index_select(0, ep), m, dtype)
    info = {"reward_advantages": z.index_select(0, ep).to(dtype), "pre_whiten": pre.index_select(0, ep).to(dtype)}
    return AdvantageResult(adv, adv.clone(), info)
