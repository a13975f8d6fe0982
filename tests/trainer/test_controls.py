"""The learning benchmark's trainer options: shuffled rewards (a control), and the entropy and
KL-to-reference metrics, on real episodes of Toy-v0 in Docker with the tiny model."""

from __future__ import annotations

import pytest

from codegym.trainer.config import config_from_dict
from codegym.trainer.data import Episode, to_sequences
from codegym.trainer.loop import Trainer, shuffled_rewards


def _episodes() -> list[Episode]:
    eps = [Episode(f"t{i % 3}", f"g{i % 3}", reward=float(i), reward_components={"correctness": float(i), "x": -i})
           for i in range(8)]
    eps[2].mask("sandbox_error")
    return eps


def test_shuffled_rewards_permute_kept_rewards_with_their_components():
    eps = _episodes()
    out = shuffled_rewards(eps, seed=3)
    kept = [i for i, e in enumerate(eps) if e.train_mask]
    assert sorted(out[i].reward for i in kept) == sorted(eps[i].reward for i in kept)  # same distribution
    assert [out[i].reward for i in kept] != [eps[i].reward for i in kept]  # but moved
    assert out[2] is eps[2]  # a masked episode keeps its own (it is not trained on anyway)
    for e in out:  # the components travel with the scalar reward
        assert e.reward_components["correctness"] == e.reward and e.reward_components["x"] == -e.reward
    assert [e.reward for e in eps] == [float(i) for i in range(8)]  # the input is untouched
    assert [e.reward for e in shuffled_rewards(eps, seed=3)] == [e.reward for e in out]  # seeded
    assert [e.reward for e in shuffled_rewards(eps, seed=4)] != [e.reward for e in out]
    assert [e.task_id for e in out] == [e.task_id for e in eps]  # the episodes themselves stay put


def tiny_config(out, **algorithm):
    return config_from_dict({
        "algorithm": {"name": "grpo", "epochs": 1, **algorithm}, "model": {"lora_r": 4, "lora_alpha": 8},
        "env": {"tasks": ["toy-add-typo", "toy-max-of"], "max_turns": 2,
                "kwargs": {"backend": "docker", "tools": ["create", "submit"]}},
        "rollout": {"tasks_per_iteration": 2, "group_size": 2, "max_new_tokens": 8, "max_envs": 4},
        "run": {"iterations": 1, "out_dir": str(out), "progress": False, "tensorboard": False}})


@pytest.mark.docker
def test_shuffle_rewards_reaches_the_update_and_metrics_keep_the_true_rewards(tmp_path, monkeypatch):
    import codegym.trainer.loop as loop

    seen = {}
    real = loop.to_sequences

    def spy(episodes, *a, **kw):
        seen["episodes"] = list(episodes)
        return real(episodes, *a, **kw)

    monkeypatch.setattr(loop, "to_sequences", spy)
    trainer = Trainer(tiny_config(tmp_path, shuffle_rewards=True))
    collected = {}
    real_collect = trainer._collect

    def keep(it, tasks, stats):
        collected["episodes"] = real_collect(it, tasks, stats)
        # distinct rewards so a permutation is visible (the tiny random policy scores 0 everywhere)
        for i, e in enumerate(collected["episodes"]):
            e.reward, e.reward_components = float(i), {**e.reward_components, "correctness": float(i)}
        return collected["episodes"]

    trainer._collect = keep
    m = trainer.train_iteration()
    true = [e.reward for e in collected["episodes"]]
    assert true == [float(i) for i in range(4)]
    trained = [e.reward for e in seen["episodes"]]
    assert sorted(trained) == sorted(true) and trained != true
    assert m["reward/mean"] == pytest.approx(sum(true) / len(true))
    batch = to_sequences(seen["episodes"], trainer.tokenizer.pad_token_id)
    assert sorted(set(batch.scores.tolist())) == sorted(set(true))


def _distinct_rewards(trainer) -> None:
    """Give the collected episodes rewards 0, 1, 2, ... (components too), before the update sees them."""
    real = trainer._collect

    def collect(it, tasks, stats):
        episodes = real(it, tasks, stats)
        for i, e in enumerate(episodes):
            e.reward, e.reward_components = float(i), {**e.reward_components, "correctness": float(i)}
        return episodes

    trainer._collect = collect


@pytest.mark.docker
def test_entropy_and_kl_to_the_reference_are_logged(tmp_path):
    cfg = tiny_config(tmp_path, log_kl_ref=True)
    cfg.optim.lr = 1e-2
    trainer = Trainer(cfg)
    _distinct_rewards(trainer)  # the tiny random policy scores 0 everywhere: no advantage, no update
    m0 = trainer.train_iteration()
    # the sampled tokens' mean -log pi_old at T=1: a 2048-token random tiny model is near uniform
    assert 5.0 < m0["policy/entropy"] < 8.0
    # the one mini-batch of iteration 0 is scored before its step, when the policy is still the
    # reference (a fresh LoRA adapter, B = 0): KL 0
    assert abs(m0["policy/kl_ref"]) < 1e-4
    for _ in range(2):
        m = trainer.train_iteration()
    assert abs(m["policy/kl_ref"]) > 1e-3  # two updates at lr 1e-2 later the policy has moved
    plain = Trainer(tiny_config(tmp_path / "plain"))
    assert "policy/kl_ref" not in plain.train_iteration()  # off by default: no extra forward pass
