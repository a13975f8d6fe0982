"""PPO losses over padded ``[B, T]`` tensors: policy clip loss, clipped value loss, KL terms.

    from codegym.trainer.losses import policy_loss
    out = policy_loss(logp, old_logp, advantages, response_mask, clip_low=0.2, clip_high=0.28)
    out.loss.backward()

Reference: verl ``core_algos.py`` (``compute_policy_loss_vanilla``, ``compute_value_loss``,
``agg_loss``, ``kl_penalty``, ``apply_kl_penalty``); defaults are verl's. Masks select the
completion (policy) tokens; every aggregate ignores masked positions, even NaN there.

Aggregation (``agg_mode``), with ``l`` the per-token loss and ``L_i`` row i's token count:

    token-mean               sum_{i,t} l m / N          N = num_tokens, else sum m   (default)
    seq-mean-token-sum       mean over rows with L_i > 0 of sum_t l m
    seq-mean-token-mean      mean over rows with L_i > 0 of sum_t l m / L_i
    seq-mean-token-sum-norm  sum_{i,t} l m / C          C = loss_scale_factor, else T (use a constant)

``token-mean`` weighs every completion token of the batch equally, so splitting an episode into
compaction segments (more rows, same tokens) leaves it unchanged. With micro-batches pass the
mini-batch's total ``num_tokens`` (and ``num_sequences`` for the seq-mean modes) so the sum of the
micro-batch losses equals the mini-batch loss.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch

AggMode = Literal["token-mean", "seq-mean-token-sum", "seq-mean-token-mean", "seq-mean-token-sum-norm"]
AGG_MODES: tuple[str, ...] = (
    "token-mean",
    "seq-mean-token-sum",
    "seq-mean-token-mean",
    "seq-mean-token-sum-norm",
)
KL_KINDS: tuple[str, ...] = ("k1", "kl", "abs", "k2", "mse", "k3", "low_var_kl")

__all__ = [
    "AGG_MODES",
    "KL_KINDS",
    "KLReward",
    "OffPolicyWeights",
    "PolicyLoss",
    "ValueLoss",
    "adaptive_kl_coef",
    "agg_loss",
    "kl_estimate",
    "kl_in_reward",
    "kl_loss",
    "masked_mean",
    "off_policy_weights",
    "policy_loss",
    "value_loss",
]


def _masked(x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    m = (mask != 0).to(x.dtype)
    return torch.where(m > 0, x, torch.zeros((), dtype=x.dtype, device=x.device)), m


def _safe(denom: float | torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """``denom`` as a tensor, with 0 replaced by 1 (the numerator is then 0 too); no host sync."""
    d = torch.as_tensor(denom, dtype=like.dtype, device=like.device)
    return torch.where(d > 0, d, torch.ones_like(d))


def masked_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean of ``x`` over ``mask``; 0 when the mask is empty."""
    xm, m = _masked(x, mask)
    return xm.sum() / _safe(m.sum(), xm)


def agg_loss(
    loss_mat: torch.Tensor,
    response_mask: torch.Tensor,
    agg_mode: AggMode = "token-mean",
    *,
    num_tokens: float | torch.Tensor | None = None,
    num_sequences: float | torch.Tensor | None = None,
    loss_scale_factor: float | None = None,
) -> torch.Tensor:
    """Aggregate a per-token loss ``[B, T]`` to a scalar (see the module docstring for the modes).

    An empty mask gives 0 (still attached to the graph); verl divides by zero or by 1e-8 there.
    """
    lm, m = _masked(loss_mat, response_mask)
    row_sum = lm.sum(dim=-1)
    lengths = m.sum(dim=-1)
    if agg_mode == "token-mean":
        return lm.sum() / _safe(lengths.sum() if num_tokens is None else num_tokens, lm)
    if agg_mode in ("seq-mean-token-sum", "seq-mean-token-mean"):
        has_tokens = lengths > 0
        per_row = row_sum if agg_mode == "seq-mean-token-sum" else row_sum / lengths.clamp(min=1.0)
        total = torch.where(has_tokens, per_row, torch.zeros_like(per_row)).sum()
        return total / _safe(has_tokens.sum() if num_sequences is None else num_sequences, lm)
    if agg_mode == "seq-mean-token-sum-norm":
        scale = loss_mat.shape[-1] if loss_scale_factor is None else loss_scale_factor
        return row_sum.sum() / scale
    raise ValueError(f"agg_mode must be one of {AGG_MODES}, got {agg_mode!r}")


@dataclass(frozen=True)
class PolicyLoss:
    """``loss`` (scalar, differentiable) and detached metrics: ``clipfrac`` (tokens where the clipped
    term is active), ``clipfrac_lower`` (tokens where the dual clip is active) and ``approx_kl``
    (masked mean of ``old_logp - logp``)."""

    loss: torch.Tensor
    clipfrac: torch.Tensor
    clipfrac_lower: torch.Tensor
    approx_kl: torch.Tensor


def policy_loss(
    logp: torch.Tensor,
    old_logp: torch.Tensor,
    advantages: torch.Tensor,
    response_mask: torch.Tensor,
    *,
    clip_low: float = 0.2,
    clip_high: float | None = None,
    dual_clip: float | None = 3.0,
    agg_mode: AggMode = "token-mean",
    num_tokens: float | torch.Tensor | None = None,
    num_sequences: float | torch.Tensor | None = None,
    loss_scale_factor: float | None = None,
    token_weights: torch.Tensor | None = None,
) -> PolicyLoss:
    """PPO-clip policy loss with asymmetric clip and dual clip (verl ``compute_policy_loss_vanilla``)::

        rho  = exp(clamp(logp - old_logp, -20, 20))
        l_c  = max(-A rho, -A clip(rho, 1 - clip_low, 1 + clip_high))
        l    = min(l_c, -A c)  if A < 0 and dual_clip = c,  else l_c
        loss = agg(l, m)

    ``clip_high`` defaults to ``clip_low`` (DAPO's clip-higher sets e.g. 0.28). ``dual_clip`` is
    verl's ``clip_ratio_c`` (3.0, must be > 1); ``None`` turns it off (TRL). ``token_weights``
    (detached, e.g. `off_policy_weights`) multiply ``l`` token by token before the aggregation.
    """
    clip_high = clip_low if clip_high is None else clip_high
    log_ratio = torch.clamp(logp - old_logp, min=-20.0, max=20.0)
    ratio = torch.exp(log_ratio)
    loss1 = -advantages * ratio
    loss2 = -advantages * torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high)
    clipped = torch.maximum(loss1, loss2)
    lower = torch.zeros((), dtype=clipped.dtype, device=clipped.device)
    if dual_clip is not None:
        if dual_clip <= 1.0:
            raise ValueError(f"dual_clip must be > 1 (verl clip_ratio_c), got {dual_clip}")
        loss3 = -advantages * dual_clip
        negative = advantages < 0
        lower = masked_mean(((clipped > loss3) & negative).to(clipped.dtype), response_mask).detach()
        clipped = torch.where(negative, torch.minimum(clipped, loss3), clipped)
    weighted = clipped if token_weights is None else clipped * token_weights.detach()
    loss = agg_loss(
        weighted,
        response_mask,
        agg_mode,
        num_tokens=num_tokens,
        num_sequences=num_sequences,
        loss_scale_factor=loss_scale_factor,
    )
    return PolicyLoss(
        loss=loss,
        clipfrac=masked_mean((loss2 > loss1).to(clipped.dtype), response_mask).detach(),
        clipfrac_lower=lower,
        approx_kl=masked_mean(-log_ratio, response_mask).detach(),
    )


@dataclass(frozen=True)
class OffPolicyWeights:
    """Per-token ``weights`` [B, T] for `policy_loss` (0 on masked tokens) and detached metrics:
    the IS weight's mean/min/max before truncation, the fraction truncated and the fraction masked."""

    weights: torch.Tensor
    metrics: dict[str, float]


@torch.no_grad()
def off_policy_weights(
    old_logp: torch.Tensor,
    behaviour_logp: torch.Tensor,
    response_mask: torch.Tensor,
    *,
    tis_cap: float | None = None,
    mask_bounds: tuple[float, float] | None = None,
) -> OffPolicyWeights:
    """Off-policy correction between the trainer's old policy and the engine that sampled::

        r_t = exp(clamp(old_logp - behaviour_logp, -20, 20))       pi_old / pi_engine
        w_t = min(r_t, C)          truncated importance sampling (Yao et al. 2025, "TIS"), C = tis_cap
        w_t = 0 if r_t not in [low, high]                           IcePop-style token masking

    Either may be off (None): with both off every weight is 1 (the metrics are still computed).
    The engine lags the trainer by the rollout's staleness (async rollouts) and by numerics (a
    bf16 server), so ``r_t`` measures both.
    """
    m = (response_mask != 0)
    ratio = torch.exp(torch.clamp(old_logp.float() - behaviour_logp.float(), -20.0, 20.0))
    w = torch.ones_like(ratio)
    n = max(int(m.sum()), 1)
    metrics = {"offpolicy/is_ratio_mean": float(torch.where(m, ratio, 0.0).sum() / n)}
    if m.any():
        metrics["offpolicy/is_ratio_min"] = float(ratio[m].min())
        metrics["offpolicy/is_ratio_max"] = float(ratio[m].max())
    if tis_cap is not None:
        w = torch.clamp(ratio, max=tis_cap)
        metrics["offpolicy/truncated_frac"] = float(((ratio > tis_cap) & m).sum() / n)
    if mask_bounds is not None:
        low, high = mask_bounds
        out = (ratio < low) | (ratio > high)
        w = torch.where(out, torch.zeros_like(w), w)
        metrics["offpolicy/masked_token_frac"] = float((out & m).sum() / n)
    metrics["offpolicy/is_weight_mean"] = float(torch.where(m, w, 0.0).sum() / n)
    return OffPolicyWeights(weights=torch.where(m, w, torch.zeros_like(w)), metrics=metrics)


@dataclass(frozen=True)
class ValueLoss:
    """``loss`` (scalar, differentiable) and ``clipfrac`` (tokens where the clipped error is larger)."""

    loss: torch.Tensor
    clipfrac: torch.Tensor


def value_loss(
    values: torch.Tensor,
    old_values: torch.Tensor,
    returns: torch.Tensor,
    response_mask: torch.Tensor,
    *,
    clip_range: float | None = 0.5,
    agg_mode: AggMode = "token-mean",
    num_tokens: float | torch.Tensor | None = None,
    num_sequences: float | torch.Tensor | None = None,
    loss_scale_factor: float | None = None,
) -> ValueLoss:
    """Clipped value loss (verl ``compute_value_loss``, ``cliprange_value = 0.5`` in critic.yaml)::

        v_c  = clamp(v, V_old - c, V_old + c)
        loss = 0.5 * agg(max((v - R)^2, (v_c - R)^2), m)

    ``clip_range=None`` gives the unclipped ``0.5 * agg((v - R)^2)``.
    """
    err = (values - returns) ** 2
    if clip_range is None:
        worst, clipfrac = err, torch.zeros((), dtype=err.dtype, device=err.device)
    else:
        clipped = torch.clamp(values, old_values - clip_range, old_values + clip_range)
        err_clipped = (clipped - returns) ** 2
        worst = torch.maximum(err, err_clipped)
        clipfrac = masked_mean((err_clipped > err).to(err.dtype), response_mask).detach()
    loss = 0.5 * agg_loss(
        worst,
        response_mask,
        agg_mode,
        num_tokens=num_tokens,
        num_sequences=num_sequences,
        loss_scale_factor=loss_scale_factor,
    )
    return ValueLoss(loss=loss, clipfrac=clipfrac)


def kl_estimate(logp: torch.Tensor, ref_logp: torch.Tensor, kind: str = "k1") -> torch.Tensor:
    """Per-token KL(pi || pi_ref) estimators (Schulman 2020, "Approximating KL divergence")::

        k1 ("kl"):          logp - ref
        abs:                |logp - ref|
        k2 ("mse"):         0.5 (logp - ref)^2
        k3 ("low_var_kl"):  exp(d) - d - 1,  d = clamp(ref - logp, -20, 20),  clamped to [-10, 10]

    A ``+`` suffix (``"k3+"``) keeps the forward value but takes the gradient of k2 (straight-through),
    whose gradient is the unbiased KL gradient (verl ``kl_penalty``).
    """
    straight_through = kind.endswith("+")
    base = kind[:-1] if straight_through else kind
    if base in ("k1", "kl"):
        kl = logp - ref_logp
    elif base == "abs":
        kl = (logp - ref_logp).abs()
    elif base in ("k2", "mse"):
        kl = 0.5 * (logp - ref_logp).square()
    elif base in ("k3", "low_var_kl"):
        d = torch.clamp(ref_logp - logp, min=-20.0, max=20.0)
        kl = torch.clamp(torch.exp(d) - d - 1.0, min=-10.0, max=10.0)
    else:
        raise ValueError(f"KL kind must be one of {KL_KINDS} (optionally with a '+' suffix), got {kind!r}")
    if straight_through and base not in ("k2", "mse"):
        k2 = 0.5 * (logp - ref_logp).square()
        kl = k2 - k2.detach() + kl.detach()
    return kl


def kl_loss(
    logp: torch.Tensor,
    ref_logp: torch.Tensor,
    response_mask: torch.Tensor,
    *,
    kind: str = "k3",
    agg_mode: AggMode = "token-mean",
    num_tokens: float | torch.Tensor | None = None,
    num_sequences: float | torch.Tensor | None = None,
    loss_scale_factor: float | None = None,
) -> torch.Tensor:
    """KL as a loss term, ``agg(kl(logp, ref), m)`` (verl ``use_kl_loss``; the caller multiplies by
    ``kl_loss_coef``, 0.001 in verl). Default ``k3`` (``low_var_kl``), as GRPO recipes use."""
    return agg_loss(
        kl_estimate(logp, ref_logp, kind),
        response_mask,
        agg_mode,
        num_tokens=num_tokens,
        num_sequences=num_sequences,
        loss_scale_factor=loss_scale_factor,
    )


@dataclass(frozen=True)
class KLReward:
    """``rewards = scores - beta * kl * m`` ``[B, T]``, the masked per-token ``kl`` and ``current_kl``
    (mean over rows of each row's masked mean, the adaptive controller's input)."""

    rewards: torch.Tensor
    kl: torch.Tensor
    current_kl: torch.Tensor


@torch.no_grad()
def kl_in_reward(
    token_level_scores: torch.Tensor,
    old_logp: torch.Tensor,
    ref_logp: torch.Tensor,
    response_mask: torch.Tensor,
    *,
    beta: float = 0.001,
    kind: str = "k1",
) -> KLReward:
    """KL penalty in the reward (verl ``apply_kl_penalty``; defaults ``kl_penalty="kl"``, beta 0.001)::

        r_t = score_t - beta * KL_t * m_t,   KL = kl_estimate(old_logp, ref_logp, kind)

    Feed ``rewards`` to ``gae`` as ``token_level_rewards``.
    """
    m = (response_mask != 0).to(old_logp.dtype)
    kl = torch.where(m > 0, kl_estimate(old_logp, ref_logp, kind), 0.0)
    rewards = token_level_scores - beta * kl
    lengths = m.sum(dim=-1)
    current = (kl.sum(dim=-1) / lengths.clamp(min=1.0)).mean() if kl.shape[0] else kl.new_zeros(())
    return KLReward(rewards=rewards, kl=kl, current_kl=current)


def adaptive_kl_coef(beta: float, current_kl: float, target_kl: float, n_steps: int, horizon: int) -> float:
    """One update of the adaptive KL controller (Ziegler et al. 2019; verl ``AdaptiveKLController``)::

    beta <- beta * (1 + clip(current_kl / target_kl - 1, -0.2, 0.2) * n_steps / horizon)
    """
    if horizon <= 0 or target_kl <= 0:
        raise ValueError(f"horizon and target_kl must be positive, got {horizon} and {target_kl}")
    error = min(max(float(current_kl) / target_kl - 1.0, -0.2), 0.2)
    return beta * (1.0 + error * n_steps / horizon)
