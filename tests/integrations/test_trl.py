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
from codegym.integrations.trl import (  # noqa: E402
    env_reward,
    environment_factory,
    reward_functions,
    rollout_func,
    rollout_rows,
    task_rows,
)

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


# ---- rollout_func: codegym's collector, exact token ids ------------------------------------------


class RecordingEngine:
    """The engine the rollout made, recording every (prompt ids, sampled ids, logprobs) it served."""

    def __init__(self, inner):
        self.inner, self.served = inner, []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def generate(self, requests):
        out = self.inner.generate(requests)
        self.served += [(tuple(r.prompt_ids), tuple(c.token_ids), tuple(c.logprobs)) for r, c in zip(requests, out, strict=True)]
        return out


class CapturingGRPOTrainer(trl.GRPOTrainer):
    """Keeps the batch TRL built from the rollout, and the policy's own logprobs of it before the update."""

    def _generate_and_score_completions(self, inputs):
        import torch

        out = super()._generate_and_score_completions(inputs)
        ids = torch.cat([out["prompt_ids"], out["completion_ids"]], 1)
        mask = torch.cat([out["prompt_mask"], out["completion_mask"]], 1)
        with torch.no_grad():
            logps, _, _ = self._get_per_token_logps_and_entropies(self.model, ids, mask, out["completion_ids"].size(1),
                                                                 batch_size=ids.size(0))
        self.captured = {k: v for k, v in out.items() if hasattr(v, "tolist")} | {"policy_logps": logps}
        return out


def _rows(captured, i):
    """Row i of the batch as lists: prompt ids (unpadded), completion ids, env mask, sampling logprobs."""
    prompt = [t for t, m in zip(captured["prompt_ids"][i].tolist(), captured["prompt_mask"][i].tolist(), strict=True) if m]
    n = int(captured["completion_mask"][i].sum())
    return (prompt, captured["completion_ids"][i, :n].tolist(), captured["tool_mask"][i, :n].tolist(),
            captured["sampling_per_token_logps"][i, :n].tolist(), captured["policy_logps"][i, :n].tolist())


def _sampled_runs(prompt, completion, mask):
    """(context ids, run ids) for every run of env_mask == 1: what each model call saw and sampled."""
    runs, start = [], None
    for p, m in enumerate([*mask, 0]):
        if m and start is None:
            start = p
        elif not m and start is not None:
            runs.append((tuple(prompt + completion[:start]), tuple(completion[start:p])))
            start = None
    return runs


def _trainer(cls, tmp_path, rollout, rows, reward_funcs, **config):
    tok = build_tiny_tokenizer()
    args = trl.GRPOConfig(output_dir=str(tmp_path), per_device_train_batch_size=2, num_generations=2, max_steps=1,
                          max_completion_length=512, logging_steps=1, report_to="none", save_strategy="no",
                          use_cpu=True, log_completions=False, **config)
    return cls(build_tiny_model(tok), reward_funcs=reward_funcs, args=args, processing_class=tok,
               train_dataset=datasets.Dataset.from_list(rows), rollout_func=rollout)


@pytest.mark.docker
@pytest.mark.slow
def test_rollout_func_trains_on_the_ids_the_engine_sampled(tmp_path):
    """The real tiny model samples (random weights: its turns are parse errors, which is fine
    here): TRL's batch holds exactly the engine's ids, env_mask is 1 on exactly the sampled runs
    and 0 on the env's messages between them, and the logprobs are the policy's own."""
    from codegym.agents.engines.transformers_engine import TransformersEngine

    engines = []

    def engine(trainer):
        engines.append(RecordingEngine(TransformersEngine(trainer.accelerator.unwrap_model(trainer.model),
                                                          trainer.processing_class)))
        return engines[-1]

    rollout = rollout_func("codegym/Toy-v0", engine=engine, max_new_tokens=12, backend="docker", max_turns=2)
    trainer = _trainer(CapturingGRPOTrainer, tmp_path, rollout, rollout_rows(["toy-add-typo"]),
                       [env_reward, *reward_functions(["correctness"])], reward_weights=[1.0, 0.0])
    trainer.train()
    assert trainer.state.global_step == 1 and len(engines) == 1
    assert [ep.stop_reason for ep in rollout.episodes] == ["max_turns"] * 2
    rows = [_rows(trainer.captured, i) for i in range(2)]
    runs = [run for prompt, ids, mask, _, _ in rows for run in _sampled_runs(prompt, ids, mask)]
    assert sorted(runs) == sorted((p, c) for p, c, _ in engines[0].served)  # the same calls, the same ids
    assert len(runs) == 4  # two turns per episode
    tok = trainer.processing_class
    for (prompt, ids, mask, logps, policy), ep in zip(rows, rollout.episodes, strict=True):
        [segment] = ep.segments
        assert prompt == segment.prompt_ids and ids == segment.token_ids()[len(prompt):]
        env_ids = [t for t, m in zip(ids, mask, strict=True) if not m]
        assert env_ids == segment.steps[0].observation_ids and env_ids  # the env's turn, nothing else
        assert "Error" in tok.decode(env_ids) and tok.decode(env_ids).rstrip().endswith("<|im_start|>assistant")
        sampled = [lp for lp, m in zip(logps, mask, strict=True) if m]
        assert sampled == pytest.approx([lp for s in ep.steps for lp in s.logprobs], abs=1e-6)
        assert [lp for lp, m in zip(policy, mask, strict=True) if m] == pytest.approx(sampled, abs=1e-3)
    assert trainer.state.log_history[0]["rewards/env_reward/mean"] == 0.0


@pytest.mark.docker
@pytest.mark.slow
def test_rollout_func_scores_scripted_episodes_through_the_reward_functions(tmp_path):
    """Scripted generations (`ScriptedEngine`; the random model never calls a tool): the first
    rollout fixes the bug with two tool calls, the second gives up. The tool outputs are env
    tokens (mask 0), and the env's rewards reach TRL's reward functions as extra fields."""
    from codegym.agents.engines.scripted_engine import ScriptedEngine

    tok = build_tiny_tokenizer()
    first_turns = iter([json.dumps(FIX), "I cannot tell what is wrong."])

    def respond(prompt: str) -> str:
        turn = prompt.count("<tool_response>")
        if turn == 0:
            text = next(first_turns)
            return f"<tool_call>\n{text}\n</tool_call>" if text.startswith("{") else text
        return f"<tool_call>\n{json.dumps(VIEW)}\n</tool_call>" if turn == 1 else (
            f'<tool_call>\n{json.dumps({"name": "submit", "arguments": {}})}\n</tool_call>')

    engine = RecordingEngine(ScriptedEngine(tok, respond))
    rollout = rollout_func("codegym/Toy-v0", engine=lambda trainer: engine, backend="docker", parse_error_limit=1)
    trainer = _trainer(CapturingGRPOTrainer, tmp_path, rollout, rollout_rows(["toy-add-typo"]),
                       [env_reward, *reward_functions(["correctness", "tests_passed"])],
                       reward_weights=[1.0, 0.0, 0.0])
    trainer.train()
    assert trainer.state.global_step == 1
    assert [ep.reward for ep in rollout.episodes] == [1.0, 0.0]
    assert [ep.stop_reason for ep in rollout.episodes] == ["submitted", "parse_error_limit"], [ep.mask_reason for ep in rollout.episodes]
    logged = trainer.state.log_history[0]
    assert logged["rewards/env_reward/mean"] == 0.5 and logged["rewards/codegym_correctness/mean"] == 0.5
    rows = [_rows(trainer.captured, i) for i in range(2)]
    runs = [_sampled_runs(prompt, ids, mask) for prompt, ids, mask, _, _ in rows]
    assert sorted(runs[0] + runs[1]) == sorted((p, c) for p, c, _ in engine.served)
    assert [len(r) for r in runs] == [3, 1]  # fix, view, submit / give up
    _, ids, mask, _, _ = rows[0]
    env_text = tok.decode([t for t, m in zip(ids, mask, strict=True) if not m])
    assert env_text.count("<tool_response>") == 2 and "a + b" in env_text  # the edit's and the view's output
    assert "<tool_call>" not in env_text
