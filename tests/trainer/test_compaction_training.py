"""Compaction during training, on `noisy_log` at the learning benchmark's small budget: viewing the log
compacts the context, so an episode is two segments, the field to write is still in the second one's
context, and the trainer trains one row per segment (real env in Docker, real tiny model)."""

from __future__ import annotations

import pytest

from codegym.trainer.config import config_from_dict
from codegym.trainer.data import to_sequences
from codegym.trainer.loop import Trainer, default_make_env, episode_metrics
from codegym.trainer.sft import oracle_episodes

pytestmark = pytest.mark.docker

#: what `benchmarks/learning.py --families noisy_log --context-budget 512 --compaction-strategy window` runs
BUDGET, STRATEGY = 512, "window"


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    from codegym.tasks.suites.families import family_tasks

    tasks = family_tasks("train", "noisy_log")[:2]
    cfg = config_from_dict(
        {
            "algorithm": {"name": "grpo", "epochs": 1},
            "model": {"lora_r": 4, "lora_alpha": 8},
            "env": {
                "id": "codegym/Families-v0",
                "tasks": [t.instance_id for t in tasks],
                "max_turns": 3,
                "kwargs": {
                    "split": "train",
                    "families": ["noisy_log"],
                    "tools": ["view", "create", "submit"],
                    "backend": "docker",
                    "context_budget": BUDGET,
                    "compaction_strategy": STRATEGY,
                    "system_prompt": "Solve the task with tool calls, one per message. Call submit when done.",
                },
            },
            "rollout": {"tasks_per_iteration": 1, "group_size": 2, "max_new_tokens": 64, "max_envs": 2},
            "run": {"out_dir": str(tmp_path_factory.mktemp("run")), "progress": False, "tensorboard": False},
        }
    )
    trainer = Trainer(cfg)
    episodes = oracle_episodes(default_make_env(cfg), trainer.tokenizer, tasks, max_envs=2)
    yield cfg, trainer, tasks, episodes
    trainer.close()


def test_a_noisy_log_demonstration_is_two_segments_and_the_field_survives(setup):
    _, trainer, tasks, episodes = setup
    tok = trainer.tokenizer
    assert len(episodes) == 2 and all(e.reward == 1.0 for e in episodes)
    for e in episodes:
        task = next(t for t in tasks if t.instance_id == e.task_id)
        fix = next(c for c in task.metadata["demonstration"] if c["name"] == "create")["arguments"][
            "file_text"
        ]
        first, second = e.segments
        assert [len(s.steps) for s in e.segments] == [1, 2]  # view | create, submit
        assert "view" in tok.decode(first.steps[0].completion_ids)
        assert second.start_reason == "compaction"
        # the view's output was cut to its head and tail, which still hold the warning naming the field
        context = tok.decode(second.prompt_ids)
        assert "characters elided" in context and fix.strip() in context
        assert fix.strip() in tok.decode(second.steps[0].completion_ids).replace("\\n", "\n")
        # each row stays under 704 tokens, so the copying base's last stage is 768 wide (learning.prepare_base)
        assert all(len(s.token_ids()) <= 704 for s in e.segments)


def test_the_trainer_trains_one_row_per_segment(setup):
    _, trainer, _, episodes = setup
    batch = to_sequences(episodes, trainer.tokenizer.pad_token_id)
    assert batch.num_rows == 4
    assert batch.episode_index.tolist() == [0, 0, 1, 1] and batch.segment_index.tolist() == [0, 1, 0, 1]
    for r, (i, j) in enumerate(zip(batch.episode_index.tolist(), batch.segment_index.tolist(), strict=True)):
        seg = episodes[i].segments[j]
        assert int(batch.completion_mask[r].sum()) == sum(len(s.completion_ids) for s in seg.steps)
    metrics = trainer.update_on(episodes)
    assert metrics["batch/rows"] == 4 == episode_metrics(episodes)["batch/segments"]
    assert metrics["update/policy_steps"] >= 1
