"""Behaviour cloning: compact-oracle episodes through the real env score 1, and SFT lowers their NLL."""

from __future__ import annotations

import gymnasium as gym
import pytest

import codegym  # noqa: F401
from codegym.tasks.loader import load_tasks
from codegym.trainer.config import ModelConfig
from codegym.trainer.models import build_models, load_base
from codegym.trainer.sft import compact_oracle_calls, oracle_episodes, sft

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
