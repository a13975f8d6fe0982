"""GD2PO: GDPO with conflict filtering and query weighting (Qwen-Applications/GD2PO).

For rollout ``i`` of query group ``q`` (``group_ids``, ``G_q`` rollouts), ``L_i`` response tokens::

    A_{i,k} = (r_{i,k} - mean_q r_k) / (std_q r_k + eps)       per reward (verl GRPO, eps = 1e-6)
    a_{i,k} = w_k L_i A_{i,k}                                   token-summed sign signal
    conflict_i = (exists k: a_{i,k} > 1e-8) and (exists k: a_{i,k} < -1e-8)
    hard: keep_i = not conflict_i
    snr:  rho_i = sum_k a_{i,k} / (sum_k |a_{i,k}| + eps_snr);  keep_i = not (conflict_i and |rho_i| < tau)
    q_i   = M_q / G_q                                           (M_q = kept rollouts of the query)
    x_{i,t} = q_i * sum_k w_k A_{i,k} * keep_i * m_{i,t}        weight applied *before* whitening
    A_{i,t} = W(x; keep * m) * keep_i * m_{i,t}                 token-weighted whitening over kept tokens

Reference: ``tool-calling/verl/trainer/ppo/ray_trainer.py`` (``gdpo_filter_group_ratio`` is Hard,
``gdpo_filter_ratio_conflict_group_ratio`` is SNR, the default here). The code has no reward
weights (``w_k = 1``, the default); ``tau`` defaults to 0.8 as in the README and scripts (the
code's argument default is 0.2) and is clamped to [0, 1]; ``eps_snr = max(snr_epsilon, 1e-12)``
with 1e-8 from the tool-calling scripts. A rollout whose advantages are all 0 has no conflict and is
kept. ``whiten=False`` is ``use_masked_whiten_in_gdpo=False`` (no batch step).

Deviations: NaN rewards are excluded from the statistics and contribute 0; rows with every reward
NaN are dropped (``keep = 0``). With exactly one kept token the reference raises (Bessel divides by
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
    group_index,
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
    conflict_filter: Literal["snr", "hard", "none"] = "snr",
    tau: float = 0.8,
    snr_epsilon: float = 1e-8,
    query_weighting: bool = True,
    whiten: bool = True,
    epsilon: float = 1e-6,
    singleton: Literal["raw", "zero"] = "raw",
) -> AdvantageResult:
    """GD2PO advantages ``[B, T]`` from ``reward_components[B, K]``; see the module docstring.

    ``info``: ``keep``, ``conflict`` (bool per row), ``snr`` (``rho``) and ``query_weight`` (``q``).
    """
    if conflict_filter not in ("snr", "hard", "none"):
        raise ValueError(f"conflict_filter must be 'snr', 'hard' or 'none', got {conflict_filter!r}")
    m = as_mask(response_mask)
    b, device = m.shape[0], m.device
    r = reward_matrix(reward_components, b, device=device)
    w = reward_weights_vector(reward_weights, r.shape[1], device=device)
    gid, n_groups = group_index(group_ids, b, device=device, name="group_ids")

    z = per_reward_zscores(r, gid, n_groups, epsilon=epsilon, singleton=singleton)
    weighted = z if reward_weights is None else z * w  # w is all ones when not given
    lengths = token_counts(m).to(F64)
    signal = weighted * lengths[:, None]
    conflict = row_any(signal > 1e-8) & row_any(signal < -1e-8)
    rho = row_sum(signal) / (row_sum(signal.abs()) + max(snr_epsilon, 1e-12))
    if conflict_filter == "hard":
        keep = ~conflict
    elif conflict_filter == "snr":
        keep = ~(conflict & (rho.abs() < min(max(tau, 0.0), 1.0)))
    else:
        keep = torch.ones_like(conflict)
    if bool(r.sum().isnan()):  # rows with every reward NaN are dropped
        keep = keep & ~torch.isnan(r).all(dim=1)

    q = torch.ones(b, dtype=F64, device=device)
    if query_weighting:
        kept = torch.zeros(n_groups, dtype=F64, device=device).index_add(0, gid, keep.to(F64))
        q = (kept / torch.bincount(gid, minlength=n_groups).to(F64)).index_select(0, gid)

    # x is constant over each row's tokens, so the token-weighted whitening runs on rows
    x = torch.where(keep, q * row_sum(weighted), 0.0)
    a = row_whiten(x, lengths * keep) if whiten else x
    dtype = result_dtype(reward_components if isinstance(reward_components, torch.Tensor) else None)
    adv = broadcast(a, m, dtype)
    info = {"keep": keep, "conflict": conflict, "snr": rho.to(dtype), "query_weight": q.to(dtype)}
    return AdvantageResult(adv, adv.clone(), info)
