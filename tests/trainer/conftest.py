"""Fixtures shared by the trainer tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def ray_cluster():
    """A small local Ray cluster for one test module (2 CPUs, 4 sandbox slots), gone after it."""
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, resources={"sandbox": 4}, include_dashboard=False, log_to_driver=False)
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture(scope="session")
def warm_tiny_base(tmp_path_factory):
    """A tiny base trained (every weight, fp32, 40 steps to a loss of ~0.9) on one probe-like
    episode, saved as a model directory: sharper logits, like the warm start of `codegym sft
    --full`. In bf16 its adapter-sync self-probe differs by 1e-4 to 2e-3 (1.9e-3 at seed 0 on the
    machine this was written on), over the float32 tolerance of 1e-3."""
    import torch

    from codegym.agents.engines.probe import PROBE_MESSAGES
    from codegym.agents.tiny import build_tiny_model, build_tiny_tokenizer

    tok = build_tiny_tokenizer()
    model = build_tiny_model(tok)
    text = tok.apply_chat_template(PROBE_MESSAGES, tokenize=False, add_generation_prompt=True)
    text += '<tool_call>{"name": "create", "arguments": {"path": "calc.py", "content": "def add(a, b):\\n    return a + b\\n"}}</tool_call>'
    ids = torch.tensor([tok.encode(text, add_special_tokens=False)])
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    for _ in range(40):
        model(input_ids=ids, labels=ids).loss.backward()
        opt.step()
        opt.zero_grad()
    path = tmp_path_factory.mktemp("warm")
    model.eval().save_pretrained(path)
    tok.save_pretrained(path)
    return str(path)
