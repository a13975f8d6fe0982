"""Trainer config: defaults run, every field is documented, YAML loads, bad combinations are refused."""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from pathlib import Path

import pytest

from codegym.trainer.config import ConfigError, TrainConfig, config_from_dict, describe, load_config

EXAMPLES = sorted(Path(__file__).resolve().parents[2].glob("examples/*.yaml"))


def test_defaults_validate_and_derive():
    cfg = TrainConfig().validate()
    assert cfg.algorithm.name == "grpo" and cfg.critic_mode == "none" and cfg.estimator == "grpo"
    ppo = config_from_dict({"algorithm": {"name": "ppo"}})
    assert ppo.critic_mode == "shared" and ppo.estimator == "gae"
    assert config_from_dict({"algorithm": {"name": "gdpo"}}).reward_components == ["correctness", "format", "length"]
    assert config_from_dict({"algorithm": {"name": "tree_grpo"}}).tree_shape == (2, 1, 2)


def test_every_field_is_documented():
    def walk(cls):
        for f in fields(cls):
            assert f.metadata.get("help"), f"{cls.__name__}.{f.name} has no help"
            if f.default_factory is not None and is_dataclass(f.default_factory):
                walk(f.default_factory)

    walk(TrainConfig)
    text = describe()
    assert "algorithm.clip_low = 0.2" in text and "model.critic" in text


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_load(path):
    cfg = load_config(path)
    assert cfg.algorithm.name in ("ppo", "grpo", "gigpo", "tree_grpo", "gdpo", "gd2po")


def test_examples_cover_every_algorithm():
    names = {p.stem for p in EXAMPLES}
    assert {f"train_{a}" for a in ("ppo", "grpo", "gigpo", "tree_grpo", "gdpo", "gd2po")} <= names


@pytest.mark.parametrize("data, needle", [
    ({"algoritm": {}}, "unknown key(s) ['algoritm']"),
    ({"algorithm": {"clip": 0.2}}, "unknown key(s) ['clip'] in algorithm"),
    ({"algorithm": {"name": "dpo"}}, "algorithm.name 'dpo' is unknown"),
    ({"algorithm": {"name": "ppo"}, "model": {"critic": "none"}}, "ppo needs a critic"),
    ({"algorithm": {"name": "grpo"}, "model": {"critic": "shared"}}, "trained only by algorithm ppo"),
    ({"algorithm": {"name": "grpo"}, "rollout": {"trees": 3}}, "apply only to tree_grpo"),
    ({"algorithm": {"name": "grpo", "reward_components": ["format"]}}, "apply only to gdpo and gd2po"),
    ({"algorithm": {"name": "gdpo", "reward_components": ["a", "b"], "component_weights": [1.0]}}, "has 1 entries"),
    ({"algorithm": {"name": "gigpo"}, "rollout": {"group_size": 1}}, "group_size must be >= 2"),
    ({"rollout": {"top_p": 0.9}}, "top_p must be 1.0"),
    ({"rollout": {"temperature": 0}}, "temperature must be > 0"),
    ({"algorithm": {"name": "grpo", "kl_in_reward": 0.01}}, "kl_in_reward applies only to ppo"),
    ({"algorithm": {"name": "ppo", "advantage_kwargs": {"lamda": 0.9}}}, "not settable options of gae"),
    ({"algorithm": {"name": "ppo", "advantage_kwargs": {"values": 1}}}, "not settable options of gae"),
    ({"algorithm": {"loss_agg": "mean"}}, "algorithm.loss_agg 'mean'"),
    ({"model": {"critic": "both"}}, "model.critic 'both'"),
    ({"algorithm": {"name": "gigpo"}, "env": {"kwargs": {"state_key": "none"}}}, "state keys"),
])
def test_bad_configs_are_refused(data, needle):
    with pytest.raises(ConfigError) as err:
        config_from_dict(data)
    assert needle in str(err.value)


def test_advantage_kwargs_accepted():
    cfg = config_from_dict({"algorithm": {"name": "ppo", "advantage_kwargs": {"gamma": 0.99, "lam": 0.95}}})
    assert cfg.algorithm.advantage_kwargs == {"gamma": 0.99, "lam": 0.95}


def test_yaml_errors_name_the_file(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("algorithm:\n  name: ppo\nmodel:\n  critic: none\n")
    with pytest.raises(ConfigError, match="bad.yaml"):
        load_config(p)
    p.write_text("algorithm: [\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(p)


def test_overrides_merge(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("run:\n  iterations: 5\n  seed: 3\n")
    cfg = load_config(p, {"run": {"iterations": 1}})
    assert cfg.run.iterations == 1 and cfg.run.seed == 3
