"""GAE: token-level generalized advantage estimation with a critic (Schulman et al. 2016).

Over the sequence of *TD positions* of an episode, backwards from its end (``V_end = 0``)::

    delta_k = r_k + gamma * V_{k+1} - V_k
    A_k     = delta_k + gamma * lam * A_{k+1}
    R_k     = A_k + V_k                                      (the critic's target)

``skip_masked=True`` (default, current verl ``compute_gae_advantage_return``): the TD positions are
the policy tokens only (``m = 1``). Observation and padding tokens are transparent: gamma is applied
once per policy token, their values are ignored and a reward sitting on them is lost.
``skip_masked=False`` (TRL PPO and the verl forks: verl-agent, Tree-GRPO, verl-GDPO): every response
position up to the row's last policy token is a TD position (``V_{t+1}`` is the next position's
value, 0 at masked tokens because the critic masks its values).

Compaction segments: rows that share an ``episode_ids`` value are consecutive segments of one
episode, ordered by ``segment_index``. Their TD positions are chained, so the bootstrap at a segment
boundary is the critic's value (and advantage) at the first TD position of the next segment --
the first policy token when ``skip_masked``. With identity compaction (an episode split into rows
at a boundary) the result equals GAE on the unsplit row. (Without skipping, masked tokens after a
row's last policy token count as padding, so there a split must follow a policy token.)

``whiten=True`` (verl) whitens the advantages over all policy tokens of the batch, token-weighted.
``whiten_rewards=True`` (TRL ``PPOConfig.whiten_rewards``, off by default as there) first whitens the
rewards over all TD positions of the batch, keeping their mean: ``r <- (r - mu) / sqrt(var + 1e-8)
+ mu`` (TRL takes its value mask, one position past the response; here the TD positions).
Unlike verl, masked positions of both outputs are 0 (verl leaves whitened junk there), and
``N <= 1`` policy tokens give 0 instead of raising.
Defaults: ``gamma = lam = 1.0`` (verl ppo_trainer.yaml).

Vectorized: each row's TD positions are packed to its front and scanned with a chunked matmul
(:func:`reverse_discounted_cumsum`); what a segment receives from the rest of its episode is a
scalar carry added afterwards, ``A_k += (gamma lam)^(n - 1 - k) carry``. Arithmetic is float64.
"""

from __future__ import annotations

from typing import Any

import torch

from ._registry import AdvantageResult, register
from ._stats import F64, as_mask, group_index, masked_whiten, result_dtype, reverse_discounted_cumsum


def _segment_carries(
    v_first: torch.Tensor,
    a_first: torch.Tensor,
    n: torch.Tensor,
    eid: torch.Tensor,
    n_ep: int,
    seg: torch.Tensor,
    gamma: float,
    lam: float,
) -> torch.Tensor:
    """What each row's last TD position receives from the rest of its episode.

    For row k followed (in its episode) by row k' with ``n' > 0`` TD positions::

        carry_k = gamma * V_first(k') + gamma * lam * (A_local_first(k') + (gamma lam)^(n' - 1) carry_k')

    and ``carry_k = carry_k'`` when k' has no TD position; the episode's last row gets 0. The loop
    runs over segment positions (a handful), each step vectorized over all episodes.
    """
    b = n.numel()
    order = torch.argsort(seg, stable=True)
    order = order[torch.argsort(eid[order], stable=True)]
    e_sorted = eid[order]
    has_next = torch.zeros(b, dtype=torch.bool, device=n.device)
    has_next[:-1] = e_sorted[1:] == e_sorted[:-1]
    nxt = torch.roll(order, -1)
    rank = torch.arange(b, device=n.device)
    start = torch.full((n_ep,), b, dtype=torch.long, device=n.device).scatter_reduce(
        0, e_sorted, rank, "amin"
    )
    pos = rank - start[e_sorted]
    gl = gamma * lam
    carry = torch.zeros(b, dtype=F64, device=n.device)
    for j in range(int(pos.max()) - 1, -1, -1):
        sel = (pos == j) & has_next
        rows, nx = order[sel], nxt[sel]
        first = a_first[nx] + gl ** (n[nx] - 1).clamp(min=0).to(F64) * carry[nx]
        carry[rows] = torch.where(n[nx] > 0, gamma * v_first[nx] + gl * first, carry[nx])
    return carry


@register("gae")
@torch.no_grad()
def gae_advantages(
    *,
    token_level_rewards: torch.Tensor,
    values: torch.Tensor,
    response_mask: torch.Tensor,
    gamma: float = 1.0,
    lam: float = 1.0,
    skip_masked: bool = True,
    whiten: bool = True,
    whiten_rewards: bool = False,
    episode_ids: Any = None,
    segment_index: Any = None,
) -> AdvantageResult:
    """GAE advantages and returns ``[B, T]``; see the module docstring for the equations.

    ``episode_ids[B]`` and ``segment_index[B]`` (optional) chain segment rows of one episode; without
    them every row is its own episode. Without ``segment_index`` segments follow batch order.
    """
    as_mask(response_mask)
    b, t = response_mask.shape
    device = response_mask.device
    if token_level_rewards.shape != response_mask.shape or values.shape != response_mask.shape:
        raise ValueError(
            f"token_level_rewards {tuple(token_level_rewards.shape)}, values {tuple(values.shape)} and "
            f"response_mask {tuple(response_mask.shape)} must all be [B, T]"
        )
    dtype = result_dtype(token_level_rewards, values)
    if b == 0 or t == 0:
        empty = torch.zeros(b, t, dtype=dtype, device=device)
        return AdvantageResult(empty, empty.clone())
    m = response_mask != 0
    mf = m.to(F64)
    # where, not a product: junk (even NaN) off the TD positions must not leak into the scan
    v = torch.where(m, values.detach().to(device=device, dtype=F64), 0.0)  # the critic values policy tokens

    # TD positions of each row: its policy tokens, or every position up to its last policy token.
    pos = torch.arange(t, device=device)
    if skip_masked:
        keep = m
    else:
        last = torch.where(m, pos, -1).amax(dim=1, keepdim=True)
        keep = pos[None, :] <= last
    r = torch.where(keep, token_level_rewards.detach().to(device=device, dtype=F64), 0.0)
    if whiten_rewards:
        r = masked_whiten(r, keep, shift_mean=False)

    # Pack each row's TD positions to its front (a stable per-row permutation), scan them there:
    # TD position k of a row goes to column k, the other positions after them in order.
    rank = torch.cumsum(keep, dim=1) - 1
    n = rank[:, -1] + 1
    dest = rank + (~keep) * (n[:, None] + pos - 2 * rank - 1)
    packed_r = torch.zeros_like(r).scatter_(1, dest, r)
    packed_v = torch.zeros_like(v).scatter_(1, dest, v)
    delta = packed_r + gamma * torch.nn.functional.pad(packed_v[:, 1:], (0, 1)) - packed_v
    packed_adv = reverse_discounted_cumsum(delta, gamma * lam)

    if episode_ids is not None:  # chain the segments of each episode
        eid, n_ep = group_index(episode_ids, b, device=device, name="episode_ids")
        if segment_index is None:
            seg = torch.arange(b, device=device)
        else:
            seg = torch.as_tensor(segment_index, device=device).reshape(-1).to(torch.long)
            if seg.numel() != b:
                raise ValueError(f"segment_index has {seg.numel()} entries; expected one per row ({b})")
        if torch.unique(torch.stack([eid, seg]), dim=1).shape[1] != b:
            raise ValueError(
                "two rows share the same (episode_ids, segment_index); segments must be distinct"
            )
        carry = _segment_carries(packed_v[:, 0], packed_adv[:, 0], n, eid, n_ep, seg, gamma, lam)
        exponent = (n[:, None] - 1 - pos[None, :]).clamp(min=0).to(F64)
        decay = torch.where(pos[None, :] < n[:, None], (gamma * lam) ** exponent, 0.0)
        packed_adv += decay * carry[:, None]
    elif segment_index is not None:
        raise ValueError("segment_index needs episode_ids")

    adv = torch.gather(packed_adv, 1, dest) * mf
    returns = adv + v
    if whiten:
        adv = masked_whiten(adv, m)
    return AdvantageResult(adv.to(dtype), returns.to(dtype))
