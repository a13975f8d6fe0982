"""Policy and critic on one tiny base: aligned logprobs, values, the adapter-free reference, state."""

from __future__ import annotations

import pytest
import torch

from codegym.agents.engines import TransformersEngine, probe_logprobs
from codegym.agents.engines.probe import sequence_logprobs
from codegym.trainer.config import ModelConfig
from codegym.trainer.models import build_models, token_logprobs


@pytest.fixture(scope="module")
def shared():
    return build_models(ModelConfig(base="tiny", lora_r=4, lora_alpha=8), critic="shared")


def _batch(tok):
    a = tok.encode("<|im_start|>user\nfix calc.py<|im_end|>\n<|im_start|>assistant\n<tool_call>")
    b = a[:5]
    ids = torch.full((2, len(a)), tok.pad_token_id)
    mask = torch.zeros_like(ids)
    ids[0], mask[0] = torch.tensor(a), 1
    ids[1, : len(b)], mask[1, : len(b)] = torch.tensor(b), 1
    return ids, mask, a, b


def _perturb(params, scale=0.05, seed=0):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in params:
            p.add_(torch.randn(p.shape, generator=g) * scale)


def test_logprobs_align_with_teacher_forcing(shared):
    ids, mask, a, b = _batch(shared.tokenizer)
    _perturb(shared.policy_parameters())
    with torch.no_grad():
        lp = shared.policy_logprobs(ids, mask, temperature=0.7)
    assert lp.shape == ids.shape and float(lp[:, 0].abs().max()) == 0.0
    ref = sequence_logprobs(shared.model, a[:3], a[3:], temperature=0.7)
    assert torch.allclose(lp[0, 3:], torch.tensor(ref), atol=1e-5)
    ref_b = sequence_logprobs(shared.model, b[:2], b[2:], temperature=0.7)  # right padding changes nothing
    assert torch.allclose(lp[1, 2:5], torch.tensor(ref_b), atol=1e-5)


def test_reference_is_base_and_critic_adapter_does_not_touch_policy(shared):
    ids, mask, *_ = _batch(shared.tokenizer)
    with torch.no_grad():
        before = shared.policy_logprobs(ids, mask)
        ref = shared.ref_logprobs(ids, mask)
        assert not torch.allclose(before, ref)  # the policy was perturbed above (or is now)
        crit = [p for p in shared.critic_parameters() if p.dim() == 2 and p.shape[0] != 1]
        _perturb(crit, 0.5, seed=1)
        after = shared.policy_logprobs(ids, mask)
        with shared.model.disable_adapter():
            base = token_logprobs(shared.model(input_ids=ids, attention_mask=mask).logits, ids)
    assert torch.equal(before, after)
    assert torch.allclose(ref, base)


def test_values_shape_and_gradients_reach_only_the_critic(shared):
    ids, mask, *_ = _batch(shared.tokenizer)
    v = shared.values(ids, mask)
    assert v.shape == ids.shape and v.dtype == torch.float32 and float(v[:, 0].abs().max()) == 0.0
    for p in shared.policy_parameters() + shared.critic_parameters():
        p.grad = None
    v[:, 1:].sum().backward()
    assert all(p.grad is None for p in shared.policy_parameters())
    assert any(p.grad is not None and float(p.grad.abs().sum()) > 0 for p in shared.critic_parameters())
    assert shared.model.active_adapter == "policy"


def test_engine_serves_the_live_policy(shared):
    engine = TransformersEngine(shared.model, shared.tokenizer, adapter_name="policy")
    engine.load_adapter(None, 3)
    result = probe_logprobs(shared.model, engine, shared.tokenizer)
    assert result.policy_version == 3 and result.mean_abs_diff < 1e-4


def test_state_round_trip_and_adapter_dir(tmp_path, shared):
    state = shared.trainable_state()
    assert any(k.startswith("value_head.") for k in state) and any(".critic." in k for k in state)
    other = build_models(ModelConfig(base="tiny", lora_r=4, lora_alpha=8), critic="shared")
    other.load_trainable_state(state)
    ids, mask, *_ = _batch(shared.tokenizer)
    with torch.no_grad():
        assert torch.equal(other.policy_logprobs(ids, mask), shared.policy_logprobs(ids, mask))
        assert torch.equal(other.values(ids, mask), shared.values(ids, mask))
    path = shared.save_policy_adapter(tmp_path / "policy")
    assert (path / "adapter_model.safetensors").exists() and (path / "adapter_config.json").exists()
    third = build_models(ModelConfig(base="tiny", lora_r=4, lora_alpha=8, init_adapter=str(path)))
    with torch.no_grad():
        assert torch.equal(third.policy_logprobs(ids, mask), shared.policy_logprobs(ids, mask))
    with pytest.raises(ValueError, match="does not match"):
        build_models(ModelConfig(base="tiny", lora_r=4, lora_alpha=8)).load_trainable_state(state)


def test_separate_critic():
    m = build_models(ModelConfig(base="tiny", lora_r=4, lora_alpha=8), critic="separate")
    ids, mask, *_ = _batch(m.tokenizer)
    assert m.critic_model is not m.model
    assert m.values(ids, mask).shape == ids.shape
    assert not any(".critic." in n for n, _ in m.model.named_parameters())
