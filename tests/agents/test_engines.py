"""`TransformersEngine` on the tiny model: batched generation, exact logprobs, stops, adapters,
and the adapter-sync probe; `ScriptedEngine`."""

from __future__ import annotations

import copy

import pytest
import torch
from peft import LoraConfig, get_peft_model, get_peft_model_state_dict

from codegym.agents.engines import (
    AdapterSyncError,
    EngineError,
    GenerationRequest,
    ScriptedEngine,
    TransformersEngine,
    probe_logprobs,
    sequence_logprobs,
)


def prompt(tok, text):
    rendered = tok.apply_chat_template([{"role": "user", "content": text}], tokenize=False, add_generation_prompt=True)
    return tok.encode(rendered, add_special_tokens=False)


def test_batched_left_padded_generation_has_exact_temperature_scaled_logprobs(engine, tiny_model, tok):
    short, long = prompt(tok, "hi"), prompt(tok, "fix the bug in calc.py, then submit the change")
    reqs = [GenerationRequest(short, 12, temperature=0.7, seed=1), GenerationRequest(long, 9, temperature=0.7, seed=2),
            GenerationRequest(short, 6, temperature=1.3, seed=3), GenerationRequest(long, 5, temperature=0.0)]
    out = engine.generate(reqs)
    assert [len(c.token_ids) for c in out] == [12, 9, 6, 5] and {c.finish_reason for c in out} == {"length"}
    for r, c in zip(reqs, out, strict=True):
        mine = sequence_logprobs(tiny_model, r.prompt_ids, c.token_ids, r.temperature if r.temperature > 0 else 1.0)
        assert max(abs(a - b) for a, b in zip(mine, c.logprobs, strict=True)) < 1e-4
        assert c.policy_version == 0 and c.text == tok.decode(c.token_ids)
    # greedy is the argmax; seeded batches repeat
    with torch.no_grad():
        logits = tiny_model(torch.tensor([long])).logits[0, -1]
    assert out[3].token_ids[0] == int(logits.argmax())
    again = engine.generate(reqs)
    assert [c.token_ids for c in again] == [c.token_ids for c in out]


def test_a_seeded_request_samples_the_same_whatever_shares_its_batch(tiny_model, tok):
    """A rollout's tokens depend on its own seed only: alone, in a batch in another order, or in
    batches chunked differently (the collector's slots pick up jobs in a racing order)."""
    prompts = [prompt(tok, t) for t in ("hi", "fix the bug in calc.py", "x", "run the tests, then submit")]
    reqs = [GenerationRequest(p, 10, temperature=1.0, seed=100 + i) for i, p in enumerate(prompts)]
    big = TransformersEngine(tiny_model, tok)
    together = [c.token_ids for c in big.generate(reqs)]
    backwards = [c.token_ids for c in big.generate(reqs[::-1])][::-1]
    alone = [big.generate([r])[0].token_ids for r in reqs]
    chunked = [c.token_ids for c in TransformersEngine(tiny_model, tok, max_batch_size=3).generate(reqs[1:] + reqs[:1])]
    assert together == backwards == alone == chunked[-1:] + chunked[:-1]
    other_seed = big.generate([GenerationRequest(prompts[0], 10, temperature=1.0, seed=999)])[0].token_ids
    assert other_seed != together[0]  # the seed decides (10 tokens of a random model: a tie is ~impossible)


def test_per_request_streams_sample_the_model_distribution(tiny_model, tok):
    """Over 600 seeds the first token follows softmax(logits / T) (logits set by a bias: three
    likely tokens, the rest far less), each frequency within 4 standard errors."""
    biased = copy.deepcopy(tiny_model)
    likely = [11, 12, 13]
    with torch.no_grad():
        biased.model.norm.weight.zero_()  # the logits are the bias alone
        biased.lm_head.bias = torch.nn.Parameter(torch.full((len(tok),), -30.0))
        biased.lm_head.bias[likely] = torch.tensor([1.0, 0.5, 0.0])
    p = torch.softmax(biased.lm_head.bias.detach() / 0.8, -1)
    n = 600
    out = TransformersEngine(biased, tok).generate([GenerationRequest(prompt(tok, "hello"), 1, temperature=0.8, seed=s)
                                                    for s in range(n)])
    counts = torch.bincount(torch.tensor([c.token_ids[0] for c in out]), minlength=len(p)).float() / n
    assert float(counts[likely].sum()) == 1.0
    for t in likely:
        se = (p[t] * (1 - p[t]) / n).sqrt()
        assert abs(counts[t] - p[t]) < 4 * se, (t, float(counts[t]), float(p[t]))


def test_eos_stop_strings_and_top_p(tok, tiny_model):
    eos = tok.eos_token_id
    biased = copy.deepcopy(tiny_model)
    with torch.no_grad():  # make <|im_end|> likely so generation stops by itself
        biased.model.norm.weight.zero_()
        biased.lm_head.bias = torch.nn.Parameter(torch.zeros(len(tok)))
        biased.lm_head.bias[eos] = 5.0
    engine = TransformersEngine(biased, tok)
    [c] = engine.generate([GenerationRequest(prompt(tok, "x"), 50, seed=0)])
    assert c.finish_reason == "stop" and c.token_ids[-1] == eos and eos not in c.token_ids[:-1]
    plain = TransformersEngine(tiny_model, tok)
    [c] = plain.generate([GenerationRequest(prompt(tok, "y"), 60, seed=4, stop=("e",))])
    assert c.finish_reason == "stop" and c.text.count("e") >= 1 and "e" not in tok.decode(c.token_ids[:-1])
    [c] = plain.generate([GenerationRequest(prompt(tok, "y"), 40, seed=5, top_p=1e-9)])
    # a vanishing nucleus keeps one candidate: the sampled token is the most likely one
    ids = prompt(tok, "y") + c.token_ids
    with torch.no_grad():
        logits = tiny_model(torch.tensor([ids])).logits[0, len(ids) - len(c.token_ids) - 1: -1]
    assert c.token_ids == logits.argmax(-1).tolist()


def test_prompts_that_do_not_fit_raise_engine_error(tok, tiny_model):
    engine = TransformersEngine(tiny_model, tok, max_context=32)
    with pytest.raises(EngineError, match="no room"):
        engine.generate([GenerationRequest(list(range(40)), 4)])
    [c] = engine.generate([GenerationRequest(list(range(3, 30)), 100, seed=0)])
    assert len(c.token_ids) <= 5  # clamped to the context


@pytest.fixture
def lora_pair(tiny_model):
    """A trainer-side LoRA policy and an engine on its own copy (as on another device)."""
    config = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "up_proj",
                                                           "down_proj", "gate_proj"], lora_dropout=0.1)
    trainer = get_peft_model(copy.deepcopy(tiny_model), config)
    served = get_peft_model(copy.deepcopy(tiny_model), config)
    return trainer, served


def perturb(model, seed):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.copy_(torch.randn(p.shape, generator=g) * 2.0)


def test_load_adapter_and_the_probe_catch_a_stale_adapter(lora_pair, tok, tiny_model, tmp_path):
    trainer, served = lora_pair
    trainer.train()  # dropout on in the trainer: the probe and the engine must switch it off
    engine = TransformersEngine(served, tok)
    assert probe_logprobs(trainer, engine, tok).mean_abs_diff < 1e-5  # fresh adapters are identity
    perturb(trainer, 1)
    with pytest.raises(AdapterSyncError, match="stale"):
        probe_logprobs(trainer, engine, tok)  # trained, not synced
    engine.load_adapter(get_peft_model_state_dict(trainer), version=1)
    result = probe_logprobs(trainer, engine, tok)
    assert result.policy_version == 1 and result.mean_abs_diff < 1e-4 and result.n_tokens == 16
    assert trainer.training  # left as it was
    perturb(trainer, 2)
    trainer.save_pretrained(tmp_path / "v2")
    engine.load_adapter(tmp_path / "v2", version=2)  # from an adapter directory
    assert probe_logprobs(trainer, engine, tok).mean_abs_diff < 1e-4
    with pytest.raises(AdapterSyncError, match="holds policy version 3 but the engine answered with policy version 2"):
        probe_logprobs(trainer, engine, tok, version=3)
    with pytest.raises(TypeError, match="no LoRA adapter"):
        TransformersEngine(tiny_model, tok).load_adapter({}, 1)


def test_an_engine_on_the_live_model_needs_no_copy(lora_pair, tok):
    trainer, _ = lora_pair
    engine = TransformersEngine(trainer, tok)
    perturb(trainer, 3)
    engine.load_adapter(None, version=5)
    assert probe_logprobs(trainer, engine, tok).policy_version == 5


def test_complete_and_scripted_engine(engine, tok):
    assert isinstance(engine.complete("hello", max_new_tokens=4), str)
    scripted = ScriptedEngine(tok, ["<tool_call>x</tool_call>", "done"])
    a, b = scripted.generate([GenerationRequest([1, 2], 50), GenerationRequest([3], 50)])
    assert a.text == "<tool_call>x</tool_call><|im_end|>" and a.finish_reason == "stop" and b.token_ids[-1] == tok.eos_token_id
    assert a.logprobs == [0.0] * len(a.token_ids)
    [c] = scripted.generate([GenerationRequest([1], 2)])
    assert c.finish_reason == "length" and len(c.token_ids) == 2
