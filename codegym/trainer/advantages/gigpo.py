"""GiGPO: group-in-group policy optimization (Feng et al. 2025), as verl-agent computes it.

Per environment step ``t`` of trajectory ``i`` in episode group ``g`` (``group_ids``, the uid)::

    R_t   = r_t + gamma * R_{t+1}                               (Eq. 5; R_t = gamma^(T-t) R_T
                                                                 when only the outcome is rewarded)
    A^E_i = (s_i - mean_g s) / (std_g s + eps)                  (Eq. 3, episode level)
    A^S_t = (R_t - mean_{S(t)} R) / (std_{S(t)} R + eps)        (Eq. 7, step level)
    A_t   = A^E_i + omega * A^S_t,  broadcast over step t's action tokens      (Eq. 8)

``S(t)`` is the anchor-state group (Eq. 6): the steps of group ``g`` whose ``state_keys`` are equal.
The initial state is an anchor like any other; a state visited twice in one trajectory puts both
visits (each with its own return) in the group; equal states under different uids never merge.

Reference: verl-agent ``gigpo/core_gigpo.py``. Its choices are the defaults here:

- ``mode="mean_norm"`` (``algorithm.gigpo.mode`` in ppo_trainer.yaml: ``A = x - mean``, no std);
  ``"mean_std_norm"`` divides by ``std + eps`` (the example scripts use it). One flag, both levels.
- ``stats_over="steps"``: the episode statistics run over all step rows of the group (verl-agent
  hard-codes ``compute_mean_std_cross_steps=True``), so long trajectories weigh more;
  ``"trajectories"`` counts each trajectory once (Eq. 3 as written).
- A group of one: the episode level keeps the raw score (mean 0, std 1), the step level gives 0.
- ``gamma = 1.0`` (ppo_trainer.yaml; the ALFWorld/WebShop scripts use 0.95), ``omega = 1.0``.

Extensions (off by default): ``action_keys`` first replaces each step's return by the mean return
of the identical ``(group, state, action)`` pairs (a variance-reduced Q(s, a); the group mean is
unchanged). ``token_steps`` lets a row hold several steps (a multi-turn segment): the per-step
arrays then have one entry per step and ``token_steps[b, t]`` names the step of each action token
(-1 elsewhere), so each step's advantage lands only on its own action tokens.

Statistics are float64 and equal values give exactly 0 (the reference shows float32 noise there).
Not implemented: verl-agent's similarity clustering of text states and its invalid-action penalty.
"""

from __future__ import annotations

from typing import Any, Literal

import torch

from ._registry import AdvantageResult, register
from ._stats import (
    F64,
    as_mask,
    as_rows,
    broadcast,
    first_of_group,
    group_index,
    group_zscore,
    outcome_scores,
    pair_index,
    result_dtype,
    reverse_discounted_cumsum,
)


class _Layout:
    """Where each step sits in a padded ``[n_traj, max_len]`` grid of its trajectory's steps."""

    def __init__(self, traj: torch.Tensor, n_traj: int, order_key: torch.Tensor | None) -> None:
        s, device = traj.numel(), traj.device
        if order_key is None:  # batch order: one stable sort by trajectory
            self.order = torch.argsort(traj, stable=True)
        else:
            order = torch.argsort(order_key, stable=True)
            self.order = order[torch.argsort(traj[order], stable=True)]
        self.row = traj[self.order]
        rank = torch.arange(s, device=device)
        start = torch.full((n_traj,), s, dtype=torch.long, device=device).scatter_reduce(
            0, self.row, rank, "amin"
        )
        self.col = rank - start[self.row]
        length = torch.bincount(self.row, minlength=n_traj)
        self.shape = (n_traj, int(length.max()) if s else 0)
        self.is_last = torch.empty(s, dtype=torch.bool, device=device)
        self.is_last[self.order] = self.col == length[self.row] - 1


def _discounted_returns(step_rewards: torch.Tensor, layout: _Layout, gamma: float) -> torch.Tensor:
    """``R_t = r_t + gamma R_{t+1}`` within each trajectory (Eq. 5), all trajectories scanned together."""
    grid = torch.zeros(layout.shape, dtype=F64, device=step_rewards.device)
    grid[layout.row, layout.col] = step_rewards[layout.order].to(F64)
    returns = torch.empty_like(step_rewards, dtype=F64)
    returns[layout.order] = reverse_discounted_cumsum(grid, gamma)[layout.row, layout.col]
    return returns


def _n_steps(ids: Any) -> int:
    return int(ids.shape[0]) if hasattr(ids, "shape") else len(ids)


@register("gigpo")
@torch.no_grad()
def gigpo_advantages(
    *,
    response_mask: torch.Tensor,
    group_ids: Any,
    traj_ids: Any,
    state_keys: Any,
    scores: Any = None,
    token_level_rewards: torch.Tensor | None = None,
    step_rewards: Any = None,
    step_index: Any = None,
    action_keys: Any = None,
    token_steps: torch.Tensor | None = None,
    gamma: float = 1.0,
    step_advantage_weight: float = 1.0,
    mode: Literal["mean_norm", "mean_std_norm"] = "mean_norm",
    stats_over: Literal["steps", "trajectories"] = "steps",
    epsilon: float = 1e-6,
) -> AdvantageResult:
    """GiGPO advantages ``[B, T]``; see the module docstring for the equations and defaults.

    Per step (one row per step unless ``token_steps`` is given): ``group_ids``, ``traj_ids``,
    ``state_keys`` (any hashable, array or tensor), optional ``step_index`` (order inside the
    trajectory; default batch order), ``step_rewards`` and ``scores`` (the episode score repeated on
    each of its steps). Give ``scores`` (or ``token_level_rewards``, summed per row) and/or
    ``step_rewards``: a missing ``scores`` is the undiscounted sum of the trajectory's step rewards;
    missing ``step_rewards`` put the score on the last step (outcome-only reward).

    ``info``: ``episode_advantages``, ``step_advantages``, ``step_returns``, ``step_groups`` (per step).
    """
    if mode not in ("mean_norm", "mean_std_norm"):
        raise ValueError(f"mode must be 'mean_norm' or 'mean_std_norm', got {mode!r}")
    if stats_over not in ("steps", "trajectories"):
        raise ValueError(f"stats_over must be 'steps' or 'trajectories', got {stats_over!r}")
    m = as_mask(response_mask)
    b, device = m.shape[0], m.device
    n = b if token_steps is None else _n_steps(group_ids)
    if token_steps is not None and token_level_rewards is not None:
        raise ValueError("with token_steps, pass per-step scores or step_rewards, not token_level_rewards")

    gid, n_groups = group_index(group_ids, n, device=device, name="group_ids")
    tid, n_tid = group_index(traj_ids, n, device=device, name="traj_ids")
    traj, n_traj = pair_index(gid, tid, n_groups, n_tid)
    order_key = None if step_index is None else as_rows(step_index, n, name="step_index", device=device)

    layout = _Layout(traj, n_traj, order_key)
    if scores is None and token_level_rewards is None:
        if step_rewards is None:
            raise ValueError("pass scores (or token_level_rewards) and/or step_rewards")
        r = as_rows(step_rewards, n, name="step_rewards", device=device)
        s = torch.zeros(n_traj, dtype=F64, device=device).index_add(0, traj, r)[traj]
    else:
        s = outcome_scores(scores, token_level_rewards, n, device=device)
        if step_rewards is None:  # outcome only: r_t = s on the last step, 0 before
            r = torch.where(layout.is_last, s, 0.0)
        else:
            r = as_rows(step_rewards, n, name="step_rewards", device=device)
    returns = _discounted_returns(r, layout, gamma)

    scale = "none" if mode == "mean_norm" else "group"
    population = first_of_group(traj, n_traj) if stats_over == "trajectories" else None
    episode_adv = group_zscore(
        s, gid, n_groups, scale=scale, epsilon=epsilon, singleton="raw", population=population
    )

    sid, n_states = group_index(state_keys, n, device=device, name="state_keys")
    step_group, n_step_groups = pair_index(gid, sid, n_groups, n_states, compact=False)
    step_values = returns
    if action_keys is not None:
        aid, n_actions = group_index(action_keys, n, device=device, name="action_keys")
        pair, n_pairs = pair_index(step_group, aid, n_step_groups, n_actions)
        totals = torch.zeros(n_pairs, dtype=F64, device=device).index_add(0, pair, returns)
        step_values = (totals / torch.bincount(pair, minlength=n_pairs).to(F64))[pair]
    step_adv = group_zscore(
        step_values, step_group, n_step_groups, scale=scale, epsilon=epsilon, singleton="zero"
    )

    a = episode_adv + step_advantage_weight * step_adv
    dtype = result_dtype(token_level_rewards, scores if isinstance(scores, torch.Tensor) else None)
    if token_steps is None:
        adv = broadcast(a, m, dtype)
    else:
        ts = torch.as_tensor(token_steps, device=device).to(torch.long)
        if ts.shape != m.shape:
            raise ValueError(f"token_steps must be [B, T] like response_mask, got {tuple(ts.shape)}")
        if ts.numel() and int(ts.max()) >= n:
            raise ValueError(f"token_steps names step {int(ts.max())} but only {n} steps were given")
        adv = torch.where((ts >= 0) & (m != 0), a[ts.clamp(min=0)], 0.0).to(dtype)
    info = {
        "episode_advantages": episode_adv.to(dtype),
        "step_advantages": step_adv.to(dtype),
        "step_returns": returns.to(dtype),
        "step_groups": step_group,
    }
    return AdvantageResult(adv, adv.clone(), info)
