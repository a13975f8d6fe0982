"""Policy and critic on one tiny base: aligned logprobs, values, the KL reference (the base, or a
frozen copy of the init adapter), state, and the adapter-sync probe's dtype-aware tolerance."""

from __future__ import annotations

import pytest
import torch

from codegym.agents.engines import AdapterSyncError, TransformersEngine, probe_logprobs
from codegym.agents.engines.probe import sequence_logprobs
from codegym.trainer.config import ModelConfig
from codegym.trainer.models import build_models, probe_tolerance, token_logprobs


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


def test_init_adapter_is_the_frozen_kl_reference(tmp_path, shared):
    ids, mask, *_ = _batch(shared.tokenizer)
    g = torch.Generator().manual_seed(3)
    start = build_models(ModelConfig(base="tiny", lora_r=4, lora_alpha=8))
    with torch.no_grad():  # a warm start: an adapter far from the base
        for p in start.policy_parameters():
            p.add_(torch.randn(p.shape, generator=g) * 0.1)
    path = start.save_policy_adapter(tmp_path / "sft")
    m = build_models(ModelConfig(base="tiny", lora_r=4, lora_alpha=8, init_adapter=str(path)), critic="shared")
    assert m.has_reference_adapter and not shared.has_reference_adapter
    with torch.no_grad():
        with m.model.disable_adapter():
            base = token_logprobs(m.model(input_ids=ids, attention_mask=mask).logits, ids)
        ref, policy = m.ref_logprobs(ids, mask), m.policy_logprobs(ids, mask)
        assert torch.equal(ref, policy)  # KL to the reference starts at 0
        assert not torch.allclose(ref, base, atol=1e-3)  # the raw base is not where the run started
        _perturb(m.policy_parameters(), 0.05, seed=4)  # an RL update moves the policy, not the reference
        assert torch.equal(m.ref_logprobs(ids, mask), ref)
        assert not torch.allclose(m.policy_logprobs(ids, mask), ref)
    assert m.model.active_adapter == "policy"
    # the reference is frozen, trained by no optimizer and not in checkpoints (rebuilt from init_adapter)
    ref_params = [p for n, p in m.model.named_parameters() if ".reference." in n]
    assert ref_params and not any(p.requires_grad for p in ref_params)
    trained = {id(p) for p in m.policy_parameters() + m.critic_parameters()}
    assert not any(id(p) in trained for p in ref_params)
    v = m.values(ids, mask)  # the critic pass re-enables gradients for the adapters it trains only
    assert not any(p.requires_grad for p in ref_params) and v.requires_grad
    state = m.trainable_state()
    assert not any(".reference." in k for k in state)
    again = build_models(ModelConfig(base="tiny", lora_r=4, lora_alpha=8, init_adapter=str(path)), critic="shared")
    again.load_trainable_state(state)  # a resumed run: the policy from the checkpoint, the reference from sft
    with torch.no_grad():
        assert torch.equal(again.policy_logprobs(ids, mask), m.policy_logprobs(ids, mask))
        assert torch.equal(again.ref_logprobs(ids, mask), ref)


def test_probe_tolerance_follows_the_dtype():
    assert probe_tolerance(torch.float32) <= 1e-3 and probe_tolerance(torch.float64) <= 1e-5
    assert 1e-2 <= probe_tolerance(torch.bfloat16) <= 5e-2
    assert build_models(ModelConfig(base="tiny", lora_r=4, lora_alpha=8, dtype="float32")).probe_tolerance <= 1e-3


def test_bf16_self_probe_of_a_warm_started_model_passes_and_a_stale_adapter_still_fails(warm_tiny_base):
    m = build_models(ModelConfig(base=warm_tiny_base, lora_r=4, lora_alpha=8, dtype="bfloat16", device="cpu"))
    assert m.dtype == torch.bfloat16 and m.probe_tolerance == probe_tolerance(torch.bfloat16)
    engine = TransformersEngine(m.model, m.tokenizer, adapter_name="policy")
    diffs = [probe_logprobs(m.model, engine, m.tokenizer, tolerance=m.probe_tolerance, seed=s).mean_abs_diff
             for s in range(3)]
    assert max(diffs) < m.probe_tolerance  # bf16 rounding only: 7e-4 to 2e-3 here, over fp32's 1e-3
    # a stale adapter (the engine serves an updated policy, the trainer scores the old one) is caught
    _perturb(m.policy_parameters(), 0.05, seed=5)

    def trainer_scores_the_base(prompt, completion):
        with m.model.disable_adapter():
            return sequence_logprobs(m.model, prompt, completion)

    with pytest.raises(AdapterSyncError, match="disagree"):
        probe_logprobs(trainer_scores_the_base, engine, m.tokenizer, tolerance=m.probe_tolerance)
