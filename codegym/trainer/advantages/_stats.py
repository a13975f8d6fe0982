"""Shared vectorized helpers: id factorization, float64 group z-scores, masked whitening, scans.

Everything here runs in float64 with scatter/index ops; there is no Python loop over groups. The
only Python loops are over the rows of a *non-tensor* id list (to hash strings and other objects)
and over time chunks in :func:`reverse_discounted_cumsum`.

The float trap: verl computes group statistics in float32, so eight rollouts that all score 0.1
get -0.00739 each (one ulp of error in the mean divided by ``std + 1e-6``). Here the statistics are
float64 *and* a group whose members are all equal is centred to exactly 0, so equal rewards always
give exactly zero advantage.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
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
    "first_of_group",
    "group_index",
    "group_zscore",
    "masked_whiten",
    "outcome_scores",
    "pair_index",
    "result_dtype",
    "reverse_discounted_cumsum",
    "row_whiten",
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
    seq: Sequence[Any] = ids.tolist() if isinstance(ids, np.ndarray) and ids.ndim == 1 else list(ids)
    if len(seq) != n:
        raise ValueError(f"{name} has {len(seq)} entries; expected one per row ({n})")
    try:
        table = {k: i for i, k in enumerate(dict.fromkeys(seq))}
    except TypeError:  # unhashable entries (arrays, lists, dicts): hash a canonical form
        seq = [_hashable(k) for k in seq]
        table = {k: i for i, k in enumerate(dict.fromkeys(seq))}
    codes = np.fromiter(map(table.__getitem__, seq), dtype=np.int64, count=len(seq))
    return torch.from_numpy(codes).to(device), len(table)


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
    uniq, inv = torch.unique(key, return_inverse=True)
    return inv, int(uniq.numel())


def first_of_group(index: torch.Tensor, n_groups: int) -> torch.Tensor:
    """Boolean mask of the first row (in batch order) of each group."""
    rows = torch.arange(index.numel(), device=index.device)
    first = torch.full((n_groups,), index.numel(), device=index.device, dtype=torch.long)
    first = first.scatter_reduce(0, index, rows, "amin")
    return rows == first[index]


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


def _batch_std(x: torch.Tensor) -> torch.Tensor:
    """Unbiased std of a 1-D float64 tensor; 0 for fewer than two values or all-equal values."""
    if x.numel() < 2 or bool(x.min() == x.max()):
        return x.new_zeros(())
    return x.std(unbiased=True)


def masked_whiten(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Token-weighted batch whitening (verl ``masked_whiten``), float64, zero off the mask.

    ``N = sum m``, ``mu = sum(x m) / N``, ``var = sum((x - mu)^2 m) / (N - 1)``,
    ``out = (x - mu) / sqrt(var + 1e-8) * m``. A row with ``L_i`` tokens counts ``L_i`` times.
    ``x`` must be finite. verl raises for ``N <= 1`` and adds 1e-8 to ``N`` in the means; here
    ``N <= 1`` gives zeros (one token is its own mean) and all-equal values give exactly 0.
    """
    m = mask.to(F64)
    n = float(m.sum())
    if n < 2:
        return torch.zeros_like(x, dtype=F64)
    mean = (x.to(F64) * m).sum() / n
    centered = (x - mean) * m
    var = centered.square().sum() / (n - 1.0)
    if bool(var <= (1e-12 * mean) ** 2):  # all equal up to the rounding of the mean: exactly 0
        return torch.zeros_like(centered)
    return centered * torch.rsqrt(var + 1e-8)


def row_whiten(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """:func:`masked_whiten` of row-constant values: row ``i`` holds ``x_i`` on ``weight_i`` tokens.

    Equal to ``masked_whiten(x[:, None] * m, m)`` read off per row (rows of weight 0 give 0), but
    computed from ``B`` numbers instead of ``B x T``.
    """
    x, w = x.to(F64), weight.to(F64)
    on = w > 0
    n = w.sum()
    if n == 0 or bool(torch.where(on, x, -math.inf).amax() == torch.where(on, x, math.inf).amin()):
        return torch.zeros_like(x)
    mean = (torch.where(on, x, 0.0) * w).sum() / n
    centered = torch.where(on, x - mean, 0.0)
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
    xb = torch.nn.functional.pad(x, (0, n_chunks * c - length)).view(rows, n_chunks, c)
    f = torch.tensor(float(factor), dtype=F64, device=x.device)
    pos = torch.arange(c, device=x.device)
    lag = pos.view(c, 1) - pos.view(1, c)  # K[j, i] = f^(j - i) for j >= i
    kernel = torch.where(lag >= 0, f.pow(lag.clamp(min=0).to(F64)), 0.0)
    out = xb @ kernel
    decay = f.pow((c - pos).to(F64))  # weight of the next chunk's first value at position i
    carry = x.new_zeros(rows)
    for k in range(n_chunks - 1, -1, -1):
        out[:, k] += decay * carry[:, None]
        carry = out[:, k, 0]
    return out.reshape(rows, n_chunks * c)[:, :length]


# ----------------------------------------------------------- plumbing


def as_mask(response_mask: torch.Tensor) -> torch.Tensor:
    """The ``[B, T]`` 0/1 response mask (bool, int or float), checked and returned as given."""
    if not isinstance(response_mask, torch.Tensor) or response_mask.ndim != 2:
        shape = tuple(getattr(response_mask, "shape", ()))
        raise ValueError(f"response_mask must be a [B, T] tensor, got shape {shape}")
    return response_mask


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
