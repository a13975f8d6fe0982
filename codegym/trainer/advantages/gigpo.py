"""GiGPO: group-in-group policy optimization (Feng et al. 2025).

Per environment step ``t`` of trajectory ``i`` in episode group ``g`` (``group_ids``, the uid)::

    R_t   = r_t + gamma * R_{t+1}                               (Eq. 5; R_t = gamma^(T-t) R_T
                                                                 when only the outcome is rewarded)
    A^E_i = (s_i - mean_g s) / (std_g s + eps)                  (Eq. 3, over the trajectories of g)
    A^S_t = (R_t - mean_{S(t)} R) / (std_{S(t)} R + eps)        (Eq. 7, step level)
    A_t   = A^E_i + omega * A^S_t,  broadcast over step t's action tokens      (Eq. 8)

``S(t)`` is the anchor-state group (Eq. 6): the steps of group ``g`` whose ``state_keys`` are equal.
The initial state is an anchor like any other; a state visited twice in one trajectory puts both
visits (each with its own return) in the group; equal states under different uids never merge.
A step without a state key (``None``) is its own group of one, so ``A^S = 0`` there: an unknown
state is not evidence that two steps were in the same state.

Same state, same action (the design notes' Insight 5): with ``action_keys`` (and
``aggregate_actions=True``) each step's return is first replaced by the mean return of the
identical ``(group, state, action)`` steps, ``R~(s, a) = mean{R_t : s_t = s, a_t = a}``, so repeated
identical actions in one state share one step advantage (the group mean is unchanged).

Defaults follow the design notes' equations, which differ from the reference (verl-agent
``gigpo/core_gigpo.py``) in two places:

- ``mode="mean_std_norm"``: both levels divide by ``std + eps``, as the notes' ``A_E`` and ``A_S``
  (Eqs. 3 and 7) do and the verl-agent example scripts set; ``"mean_norm"`` (``A = x - mean``) is
  verl-agent's ``ppo_trainer.yaml`` default ``algorithm.gigpo.mode``. One flag, both levels.
- ``stats_over="trajectories"``: Eq. 3 counts each trajectory once; ``"steps"`` is verl-agent's
  hard-coded ``compute_mean_std_cross_steps=True`` (the statistics run over all step rows, so long
  trajectories weigh more).

As in the reference: a group of one keeps its raw score at the episode level (mean 0, std 1) and
gives 0 at the step level; ``gamma = 1.0`` (ppo_trainer.yaml; the ALFWorld/WebShop scripts use
0.95), ``omega = 1.0``. ``enable_similarity=True`` is verl-agent's similarity grouping of text
states: within a group, in order, a step joins the first anchor group whose representative (its
first member) has ``difflib.SequenceMatcher(a, b).ratio() >= similarity_thresh`` (in (0, 1),
default 0.95), else founds a new one (order-dependent and not transitive, as in the reference;
the state keys must be text, not hashes). Not implemented: verl-agent's invalid-action penalty.

``token_steps`` lets a row hold several steps (a multi-turn segment): the per-step arrays then have
one entry per step and ``token_steps[b, t]`` names the step of each action token (-1 elsewhere), so
each step's advantage lands only on its own action tokens (Insight 2), and splitting an episode
into rows (compaction segments) changes nothing.

Statistics are float64 and equal values give exactly 0 (the reference shows float32 noise there).
"""

from __future__ import annotations

import operator
from difflib import SequenceMatcher
from itertools import repeat
from typing import Any, Literal

import numpy as np
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
    per_episode,
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


def _keyless(state_keys: Any, n: int) -> torch.Tensor | None:
    """Which steps have no state key (``None``), or None when every step has one."""
    if isinstance(state_keys, torch.Tensor) or (isinstance(state_keys, np.ndarray) and state_keys.dtype != object):
        return None
    if not any(map(operator.is_, state_keys, repeat(None))):
        return None
    return torch.from_numpy(np.fromiter(map(operator.is_, state_keys, repeat(None)), dtype=bool, count=n))


def _similar_states(state_keys: Any, gid: torch.Tensor, threshold: float) -> tuple[torch.Tensor, int]:
    """verl-agent ``build_step_group(enable_similarity=True)``: greedy clustering of text states.

    Within each group, in order, a state joins the first cluster whose representative (first
    member) is at least ``threshold`` similar (``SequenceMatcher.ratio``), else founds one. Returns
    cluster labels ``0..C-1`` (``None`` keys get a cluster of their own).
    """
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"similarity_thresh must be in (0, 1), got {threshold}")
    clusters: dict[int, list[tuple[str, int]]] = {}
    labels: list[int] = []
    for key, g in zip(list(state_keys), gid.tolist(), strict=True):
        label = None
        if key is not None:
            if not isinstance(key, str):
                raise ValueError(f"enable_similarity needs text state keys, got {type(key).__name__}")
            for rep, c in clusters.setdefault(g, []):
                sm = SequenceMatcher(None, key, rep)  # the cheap upper bounds first: same result
                if sm.real_quick_ratio() >= threshold and sm.quick_ratio() >= threshold and sm.ratio() >= threshold:
                    label = c
                    break
        if label is None:  # a new cluster, labelled by its first row
            label = len(labels)
            if key is not None:
                clusters[g].append((key, label))
        labels.append(label)
    return compact_index(torch.tensor(labels, dtype=torch.long, device=gid.device), len(labels))


def _first_rows(index: torch.Tensor, n_groups: int) -> torch.Tensor:
    """The first row (batch order) of each group ``0..n_groups-1``."""
    rows = torch.arange(index.numel(), device=index.device)
    return torch.full((n_groups,), index.numel(), dtype=torch.long, device=index.device).scatter_reduce(
        0, index, rows, "amin"
    )


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
    mode: Literal["mean_std_norm", "mean_norm"] = "mean_std_norm",
    stats_over: Literal["trajectories", "steps"] = "trajectories",
    aggregate_actions: bool = True,
    enable_similarity: bool = False,
    similarity_thresh: float = 0.95,
    epsilon: float = 1e-6,
) -> AdvantageResult:
    """GiGPO advantages ``[B, T]``; see the module docstring for the equations and defaults.

    Per step (one row per step unless ``token_steps`` is given): ``group_ids``, ``traj_ids``,
    ``state_keys`` (any hashable, array or tensor; ``None`` = unknown), optional ``action_keys``,
    ``step_index`` (order inside the trajectory; default batch order), ``step_rewards`` and
    ``scores`` (the episode score repeated on each of its steps). Give ``scores`` (or
    ``token_level_rewards``, summed per row) and/or ``step_rewards``: a missing ``scores`` is the
    undiscounted sum of the trajectory's step rewards; missing ``step_rewards`` put the score on the
    last step (outcome-only reward).

    ``info``: ``episode_advantages``, ``step_advantages``, ``step_returns``, ``step_groups`` (per step).
    """
    if mode not in ("mean_norm", "mean_std_norm"):
        raise ValueError(f"mode must be 'mean_std_norm' or 'mean_norm', got {mode!r}")
    if stats_over not in ("trajectories", "steps"):
        raise ValueError(f"stats_over must be 'trajectories' or 'steps', got {stats_over!r}")
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
    first = first_of_group(traj, n_traj)  # whether a step is its trajectory's first (batch order)
    if scores is None and token_level_rewards is None:
        if step_rewards is None:
            raise ValueError("pass scores (or token_level_rewards) and/or step_rewards")
        r = as_rows(step_rewards, n, name="step_rewards", device=device)
        s = torch.zeros(n_traj, dtype=F64, device=device).index_add(0, traj, r).index_select(0, traj)
    else:
        s = outcome_scores(scores, token_level_rewards, n, device=device)
        per_episode(s, traj, _first_rows(traj, n_traj), name="scores")  # one score per trajectory
        if step_rewards is None:  # outcome only: r_t = s on the last step, 0 before
            r = torch.where(layout.is_last(), s, 0.0)
        else:
            r = as_rows(step_rewards, n, name="step_rewards", device=device)
    returns = _discounted_returns(r, layout, gamma)

    # Eq. 3: episode advantages over the trajectories of each group (or over all their steps)
    scale = "none" if mode == "mean_norm" else "group"
    population = first if stats_over == "trajectories" else None
    episode_adv = group_zscore(
        s, gid, n_groups, scale=scale, epsilon=epsilon, singleton="raw", population=population
    )

    # Eq. 6: anchor-state groups; steps without a state key are groups of one
    if enable_similarity:
        anchor, n_anchors = _similar_states(state_keys, gid, similarity_thresh)
        step_group = anchor
    else:
        sid, n_states = group_index(state_keys, n, device=device, name="state_keys")
        step_group, n_step_groups = pair_index(gid, sid, n_groups, n_states, compact=False)
        anchor, n_anchors = _anchor_groups(gid, sid, n_states, step_group, n_step_groups)
    keyless = _keyless(state_keys, n)
    if keyless is not None:
        keyless = keyless.to(device)
        lone = torch.arange(n_anchors, n_anchors + int(keyless.sum()), device=device)
        anchor = anchor.masked_scatter(keyless, lone)
        step_group = step_group.masked_scatter(keyless, lone + step_group.max() + 1)
        n_anchors += lone.numel()
    # Insight 5: identical actions in one anchor state first share their mean return
    step_values = returns
    if action_keys is not None and aggregate_actions:
        aid, n_actions = group_index(action_keys, n, device=device, name="action_keys")
        pair, n_pairs = pair_index(anchor, aid, n_anchors, n_actions)
        totals = torch.zeros(n_pairs, dtype=F64, device=device).index_add(0, pair, returns)
        step_values = (totals / torch.bincount(pair, minlength=n_pairs).to(F64))[pair]
    # Eq. 7
    step_adv = group_zscore(step_values, anchor, n_anchors, scale=scale, epsilon=epsilon, singleton="zero")

    a = episode_adv + step_advantage_weight * step_adv  # Eq. 8
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
