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
    compact_index,
    first_of_group,
    group_index,
    group_zscore,
    outcome_scores,
    pair_index,
    result_dtype,
    reverse_discounted_cumsum,
)


class _Layout:
    """Where each step sits in a padded ``[n_traj, max_len]`` grid of its trajectory's steps.

    ``traj`` labels trajectories ``0..n_traj-1``. ``order`` sorts the steps by trajectory; it is
    ``None`` when they already are (each trajectory one run of rows in batch order, as rollouts
    are usually laid out), which is found without a sort. ``flat`` is each step's grid cell.
    """

    def __init__(self, key: torch.Tensor, n_keys: int, order_key: torch.Tensor | None) -> None:
        s, device = key.numel(), key.device
        rank = torch.arange(s, device=device)
        self.order: torch.Tensor | None = None
        if order_key is None and s:
            starts = torch.ones(s, dtype=torch.bool, device=device)
            torch.ne(key[1:], key[:-1], out=starts[1:])
            first = starts.nonzero().squeeze(1)  # first row of each run
            if torch.unique(key.index_select(0, first)).numel() == first.numel():  # runs = trajectories
                self.traj, self.n_traj = starts.cumsum(0) - 1, first.numel()
                self.col = rank - first.index_select(0, self.traj)
                self.length = torch.diff(first, append=first.new_tensor([s]))
                self._grid(self.traj)
                return
        self.traj, self.n_traj = compact_index(key, n_keys)
        if order_key is None:  # batch order: one stable sort by trajectory
            self.order = torch.argsort(self.traj, stable=True)
        else:
            order = torch.argsort(order_key, stable=True)
            self.order = order[torch.argsort(self.traj[order], stable=True)]
        row = self.traj[self.order]
        start = torch.full((self.n_traj,), s, dtype=torch.long, device=device).scatter_reduce(
            0, row, rank, "amin"
        )
        self.col = rank - start[row]
        self.length = torch.bincount(row, minlength=self.n_traj)
        self._grid(row)

    def _grid(self, row: torch.Tensor) -> None:
        self.shape = (self.n_traj, int(self.length.max()) if row.numel() else 0)
        self.flat = row * self.shape[1] + self.col

    def is_last(self) -> torch.Tensor:
        """Whether each step (batch order) is the last of its trajectory."""
        row = self.traj if self.order is None else self.traj[self.order]
        last = self.col == self.length.index_select(0, row) - 1
        if self.order is None:
            return last
        out = torch.empty_like(last)
        out[self.order] = last
        return out


def _discounted_returns(step_rewards: torch.Tensor, layout: _Layout, gamma: float) -> torch.Tensor:
    """``R_t = r_t + gamma R_{t+1}`` within each trajectory (Eq. 5), all trajectories scanned together."""
    r = step_rewards.to(F64) if layout.order is None else step_rewards[layout.order].to(F64)
    grid = torch.zeros(layout.shape[0] * layout.shape[1], dtype=F64, device=r.device)
    grid.scatter_(0, layout.flat, r)
    scanned = (
        reverse_discounted_cumsum(grid.view(layout.shape), gamma).reshape(-1).index_select(0, layout.flat)
    )
    if layout.order is None:
        return scanned
    returns = torch.empty_like(scanned)
    returns[layout.order] = scanned
    return returns


def _anchor_groups(
    gid: torch.Tensor, sid: torch.Tensor, n_states: int, step_group: torch.Tensor, n_step_groups: int
) -> tuple[torch.Tensor, int]:
    """Labels for the anchor-state groups (Eq. 6) with few empty ones, for cheap statistics.

    ``step_group`` (group x state) spans ``G x S`` ids, most of them empty. When no state occurs
    under two groups (the usual case: states carry their task), the state id alone is the anchor.
    """
    if n_step_groups <= 4 * n_states + 1024 or sid.numel() == 0:
        return step_group, n_step_groups
    group_of_state = gid.new_empty(n_states).scatter_(0, sid, gid)  # one of its groups per state
    if bool((group_of_state.index_select(0, sid) == gid).all()):
        return sid, n_states
    return compact_index(step_group, n_step_groups)


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
    order_key = None if step_index is None else as_rows(step_index, n, name="step_index", device=device)
    layout = _Layout(gid * n_tid + tid, n_groups * n_tid, order_key)
    traj, n_traj = layout.traj, layout.n_traj
    if scores is None and token_level_rewards is None:
        if step_rewards is None:
            raise ValueError("pass scores (or token_level_rewards) and/or step_rewards")
        r = as_rows(step_rewards, n, name="step_rewards", device=device)
        s = torch.zeros(n_traj, dtype=F64, device=device).index_add(0, traj, r).index_select(0, traj)
    else:
        s = outcome_scores(scores, token_level_rewards, n, device=device)
        if step_rewards is None:  # outcome only: r_t = s on the last step, 0 before
            r = torch.where(layout.is_last(), s, 0.0)
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
    anchor, n_anchors = _anchor_groups(gid, sid, n_states, step_group, n_step_groups)
    step_values = returns
    if action_keys is not None:
        aid, n_actions = group_index(action_keys, n, device=device, name="action_keys")
        pair, n_pairs = pair_index(anchor, aid, n_anchors, n_actions)
        totals = torch.zeros(n_pairs, dtype=F64, device=device).index_add(0, pair, returns)
        step_values = (totals / torch.bincount(pair, minlength=n_pairs).to(F64))[pair]
    step_adv = group_zscore(step_values, anchor, n_anchors, scale=scale, epsilon=epsilon, singleton="zero")

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
