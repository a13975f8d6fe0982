"""Shared vectorized helpers: id factorization, float64 group z-scores, masked whitening, scans.

Everything here runs in float64 with scatter/index ops; there is no Python loop over groups. The
only Python loops are over the rows of a *non-tensor* id list (to hash strings and other objects;
only the first row of each run of equal ids when the ids come in runs) and over time chunks in
:func:`reverse_discounted_cumsum`. At agent-batch sizes (~15k rows) each tensor op costs more in
dispatch than in arithmetic, so the common case (no NaN, no population mask) takes a short path.

The float trap: verl computes group statistics in float32, so eight rollouts that all score 0.1
get -0.00739 each (one ulp of error in the mean divided by ``std + 1e-6``). Here the statistics are
float64 *and* a group whose members are all equal is centred to exactly 0, so equal rewards always
give exactly zero advantage.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Literal

import numpy as np
import torch

F64 = torch.float64
Scale = Literal["group", "batch", "none"]
Singleton = Literal["raw", "zero"]

__all__ = [
    "F64",
    "as_mask",
    "as_rows",
    "broadcast",
    "compact_index",
    "episode_index",
    "episode_scores",
    "first_of_group",
    "group_index",
    "group_zscore",
    "masked_whiten",
    "outcome_scores",
    "pair_index",
    "per_episode",
    "result_dtype",
    "reverse_discounted_cumsum",
    "row_any",
    "row_sum",
    "row_whiten",
    "token_counts",
]


# ---------------------------------------------------------------- ids


def _hashable(x: Any) -> Any:
    """A hashable stand-in for ``x`` (arrays by dtype, shape and bytes; dicts as sorted items)."""
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().numpy()
    if isinstance(x, np.ndarray):
        return ("ndarray", x.dtype.str, x.shape, x.tobytes())
    if isinstance(x, list | tuple):
        return tuple(_hashable(e) for e in x)
    if isinstance(x, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in x.items()))
    if isinstance(x, np.generic):
        return x.item()
    return x


def group_index(
    ids: Any, n: int, *, device: torch.device | None = None, name: str = "ids"
) -> tuple[torch.Tensor, int]:
    """Map ``n`` ids (tensor, numpy array or sequence of hashables) to ints ``0..G-1``.

    Returns ``(index[n] long, G)``. Equal ids share an index; the order of indices is unspecified.
    A 1-D tensor of small non-negative ints is returned as it is (``G = max + 1``, some ids may
    name empty groups); anything else is made contiguous. A 2-D tensor or numeric array is read as
    one id per row (``unique(dim=0)``).
    """
    if isinstance(ids, torch.Tensor):
        t = ids.detach()
        if t.ndim == 0 or t.shape[0] != n:
            raise ValueError(f"{name} has shape {tuple(t.shape)}; expected one id per row ({n})")
        if t.ndim == 1 and t.numel() and not t.is_floating_point() and not t.is_complex():
            lo, hi = torch.aminmax(t)
            if int(lo) >= 0 and int(hi) < 16 * n + 1024:  # already small ints: use them, skip a sort
                return t.to(device=device, dtype=torch.long), int(hi) + 1
        if t.ndim == 1:
            uniq, inv = torch.unique(t, return_inverse=True)
        else:
            uniq, inv = torch.unique(t.reshape(n, -1), dim=0, return_inverse=True)
        return inv.to(device=device, dtype=torch.long), int(uniq.shape[0])
    if isinstance(ids, np.ndarray) and ids.dtype.kind in "iub":
        if ids.ndim == 0 or ids.shape[0] != n:
            raise ValueError(f"{name} has shape {ids.shape}; expected one id per row ({n})")
        if ids.ndim == 1:
            uniq, inv = np.unique(ids, return_inverse=True)
        else:
            uniq, inv = np.unique(ids.reshape(n, -1), axis=0, return_inverse=True)
        return torch.from_numpy(inv.reshape(-1).astype(np.int64)).to(device), int(uniq.shape[0])
    array = isinstance(ids, np.ndarray) and ids.ndim == 1
    if not array and not isinstance(ids, list | tuple):
        ids = list(ids)
    if (ids.shape[0] if array else len(ids)) != n:
        raise ValueError(
            f"{name} has {ids.shape[0] if array else len(ids)} entries; expected one per row ({n})"
        )
    runs = _run_starts(ids, n)
    if runs is not None:  # ids in runs (a group's or a trajectory's rows together): hash run heads only
        heads = ids[runs].tolist() if array else [ids[i] for i in runs.tolist()]
        codes, n_ids = _factorize(heads)
        return torch.from_numpy(np.repeat(codes, np.diff(np.append(runs, n)))).to(device), n_ids
    codes, n_ids = _factorize(ids.tolist() if array else list(ids))
    return torch.from_numpy(codes).to(device), n_ids


def _factorize(seq: list[Any]) -> tuple[np.ndarray, int]:
    """Codes ``0..G-1`` in order of first appearance, and ``G``."""
    try:
        table = {k: i for i, k in enumerate(dict.fromkeys(seq))}
    except TypeError:  # unhashable entries (arrays, lists, dicts): hash a canonical form
        seq = [_hashable(k) for k in seq]
        table = {k: i for i, k in enumerate(dict.fromkeys(seq))}
    return np.fromiter(map(table.__getitem__, seq), dtype=np.int64, count=len(seq)), len(table)


def _run_starts(ids: Any, n: int) -> np.ndarray | None:
    """Row indices where a run of equal string ids starts, when runs make hashing the heads worth it.

    Codes from run heads equal codes from all rows: the first row with a given id always starts a
    run. Only for strings (their ``!=`` agrees with dict equality) and only when a sample shows runs.
    """
    if n < 64 or not isinstance(ids[0], str):
        return None
    if isinstance(ids, np.ndarray):
        if ids.dtype != object or ids.ndim != 1:
            return None
        arr = ids
    elif isinstance(ids, list | tuple):
        arr = np.empty(n, dtype=object)
        arr[:] = ids
    else:
        return None
    sample = arr[:65]
    if int(np.count_nonzero(sample[1:] != sample[:-1])) > 16:  # ids change too often to gain
        return None
    try:
        change = arr[1:] != arr[:-1]
        if change.dtype != np.bool_:
            return None
    except (TypeError, ValueError):
        return None
    return np.concatenate(([0], np.flatnonzero(change) + 1))


def pair_index(
    a: torch.Tensor, b: torch.Tensor, n_a: int, n_b: int, *, compact: bool = True
) -> tuple[torch.Tensor, int]:
    """Ids for the pairs ``(a_i, b_i)``, ``a`` in ``0..n_a-1`` and ``b`` in ``0..n_b-1``.

    With ``compact=False`` the pair key ``a * n_b + b`` is used as it is when that range is small
    (some ids then name empty groups, which the statistics ignore), saving a sort.
    """
    key = a * n_b + b
    if not compact and n_a * n_b <= 16 * key.numel() + 1024:
        return key, n_a * n_b
    return compact_index(key, n_a * n_b)


def compact_index(key: torch.Tensor, n_keys: int) -> tuple[torch.Tensor, int]:
    """Relabel ids ``key`` in ``0..n_keys-1`` as ``0..G-1`` by rank (``torch.unique``'s inverse).

    For a small key range the ranks come from counting, without a sort.
    """
    if n_keys <= 16 * key.numel() + 1024:
        rank = (torch.bincount(key, minlength=n_keys) > 0).cumsum(0) - 1
        return rank.index_select(0, key), int(rank[-1]) + 1 if rank.numel() else 0
    uniq, inv = torch.unique(key, return_inverse=True)
    return inv, int(uniq.numel())


def first_of_group(index: torch.Tensor, n_groups: int) -> torch.Tensor:
    """Boolean mask of the first row (in batch order) of each group."""
    rows = torch.arange(index.numel(), device=index.device)
    first = torch.full((n_groups,), index.numel(), device=index.device, dtype=torch.long)
    first = first.scatter_reduce(0, index, rows, "amin")
    return rows == first[index]


def episode_index(
    traj_ids: Any, gid: torch.Tensor, n_groups: int, n: int, *, device: torch.device | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Rows -> episodes: ``(ep[n], first[E])``, each row's episode ``0..E-1`` and each episode's
    first row (in batch order).

    An episode is one ``(group, traj_ids)`` pair: its rows (compaction segments, or the steps of a
    multi-step layout) share both ids. Without ``traj_ids`` every row is its own episode.
    """
    rows = torch.arange(n, device=device)
    if traj_ids is None:
        return rows, rows
    tid, n_tid = group_index(traj_ids, n, device=device, name="traj_ids")
    ep, n_ep = pair_index(gid, tid, n_groups, n_tid)  # compact: episodes are 0..E-1
    first = torch.full((n_ep,), n, dtype=torch.long, device=device).scatter_reduce(0, ep, rows, "amin")
    return ep, first


def per_episode(x: torch.Tensor, ep: torch.Tensor, first: torch.Tensor, *, name: str) -> torch.Tensor:
    """``x[first]``: each episode's value (``x`` is ``[n]`` or ``[n, K]``), after checking that every
    row of an episode holds the same one (NaN equals NaN)."""
    xe = x.index_select(0, first)
    if xe.shape[0] != x.shape[0]:  # some episode has several rows
        back = xe.index_select(0, ep)
        same = (x == back) | (torch.isnan(x) & torch.isnan(back))
        if not bool(same.all()):
            raise ValueError(
                f"{name}: the rows of one episode (same group_ids and traj_ids) hold different values; "
                "give every row its episode's value"
            )
    return xe


def episode_scores(
    scores: Any,
    token_level_rewards: torch.Tensor | None,
    ep: torch.Tensor,
    first: torch.Tensor,
    n: int,
    *,
    device: torch.device,
) -> torch.Tensor:
    """Per-episode outcome score ``s_e`` (float64): ``scores`` repeated on each row of the episode
    (checked), or the sum of ``token_level_rewards`` over all of the episode's rows."""
    if token_level_rewards is None or scores is not None:
        return per_episode(outcome_scores(scores, token_level_rewards, n, device=device), ep, first, name="scores")
    row = outcome_scores(None, token_level_rewards, n, device=device)
    return torch.zeros(first.numel(), dtype=F64, device=device).index_add_(0, ep, row)


# ---------------------------------------------------------- statistics


def group_zscore(
    x: torch.Tensor,
    index: torch.Tensor,
    n_groups: int,
    *,
    scale: Scale = "group",
    epsilon: float = 1e-6,
    singleton: Singleton = "raw",
    population: torch.Tensor | None = None,
) -> torch.Tensor:
    """Group z-score of ``x[N]`` (float64) under ``index[N]``; NaN entries are excluded and get 0.

    ``x`` may also be ``[N, K]``: each column is z-scored on its own within the row groups (GDPO's
    per-reward statistics), with ``scale`` "group" or "none".

    For group ``g`` with members ``x_j`` (those in ``population``, default all non-NaN)::

        mu_g = mean(x_j)      sigma_g = unbiased std(x_j)       (float64)
        group: a_i = (x_i - mu_g) / (sigma_g + eps)
        batch: a_i = (x_i - mu_g) / (sigma_batch + eps)          (TRL scale_rewards="batch")
        none:  a_i =  x_i - mu_g                                 (Dr.GRPO, GiGPO mean_norm)

    A group with exactly one member follows ``singleton``: ``"raw"`` (verl: mean 0, std 1, so
    ``a = x / (1 + eps)``, or ``x`` without scaling) or ``"zero"`` (TRL, GiGPO step level: ``a = 0``).
    A group whose members are all equal is centred to exactly 0 (the float trap) and has sigma 0.
    Rows outside ``population`` are normalised with their group's statistics.
    """
    x = x.to(F64)
    if scale not in ("group", "batch", "none"):
        raise ValueError(f"scale must be 'group', 'batch' or 'none', got {scale!r}")
    if singleton not in ("raw", "zero"):
        raise ValueError(f"singleton must be 'raw' or 'zero', got {singleton!r}")
    if x.ndim == 2 and scale == "batch":
        raise ValueError("scale='batch' needs one column; z-score the columns of x one by one")
    if population is None and not bool(x.sum().isnan()):  # a NaN anywhere makes the sum NaN
        return _zscore_all(x, index, n_groups, scale, epsilon, singleton)
    if x.ndim == 2:  # column k of group g is group g * K + k of the flattened values
        b, k = x.shape
        flat = (index[:, None] * k + torch.arange(k, device=x.device)[None, :]).reshape(-1)
        pop_flat = None if population is None else population[:, None].expand(b, k).reshape(-1)
        return group_zscore(
            x.reshape(-1),
            flat,
            n_groups * k,
            scale=scale,
            epsilon=epsilon,
            singleton=singleton,
            population=pop_flat,
        ).view(b, k)
    valid = ~torch.isnan(x)
    pop = valid if population is None else valid & population.to(device=x.device, dtype=torch.bool)
    zeros = x.new_zeros(n_groups)
    count = zeros.index_add(0, index, pop.to(F64))
    xz = torch.where(pop, x, 0.0)
    mean = zeros.index_add(0, index, xz) / count.clamp(min=1.0)
    dev = torch.where(pop, x - mean[index], 0.0)
    var = zeros.index_add(0, index, dev * dev) / (count - 1.0).clamp(min=1.0)
    lo = x.new_full((n_groups,), math.inf).scatter_reduce(0, index, torch.where(pop, x, math.inf), "amin")
    hi = x.new_full((n_groups,), -math.inf).scatter_reduce(0, index, torch.where(pop, x, -math.inf), "amax")
    constant = lo == hi
    std = torch.where(constant | (count < 2), 0.0, var.sqrt())

    centered = torch.where(constant[index] & (x == lo[index]), 0.0, x - mean[index])
    if scale == "group":
        out = centered / (std[index] + epsilon)
    elif scale == "batch":
        out = centered / (_batch_std(x[pop]) + epsilon)
    elif scale == "none":
        out = centered
    else:
        raise ValueError(f"scale must be 'group', 'batch' or 'none', got {scale!r}")

    c = count[index]
    if singleton == "raw":
        raw = x if scale == "none" else x / (1.0 + epsilon)
        out = torch.where(c == 1, raw, out)
    elif singleton == "zero":
        out = torch.where(c == 1, 0.0, out)
    else:
        raise ValueError(f"singleton must be 'raw' or 'zero', got {singleton!r}")
    return torch.where(valid & (c > 0), out, 0.0)


def _zscore_all(
    x: torch.Tensor, index: torch.Tensor, n_groups: int, scale: Scale, epsilon: float, singleton: Singleton
) -> torch.Tensor:
    """`group_zscore` when every row counts (no NaN, no population), in fewer ops; ``x`` is ``[N]``
    or ``[N, K]`` (columns one by one: index ops over rows of K values are slow on CPU).

    Values are taken relative to one member of their group (whichever ``index_copy_`` keeps), so a
    group whose members are all equal has deviations, variance and advantages of exactly 0 (the
    float trap) with no separate test; this also makes a group of one 0. Other groups agree with
    the two-pass formula to rounding (1e-15). ``index_select``/``index_add_`` are the cheapest
    gather and scatter-add on CPU.
    """
    count = torch.bincount(index, minlength=n_groups).to(F64)
    single = (count == 1).index_select(0, index) if singleton == "raw" else None
    stats = (count.clamp(min=1.0), (count - 1.0).clamp(min=1.0))
    if x.ndim == 2:
        columns = [_zscore_column(x[:, k], index, stats, single, scale, epsilon) for k in range(x.shape[1])]
        return torch.stack(columns, dim=1)
    return _zscore_column(x, index, stats, single, scale, epsilon)


def _zscore_column(
    x: torch.Tensor,
    index: torch.Tensor,
    stats: tuple[torch.Tensor, torch.Tensor],
    single: torch.Tensor | None,
    scale: Scale,
    epsilon: float,
) -> torch.Tensor:
    n, dof = stats  # per group: members (at least 1), members - 1 (at least 1)
    member = x.new_empty(n.shape).index_copy_(0, index, x)
    shifted = x - member.index_select(0, index)
    offset = torch.zeros_like(n).index_add_(0, index, shifted).div_(n)
    dev = shifted - offset.index_select(0, index)  # x - mean
    if scale == "group":
        var = torch.zeros_like(n).index_add_(0, index, dev * dev).div_(dof)
        out = dev / (var.sqrt_().index_select(0, index) + epsilon)
    elif scale == "batch":
        out = dev / (_batch_std(x) + epsilon)
    else:
        out = dev
    if single is not None:  # singleton "raw" ("zero" needs nothing: a group of one is already 0)
        out = torch.where(single, x if scale == "none" else x / (1.0 + epsilon), out)
    return out


def _batch_std(x: torch.Tensor) -> torch.Tensor:
    """Unbiased std of a 1-D float64 tensor; 0 for fewer than two values or all-equal values."""
    if x.numel() < 2 or bool(x.min() == x.max()):
        return x.new_zeros(())
    return x.std(unbiased=True)


def masked_whiten(x: torch.Tensor, mask: torch.Tensor, *, shift_mean: bool = True) -> torch.Tensor:
    """Token-weighted batch whitening (verl ``masked_whiten``), float64, zero off the mask.

    ``N = sum m``, ``mu = sum(x m) / N``, ``var = sum((x - mu)^2 m) / (N - 1)``,
    ``out = (x - mu) / sqrt(var + 1e-8) * m``; ``shift_mean=False`` adds ``mu`` back (TRL's
    ``whiten_rewards``). A row with ``L_i`` tokens counts ``L_i`` times. ``x`` must be finite.
    verl raises for ``N <= 1`` and adds 1e-8 to ``N`` in the means; here ``N <= 1`` leaves the
    values centred at 0 (one token is its own mean) and all-equal values are centred to exactly 0.
    """
    m = mask.to(F64)
    n = float(m.sum())
    if n < 2:
        return torch.zeros_like(x, dtype=F64) if shift_mean else x.to(F64) * m
    mean = (x.to(F64) * m).sum() / n
    centered = (x - mean) * m
    var = centered.square().sum() / (n - 1.0)
    if bool(var <= (1e-12 * mean) ** 2):  # all equal up to the rounding of the mean: exactly 0
        out = torch.zeros_like(centered)
    else:
        out = centered * torch.rsqrt(var + 1e-8)
    return out if shift_mean else out + mean * m


def row_whiten(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """:func:`masked_whiten` of row-constant values: row ``i`` holds ``x_i`` on ``weight_i`` tokens.

    Equal to ``masked_whiten(x[:, None] * m, m)`` read off per row (rows of weight 0 give 0), but
    computed from ``B`` numbers instead of ``B x T``.
    """
    x, w = x.to(F64), weight.to(F64)
    on = w > 0
    n = float(w.sum())
    if n == 0:
        return torch.zeros_like(x)
    # relative to the first weighted row: all-equal values are then exactly 0, and are detected
    # without a max/min (x - v == 0 only for x == v)
    d = torch.where(on, x - x[on.to(torch.uint8).argmax()], 0.0)
    if not bool(d.any()):
        return torch.zeros_like(x)
    centered = torch.where(on, d - (d * w).sum() / n, 0.0)
    var = (centered.square() * w).sum() / (n - 1.0)
    return centered * torch.rsqrt(var + 1e-8)


# --------------------------------------------------------------- scans


def reverse_discounted_cumsum(x: torch.Tensor, factor: float, chunk: int = 64) -> torch.Tensor:
    """``y_t = x_t + factor * y_{t+1}`` along the last axis of ``x[R, L]`` (``y_L = 0``), float64.

    Vectorized in chunks of ``chunk`` positions: inside a chunk a ``[C, C]`` matrix of powers of
    ``factor`` does the recursion as one matmul; the carry between chunks is a loop over ``L / C``
    chunks, not over positions or rows.
    """
    x = x.to(F64)
    rows, length = x.shape
    if length == 0:
        return x.clone()
    c = min(chunk, length)
    n_chunks = -(-length // c)
    kernel, decay = _discount_kernel(float(factor), c, x.device)
    if n_chunks == 1:  # one chunk (the usual agent trajectory): no padding, no carry
        return x @ kernel
    xb = torch.nn.functional.pad(x, (0, n_chunks * c - length)).view(rows, n_chunks, c)
    out = xb @ kernel
    carry = x.new_zeros(rows)
    for k in range(n_chunks - 1, -1, -1):
        out[:, k] += decay * carry[:, None]
        carry = out[:, k, 0]
    return out.reshape(rows, n_chunks * c)[:, :length]


@lru_cache(maxsize=32)
def _discount_kernel(factor: float, c: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """``K[j, i] = factor^(j - i)`` for ``j >= i`` (else 0), and ``factor^(c - i)``: the weight of
    the next chunk's first value at position ``i``. Cached: a trainer calls with one gamma."""
    f = torch.tensor(factor, dtype=F64, device=device)
    pos = torch.arange(c, device=device)
    lag = pos.view(c, 1) - pos.view(1, c)
    kernel = torch.where(lag >= 0, f.pow(lag.clamp(min=0).to(F64)), 0.0)
    return kernel, f.pow((c - pos).to(F64))


# ----------------------------------------------------------- plumbing


def as_mask(response_mask: torch.Tensor) -> torch.Tensor:
    """The ``[B, T]`` 0/1 response mask (bool, int or float), checked and returned as given."""
    if not isinstance(response_mask, torch.Tensor) or response_mask.ndim != 2:
        shape = tuple(getattr(response_mask, "shape", ()))
        raise ValueError(f"response_mask must be a [B, T] tensor, got shape {shape}")
    return response_mask


def token_counts(mask: torch.Tensor) -> torch.Tensor:
    """``(mask != 0).sum(dim=1)`` (as int16/int32), three times faster on CPU: ``bool()`` is
    ``!= 0`` without the comparison kernel, and bytes summed into a narrow int vectorize well."""
    narrow = torch.int16 if mask.shape[1] < 2**15 else torch.int32
    return mask.bool().view(torch.uint8).sum(dim=1, dtype=narrow)


def row_sum(x: torch.Tensor) -> torch.Tensor:
    """``x.sum(dim=1)`` of a ``[B, K]`` tensor, for K <= 4 as column adds: the same additions in
    the same order (bit-identical), and several times faster than a reduction over a short axis."""
    if not 2 <= x.shape[1] <= 4:
        return x.sum(dim=1)
    out = x[:, 0] + x[:, 1]
    for k in range(2, x.shape[1]):
        out += x[:, k]
    return out


def row_any(x: torch.Tensor) -> torch.Tensor:
    """``x.any(dim=1)`` of a bool ``[B, K]`` tensor, for K <= 4 as column ors (see `row_sum`)."""
    if not 2 <= x.shape[1] <= 4:
        return x.any(dim=1)
    out = x[:, 0] | x[:, 1]
    for k in range(2, x.shape[1]):
        out |= x[:, k]
    return out


def broadcast(a: torch.Tensor, mask: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """``A[i, t] = a_i * m[i, t]`` in ``dtype``."""
    return a.to(dtype)[:, None] * mask.to(dtype)


def result_dtype(*tensors: torch.Tensor | None) -> torch.dtype:
    """The dtype results are cast to: the first floating input's, else torch's default."""
    for t in tensors:
        if isinstance(t, torch.Tensor) and t.is_floating_point():
            return t.dtype
    return torch.get_default_dtype()


def as_rows(x: Any, n: int, *, name: str, device: torch.device) -> torch.Tensor:
    """A per-row float64 vector of length ``n`` from a tensor, array or sequence."""
    t = torch.as_tensor(x, device=device).to(F64).reshape(-1)
    if t.numel() != n:
        raise ValueError(f"{name} has {t.numel()} entries; expected one per row ({n})")
    return t


def outcome_scores(
    scores: Any, token_level_rewards: torch.Tensor | None, n: int, *, device: torch.device
) -> torch.Tensor:
    """Per-row outcome score ``s_i``: ``scores`` as given, or the row sum of ``token_level_rewards``."""
    if (scores is None) == (token_level_rewards is None):
        raise ValueError("pass exactly one of scores [B] or token_level_rewards [B, T]")
    if scores is not None:
        return as_rows(scores, n, name="scores", device=device)
    if token_level_rewards.ndim != 2 or token_level_rewards.shape[0] != n:
        raise ValueError(
            f"token_level_rewards must be [B, T] with B = {n}, got {tuple(token_level_rewards.shape)}"
        )
    return token_level_rewards.to(device=device, dtype=F64).sum(-1)
