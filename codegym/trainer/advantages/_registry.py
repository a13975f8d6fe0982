"""The estimator registry and the result type every estimator returns."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

__all__ = [
    "ADVANTAGES",
    "AdvantageFn",
    "AdvantageResult",
    "compute_advantages",
    "get_advantage_fn",
    "register",
]


@dataclass(frozen=True)
class AdvantageResult:
    """What every registered estimator returns.

    ``advantages`` and ``returns`` are ``[B, T]`` tensors, zero wherever ``response_mask`` is 0.
    ``returns`` is the critic target for ``gae`` and a copy of the advantages for the critic-free
    estimators (verl's convention). ``info`` holds per-row or per-step intermediates for logging and
    tests (for example GiGPO's ``episode_advantages``); it is never needed for the loss.

    The result unpacks like verl's tuple: ``advantages, returns = compute_advantages(...)``.
    """

    advantages: torch.Tensor
    returns: torch.Tensor
    info: dict[str, torch.Tensor] = field(default_factory=dict)

    def __iter__(self) -> Iterator[torch.Tensor]:
        yield self.advantages
        yield self.returns


AdvantageFn = Callable[..., AdvantageResult]

ADVANTAGES: dict[str, AdvantageFn] = {}


def register(name: str) -> Callable[[AdvantageFn], AdvantageFn]:
    """Register an estimator under ``name`` (a decorator). Names are unique."""

    def decorate(fn: AdvantageFn) -> AdvantageFn:
        if name in ADVANTAGES and ADVANTAGES[name] is not fn:
            raise ValueError(
                f"advantage estimator {name!r} is already registered ({ADVANTAGES[name].__module__})"
            )
        ADVANTAGES[name] = fn
        return fn

    return decorate


def get_advantage_fn(name: str) -> AdvantageFn:
    """The estimator registered under ``name``; a ``KeyError`` lists the known names."""
    try:
        return ADVANTAGES[name]
    except KeyError:
        known = ", ".join(sorted(ADVANTAGES))
        raise KeyError(f"unknown advantage estimator {name!r}; known estimators: {known}") from None


def compute_advantages(name: str, /, *, strict: bool = True, **kwargs: Any) -> AdvantageResult:
    """Run the estimator registered under ``name`` with keyword arguments.

    With ``strict=False`` keyword arguments the estimator does not accept are dropped, so a trainer can
    pass one dict of batch fields (``response_mask``, ``group_ids``, ``traj_ids``, ...) to any
    estimator. With ``strict=True`` (default) an unknown keyword is an error that names the accepted
    ones.
    """
    fn = get_advantage_fn(name)
    accepted = set(inspect.signature(fn).parameters)
    unknown = sorted(set(kwargs) - accepted)
    if unknown:
        if strict:
            raise TypeError(
                f"advantage estimator {name!r} got unexpected keyword(s) {unknown}; "
                f"it accepts: {', '.join(sorted(accepted))}"
            )
        kwargs = {k: v for k, v in kwargs.items() if k in accepted}
    return fn(**kwargs)
