"""A tiny causal LM and a real tokenizer, built locally and deterministically (no hub).

    tokenizer = build_tiny_tokenizer()           # byte-level BPE, ChatML template with tools
    model = build_tiny_model(tokenizer)          # Qwen2 architecture, random weights, seed 0

The tokenizer is a byte-level BPE trained with the `tokenizers` library on text made from the
toy suite: system and task prompts with the tool schemas, oracle tool calls, the task files
and hidden tests, typical tool outputs and the env's error messages. Every byte is in the
vocabulary, so any text round-trips. It is wrapped as a `PreTrainedTokenizerFast` with a
Qwen2.5-style ChatML template that renders `tools` (in the system turn), structured `tool_calls`
(as Qwen2.5 does) and `tool` messages (as ``<tool_response>`` user turns), plus a response
template for `parse_response`, and is cached under ``$CODEGYM_CACHE/tiny/`` (default
``~/.cache/codegym/tiny/``), keyed by a hash of its corpus and settings.

The model is a `Qwen2ForCausalLM` built from a config with a fixed seed: the trainer's
policy and critic share it as their base in CPU tests and CI. Sizes (`TINY_SIZES`):
``tiny`` (2 layers, hidden 64, ~0.2 M parameters) and ``small`` (4 layers, hidden 128).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

#: Special tokens. `<|im_end|>` ends every turn and is the eos; `<|endoftext|>` pads.
#: `<tool_call>`/`</tool_call>` are single tokens but not "special": they survive decoding.
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
TOOL_TOKENS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<tools>", "</tools>"]
VOCAB_SIZE = 2048

#: Qwen2.5-style ChatML: tools in the system turn; an assistant turn's structured `tool_calls`
#: as Qwen2.5 renders them (``<tool_call>`` JSON lines after the content); tool results as one
#: user turn of ``<tool_response>`` blocks per run of consecutive tool messages. Prefix-preserving,
#: so TRL's multi-turn tool loop accepts it as it is.
CHAT_TEMPLATE = (
    "{% if tools %}"
    "<|im_start|>system\n"
    "{% if messages and messages[0].role == 'system' %}{{ messages[0].content }}\n\n{% endif %}"
    "# Tools\n<tools>\n"
    "{% for tool in tools %}{{ (tool.function if tool.function is defined else tool) | tojson }}\n{% endfor %}"
    "</tools><|im_end|>\n"
    "{% elif messages and messages[0].role == 'system' %}"
    "<|im_start|>system\n{{ messages[0].content }}<|im_end|>\n"
    "{% endif %}"
    "{% for message in messages %}"
    "{% if message.role == 'system' and loop.first %}"
    "{% elif message.role == 'tool' %}"
    "{% if loop.first or messages[loop.index0 - 1].role != 'tool' %}<|im_start|>user{% endif %}"
    "{{ '\\n<tool_response>\\n' }}{{ message.content }}\n</tool_response>"
    "{% if loop.last or messages[loop.index0 + 1].role != 'tool' %}<|im_end|>\n{% endif %}"
    "{% elif message.role == 'assistant' and message.tool_calls %}"
    "<|im_start|>assistant{% if message.content %}{{ '\\n' }}{{ message.content }}{% endif %}"
    "{% for call in message.tool_calls %}"
    "{% set call = call.function if call.function is defined else call %}"
    "{{ '\\n<tool_call>\\n' }}{\"name\": \"{{ call.name }}\", \"arguments\": "
    "{% if call.arguments is string %}{{ call.arguments }}{% else %}{{ call.arguments | tojson }}{% endif %}"
    "}\n</tool_call>"
    "{% endfor %}<|im_end|>\n"
    "{% else %}"
    "<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

#: How `tokenizer.parse_response` reads an assistant turn back (transformers' response
#: templates; the same as TRL's for Qwen2.5/Qwen3): ``<tool_call>`` JSON blocks become
#: `tool_calls`, the rest is the content.
RESPONSE_TEMPLATE: dict[str, Any] = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "tool_calls": {"open": "<tool_call>", "close_pattern": r"</tool_call>\s*", "repeats": True,
                       "content": "json", "transform": {"type": "function", "function": "{content}"}},
        "content": {"close_pattern": r"<\|im_end\|>\s*", "content": "text"},
    },
}

#: name -> Qwen2Config fields. Context is 4096 tokens (a toy reset prompt with tools is ~0.5 k).
TINY_SIZES: dict[str, dict[str, int]] = {
    "tiny": {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
             "num_attention_heads": 4, "num_key_value_heads": 2},
    "small": {"hidden_size": 128, "intermediate_size": 256, "num_hidden_layers": 4,
              "num_attention_heads": 4, "num_key_value_heads": 2},
}
MAX_CONTEXT = 4096

_LOCK = threading.Lock()
_MEMO: dict[str, Any] = {}


def tiny_corpus() -> list[str]:
    """The training text: deterministic, from the toy suite, the tools and the env's messages."""
    from codegym.envs.parsing import format_tool_call, parse_any
    from codegym.envs.prompts import render_system_prompt, render_task_prompt
    from codegym.envs.tools import DEFAULT_TOOLS, tool_schemas
    from codegym.tasks.suites.toy import TOYS
    from codegym.tasks.task import Task
    from codegym.toolcall import ToolCall

    texts: list[str] = []
    for toy in TOYS:
        visible = tuple(p for p in toy.base if p.startswith("tests/"))
        task = Task(instance_id=f"toy-{toy.name}", repo="", base_commit="", problem_statement=toy.statement,
                    test_patch="", FAIL_TO_PASS=(), visible_tests=visible)
        texts += [render_system_prompt(DEFAULT_TOOLS, task), render_task_prompt(task), toy.hidden]
        for path, content in {**toy.base, **toy.fixed}.items():
            texts.append(content)
            texts.append(format_tool_call(ToolCall("create", {"path": path, "file_text": content})))
            texts.append(format_tool_call(ToolCall("view", {"path": path})))
            numbered = "\n".join(f"{i}\t{line}" for i, line in enumerate(content.splitlines(), 1))
            texts.append(numbered)
            texts.append(f"Created {path} ({len(content.splitlines())} lines)")
    for schema in tool_schemas(DEFAULT_TOOLS):
        texts.append(json.dumps(schema))
        texts.append(json.dumps(schema["function"]))
    texts += [format_tool_call(ToolCall("bash", {"command": c})) for c in (
        "ls", "cat README.md", "python -m pytest -q", "git diff", "git status", "grep -rn def .")]
    texts += [format_tool_call(ToolCall("run_tests", {})), format_tool_call(ToolCall("submit", {}))]
    texts += [
        "Submitted. Your changes will now be graded.", "(no output)", "1 passed in 0.01s", "1 failed in 0.02s",
        "Error: no replacement was made: old_str does not appear verbatim in calc.py.",
        "Error: " + (parse_any("nothing").error or ""), "Error: <tool_call> holds invalid JSON",
        "Error: a <tool_call> block is not closed with </tool_call>", "Traceback (most recent call last):",
        "AssertionError", "def test_add():\n    assert add(2, 3) == 5\n",
    ]
    return texts


def _tokenizer_key() -> str:
    payload = json.dumps({"corpus": tiny_corpus(), "special": SPECIAL_TOKENS, "tools": TOOL_TOKENS,
                          "vocab": VOCAB_SIZE, "template": CHAT_TEMPLATE, "response": RESPONSE_TEMPLATE, "v": 1})
    return hashlib.sha256(payload.encode()).hexdigest()[:12]


def _train_tokenizer(out: Path) -> None:
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=VOCAB_SIZE - len(TOOL_TOKENS), min_frequency=1, show_progress=False,
                                  special_tokens=SPECIAL_TOKENS, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(tiny_corpus(), trainer=trainer)
    # Like Qwen's: single tokens that decoding keeps (the parser needs them in the text).
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in TOOL_TOKENS])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   additional_special_tokens=["<|im_start|>"], clean_up_tokenization_spaces=False,
                                   model_max_length=MAX_CONTEXT, padding_side="left")
    fast.chat_template = CHAT_TEMPLATE
    fast.response_template = RESPONSE_TEMPLATE
    fast.save_pretrained(str(out))


def tiny_tokenizer_path() -> Path:
    """The cached tokenizer directory (built on first use; a `save_pretrained` folder)."""
    from codegym.tasks.cache import cache_subdir

    path = cache_subdir("tiny") / f"tokenizer-{_tokenizer_key()}"
    if not (path / "tokenizer.json").exists():
        tmp = Path(tempfile.mkdtemp(prefix="tok-", dir=path.parent))
        try:
            _train_tokenizer(tmp)
            try:
                os.replace(tmp, path)  # atomic: concurrent builders produce identical files
            except OSError:
                if not (path / "tokenizer.json").exists():
                    raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return path


def build_tiny_tokenizer():
    """The tiny `PreTrainedTokenizerFast` (memoized per process; cached on disk)."""
    from transformers import PreTrainedTokenizerFast

    with _LOCK:
        if "tokenizer" not in _MEMO:
            tok = PreTrainedTokenizerFast.from_pretrained(str(tiny_tokenizer_path()))
            tok.padding_side = "left"
            _MEMO["tokenizer"] = tok
        return _MEMO["tokenizer"]


def tiny_config(tokenizer, size: str = "tiny"):
    from transformers import Qwen2Config

    if size not in TINY_SIZES:
        raise ValueError(f"unknown tiny model size {size!r}; known: {', '.join(TINY_SIZES)}")
    return Qwen2Config(vocab_size=len(tokenizer), max_position_embeddings=MAX_CONTEXT, tie_word_embeddings=True,
                       rope_theta=10000.0, bos_token_id=None, eos_token_id=tokenizer.eos_token_id,
                       pad_token_id=tokenizer.pad_token_id, use_cache=True, **TINY_SIZES[size])


def build_tiny_model(tokenizer=None, size: str = "tiny", seed: int = 0):
    """A randomly initialized `Qwen2ForCausalLM` (float32, eval mode), the same for a given seed.

    The global torch RNG is left as it was.
    """
    import torch
    from transformers import AutoModelForCausalLM, GenerationConfig

    tokenizer = tokenizer if tokenizer is not None else build_tiny_tokenizer()
    config = tiny_config(tokenizer, size)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.generation_config = GenerationConfig(eos_token_id=tokenizer.eos_token_id,
                                               pad_token_id=tokenizer.pad_token_id)
    return model.eval()
