"""The real `trl`: GRPOTrainer steps through codegym envs with its own tool-calling loop.

The tiny model has random weights and never emits a tool call, so the generations are scripted
(`ScriptedGRPOTrainer` replaces the one method that samples tokens); everything else is TRL's:
parsing the completions with the tokenizer's response template, calling the environment's tool
methods, appending the tool results, scoring with `get_reward` and the component functions, and
one optimizer step on the tiny model.
"""

from __future__ import annotations

import inspect
import json
import os

import pytest

trl = pytest.importorskip("trl")
datasets = pytest.importorskip("datasets")

from transformers.utils import get_json_schema  # noqa: E402
from trl.chat_template_utils import is_chat_template_prefix_preserving, supports_tool_calling  # noqa: E402

from codegym.agents.tiny import build_tiny_model, build_tiny_tokenizer  # noqa: E402
from codegym.envs.tools import tool_schemas  # noqa: E402
from codegym.integrations.trl import environment_factory, reward_functions, task_rows  # noqa: E402

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")


def test_tool_methods_state_codegym_schemas_with_optional_arguments():
    cls = environment_factory("codegym/Toy-v0")
    methods = {n for n, _ in inspect.getmembers(cls, predicate=inspect.isfunction) if not n.startswith("_")}
    assert methods == {"bash", "view", "create", "str_replace", "run_tests", "submit", "reset", "get_reward"}
    for schema in tool_schemas():
        mine = get_json_schema(getattr(cls, schema["function"]["name"]))["function"]
        want = schema["function"]["parameters"]
        assert mine["parameters"]["properties"] == want["properties"], mine["name"]
        assert mine["parameters"].get("required", []) == want["required"], mine["name"]
    assert "timeout" in get_json_schema(cls.bash)["function"]["parameters"]["properties"]


def test_the_tiny_chat_template_passes_trls_tool_checks():
    tok = build_tiny_tokenizer()
    assert supports_tool_calling(tok) and is_chat_template_prefix_preserving(tok)
    call = {"type": "function", "function": {"name": "bash", "arguments": {"command": "ls"}}}
    text = tok.apply_chat_template([{"role": "user", "content": "U"},
                                    {"role": "assistant", "content": "", "tool_calls": [call]}], tokenize=False)
    assert text.endswith('<|im_start|>assistant\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}'
                         "\n</tool_call><|im_end|>\n")  # as Qwen2.5 renders it
    parsed = tok.parse_response(text.split("<|im_start|>assistant\n")[-1], prefix="")
    assert parsed["tool_calls"] == [call]


FIX = {"name": "str_replace", "arguments": {"path": "calc.py", "old_str": "a - b", "new_str": "a + b"}}
VIEW = {"name": "view", "arguments": {"path": "calc.py", "start_line": 1, "end_line": 2}}


class ScriptedGRPOTrainer(trl.GRPOTrainer):
    """Even rollouts fix the bug with two tool calls then stop; odd ones stop at once (and are
    submitted by `get_reward`). The turn is read from the tool responses already in the prompt."""

    def _generate_single_turn(self, prompt_ids, images, multimodal_fields, num_generations, has_tool_images=False):
        tok = self.processing_class
        response = tok.convert_tokens_to_ids("<tool_response>")
        out = []
        for i, ids in enumerate(prompt_ids):
            turn = list(ids).count(response)
            if turn == 0 and i % 2 == 1:
                text = "I cannot tell what is wrong."
            elif turn < 2:
                text = f"<tool_call>\n{json.dumps([FIX, VIEW][turn])}\n</tool_call>"
            else:
                text = "Fixed."
            out.append(tok.encode(text + tok.eos_token, add_special_tokens=False))
        return out, None


@pytest.mark.docker
@pytest.mark.slow
def test_grpo_trainer_steps_through_codegym_envs(tmp_path):
    tok = build_tiny_tokenizer()
    components = reward_functions(["correctness", "tests_passed"])
    args = trl.GRPOConfig(output_dir=str(tmp_path), per_device_train_batch_size=2, num_generations=2, max_steps=1,
                          max_completion_length=512, logging_steps=1, report_to="none", save_strategy="no",
                          use_cpu=True, reward_weights=[0.0] * len(components), log_completions=False)
    factory = environment_factory("codegym/Toy-v0", backend="docker")
    trainer = ScriptedGRPOTrainer(build_tiny_model(tok), reward_funcs=components, args=args, processing_class=tok,
                                  train_dataset=datasets.Dataset.from_list(task_rows(["toy-add-typo"] * 2)),
                                  environment_factory=factory)
    assert trainer.chat_template is None  # TRL keeps the tiny template as it is: no swap needed
    trainer.train()
    assert trainer.state.global_step == 1
    envs = trainer.environments
    assert [type(e) for e in envs] == [factory] * 2
    results = [e._finish() for e in envs]
    assert [r["reward"] for r in results] == [1.0, 0.0]
    assert [r["stop_reason"] for r in results] == ["submitted", "submitted"]
    assert results[0]["turns"] == 3 and results[1]["turns"] == 1  # fix, view, submit / submit
    logged = trainer.state.log_history[0]
    assert logged["rewards/CodegymEnv/mean"] == 0.5 and logged["rewards/codegym_correctness/mean"] == 0.5
    assert logged["tools/call_frequency"] > 0 and logged.get("tools/failure_frequency", 0.0) == 0.0
