"""The tiny tokenizer and model: built locally, deterministic, cached, and big enough for toy prompts."""

from __future__ import annotations

import json

import torch

from codegym.agents import tiny
from codegym.envs.prompts import render_system_prompt, render_task_prompt
from codegym.envs.tools import DEFAULT_TOOLS, tool_schemas
from codegym.tasks.loader import load_tasks


def test_tokenizer_is_cached_and_rebuilt_identically(tok, tmp_path, monkeypatch):
    path = tiny.tiny_tokenizer_path()
    assert (path / "tokenizer.json").exists() and path.parent.name == "tiny"
    monkeypatch.setenv("CODEGYM_CACHE", str(tmp_path))
    fresh = tiny.tiny_tokenizer_path()
    assert fresh.parent == tmp_path / "tiny" and fresh.name == path.name
    assert json.loads((fresh / "tokenizer.json").read_text()) == json.loads((path / "tokenizer.json").read_text())


def test_tokenizer_round_trips_any_text_and_keeps_tool_tags(tok):
    text = '<tool_call>{"name": "bash", "arguments": {"command": "echo ünïcode ✓ 🚀"}}</tool_call>'
    ids = tok.encode(text, add_special_tokens=False)
    assert tok.decode(ids) == text
    assert ids[0] == tok.convert_tokens_to_ids("<tool_call>")
    assert tok.decode(ids, skip_special_tokens=True) == text  # tool tags are not "special"
    assert tok.eos_token == "<|im_end|>" and tok.pad_token == "<|endoftext|>" and tok.padding_side == "left"
    assert len(tok) <= tiny.VOCAB_SIZE


def test_chat_template_renders_tools_and_tool_turns(tok):
    messages = [{"role": "system", "content": "S"}, {"role": "user", "content": "U"},
                {"role": "assistant", "content": "A"}, {"role": "tool", "name": "bash", "content": "out"}]
    text = tok.apply_chat_template(messages, tools=tool_schemas(["submit"]), tokenize=False,
                                   add_generation_prompt=True)
    assert text == ("<|im_start|>system\nS\n\n# Tools\n<tools>\n" + json.dumps(tool_schemas(["submit"])[0]["function"])
                    + "\n</tools><|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\nA<|im_end|>\n"
                    "<|im_start|>user\n<tool_response>\nout\n</tool_response><|im_end|>\n<|im_start|>assistant\n")


def test_a_toy_reset_prompt_with_tools_fits_the_context(tok):
    for task in load_tasks("toy"):
        messages = [{"role": "system", "content": render_system_prompt(DEFAULT_TOOLS, task)},
                    {"role": "user", "content": render_task_prompt(task)}]
        text = tok.apply_chat_template(messages, tools=tool_schemas(), tokenize=False, add_generation_prompt=True)
        n = len(tok.encode(text, add_special_tokens=False))
        assert n < 1400, (task.instance_id, n)  # ~1.2k of the 4096-token context


def test_model_is_deterministic_per_seed_and_leaves_the_rng_alone(tok, tiny_model):
    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    again = tiny.build_tiny_model(tok)
    assert torch.rand(1) == before
    assert all(torch.equal(a, b) for a, b in zip(tiny_model.state_dict().values(), again.state_dict().values(), strict=True))
    other = tiny.build_tiny_model(tok, seed=1)
    assert not torch.equal(other.model.embed_tokens.weight, tiny_model.model.embed_tokens.weight)
    assert tiny_model.config.vocab_size == len(tok) and tiny_model.config.max_position_embeddings == tiny.MAX_CONTEXT
    assert sum(p.numel() for p in tiny_model.parameters()) < 300_000
    small = tiny.build_tiny_model(tok, size="small")
    assert small.config.num_hidden_layers == 4 and small.config.hidden_size == 128
