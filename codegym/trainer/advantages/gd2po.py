"""GD2PO: GDPO with conflict filtering and query weighting (Qwen-Applications/GD2PO).

For episode ``e`` of query group ``q`` (``group_ids``, ``G_q`` episodes), ``L_e`` response tokens
over all of its rows::

    A_{e,k} = (r_{e,k} - mean_q r_k) / (std_q r_k + eps)       per reward (verl GRPO, eps = 1e-6)
    a_{e,k} = w_k L_e A_{e,k}                                   token-summed sign signal
    conflict_e = (exists k: a_{e,k} > 1e-8) and (exists k: a_{e,k} < -1e-8)
    hard: keep_e = not conflict_e
    snr:  rho_e = sum_k a_{e,k} / (sum_k |a_{e,k}| + eps_snr);  keep_e = not (conflict_e and |rho_e| < tau)
    q_e   = M_q / G_q                                           (M_q = kept episodes of the query)
    x_{i,t} = q_e * sum_k w_k A_{e,k} * keep_e * m_{i,t}        weight applied *before* whitening
    A_{i,t} = W(x; keep * m) * keep_e * m_{i,t}                 token-weighted whitening over kept tokens

``i`` is any row of episode ``e``. Statistics, ``G`` and ``M`` count episodes: the rows of one
episode (its compaction segments, sharing ``traj_ids``) count once, so splitting an episode
changes no advantage (the reference has one row per rollout). Without ``traj_ids`` every row is
an episode.

Reference: ``tool-calling/verl/trainer/ppo/ray_trainer.py`` (``gdpo_filter_group_ratio`` is Hard,
``gdpo_filter_ratio_conflict_group_ratio`` is SNR, the default here). The code has no reward
weights (``w_k = 1``, the default); ``tau`` defaults to 0.8 as in the README and scripts (the
code's argument default is 0.2) and is clamped to [0, 1]; ``eps_snr = max(snr_epsilon, 1e-12)``
with 1e-8 from the tool-calling scripts. A rollout whose advantages are all 0 has no conflict and is
kept. ``whiten=False`` is ``use_masked_whiten_in_gdpo=False`` (no batch step).

Deviations: NaN rewards are excluded from the statistics and contribute 0; episodes with every
reward NaN are dropped (``keep = 0``). With exactly one kept token the reference raises (Bessel divides by
zero); here that token gets 0. Statistics are float64 and equal rewards give exactly 0 per reward.
As in the reference, kept rollouts with a summed advantage of 0 become non-zero after whitening.
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
    per_episode,
    result_dtype,
    row_any,
    row_sum,
    row_whiten,
    token_counts,
)
from .gdpo import per_reward_zscores, reward_matrix, reward_weights_vector


@register("gd2po")
@torch.no_grad()
def gd2po_advantages(
    *,
    reward_components: Any,
    group_ids: Any,
    response_mask: torch.Tensor,
    reward_weights: Any = None,
    traj_ids: Any = None,
    conflict_filter: Literal["snr", "hard", "none"] = "snr",
    tau: float = 0.8,
    snr_epsilon: float = 1e-8,
    query_weighting: bool = True,
    whiten: bool = True,
    epsilon: float = 1e-6,
    singleton: Literal["raw", "zero"] = "raw",
) -> AdvantageResult:
    """GD2PO advantages ``[B, T]`` from ``reward_components[B, K]`` (each row holds its episode's
    rewards); see the module docstring.

    ``info`` (per row): ``keep``, ``conflict`` (bool), ``snr`` (``rho``) and ``query_weight`` (``q``).
    """
    if conflict_filter not in ("snr", "hard", "none"):
        raise ValueError(f"conflict_filter must be 'snr', 'hard' or 'none', got {conflict_filter!r}")
    m = as_mask(response_mask)
    b, device = m.shape[0], m.device
    rows = reward_matrix(reward_components, b, device=device)
    gid, n_groups = group_index(group_ids, b, device=device, name="group_ids")
    ep, first = episode_index(traj_ids, gid, n_groups, b, device=device)
    r = per_episode(rows, ep, first, name="reward_components")
    w = reward_weights_vector(reward_weights, r.shape[1], device=device)
    g = gid.index_select(0, first)  # each episode's query group
    lengths = torch.zeros(first.numel(), dtype=F64, device=device).index_add_(0, ep, token_counts(m).to(F64))

    z = per_reward_zscores(r, g, n_groups, epsilon=epsilon, singleton=singleton)
    weighted = z if reward_weights is None else z * w  # w is all ones when not given
    signal = weighted * lengths[:, None]
    conflict = row_any(signal > 1e-8) & row_any(signal < -1e-8)
    rho = row_sum(signal) / (row_sum(signal.abs()) + max(snr_epsilon, 1e-12))
    if conflict_filter == "hard":
        keep = ~conflict
    elif conflict_filter == "snr":
        keep = ~(conflict & (rho.abs() < min(max(tau, 0.0), 1.0)))
    else:
        keep = torch.ones_like(conflict)
    if bool(r.sum().isnan()):  # episodes with every reward NaN are dropped
        keep = keep & ~torch.isnan(r).all(dim=1)

    q = torch.ones_like(lengths)
    if query_weighting:
        kept = torch.zeros(n_groups, dtype=F64, device=device).index_add(0, g, keep.to(F64))
        q = (kept / torch.bincount(g, minlength=n_groups).to(F64).clamp(min=1.0)).index_select(0, g)

    # x is constant over each episode's tokens, so the token-weighted whitening runs on episodes
    x = torch.where(keep, q * row_sum(weighted), 0.0)
    a = row_whiten(x, lengths * keep) if whiten else x
    dtype = result_dtype(reward_components if isinstance(reward_components, torch.Tensor) else None)
    adv = broadcast(a.index_select(0, ep), m, dtype)
    info = {
        "keep": keep.index_select(0, ep),
        "conflict": conflict.index_select(0, ep),
        "snr": rho.index_select(0, ep).to(dtype),
        "query_weight": q.index_select(0, ep).to(dtype),
    }
    return AdvantageResult(adv, adv.clone(), info)
