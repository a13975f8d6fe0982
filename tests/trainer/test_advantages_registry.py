"""The advantage registry and the shared float64 helpers in ``_stats``."""

import numpy as np
import pytest
import torch

from codegym.trainer.advantages import (
    ADVANTAGES,
    AdvantageResult,
    compute_advantages,
    get_advantage_fn,
    grpo_advantages,
    register,
)
from codegym.trainer.advantages._stats import (
    group_index,
    group_zscore,
    masked_whiten,
    reverse_discounted_cumsum,
)


def test_registry_names():
    assert set(ADVANTAGES) == {"gae", "grpo", "gigpo", "tree_grpo", "gdpo", "gd2po"}
    assert get_advantage_fn("grpo") is grpo_advantages


def test_unknown_name_lists_known():
    with pytest.raises(KeyError, match="known estimators: gae, gd2po, gdpo, gigpo, grpo, tree_grpo"):
        compute_advantages("ppo", response_mask=torch.ones(1, 1))


def test_unknown_keyword_is_an_error_unless_not_strict():
    mask = torch.ones(2, 3)
    kwargs = {"response_mask": mask, "group_ids": [0, 0], "scores": torch.tensor([1.0, 0.0]), "values": mask}
    with pytest.raises(TypeError, match="unexpected keyword.*values"):
        compute_advantages("grpo", **kwargs)
    out = compute_advantages("grpo", strict=False, **kwargs)
    assert isinstance(out, AdvantageResult)


def test_result_unpacks_like_verl_tuple():
    adv, ret = compute_advantages(
        "grpo", response_mask=torch.ones(2, 3), group_ids=[0, 0], scores=torch.tensor([1.0, 0.0])
    )
    assert adv.shape == ret.shape == (2, 3)


def test_register_rejects_a_second_function_under_a_taken_name():
    with pytest.raises(ValueError, match="already registered"):
        register("grpo")(lambda **kw: None)


def test_group_index_accepts_many_id_kinds():
    for ids in (
        ["a", "b", "a"],
        np.array(["a", "b", "a"], dtype=object),
        np.array([3, 7, 3]),
        torch.tensor([3, 7, 3]),
        [(1, "x"), (2, "y"), (1, "x")],
        [np.zeros(2), np.ones(2), np.zeros(2)],
        [{"k": [1, 2]}, {"k": [2, 1]}, {"k": [1, 2]}],
        torch.tensor([[0, 1], [1, 0], [0, 1]]),
    ):
        idx, n = group_index(ids, 3)
        assert idx[0] == idx[2] != idx[1] and int(idx.max()) < n, ids
        # small non-negative int tensors are used as they are (no sort); others are made contiguous
        assert n == (8 if ids is not None and isinstance(ids, torch.Tensor) and ids.ndim == 1 else 2), ids


def test_group_index_checks_length():
    with pytest.raises(ValueError, match="expected one per row"):
        group_index(["a"], 2, name="group_ids")


def test_group_zscore_rules():
    x = torch.tensor([1.0, 0.0, 0.0, 1.0, 5.0, 0.1, 0.1, 0.1], dtype=torch.float64)
    idx = torch.tensor([0, 0, 0, 0, 1, 2, 2, 2])
    out = group_zscore(x, idx, 3, epsilon=1e-6, singleton="raw")
    std = (1 / 3) ** 0.5
    assert torch.allclose(out[:4], torch.tensor([0.5, -0.5, -0.5, 0.5], dtype=torch.float64) / (std + 1e-6))
    assert out[4] == 5.0 / (1 + 1e-6)  # verl: a group of one keeps its raw score
    assert torch.equal(out[5:], torch.zeros(3, dtype=torch.float64))  # the float trap: exactly 0
    assert group_zscore(x, idx, 3, singleton="zero")[4] == 0.0


def test_reverse_discounted_cumsum_matches_loop():
    torch.manual_seed(0)
    for length, factor in ((1, 0.5), (7, 1.0), (64, 0.9), (200, 0.99), (130, 0.0)):
        x = torch.randn(3, length, dtype=torch.float64)
        want = torch.zeros_like(x)
        acc = torch.zeros(3, dtype=torch.float64)
        for t in reversed(range(length)):
            acc = x[:, t] + factor * acc
            want[:, t] = acc
        got = reverse_discounted_cumsum(x, factor, chunk=16)
        assert torch.allclose(got, want, atol=1e-10), (length, factor)


def test_masked_whiten_edge_cases():
    x = torch.tensor([[1.0, 2.0, 3.0, 9.0]])
    m = torch.tensor([[1.0, 1.0, 1.0, 0.0]])
    out = masked_whiten(x, m)
    assert out[0, 3] == 0
    assert torch.allclose(out[0, :3], torch.tensor([-1.0, 0.0, 1.0], dtype=torch.float64), atol=1e-6)
    assert torch.equal(masked_whiten(x, torch.zeros_like(m)), torch.zeros_like(x, dtype=torch.float64))
    one = masked_whiten(x, torch.tensor([[0.0, 1.0, 0.0, 0.0]]))
    assert torch.equal(one, torch.zeros_like(one))  # verl raises here
    assert torch.equal(
        masked_whiten(torch.full((2, 3), 0.1), torch.ones(2, 3)), torch.zeros(2, 3, dtype=torch.float64)
    )
