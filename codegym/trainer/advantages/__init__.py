"""Advantage estimators: pure functions over padded tensors, masks and ids, chosen by name.

    from codegym.trainer.advantages import compute_advantages
    adv, ret = compute_advantages("grpo", response_mask=mask, group_ids=uids, scores=scores)

Every estimator takes keyword arguments only and returns an :class:`AdvantageResult`
(``advantages[B, T]``, ``returns[B, T]``, ``info``), zero on masked positions. Registered names:
``gae``, ``grpo``, ``gigpo``, ``tree_grpo``, ``gdpo``, ``gd2po``. Each module's docstring carries
its equation and names the reference implementation its defaults follow (docs/algorithms.md).
Group statistics are float64, and equal rewards always give exactly zero advantage.
"""

from ._registry import (
    ADVANTAGES,
    AdvantageFn,
    AdvantageResult,
    compute_advantages,
    get_advantage_fn,
    register,
)
from .gae import gae_advantages
from .gd2po import gd2po_advantages
from .gdpo import gdpo_advantages
from .gigpo import gigpo_advantages
from .grpo import grpo_advantages
from .tree_grpo import tree_grpo_advantages

__all__ = [
    "ADVANTAGES",
    "AdvantageFn",
    "AdvantageResult",
    "compute_advantages",
    "gae_advantages",
    "gd2po_advantages",
    "gdpo_advantages",
    "get_advantage_fn",
    "gigpo_advantages",
    "grpo_advantages",
    "register",
    "tree_grpo_advantages",
]
