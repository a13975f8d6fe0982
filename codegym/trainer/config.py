"""Trainer configuration: dataclasses loadable from YAML, every field documented, checked as a whole.

    cfg = load_config("examples/train_gigpo.yaml")          # or TrainConfig(algorithm=AlgorithmConfig("ppo"))
    cfg = load_config("x.yaml", overrides={"run": {"iterations": 2}})
    print(describe())                                       # every field with its default and help

Sections: `model` (base, LoRA, critic), `env` (which envs, which tasks), `rollout` (sampling,
group sizes, trees), `algorithm` (advantage estimator and PPO loss), `optim` (optimizers and
schedules), `run` (iterations, output, checkpoints, logging). `validate()` coerces every value to
its field's declared type (YAML reads `1e-3` as a string: it becomes the float 0.001), checks each
numeric field's range (`Range`), checks that `env.id` is a registered Gymnasium id and that
`env.tasks` (and `sft.tasks`) are tasks of its suite, and rejects unknown keys and incompatible
combinations with a message that names the field and says what to change; nothing is silently
ignored. This module imports neither torch nor transformers.
"""

from __future__ import annotations

import functools
import inspect
import math
import types
from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

from .algorithms import ALGORITHMS, DATA_ARGS, AlgorithmSpec, join_names, names_with

#: mirrors `codegym.trainer.losses` (kept here so loading a config does not import torch).
AGG_MODES = ("token-mean", "seq-mean-token-sum", "seq-mean-token-mean", "seq-mean-token-sum-norm")
KL_KINDS = ("k1", "kl", "abs", "k2", "mse", "k3", "low_var_kl")


class ConfigError(ValueError):
    """A configuration that cannot run: the message says which field and what to do."""


@dataclass(frozen=True)
class Range:
    """The values a numeric field (or each item of a numeric list) may take.

        Range(0, low_open=True)            # > 0
        Range(0, 1, high_open=True)        # in [0, 1)
    """

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    note: str = ""  # why, appended to the error

    def __str__(self) -> str:
        if self.high is None:
            return f"{'>' if self.low_open else '>='} {_num(self.low)}"
        if self.low is None:
            return f"{'<' if self.high_open else '<='} {_num(self.high)}"
        left, right = "(" if self.low_open else "[", ")" if self.high_open else "]"
        return f"in {left}{_num(self.low)}, {_num(self.high)}{right}"

    def contains(self, x: float) -> bool:
        if self.low is not None and (x <= self.low if self.low_open else x < self.low):
            return False
        return self.high is None or (x < self.high if self.high_open else x <= self.high)


def _num(x: float | None) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


POSITIVE = Range(0, low_open=True)
NON_NEGATIVE = Range(0)
AT_LEAST_ONE = Range(1)


def _f(default: Any, help: str, valid: Range | None = None, **kw: Any) -> Any:
    meta = {"help": help, "range": valid}
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda d=default: type(d)(d), metadata=meta, **kw)
    return field(default=default, metadata=meta, **kw)


@dataclass
class ModelConfig:
    """The policy (a LoRA adapter `policy`), the critic and where they run."""

    base: str = _f("tiny", "Base causal LM: `tiny` or `tiny:small` (the local tiny Qwen2 of "
                   "codegym.agents.tiny), a local directory or a hub id.")
    tiny_seed: int = _f(0, "Initialization seed of a tiny base model.", NON_NEGATIVE)
    config_only: bool = _f(False, "Build a hub/dir base from its config with random weights (no weight download; "
                           "for throughput benchmarks).")
    dtype: str = _f("auto", "Weights dtype: auto (float32 on CPU, bfloat16 on GPU), float32 or bfloat16.")
    device: str = _f("auto", "auto (cuda when available), cpu or cuda[:N].")
    lora_r: int = _f(16, "LoRA rank of the policy and critic adapters.", AT_LEAST_ONE)
    lora_alpha: int = _f(32, "LoRA alpha (scale alpha / r).", POSITIVE)
    lora_dropout: float = _f(0.0, "LoRA dropout (0 keeps recomputed logprobs equal to the engine's).",
                             Range(0, 1, high_open=True))
    target_modules: list[str] = _f(["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
                                   "Module names that get LoRA layers.")
    critic: str = _f("auto", "auto (shared for ppo, none otherwise), shared (a second LoRA adapter `critic` on the "
                     "same frozen base plus an fp32 value head), separate (a second base model) or none.")
    gradient_checkpointing: bool = _f(False, "Recompute activations in the backward pass (GPU memory).")
    init_adapter: str | None = _f(None, "A peft adapter directory (e.g. from `codegym sft`) that initializes the "
                                  "policy adapter; a frozen copy of it is the KL reference.")


@dataclass
class EnvConfig:
    """Which envs and tasks."""

    id: str = _f("codegym/Toy-v0", "A registered Gymnasium id (guards and compaction on by default).")
    tasks: list[str] = _f([], "Task ids to train on (empty: every task of the env's suite).")
    max_turns: int = _f(3, "Turns per episode before grading.", AT_LEAST_ONE)
    reward_weights: dict[str, float] = _f({}, "Weights of the env's reward components for the scalar reward "
                                          "(empty: the env's default, correctness 1.0).")
    grade_cache: bool = _f(True, "Grade each distinct final diff of a task once per process (rollouts of a "
                           "group often end identically); turn off for tasks with flaky tests.")
    kwargs: dict[str, Any] = _f({}, "More keyword arguments for gym.make (guards, compaction, backend, ...).")


@dataclass
class RolloutConfig:
    """How episodes are sampled."""

    tasks_per_iteration: int = _f(4, "Tasks per iteration (each is one group), drawn by a seeded shuffling "
                                  "sampler over env.tasks.", AT_LEAST_ONE)
    group_size: int = _f(4, "Rollouts per task (grpo, gigpo, gdpo, gd2po, ppo).", AT_LEAST_ONE)
    max_new_tokens: int = _f(96, "Tokens per model turn.", AT_LEAST_ONE)
    temperature: float = _f(1.0, "Sampling temperature (> 0); logprobs are log_softmax(logits / T) on both sides.",
                            Range(0, low_open=True, note="greedy decoding has no policy gradient"))
    top_p: float = _f(1.0, "Must be 1.0: neither the engine's nor the trainer's logprobs model a nucleus.")
    stop_at_call: bool = _f(True, "Stop a turn at the end of its first tool call.")
    max_envs: int = _f(8, "Envs stepping concurrently.", AT_LEAST_ONE)
    max_batch_size: int = _f(16, "Sequences per generate call of the engine.", AT_LEAST_ONE)
    trees: int | None = _f(None, "tree_grpo only: trees per task (M; default 2).", AT_LEAST_ONE)
    rounds: int | None = _f(None, "tree_grpo only: expansion rounds (L; default 1).", NON_NEGATIVE)
    expand: int | None = _f(None, "tree_grpo only: nodes expanded per tree and round (N; default 2).", AT_LEAST_ONE)
    backend: str = _f("local", "Where envs step: local (threads in this process) or ray (RayEnvPool workers; "
                      "pip install 'codegym[ray]'; see docs/ray.md).")
    ray: dict[str, Any] = _f({}, "ray backend only: RayEnvPool options (num_workers, envs_per_worker, address, "
                             "slot_resources, docker_hosts, timeout_s, ...).")
    engine: str = _f("transformers", "What samples the rollouts: transformers (the trainer's own live model; a "
                     "separate copy when rollouts are async), vllm (in-process vLLM, GPU), openai (an OpenAI-compatible "
                     "server with runtime LoRA loading, e.g. vllm serve or codegym serve) or ray (engine actors).")
    engine_kwargs: dict[str, Any] = _f({}, "The engine's own settings (see ENGINE_OPTIONS): openai: base_url (required), "
                                       "model, api_key, timeout, max_workers, extra_body; vllm: model (default "
                                       "model.base) plus vllm.LLM options; ray: engine (transformers or vllm), "
                                       "engine_kwargs, num_engines, num_gpus, num_cpus, strategy, timeout_s; "
                                       "transformers: separate (sample on a copy of the model).")
    adapter_dir: str | None = _f(None, "Where every policy version's adapter is saved for the engine (null: "
                                 "run.out_dir/adapters); an OpenAI-compatible server must be able to read it.")
    probe_tolerance: float | None = _f(None, "Adapter-sync probe: the mean |logprob difference| allowed between the "
                                       "engine and the trainer (null: by the weights' dtype, 1e-4 float32, 2e-2 "
                                       "bfloat16).", POSITIVE)
    max_staleness: int | None = _f(None, "Async rollouts: collection for the next iterations runs while the current "
                                   "one trains; a rollout may start only if its policy version is within k of the "
                                   "trainer's (episodes that started are always finished and kept). 0 reproduces "
                                   "the synchronous run; null: synchronous (collect, then train).", NON_NEGATIVE)


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
    epochs: int = _f(1, "PPO epochs over each batch (K).", AT_LEAST_ONE)
    mini_batches: int = _f(1, "Optimizer steps per epoch; rows are shuffled and split into this many.",
                           AT_LEAST_ONE)
    micro_batch_tokens: int = _f(8192, "Token budget of a micro-batch (padded rows x width); rows are packed "
                                 "greedily up to it.", AT_LEAST_ONE)
    clip_low: float = _f(0.2, "PPO clip epsilon below 1.", Range(0, 1, low_open=True, high_open=True))
    clip_high: float | None = _f(0.28, "PPO clip epsilon above 1 (DAPO clip-higher; null: = clip_low).", POSITIVE)
    dual_clip: float | None = _f(3.0, "Dual-clip constant c > 1 for negative advantages (null: off).",
                                 Range(1, low_open=True))
    loss_agg: str = _f("token-mean", "Loss aggregation (token-mean over all completion tokens of the mini-batch, "
                       "or a seq-mean mode from codegym.trainer.losses).")
    old_logprobs: str = _f("recompute", "recompute (the trainer model scores the batch before the update, verl "
                           "style) or engine (the rollout engine's logprobs).")
    kl_coef: float = _f(0.0, "Coefficient of a KL(policy || reference) loss term (0: off; the reference is the "
                        "policy the run started from: a frozen copy of model.init_adapter, else the base).",
                        NON_NEGATIVE)
    kl_kind: str = _f("k3", "KL estimator of the loss term: k1, k2, k3 (see codegym.trainer.losses).")
    kl_in_reward: float = _f(0.0, "ppo only: beta of a per-token KL penalty in the GAE rewards (0: off).", NON_NEGATIVE)
    value_clip: float | None = _f(0.5, "ppo only: value clipping range (null: unclipped).", POSITIVE)
    value_coef: float = _f(1.0, "ppo only: scale of the value loss.", NON_NEGATIVE)
    critic_warmup: int = _f(0, "ppo only: iterations that update only the critic.", NON_NEGATIVE)
    tis_cap: float | None = _f(None, "Truncated importance sampling (off-policy correction): each token's policy "
                               "loss is weighted by min(pi_old / pi_engine, tis_cap), pi_old the trainer's recomputed "
                               "logprob and pi_engine the engine's (null: off; e.g. 2).", POSITIVE)
    icepop_bounds: list[float] | None = _f(None, "IcePop-style masking: tokens whose ratio pi_old / pi_engine lies "
                                           "outside [low, high] are left out of the policy loss (null: off; e.g. "
                                           "[0.5, 2.0]).", POSITIVE)
    shuffle_rewards: bool = _f(False, "A control, not a method: permute the episode rewards (and their "
                               "components) at random across the batch before the advantages, so the update "
                               "sees the batch's rewards but not which episode earned which (the learning "
                               "benchmark's shuffled-reward RL). Metrics keep the true rewards.")
    log_kl_ref: bool = _f(False, "Log policy/kl_ref (KL to the reference, k1, per completion token) also when "
                          "kl_coef and kl_in_reward are 0 (one more no-grad forward pass per row).")


@dataclass
class OptimConfig:
    """Optimizers (AdamW) and schedules."""

    lr: float = _f(1e-4, "Policy adapter learning rate.", POSITIVE)
    critic_lr: float = _f(1e-3, "Critic adapter and value head learning rate.", POSITIVE)
    weight_decay: float = _f(0.0, "AdamW weight decay.", NON_NEGATIVE)
    betas: list[float] = _f([0.9, 0.999], "AdamW betas.", Range(0, 1, high_open=True))
    max_grad_norm: float = _f(1.0, "Gradient clipping (per optimizer).", POSITIVE)
    warmup_steps: int = _f(0, "Linear warmup optimizer steps.", NON_NEGATIVE)
    schedule: str = _f("constant", "constant or cosine (over run.iterations x epochs x mini_batches steps).")


@dataclass
class RunConfig:
    """The run: length, output, checkpoints, logging."""

    iterations: int = _f(10, "Training iterations (collect + update).", NON_NEGATIVE)
    seed: int = _f(0, "Seed of everything: sampler, rollouts, shuffling.", NON_NEGATIVE)
    out_dir: str = _f("runs/train", "Output directory: metrics.jsonl, tensorboard/, checkpoints/.")
    save_every: int = _f(0, "Checkpoint every N iterations (0: only at the end).", NON_NEGATIVE)
    keep_checkpoints: int = _f(2, "Newest checkpoints kept (0: all).", NON_NEGATIVE)
    tensorboard: bool = _f(True, "Write TensorBoard events under out_dir/tensorboard.")
    progress: bool = _f(True, "A rich progress display.")
    save_episodes: bool = _f(False, "Append every iteration's episodes to out_dir/episodes.jsonl.")
    probe: bool = _f(True, "Run the adapter-sync probe after every adapter load (raises AdapterSyncError).")
    threads: int = _f(0, "torch CPU threads (0: leave torch's default).", NON_NEGATIVE)


@dataclass
class SFTConfig:
    """The behaviour-cloning warm start (`codegym sft`, and `codegym main` before training)."""

    steps: int = _f(0, "Optimizer steps on compact-oracle episodes (0: no warm start in `codegym main`).",
                    NON_NEGATIVE)
    lr: float = _f(1e-3, "SFT learning rate.", POSITIVE)
    batch_rows: int = _f(8, "Sequences per SFT step.", AT_LEAST_ONE)
    tasks: list[str] = _f([], "Tasks whose oracle episodes are cloned (empty: env.tasks, else all).")
    target_success: float | None = _f(None, "Stop the warm start once the oracle success reaches this: the mean "
                                      "over the SFT tasks of exp(total logprob of the oracle episode's completion "
                                      "tokens) at temperature 1, the probability of sampling the oracle episode "
                                      "exactly (a lower bound of the T=1 pass rate, so it sets RL's start level); "
                                      "checked every eval_every steps, `steps` is the cap (null: run all steps).",
                                      Range(0, 1, low_open=True))
    eval_every: int = _f(2, "Optimizer steps between oracle-success checks (with target_success).", AT_LEAST_ONE)
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
    def algorithm_spec(self) -> AlgorithmSpec:
        """The spec of `algorithm.name` (`codegym.trainer.algorithms`)."""
        return ALGORITHMS[self.algorithm.name]

    @property
    def estimator(self) -> str:
        return self.algorithm_spec.estimator

    @property
    def critic_mode(self) -> str:
        c = self.model.critic
        spec = ALGORITHMS.get(self.algorithm.name)
        return ("shared" if spec is not None and spec.critic else "none") if c == "auto" else c

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
        """Coerce every field to its declared type, then raise `ConfigError` on a value out of its
        range, an unknown env id or task id, or a combination that cannot run as written; return self."""
        _raise_if(coerce_fields(self))  # nothing below can compare a value of the wrong type
        a, r, m, o = self.algorithm, self.rollout, self.model, self.optim
        errors: list[str] = check_ranges(self)
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
        spec = ALGORITHMS.get(a.name)
        if spec is not None:
            errors += check_algorithm(self, spec)
        if r.top_p != 1.0:
            errors.append("rollout.top_p must be 1.0: the logprobs (engine and trainer) do not model a nucleus, so "
                          "the PPO ratio would be biased")
        if a.old_logprobs not in ("recompute", "engine"):
            errors.append(f"algorithm.old_logprobs {a.old_logprobs!r}: use recompute or engine")
        errors += check_engine(self)
        if a.loss_agg not in AGG_MODES:
            errors.append(f"algorithm.loss_agg {a.loss_agg!r}: use one of {', '.join(AGG_MODES)}")
        if a.kl_kind.rstrip("+") not in KL_KINDS:
            errors.append(f"algorithm.kl_kind {a.kl_kind!r}: use one of {', '.join(KL_KINDS)}")
        if o.schedule not in ("constant", "cosine"):
            errors.append(f"optim.schedule {o.schedule!r}: use constant or cosine")
        if len(o.betas) != 2:
            errors.append(f"optim.betas must be two numbers [beta1, beta2] (got {o.betas})")
        errors += check_env(self.env, self.sft)
        _raise_if(errors)
        return self


def check_algorithm(cfg: TrainConfig, spec: AlgorithmSpec) -> list[str]:
    """The checks every algorithm gets from its spec (critic, rollout shape, reward components, group
    size, advantage kwargs), then the spec's own `checks`."""
    a, r, m = cfg.algorithm, cfg.rollout, cfg.model
    errors: list[str] = []
    with_critic = join_names(names_with(lambda s: s.critic))
    if spec.critic and cfg.critic_mode == "none":
        errors.append(f"algorithm {a.name} needs a critic ({spec.estimator} over its values): set model.critic to "
                      "auto, shared or separate")
    if not spec.critic:
        if cfg.critic_mode != "none":
            errors.append(f"model.critic {m.critic!r} is trained only by algorithm {with_critic}; {a.name} does "
                          "not use values: set model.critic to auto or none")
        for name, value, default in (("kl_in_reward", a.kl_in_reward, 0.0), ("critic_warmup", a.critic_warmup, 0)):
            if value != default:
                errors.append(f"algorithm.{name} applies only to {with_critic} (GAE rewards / critic), not {a.name}")
    if not spec.reward_components and (a.reward_components is not None or a.component_weights is not None):
        errors.append(f"algorithm.reward_components/component_weights apply only to "
                      f"{join_names(names_with(lambda s: s.reward_components))}; {a.name} uses the env's scalar "
                      "reward (set env.reward_weights instead)")
    tree_set = [k for k in ("trees", "rounds", "expand") if getattr(r, k) is not None]
    if spec.rollout != "trees" and tree_set:
        errors.append(f"rollout.{', rollout.'.join(tree_set)} apply only to "
                      f"{join_names(names_with(lambda s: s.rollout == 'trees'))} (tree rollouts); "
                      f"{a.name} samples rollout.group_size independent rollouts per task")
    if spec.rollout == "groups" and r.group_size < spec.min_group_size:
        errors.append(f"{a.name} normalizes within groups: rollout.group_size must be >= {spec.min_group_size} "
                      f"(got {r.group_size})")
    errors += _check_advantage_kwargs(spec, a.advantage_kwargs)
    for check in spec.checks:
        errors += check(cfg)
    return errors


#: rollout.engine -> the rollout.engine_kwargs it accepts (None: any, passed on to the engine).
ENGINE_OPTIONS: dict[str, frozenset[str] | None] = {
    "transformers": frozenset({"separate"}),
    "openai": frozenset({"base_url", "model", "api_key", "timeout", "max_workers", "extra_body"}),
    "vllm": None,  # vllm.LLM options (gpu_memory_utilization, max_model_len, ...) besides model, max_lora_rank
    "ray": frozenset({"engine", "engine_kwargs", "num_engines", "num_gpus", "num_cpus", "strategy", "timeout_s",
                      "start_timeout_s", "address", "runtime_env"}),
}


def check_engine(cfg: TrainConfig) -> list[str]:
    """`rollout.engine`, its `engine_kwargs`, async rollouts and the off-policy correction."""
    r, a = cfg.rollout, cfg.algorithm
    errors: list[str] = []
    if r.engine not in ENGINE_OPTIONS:
        return [f"rollout.engine {r.engine!r}: use one of {', '.join(ENGINE_OPTIONS)}"]
    allowed = ENGINE_OPTIONS[r.engine]
    unknown = sorted(set(r.engine_kwargs) - allowed) if allowed is not None else []
    if unknown:
        errors.append(f"rollout.engine_kwargs {unknown} are not options of the {r.engine} engine; it takes "
                      f"{', '.join(sorted(allowed)) or 'none'}")
    if r.engine == "openai" and not r.engine_kwargs.get("base_url"):
        errors.append("rollout.engine openai needs rollout.engine_kwargs.base_url (e.g. http://127.0.0.1:8000/v1), "
                      "a server with runtime LoRA loading (/v1/load_lora_adapter)")
    if r.engine == "ray":
        inner = r.engine_kwargs.get("engine", "transformers")
        if inner not in ("transformers", "vllm"):
            errors.append(f"rollout.engine_kwargs.engine {inner!r}: a ray engine actor runs transformers or vllm")
    if (a.tis_cap is not None or a.icepop_bounds is not None) and a.old_logprobs == "engine":
        errors.append("algorithm.tis_cap/icepop_bounds correct the trainer/engine ratio, which is 1 with "
                      "old_logprobs: engine: set old_logprobs: recompute or drop them")
    if a.icepop_bounds is not None:
        b = a.icepop_bounds
        if len(b) != 2 or not b[0] < 1.0 < b[1]:
            errors.append(f"algorithm.icepop_bounds must be [low, high] with 0 < low < 1 < high (got {b})")
    return errors


def _raise_if(errors: list[str]) -> None:
    if errors:
        raise ConfigError("invalid training config:\n  - " + "\n  - ".join(errors))


# ---- types and ranges ---------------------------------------------------------------------------------


def _sections(cfg: TrainConfig) -> list[tuple[str, Any]]:
    return [(f.name, getattr(cfg, f.name)) for f in fields(cfg) if is_dataclass(getattr(cfg, f.name))]


def coerce_fields(cfg: TrainConfig) -> list[str]:
    """Convert every field of every section to its declared type in place (`"1e-3"` -> 0.001,
    `"1_000"` -> 1000, `2.0` -> 2 for an int); returns an error naming each field that cannot be."""
    errors = []
    for section_name, section in _sections(cfg):
        hints = get_type_hints(type(section))
        for f in fields(section):
            where = f"{section_name}.{f.name}"
            try:
                setattr(section, f.name, coerce(getattr(section, f.name), hints[f.name], where))
            except ConfigError as exc:
                errors.append(str(exc))
    return errors


def coerce(value: Any, tp: Any, where: str) -> Any:
    """`value` as type `tp` (bool, int, float, str, `X | None`, `list[X]`, `dict[str, X]`, Any), or
    `ConfigError` naming `where`."""
    origin, args = get_origin(tp), get_args(tp)
    if tp is Any:
        return value
    if origin in (Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        (inner,) = [t for t in args if t is not type(None)]
        return coerce(value, inner, where)
    if origin is list:
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{where} must be a list, got {value!r}")
        return [coerce(v, args[0], f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, Mapping):
            raise ConfigError(f"{where} must be a mapping, got {value!r}")
        return {coerce(k, args[0], where): coerce(v, args[1], f"{where}.{k}") for k, v in value.items()}
    converter = _SCALARS.get(tp)
    return value if converter is None else converter(value, where)


_BOOL_WORDS = {"true": True, "yes": True, "on": True, "1": True,
               "false": False, "no": False, "off": False, "0": False}


def _to_bool(value: Any, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _BOOL_WORDS:
        return _BOOL_WORDS[value.strip().lower()]
    raise ConfigError(f"{where} must be true or false, got {value!r}")


def _to_float(value: Any, where: str) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        x = float(value)
    elif isinstance(value, str):
        try:
            x = float(value.strip())  # also "1e-3" and "1_000", which YAML 1.1 reads as strings
        except ValueError:
            raise ConfigError(f"{where} must be a number, got {value!r}") from None
    else:
        raise ConfigError(f"{where} must be a number, got {value!r}")
    if not math.isfinite(x):
        raise ConfigError(f"{where} must be a finite number, got {value!r}")
    return x


def _to_int(value: Any, where: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    try:
        x = _to_float(value, where)
    except ConfigError:
        raise ConfigError(f"{where} must be an integer, got {value!r}") from None
    if not x.is_integer():
        raise ConfigError(f"{where} must be an integer, got {value!r}")
    return int(x)


def _to_str(value: Any, where: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)  # e.g. a task id or an out_dir YAML read as a number
    raise ConfigError(f"{where} must be a string, got {value!r}")


_SCALARS = {bool: _to_bool, int: _to_int, float: _to_float, str: _to_str}


def check_ranges(cfg: TrainConfig) -> list[str]:
    """An error for every numeric field (or list item) outside its `Range` (None passes: off/default)."""
    errors = []
    for section_name, section in _sections(cfg):
        for f in fields(section):
            valid: Range | None = f.metadata.get("range")
            value = getattr(section, f.name)
            if valid is None or value is None:
                continue
            items = enumerate(value) if isinstance(value, list) else [(None, value)]
            for i, x in items:
                if not valid.contains(x):
                    where = f"{section_name}.{f.name}" + ("" if i is None else f"[{i}]")
                    errors.append(f"{where} must be {valid} (got {x!r})" + (f": {valid.note}" if valid.note else ""))
    return errors


# ---- the env and its tasks ----------------------------------------------------------------------------

_CODEGYM_ENTRY_POINT = "codegym.envs.registration:make_coding_env"
_FAMILIES_ENTRY_POINT = "codegym.envs.registration:make_families_env"


def check_env(env: EnvConfig, sft: SFTConfig) -> list[str]:
    """`env.id` is a registered Gymnasium id; for codegym's envs, `env.tasks` and `sft.tasks` are
    tasks of its suite and `env.kwargs.backend` is a sandbox backend."""
    import gymnasium as gym

    from codegym.envs.registration import register_envs  # not `import codegym`: it hides import errors
    from codegym.sandbox.pool import BACKENDS

    register_envs()

    try:
        spec = gym.spec(env.id)
    except gym.error.Error as exc:
        ours = ", ".join(sorted(k for k in gym.registry if k.startswith("codegym/")))
        return [f"env.id {env.id!r} is not a registered Gymnasium id ({exc}); codegym registers {ours}"]
    if spec.entry_point not in (_CODEGYM_ENTRY_POINT, _FAMILIES_ENTRY_POINT):
        return []  # someone else's env: its tasks and options are its own
    errors = []
    backend = env.kwargs.get("backend", "auto")
    if backend not in BACKENDS:
        errors.append(f"env.kwargs.backend {backend!r} is not a sandbox backend; use one of "
                      f"{', '.join(map(repr, BACKENDS))}")
    if spec.entry_point == _FAMILIES_ENTRY_POINT:
        from codegym.tasks.suites.families import family_tasks

        split, families = env.kwargs.get("split", "train"), env.kwargs.get("families")
        source = f"families (split {split})"
        try:
            known = frozenset(t.instance_id for t in family_tasks(split, families))
        except ValueError as exc:
            return errors + [f"env.kwargs of {env.id}: {exc}"]
    else:
        where = "env.kwargs.tasks" if "tasks" in env.kwargs else f"the suite of {env.id}"
        source = env.kwargs.get("tasks", spec.kwargs.get("tasks"))
        if source is None:
            return errors + [f"{env.id} needs env.kwargs.tasks: a suite name (toy, repofix, humaneval) or a JSONL "
                             "path"]
        try:
            known = _task_ids(source)
        except Exception as exc:  # a missing file, an unknown suite, a malformed line
            return errors + [f"{where} {source!r} cannot be loaded: {type(exc).__name__}: {exc}"]
    for name, ids in (("env.tasks", env.tasks), ("sft.tasks", sft.tasks)):
        unknown = [t for t in ids if t not in known]
        if unknown:
            some = ", ".join(sorted(known)[:5]) + (", ..." if len(known) > 5 else "")
            errors.append(f"{name}: unknown task id(s) {unknown} in {source!r} ({len(known)} tasks: {some}; "
                          f"`codegym tasks list {source}` lists them)")
    return errors


def _task_ids(source: Any) -> frozenset[str]:
    if isinstance(source, (str, Path)):
        path = Path(source)
        return _suite_ids(str(source), path.stat().st_mtime if path.is_file() else None)
    return frozenset(t.instance_id for t in source)  # a sequence of Task objects


@functools.lru_cache(maxsize=32)
def _suite_ids(source: str, mtime: float | None) -> frozenset[str]:
    from codegym.tasks.loader import load_tasks

    return frozenset(t.instance_id for t in load_tasks(source))


def _check_advantage_kwargs(spec: AlgorithmSpec, kwargs: dict[str, Any]) -> list[str]:
    """`kwargs` are options of the spec's estimator, not batch data (`DATA_ARGS`, `spec.inputs`)."""
    if not kwargs:  # the registry imports torch; only when advantage kwargs are given
        return []
    from codegym.trainer.advantages._registry import get_advantage_fn

    try:
        params = set(inspect.signature(get_advantage_fn(spec.estimator)).parameters)
    except KeyError as exc:
        return [str(exc)]
    settable = params - DATA_ARGS - spec.trainer_inputs()
    bad = sorted(set(kwargs) - settable)
    if bad:
        return [f"algorithm.advantage_kwargs {bad} are not settable options of {spec.estimator}; settable: "
                f"{', '.join(sorted(settable))}"]
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
        valid = f.metadata.get("range")
        lines.append(f"{prefix}{f.name} = {default!r}  # {f'({valid}) ' if valid else ''}{f.metadata.get('help', '')}")
    return "\n".join(lines)
