"""Trainer configuration: dataclasses loadable from YAML, every field documented, checked as a whole.

    cfg = load_config("examples/train_gigpo.yaml")          # or TrainConfig(algorithm=AlgorithmConfig("ppo"))
    cfg = load_config("x.yaml", overrides={"run": {"iterations": 2}})
    print(describe())                                       # every field with its default and help

Sections: `model` (base, LoRA, critic), `env` (which envs, which tasks), `rollout` (sampling,
group sizes, trees), `algorithm` (advantage estimator and PPO loss), `optim` (optimizers and
schedules), `run` (iterations, output, checkpoints, logging). `validate()` rejects unknown keys and
incompatible combinations with a message that says what to change; nothing is silently ignored.
This module imports neither torch nor transformers.
"""

from __future__ import annotations

import inspect
from dataclasses import MISSING, asdict, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any

#: algorithm name -> advantage estimator registered in `codegym.trainer.advantages`.
ALGORITHMS: dict[str, str] = {"ppo": "gae", "grpo": "grpo", "gigpo": "gigpo", "tree_grpo": "tree_grpo",
                              "gdpo": "gdpo", "gd2po": "gd2po"}


#: mirrors `codegym.trainer.losses` (kept here so loading a config does not import torch).
AGG_MODES = ("token-mean", "seq-mean-token-sum", "seq-mean-token-mean", "seq-mean-token-sum-norm")
KL_KINDS = ("k1", "kl", "abs", "k2", "mse", "k3", "low_var_kl")


class ConfigError(ValueError):
    """A configuration that cannot run: the message says which field and what to do."""


def _f(default: Any, help: str, **kw: Any) -> Any:
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda d=default: type(d)(d), metadata={"help": help}, **kw)
    return field(default=default, metadata={"help": help}, **kw)


@dataclass
class ModelConfig:
    """The policy (a LoRA adapter `policy`), the critic and where they run."""

    base: str = _f("tiny", "Base causal LM: `tiny` or `tiny:small` (the local tiny Qwen2 of "
                   "codegym.agents.tiny), a local directory or a hub id.")
    tiny_seed: int = _f(0, "Initialization seed of a tiny base model.")
    config_only: bool = _f(False, "Build a hub/dir base from its config with random weights (no weight download; "
                           "for throughput benchmarks).")
    dtype: str = _f("auto", "Weights dtype: auto (float32 on CPU, bfloat16 on GPU), float32 or bfloat16.")
    device: str = _f("auto", "auto (cuda when available), cpu or cuda[:N].")
    lora_r: int = _f(16, "LoRA rank of the policy and critic adapters.")
    lora_alpha: int = _f(32, "LoRA alpha (scale alpha / r).")
    lora_dropout: float = _f(0.0, "LoRA dropout (0 keeps recomputed logprobs equal to the engine's).")
    target_modules: list[str] = _f(["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
                                   "Module names that get LoRA layers.")
    critic: str = _f("auto", "auto (shared for ppo, none otherwise), shared (a second LoRA adapter `critic` on the "
                     "same frozen base plus an fp32 value head), separate (a second base model) or none.")
    gradient_checkpointing: bool = _f(False, "Recompute activations in the backward pass (GPU memory).")
    init_adapter: str | None = _f(None, "A peft adapter directory (e.g. from `codegym sft`) that initializes the "
                                  "policy adapter.")


@dataclass
class EnvConfig:
    """Which envs and tasks."""

    id: str = _f("codegym/Toy-v0", "A registered Gymnasium id (guards and compaction on by default).")
    tasks: list[str] = _f([], "Task ids to train on (empty: every task of the env's suite).")
    max_turns: int = _f(3, "Turns per episode before grading.")
    reward_weights: dict[str, float] = _f({}, "Weights of the env's reward components for the scalar reward "
                                          "(empty: the env's default, correctness 1.0).")
    grade_cache: bool = _f(True, "Grade each distinct final diff of a task once per process (rollouts of a "
                           "group often end identically); turn off for tasks with flaky tests.")
    kwargs: dict[str, Any] = _f({}, "More keyword arguments for gym.make (guards, compaction, backend, ...).")


@dataclass
class RolloutConfig:
    """How episodes are sampled."""

    tasks_per_iteration: int = _f(4, "Tasks per iteration (each is one group), drawn by a seeded shuffling "
                                  "sampler over env.tasks.")
    group_size: int = _f(4, "Rollouts per task (grpo, gigpo, gdpo, gd2po, ppo).")
    max_new_tokens: int = _f(96, "Tokens per model turn.")
    temperature: float = _f(1.0, "Sampling temperature (> 0); logprobs are log_softmax(logits / T) on both sides.")
    top_p: float = _f(1.0, "Must be 1.0: neither the engine's nor the trainer's logprobs model a nucleus.")
    stop_at_call: bool = _f(True, "Stop a turn at the end of its first tool call.")
    max_envs: int = _f(8, "Envs stepping concurrently.")
    max_batch_size: int = _f(16, "Sequences per generate call of the engine.")
    trees: int | None = _f(None, "tree_grpo only: trees per task (M; default 2).")
    rounds: int | None = _f(None, "tree_grpo only: expansion rounds (L; default 1).")
    expand: int | None = _f(None, "tree_grpo only: nodes expanded per tree and round (N; default 2).")
    backend: str = _f("local", "Where envs step: local (threads in this process) or ray (RayEnvPool workers; "
                      "pip install 'codegym[ray]'; see docs/ray.md).")
    ray: dict[str, Any] = _f({}, "ray backend only: RayEnvPool options (num_workers, envs_per_worker, address, "
                             "slot_resources, docker_hosts, timeout_s, ...).")


@dataclass
class AlgorithmConfig:
    """Advantages and the PPO-clip loss."""

    name: str = _f("grpo", "ppo (critic + GAE across segments), grpo, gigpo (state keys from the env), tree_grpo "
                   "(tree rollouts), gdpo or gd2po (over reward components).")
    advantage_kwargs: dict[str, Any] = _f({}, "Extra keyword arguments of the estimator (e.g. gamma, lam, "
                                          "step_advantage_weight); checked against its signature.")
    reward_components: list[str] | None = _f(None, "gdpo/gd2po only: the env reward components to normalize "
                                             "separately (default correctness, format, length).")
    component_weights: list[float] | None = _f(None, "gdpo/gd2po only: weights of `reward_components` "
                                               "(default all 1; use a negative weight for length).")
    epochs: int = _f(1, "PPO epochs over each batch (K).")
    mini_batches: int = _f(1, "Optimizer steps per epoch; rows are shuffled and split into this many.")
    micro_batch_tokens: int = _f(8192, "Token budget of a micro-batch (padded rows x width); rows are packed "
                                 "greedily up to it.")
    clip_low: float = _f(0.2, "PPO clip epsilon below 1.")
    clip_high: float | None = _f(0.28, "PPO clip epsilon above 1 (DAPO clip-higher; null: = clip_low).")
    dual_clip: float | None = _f(3.0, "Dual-clip constant c > 1 for negative advantages (null: off).")
    loss_agg: str = _f("token-mean", "Loss aggregation (token-mean over all completion tokens of the mini-batch, "
                       "or a seq-mean mode from codegym.trainer.losses).")
    old_logprobs: str = _f("recompute", "recompute (the trainer model scores the batch before the update, verl "
                           "style) or engine (the rollout engine's logprobs).")
    kl_coef: float = _f(0.0, "Coefficient of a KL(policy || base) loss term (0: off; the reference is the base "
                        "with adapters disabled).")
    kl_kind: str = _f("k3", "KL estimator of the loss term: k1, k2, k3 (see codegym.trainer.losses).")
    kl_in_reward: float = _f(0.0, "ppo only: beta of a per-token KL penalty in the GAE rewards (0: off).")
    value_clip: float | None = _f(0.5, "ppo only: value clipping range (null: unclipped).")
    value_coef: float = _f(1.0, "ppo only: scale of the value loss.")
    critic_warmup: int = _f(0, "ppo only: iterations that update only the critic.")


@dataclass
class OptimConfig:
    """Optimizers (AdamW) and schedules."""

    lr: float = _f(1e-4, "Policy adapter learning rate.")
    critic_lr: float = _f(1e-3, "Critic adapter and value head learning rate.")
    weight_decay: float = _f(0.0, "AdamW weight decay.")
    betas: list[float] = _f([0.9, 0.999], "AdamW betas.")
    max_grad_norm: float = _f(1.0, "Gradient clipping (per optimizer).")
    warmup_steps: int = _f(0, "Linear warmup optimizer steps.")
    schedule: str = _f("constant", "constant or cosine (over run.iterations x epochs x mini_batches steps).")


@dataclass
class RunConfig:
    """The run: length, output, checkpoints, logging."""

    iterations: int = _f(10, "Training iterations (collect + update).")
    seed: int = _f(0, "Seed of everything: sampler, rollouts, shuffling.")
    out_dir: str = _f("runs/train", "Output directory: metrics.jsonl, tensorboard/, checkpoints/.")
    save_every: int = _f(0, "Checkpoint every N iterations (0: only at the end).")
    keep_checkpoints: int = _f(2, "Newest checkpoints kept (0: all).")
    tensorboard: bool = _f(True, "Write TensorBoard events under out_dir/tensorboard.")
    progress: bool = _f(True, "A rich progress display.")
    save_episodes: bool = _f(False, "Append every iteration's episodes to out_dir/episodes.jsonl.")
    probe: bool = _f(True, "Run the adapter-sync probe after every adapter load (raises AdapterSyncError).")
    threads: int = _f(0, "torch CPU threads (0: leave torch's default).")


@dataclass
class SFTConfig:
    """The behaviour-cloning warm start (`codegym sft`, and `codegym main` before training)."""

    steps: int = _f(0, "Optimizer steps on compact-oracle episodes (0: no warm start in `codegym main`).")
    lr: float = _f(1e-3, "SFT learning rate.")
    batch_rows: int = _f(8, "Sequences per SFT step.")
    tasks: list[str] = _f([], "Tasks whose oracle episodes are cloned (empty: env.tasks, else all).")
    target_success: float | None = _f(None, "Stop the warm start once the oracle success reaches this: the mean "
                                      "over the SFT tasks of exp(total logprob of the oracle episode's completion "
                                      "tokens) at temperature 1, the probability of sampling the oracle episode "
                                      "exactly (a lower bound of the T=1 pass rate, so it sets RL's start level); "
                                      "checked every eval_every steps, `steps` is the cap (null: run all steps).")
    eval_every: int = _f(2, "Optimizer steps between oracle-success checks (with target_success).")
    full: bool = _f(False, "Train every weight of the base (saved as a model directory that becomes model.base) "
                    "instead of the policy adapter; for tiny random bases, where LoRA alone learns slowly.")


@dataclass
class TrainConfig:
    """A whole training run. See each section's fields."""

    model: ModelConfig = field(default_factory=ModelConfig, metadata={"help": "Base model, LoRA, critic."})
    env: EnvConfig = field(default_factory=EnvConfig, metadata={"help": "Envs and tasks."})
    rollout: RolloutConfig = field(default_factory=RolloutConfig, metadata={"help": "Sampling."})
    algorithm: AlgorithmConfig = field(default_factory=AlgorithmConfig, metadata={"help": "Advantages and loss."})
    optim: OptimConfig = field(default_factory=OptimConfig, metadata={"help": "Optimizers."})
    run: RunConfig = field(default_factory=RunConfig, metadata={"help": "Length, output, logging."})
    sft: SFTConfig = field(default_factory=SFTConfig, metadata={"help": "Warm start by behaviour cloning."})

    # ---- derived ---------------------------------------------------------------------------------

    @property
    def estimator(self) -> str:
        return ALGORITHMS[self.algorithm.name]

    @property
    def critic_mode(self) -> str:
        c = self.model.critic
        return ("shared" if self.algorithm.name == "ppo" else "none") if c == "auto" else c

    @property
    def reward_components(self) -> list[str]:
        rc = self.algorithm.reward_components
        return list(rc) if rc is not None else ["correctness", "format", "length"]

    @property
    def tree_shape(self) -> tuple[int, int, int]:
        r = self.rollout
        return (r.trees or 2, 1 if r.rounds is None else r.rounds, r.expand or 2)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    # ---- checks ---------------------------------------------------------------------------------

    def validate(self) -> TrainConfig:
        """Raise `ConfigError` on a combination that cannot run as written; return self."""
        a, r, m, o = self.algorithm, self.rollout, self.model, self.optim
        errors: list[str] = []
        if a.name not in ALGORITHMS:
            errors.append(f"algorithm.name {a.name!r} is unknown; use one of {', '.join(ALGORITHMS)}")
        if r.backend not in ("local", "ray"):
            errors.append(f"rollout.backend {r.backend!r}: use local or ray")
        if r.backend == "local" and r.ray:
            errors.append("rollout.ray options are set but rollout.backend is local: set backend: ray or drop them")
        if m.critic not in ("auto", "shared", "separate", "none"):
            errors.append(f"model.critic {m.critic!r}: use auto, shared, separate or none")
        if m.dtype not in ("auto", "float32", "bfloat16"):
            errors.append(f"model.dtype {m.dtype!r}: use auto, float32 or bfloat16")
        if a.name == "ppo" and self.critic_mode == "none":
            errors.append("algorithm ppo needs a critic (GAE over its values): set model.critic to auto, shared "
                          "or separate")
        if a.name in ALGORITHMS and a.name != "ppo" and self.critic_mode != "none":
            errors.append(f"model.critic {m.critic!r} is trained only by algorithm ppo; {a.name} does not use "
                          "values: set model.critic to auto or none")
        if a.name != "ppo":
            for name, value, default in (("kl_in_reward", a.kl_in_reward, 0.0), ("critic_warmup", a.critic_warmup, 0)):
                if value != default:
                    errors.append(f"algorithm.{name} applies only to ppo (GAE rewards / critic), not {a.name}")
        if a.name not in ("gdpo", "gd2po"):
            if a.reward_components is not None or a.component_weights is not None:
                errors.append(f"algorithm.reward_components/component_weights apply only to gdpo and gd2po; "
                              f"{a.name} uses the env's scalar reward (set env.reward_weights instead)")
        else:
            if not self.reward_components:
                errors.append(f"{a.name} needs at least one algorithm.reward_components entry")
            if a.component_weights is not None and len(a.component_weights) != len(self.reward_components):
                errors.append(f"algorithm.component_weights has {len(a.component_weights)} entries for "
                              f"{len(self.reward_components)} reward_components")
        tree_set = [k for k in ("trees", "rounds", "expand") if getattr(r, k) is not None]
        if a.name != "tree_grpo" and tree_set:
            errors.append(f"rollout.{', rollout.'.join(tree_set)} apply only to tree_grpo (tree rollouts); "
                          f"{a.name} samples rollout.group_size independent rollouts per task")
        if a.name == "tree_grpo":
            t, rd, ex = self.tree_shape
            if t < 1 or rd < 0 or ex < 1:
                errors.append(f"tree_grpo needs trees >= 1, rounds >= 0, expand >= 1 (got {t}, {rd}, {ex})")
        elif a.name in ("grpo", "gigpo", "gdpo", "gd2po") and r.group_size < 2:
            errors.append(f"{a.name} normalizes within groups: rollout.group_size must be >= 2 (got {r.group_size})")
        if r.group_size < 1 or r.tasks_per_iteration < 1:
            errors.append("rollout.group_size and rollout.tasks_per_iteration must be >= 1")
        if r.temperature <= 0:
            errors.append("rollout.temperature must be > 0 for RL (greedy decoding has no policy gradient)")
        if r.top_p != 1.0:
            errors.append("rollout.top_p must be 1.0: the logprobs (engine and trainer) do not model a nucleus, so "
                          "the PPO ratio would be biased")
        if r.max_new_tokens < 1 or self.env.max_turns < 1:
            errors.append("rollout.max_new_tokens and env.max_turns must be >= 1")
        if a.old_logprobs not in ("recompute", "engine"):
            errors.append(f"algorithm.old_logprobs {a.old_logprobs!r}: use recompute or engine")
        if a.epochs < 1 or a.mini_batches < 1 or a.micro_batch_tokens < 1:
            errors.append("algorithm.epochs, mini_batches and micro_batch_tokens must be >= 1")
        if a.clip_low <= 0 or (a.clip_high is not None and a.clip_high <= 0):
            errors.append("algorithm.clip_low/clip_high must be > 0")
        if a.dual_clip is not None and a.dual_clip <= 1:
            errors.append(f"algorithm.dual_clip must be > 1 or null (got {a.dual_clip})")
        if a.loss_agg not in AGG_MODES:
            errors.append(f"algorithm.loss_agg {a.loss_agg!r}: use one of {', '.join(AGG_MODES)}")
        if a.kl_kind.rstrip("+") not in KL_KINDS:
            errors.append(f"algorithm.kl_kind {a.kl_kind!r}: use one of {', '.join(KL_KINDS)}")
        if o.schedule not in ("constant", "cosine"):
            errors.append(f"optim.schedule {o.schedule!r}: use constant or cosine")
        if self.sft.steps < 0 or self.sft.lr <= 0 or self.sft.batch_rows < 1 or self.sft.eval_every < 1:
            errors.append("sft.steps must be >= 0, sft.lr > 0, sft.batch_rows >= 1 and sft.eval_every >= 1")
        if self.sft.target_success is not None and not 0.0 < self.sft.target_success <= 1.0:
            errors.append(f"sft.target_success must be in (0, 1] or null (got {self.sft.target_success})")
        if self.run.iterations < 0 or self.run.save_every < 0:
            errors.append("run.iterations and run.save_every must be >= 0")
        state_key = self.env.kwargs.get("state_key")
        if a.name == "gigpo" and state_key in ("none", None) and "state_key" in self.env.kwargs:
            errors.append("gigpo anchors steps by the env's state keys: remove env.kwargs.state_key: none")
        if a.name in ALGORITHMS:
            errors += _check_advantage_kwargs(self.estimator, a.advantage_kwargs)
        if errors:
            raise ConfigError("invalid training config:\n  - " + "\n  - ".join(errors))
        return self


#: estimator arguments the trainer fills from the batch; a config may not set them.
_BATCH_ARGS = {"response_mask", "group_ids", "scores", "traj_ids", "tree_ids", "branch_points", "token_steps",
               "state_keys", "step_index", "token_level_rewards", "values", "episode_ids", "segment_index",
               "reward_components", "step_rewards", "reward_weights"}


def _check_advantage_kwargs(estimator: str, kwargs: dict[str, Any]) -> list[str]:
    from codegym.trainer.advantages._registry import get_advantage_fn

    try:
        # the registry imports torch; only when advantage kwargs are given
        if not kwargs:
            return []
        params = set(inspect.signature(get_advantage_fn(estimator)).parameters)
    except KeyError as exc:
        return [str(exc)]
    bad = sorted(set(kwargs) - (params - _BATCH_ARGS))
    if bad:
        return [f"algorithm.advantage_kwargs {bad} are not settable options of {estimator}; settable: "
                f"{', '.join(sorted(params - _BATCH_ARGS))}"]
    return []


# ---- YAML --------------------------------------------------------------------------------------------


def _build(cls: type, data: Any, where: str) -> Any:
    if data is None:
        return cls()
    if not isinstance(data, dict):
        raise ConfigError(f"{where or 'the config'} must be a mapping, got {type(data).__name__}")
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ConfigError(f"unknown key(s) {unknown} in {where or 'the config'}; known: {', '.join(known)}")
    kwargs = {}
    for name, value in data.items():
        f = known[name]
        sub = f.default_factory if f.default_factory is not MISSING and is_dataclass(f.default_factory) else None
        kwargs[name] = _build(sub, value, f"{where}.{name}".lstrip(".")) if sub else value
    return cls(**kwargs)


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def config_from_dict(data: dict[str, Any] | None, overrides: dict[str, Any] | None = None) -> TrainConfig:
    """A validated `TrainConfig` from nested dicts (unknown keys are errors)."""
    data = _merge(data or {}, overrides or {})
    return _build(TrainConfig, data, "").validate()


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> TrainConfig:
    """Read a YAML file into a validated `TrainConfig`."""
    import yaml

    text = Path(path).read_text()
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc
    try:
        return config_from_dict(data, overrides)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def dump_config(cfg: TrainConfig, path: str | Path) -> Path:
    import yaml

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    return path


def describe(cls: type = TrainConfig, prefix: str = "") -> str:
    """Every field as ``section.name = default  # help`` (what `codegym train --help-config` prints)."""
    lines = []
    for f in fields(cls):
        if f.default_factory is not MISSING and is_dataclass(f.default_factory):
            lines.append(f"# {prefix}{f.name}: {f.metadata.get('help', '')}")
            lines.append(describe(f.default_factory, f"{prefix}{f.name}."))
            continue
        default = f.default if f.default is not MISSING else f.default_factory()
        lines.append(f"{prefix}{f.name} = {default!r}  # {f.metadata.get('help', '')}")
    return "\n".join(lines)
