"""Behaviour cloning: compact-oracle episodes through the real env score 1, SFT lowers their NLL, and
the warm start stops once the oracle success (probability of sampling the oracle episode) hits a target."""

from __future__ import annotations

import math

import gymnasium as gym
import pytest

import codegym  # noqa: F401
from codegym.tasks.loader import load_tasks
from codegym.trainer.config import ModelConfig
from codegym.trainer.data import to_sequences
from codegym.trainer.models import build_models, load_base, token_logprobs
from codegym.trainer.sft import compact_oracle_calls, oracle_episodes, oracle_success, sft

pytestmark = pytest.mark.docker


def test_compact_oracle_and_sft():
    tasks = [t for t in load_tasks("toy") if t.instance_id == "toy-add-typo"]
    calls = compact_oracle_calls(tasks[0])
    assert '"name": "create"' in calls[0] and '"name": "submit"' in calls[-1]
    models = build_models(ModelConfig(base="tiny", lora_r=4, lora_alpha=8))
    make_env = lambda: gym.make("codegym/Toy-v0", backend="docker", max_turns=2, tools=["create", "submit"])  # noqa: E731
    [ep] = oracle_episodes(make_env, models.tokenizer, tasks)
    assert ep.reward == 1.0 and ep.num_steps == 2 and ep.completion_tokens > 10
    losses = sft(models, [ep], steps=4, lr=1e-2, batch_rows=1)
    assert losses[-1] < losses[0]
    base, _ = load_base(ModelConfig(base="tiny"))
    full = sft(base, [ep], steps=4, lr=1e-2, batch_rows=1, full=True)
    assert full[-1] < full[0]

    # oracle success = exp(total completion logprob) of the episode
    batch = to_sequences([ep], models.tokenizer.pad_token_id)
    base.eval()

    def lp(ids, attn):
        return token_logprobs(base(input_ids=ids, attention_mask=attn).logits, ids, 1.0)

    total = float((lp(batch.input_ids, batch.attention_mask) * batch.completion_mask).sum())
    assert oracle_success(lp, batch, "cpu") == pytest.approx(math.exp(total), rel=1e-4)

    # the warm start stops at the target: checked before the first step and every eval_every steps
    history: list[dict] = []
    target = 0.2
    steps = sft(base, [ep], steps=150, lr=1e-2, batch_rows=1, full=True, target_success=target, eval_every=1,
                history=history)
    assert history[0]["step"] == 0 and [h["step"] for h in history] == list(range(len(history)))
    assert history[-1]["success"] >= target > max(h["success"] for h in history[:-1])
    assert len(steps) == history[-1]["step"] < 150
    assert sft(base, [ep], steps=5, lr=1e-2, batch_rows=1, full=True, target_success=target) == []  # already there


def test_demonstrations_come_from_the_task_itself():
    from codegym.tasks.suites.families import family_tasks
    from codegym.tasks.suites.toy import TOYS
    from codegym.trainer.sft import demonstration

    for task in load_tasks("toy"):  # the reference patch, as create calls: the toy's fixed files exactly
        toy = next(t for t in TOYS if f"toy-{t.name}" == task.instance_id)
        calls = demonstration(task)
        assert {c.arguments["path"]: c.arguments["file_text"] for c in calls[:-1]} == toy.fixed
    [task] = family_tasks("train", "lookup")[:1]  # a generator's demonstration: read first, then act
    models = build_models(ModelConfig(base="tiny", lora_r=4, lora_alpha=8))
    make_env = lambda: gym.make("codegym/Families-v0", families="lookup", backend="docker", max_turns=3)  # noqa: E731
    [ep] = oracle_episodes(make_env, models.tokenizer, [task])
    assert ep.reward == 1.0 and [s.tool_name for s in ep.steps] == ["view", "create", "submit"]


def test_sft_stops_at_its_wall_time_budget():
    """`max_seconds`: the "SFT continued for the same compute" control of the learning benchmark."""
    import time

    tasks = [t for t in load_tasks("toy") if t.instance_id == "toy-add-typo"]
    base, tok = load_base(ModelConfig(base="tiny"))
    make_env = lambda: gym.make("codegym/Toy-v0", backend="docker", max_turns=2, tools=["create", "submit"])  # noqa: E731
    episodes = oracle_episodes(make_env, tok, tasks)
    one = time.monotonic()
    sft(base, episodes, steps=1, lr=1e-3, batch_rows=1, full=True)
    step_s = time.monotonic() - one
    t0 = time.monotonic()
    losses = sft(base, episodes, steps=10**9, lr=1e-3, batch_rows=1, full=True, max_seconds=1.0)
    took = time.monotonic() - t0
    assert len(losses) >= 1 and 1.0 <= took < 1.0 + 10 * step_s + 1.0


def test_sft_decay_lowers_the_learning_rate_linearly_to_zero(monkeypatch):
    """`decay=True`: lr_k = lr * (1 - k / steps), so the warm start ends where the demonstrations'
    mix puts it, not where its last batches pushed it."""
    import torch

    tasks = [t for t in load_tasks("toy") if t.instance_id == "toy-add-typo"]
    base, tok = load_base(ModelConfig(base="tiny"))
    make_env = lambda: gym.make("codegym/Toy-v0", backend="docker", max_turns=2, tools=["create", "submit"])  # noqa: E731
    episodes = oracle_episodes(make_env, tok, tasks)
    seen: list[float] = []
    real_step = torch.optim.AdamW.step

    def spy(self, *a, **kw):
        seen.append(self.param_groups[0]["lr"])
        return real_step(self, *a, **kw)

    monkeypatch.setattr(torch.optim.AdamW, "step", spy)
    sft(base, episodes, steps=4, lr=1e-3, batch_rows=1, full=True, decay=True)
    assert seen == pytest.approx([1e-3, 7.5e-4, 5e-4, 2.5e-4])
    seen.clear()
    sft(base, episodes, steps=3, lr=1e-3, batch_rows=1, full=True)
    assert seen == pytest.approx([1e-3] * 3)  # constant by default
