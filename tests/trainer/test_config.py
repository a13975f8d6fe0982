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
    from codegym.trainer.report import load_main_job

    # main_job.yaml is a training config plus its `main:` section
    cfg = load_main_job(path)[0] if path.stem == "main_job" else load_config(path)
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


# ---- types, ranges, the env and its tasks -------------------------------------------------------------


def test_yaml_numbers_in_any_notation_are_coerced_to_the_fields_type(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("optim:\n  lr: 1e-3\n  critic_lr: 3E-4\n  betas: ['0.9', 0.95]\n"  # YAML 1.1 reads 1e-3 as a str
                 "run:\n  iterations: 1_000\n  save_every: 1e2\n  progress: 'false'\n"
                 "rollout:\n  temperature: 1\n  max_envs: '4'\n"
                 "env:\n  reward_weights: {correctness: '1', format: 0.5e-1}\n")
    cfg = load_config(p)
    o, r = cfg.optim, cfg.run
    assert (o.lr, o.critic_lr, o.betas) == (1e-3, 3e-4, [0.9, 0.95]) and type(o.lr) is float
    assert (r.iterations, r.save_every, r.progress) == (1000, 100, False) and type(r.save_every) is int
    assert type(cfg.rollout.temperature) is float and cfg.rollout.max_envs == 4
    assert cfg.env.reward_weights == {"correctness": 1.0, "format": 0.05}
    from codegym.trainer.config import OptimConfig

    assert TrainConfig(optim=OptimConfig(lr="2e-5")).validate().optim.lr == 2e-5  # built in Python, same rules


@pytest.mark.parametrize("data, needle", [
    ({"run": {"iterations": "ten"}}, "run.iterations must be an integer, got 'ten'"),
    ({"run": {"iterations": 2.5}}, "run.iterations must be an integer, got 2.5"),
    ({"run": {"iterations": True}}, "run.iterations must be an integer, got True"),
    ({"run": {"iterations": None}}, "run.iterations must be an integer, got None"),
    ({"optim": {"lr": "fast"}}, "optim.lr must be a number, got 'fast'"),
    ({"optim": {"lr": float("nan")}}, "optim.lr must be a finite number"),
    ({"optim": {"betas": [0.9, "x"]}}, "optim.betas[1] must be a number, got 'x'"),
    ({"run": {"progress": "maybe"}}, "run.progress must be true or false, got 'maybe'"),
    ({"env": {"tasks": "toy-add-typo"}}, "env.tasks must be a list, got 'toy-add-typo'"),
    ({"env": {"reward_weights": {"correctness": "high"}}}, "env.reward_weights.correctness must be a number"),
    ({"model": {"base": ["tiny"]}}, "model.base must be a string"),
])
def test_values_of_the_wrong_type_name_the_field(data, needle):
    with pytest.raises(ConfigError) as err:
        config_from_dict(data)
    assert needle in str(err.value)


def test_a_yaml_value_of_the_wrong_type_is_a_config_error_naming_file_and_field(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("run:\n  iterations: ten\n")
    with pytest.raises(ConfigError, match=r"(?s)c.yaml: .*run.iterations must be an integer, got 'ten'"):
        load_config(p)


@pytest.mark.parametrize("data, needle", [
    ({"algorithm": {"kl_coef": -1}}, "algorithm.kl_coef must be >= 0 (got -1.0)"),
    ({"algorithm": {"name": "ppo", "kl_in_reward": -0.1}}, "algorithm.kl_in_reward must be >= 0 (got -0.1)"),
    ({"algorithm": {"clip_low": 1.0}}, "algorithm.clip_low must be in (0, 1) (got 1.0)"),
    ({"algorithm": {"clip_high": -0.1}}, "algorithm.clip_high must be > 0 (got -0.1)"),
    ({"algorithm": {"dual_clip": 1}}, "algorithm.dual_clip must be > 1 (got 1.0)"),
    ({"algorithm": {"name": "ppo", "value_clip": 0}}, "algorithm.value_clip must be > 0 (got 0.0)"),
    ({"algorithm": {"name": "ppo", "value_coef": -1}}, "algorithm.value_coef must be >= 0 (got -1.0)"),
    ({"algorithm": {"name": "ppo", "critic_warmup": -1}}, "algorithm.critic_warmup must be >= 0 (got -1)"),
    ({"algorithm": {"epochs": 0}}, "algorithm.epochs must be >= 1 (got 0)"),
    ({"algorithm": {"micro_batch_tokens": 0}}, "algorithm.micro_batch_tokens must be >= 1 (got 0)"),
    ({"optim": {"lr": 0}}, "optim.lr must be > 0 (got 0.0)"),
    ({"optim": {"lr": "-1e-3"}}, "optim.lr must be > 0 (got -0.001)"),
    ({"optim": {"critic_lr": 0}}, "optim.critic_lr must be > 0 (got 0.0)"),
    ({"optim": {"weight_decay": -0.1}}, "optim.weight_decay must be >= 0 (got -0.1)"),
    ({"optim": {"betas": [0.9, 1.0]}}, "optim.betas[1] must be in [0, 1) (got 1.0)"),
    ({"optim": {"betas": [0.9]}}, "optim.betas must be two numbers"),
    ({"optim": {"max_grad_norm": 0}}, "optim.max_grad_norm must be > 0 (got 0.0)"),
    ({"optim": {"warmup_steps": -1}}, "optim.warmup_steps must be >= 0 (got -1)"),
    ({"rollout": {"temperature": -1}}, "rollout.temperature must be > 0 (got -1.0): greedy decoding"),
    ({"rollout": {"max_envs": 0}}, "rollout.max_envs must be >= 1 (got 0)"),
    ({"rollout": {"max_batch_size": 0}}, "rollout.max_batch_size must be >= 1 (got 0)"),
    ({"rollout": {"tasks_per_iteration": 0}}, "rollout.tasks_per_iteration must be >= 1 (got 0)"),
    ({"algorithm": {"name": "tree_grpo"}, "rollout": {"trees": 0}}, "rollout.trees must be >= 1 (got 0)"),
    ({"model": {"lora_r": 0}}, "model.lora_r must be >= 1 (got 0)"),
    ({"model": {"lora_dropout": 1}}, "model.lora_dropout must be in [0, 1) (got 1.0)"),
    ({"model": {"tiny_seed": -1}}, "model.tiny_seed must be >= 0 (got -1)"),
    ({"env": {"max_turns": 0}}, "env.max_turns must be >= 1 (got 0)"),
    ({"run": {"seed": -3}}, "run.seed must be >= 0 (got -3)"),
    ({"run": {"keep_checkpoints": -1}}, "run.keep_checkpoints must be >= 0 (got -1)"),
    ({"run": {"threads": -1}}, "run.threads must be >= 0 (got -1)"),
    ({"sft": {"lr": 0}}, "sft.lr must be > 0 (got 0.0)"),
    ({"sft": {"target_success": 1.5}}, "sft.target_success must be in (0, 1] (got 1.5)"),
])
def test_values_out_of_range_are_refused(data, needle):
    with pytest.raises(ConfigError) as err:
        config_from_dict(data)
    assert needle in str(err.value)


def test_describe_shows_the_ranges():
    text = describe()
    assert "optim.lr = 0.0001  # (> 0) " in text and "algorithm.clip_low = 0.2  # (in (0, 1)) " in text


@pytest.mark.parametrize("data, needle", [
    ({"env": {"id": "codegym/Nope-v0"}}, "env.id 'codegym/Nope-v0' is not a registered Gymnasium id"),
    ({"env": {"id": "codegym/Toy-v9"}}, "codegym registers codegym/Families-v0, codegym/HumanEval-v0"),
    ({"env": {"tasks": ["toy-add-typo", "toy-nope"]}}, "env.tasks: unknown task id(s) ['toy-nope'] in 'toy'"),
    ({"env": {"id": "codegym/RepoFix-v0", "tasks": ["toy-add-typo"]}}, "unknown task id(s) ['toy-add-typo'] in 'repofix'"),
    ({"sft": {"tasks": ["toy-nope"]}}, "sft.tasks: unknown task id(s) ['toy-nope']"),
    ({"env": {"id": "codegym/Tasks-v0"}}, "codegym/Tasks-v0 needs env.kwargs.tasks"),
    ({"env": {"id": "codegym/Tasks-v0", "kwargs": {"tasks": "/no/such.jsonl"}}},
     "env.kwargs.tasks '/no/such.jsonl' cannot be loaded"),
    ({"env": {"kwargs": {"backend": "podman"}}},
     "env.kwargs.backend 'podman' is not a sandbox backend; use one of 'auto', 'docker', 'local'"),
])
def test_unknown_env_ids_and_task_ids_are_refused_before_training(data, needle):
    with pytest.raises(ConfigError) as err:
        config_from_dict(data)
    assert needle in str(err.value)


def test_task_ids_of_a_jsonl_suite_are_accepted(tmp_path):
    from codegym.tasks.loader import load_tasks, write_tasks_jsonl

    path = tmp_path / "tasks.jsonl"
    write_tasks_jsonl(load_tasks("toy")[:2], path)
    ids = [t.instance_id for t in load_tasks(path)]
    cfg = config_from_dict({"env": {"id": "codegym/Tasks-v0", "tasks": ids, "kwargs": {"tasks": str(path)}}})
    assert cfg.env.tasks == ids
    with pytest.raises(ConfigError, match=r"unknown task id\(s\) \['not-in-the-file'\]"):
        config_from_dict({"env": {"id": "codegym/Tasks-v0", "tasks": ["not-in-the-file"], "kwargs": {"tasks": str(path)}}})
