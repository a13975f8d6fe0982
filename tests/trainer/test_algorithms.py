"""Algorithm specs: one registration makes a new algorithm validated by the config, fed by the data
path and trained by the Trainer; the built-in specs say what the trainer used to hard-code."""

from __future__ import annotations

import pytest
import torch

from codegym.trainer.advantages import ADVANTAGES, AdvantageResult, compute_advantages
from codegym.trainer.algorithms import (
    ALGORITHMS,
    AlgorithmSpec,
    get_algorithm,
    register_algorithm,
    unregister_algorithm,
)
from codegym.trainer.config import ConfigError, config_from_dict
from codegym.trainer.data import Episode, Segment, Step, to_sequences


def toy_mean_advantages(*, response_mask: torch.Tensor, scores: torch.Tensor, traj_ids: torch.Tensor,
                        shift: float = 0.0) -> AdvantageResult:
    """A_i = r_i - mean_j r_j + shift: the mean over episodes (rows of one episode share its traj id)."""
    per_episode = {int(t): float(s) for t, s in zip(traj_ids.tolist(), scores.tolist(), strict=True)}
    mean = sum(per_episode.values()) / len(per_episode)
    adv = ((scores.double() - mean + shift)[:, None] * response_mask).float()
    return AdvantageResult(adv, adv.clone())


def _no_single_env(cfg) -> list[str]:
    return ["toy_mean wants rollout.max_envs >= 2"] if cfg.rollout.max_envs < 2 else []


SPEC = AlgorithmSpec("toy_mean", "toy_mean",
                     {"response_mask": "completion_mask", "scores": "scores", "traj_ids": "episode_index"},
                     min_group_size=3, checks=(_no_single_env,))


@pytest.fixture
def toy_algorithm():
    register_algorithm(SPEC, estimator_fn=toy_mean_advantages)
    yield SPEC
    unregister_algorithm("toy_mean")
    ADVANTAGES.pop("toy_mean", None)


def test_builtin_specs_say_what_the_trainer_needs():
    assert list(ALGORITHMS) == ["ppo", "grpo", "gigpo", "tree_grpo", "gdpo", "gd2po"]
    assert get_algorithm("ppo").critic and get_algorithm("gae").name == "ppo"
    assert [n for n, s in ALGORITHMS.items() if s.rollout == "trees"] == ["tree_grpo"]
    assert [n for n, s in ALGORITHMS.items() if s.reward_components] == ["gdpo", "gd2po"]
    assert all(s.estimator in ADVANTAGES for s in ALGORITHMS.values())
    assert get_algorithm("tree_grpo").sequence_options({"shared_prefix": "every_leaf"}) == {"mask_shared_prefix": False}
    assert get_algorithm("grpo").sequence_options({}) == {}
    with pytest.raises(KeyError, match="unknown algorithm 'dpo'"):
        get_algorithm("dpo")
    with pytest.raises(ValueError, match="already registered"):
        register_algorithm(AlgorithmSpec("grpo", "gae", {}))


def test_a_registered_spec_is_validated_from_its_fields(toy_algorithm):
    cfg = config_from_dict({"algorithm": {"name": "toy_mean", "advantage_kwargs": {"shift": 0.5}},
                            "rollout": {"group_size": 3}})
    assert cfg.estimator == "toy_mean" and cfg.critic_mode == "none" and cfg.algorithm_spec is SPEC
    for data, needle in [
        ({"rollout": {"group_size": 2}}, "toy_mean normalizes within groups: rollout.group_size must be >= 3"),
        ({"rollout": {"max_envs": 1}}, "toy_mean wants rollout.max_envs >= 2"),  # the spec's own check
        ({"algorithm": {"advantage_kwargs": {"scores": 1}}}, "['scores'] are not settable options of toy_mean"),
        ({"algorithm": {"advantage_kwargs": {"gamma": 1}}}, "settable: shift"),
        ({"algorithm": {"kl_in_reward": 0.1}}, "kl_in_reward applies only to ppo"),
        ({"rollout": {"trees": 2}}, "apply only to tree_grpo"),
        ({"model": {"critic": "shared"}}, "trained only by algorithm ppo; toy_mean does not use values"),
        ({"algorithm": {"reward_components": ["format"]}}, "apply only to gdpo and gd2po; toy_mean"),
    ]:
        base = {"algorithm": {"name": "toy_mean"}, "rollout": {"group_size": 3}}
        for k, v in data.items():
            base[k] = {**base.get(k, {}), **v}
        with pytest.raises(ConfigError) as err:
            config_from_dict(base)
        assert needle in str(err.value), (data, str(err.value))
    unknown = pytest.raises(ConfigError, match="algorithm.name 'toy_mean' is unknown")
    unregister_algorithm("toy_mean")
    with unknown:
        config_from_dict({"algorithm": {"name": "toy_mean"}})


def test_a_registered_spec_feeds_its_estimator_from_the_batch(toy_algorithm):
    def ep(i, reward, segments=1):
        steps = [Step([10 + i, 11], [0.0, 0.0], observation_ids=[4]), Step([12], [0.0])]
        segs = [Segment([1, 2], steps)] if segments == 1 else [Segment([1, 2], steps[:1]),
                                                               Segment([1, 3], steps[1:], "compaction", 1)]
        return Episode("t", "g", segs, reward=reward, episode_id=f"e{i}")

    batch = to_sequences([ep(0, 1.0, segments=2), ep(1, 0.0), ep(2, 0.0)], pad_id=0)
    inputs = batch.advantage_inputs("toy_mean")
    assert set(inputs) == {"response_mask", "scores", "traj_ids"}
    adv = compute_advantages("toy_mean", **inputs).advantages
    # the compacted episode is one episode: mean 1/3, so its rows get 2/3 and the others -1/3
    assert adv[0][batch.completion_mask[0] == 1].tolist() == pytest.approx([2 / 3] * 2)
    assert adv[1][batch.completion_mask[1] == 1].tolist() == pytest.approx([2 / 3])
    assert adv[2][batch.completion_mask[2] == 1].tolist() == pytest.approx([-1 / 3] * 3)


@pytest.mark.docker
def test_a_registered_spec_trains(toy_algorithm, tmp_path):
    from codegym.trainer.loop import Trainer

    cfg = config_from_dict({
        "algorithm": {"name": "toy_mean", "advantage_kwargs": {"shift": 0.25}},  # nonzero advantages
        "model": {"lora_r": 4, "lora_alpha": 8},
        "env": {"tasks": ["toy-add-typo"], "max_turns": 2, "kwargs": {"backend": "docker", "tools": ["create", "submit"]}},
        "rollout": {"tasks_per_iteration": 1, "group_size": 3, "max_new_tokens": 8, "max_envs": 3},
        "run": {"iterations": 1, "out_dir": str(tmp_path), "progress": False, "tensorboard": False}})
    trainer = Trainer(cfg)
    try:
        [m] = trainer.train()
    finally:
        trainer.close()
    assert m["episodes/count"] == 3 and m["update/policy_steps"] == 1 and trainer.policy_version == 1
    assert m["advantages/abs_mean"] > 0 and "values/mean" not in m
