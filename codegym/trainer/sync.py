"""The run's rollout engine (`rollout.engine`) and the adapter hand-off after every update.

    engine = build_engine(cfg, models)                 # transformers | vllm | openai | ray
    hand_off(engine, models, version=3, cfg=cfg)       # the new adapter to the engine, then the probe

How each engine gets the policy adapter of a new version:

- ``transformers``: the trainer's own live peft model; nothing moves (``load_adapter(None, v)``).
  With async rollouts (or ``engine_kwargs.separate``) the engine samples on a copy of the model,
  and the adapter's tensors are copied into it (``load_adapter(state_dict, v)``).
- ``openai``: the adapter files are written to ``rollout.adapter_dir/v<version>`` and the server
  is told to load them (vLLM's ``POST /v1/load_lora_adapter {"lora_name", "lora_path"}``); the
  requests name the new adapter from then on.
- ``vllm``: the files, then a new ``LoRARequest`` (new name and id per version).
- ``ray``: the files, sent once through the object store to every engine actor.

Then the adapter-sync probe (`probe_logprobs`): the engine samples a short completion of a fixed
prompt and the trainer scores the same tokens with its current weights; a mean |logprob
difference| over the tolerance (by dtype: 1e-4 float32, 2e-2 bfloat16; `rollout.probe_tolerance`)
or a wrong reported version raises `AdapterSyncError` naming the trainer's version and the one the
engine claims. An engine that ignores the load keeps serving the old weights and fails here.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from .config import TrainConfig


def adapter_dir(cfg: TrainConfig) -> Path:
    return Path(cfg.rollout.adapter_dir or Path(cfg.run.out_dir) / "adapters")


def separate_engine(cfg: TrainConfig) -> bool:
    """Whether a transformers engine samples on its own copy of the model (async rollouts need one:
    the trainer updates its live model while the next rollouts run)."""
    r = cfg.rollout
    return r.engine == "transformers" and (r.max_staleness is not None or bool(r.engine_kwargs.get("separate")))


def _base_dir(cfg: TrainConfig, models: Any) -> str:
    """A directory (or hub id) other processes can load the base from: the tiny base is saved once."""
    base = cfg.model.base
    if not base.startswith("tiny"):
        return base
    path = adapter_dir(cfg) / "base"
    if not (path / "config.json").exists():
        from .models import load_base

        model, tokenizer = load_base(cfg.model, models.tokenizer)  # the tiny base is built from its seed
        model.save_pretrained(str(path))
        tokenizer.save_pretrained(str(path))
    return str(path)


def build_engine(cfg: TrainConfig, models: Any) -> Any:
    """The engine `rollout.engine` names, with `rollout.engine_kwargs`."""
    from codegym.agents.engines import TransformersEngine

    r, kw = cfg.rollout, dict(cfg.rollout.engine_kwargs)
    if r.engine == "transformers":
        model = models.model
        if separate_engine(cfg):
            model = copy.deepcopy(models.model)
            model.set_adapter("policy")
            model.eval()
        return TransformersEngine(model, models.tokenizer, max_batch_size=r.max_batch_size, adapter_name="policy")
    if r.engine == "openai":
        from codegym.agents.engines import OpenAIEngine

        base_url = kw.pop("base_url")
        return OpenAIEngine(base_url, kw.pop("model", cfg.model.base), **kw)
    if r.engine == "vllm":
        from codegym.agents.engines import VLLMEngine

        kw.setdefault("max_lora_rank", cfg.model.lora_r)
        return VLLMEngine(kw.pop("model", None) or _base_dir(cfg, models), adapter_dir=adapter_dir(cfg), **kw)
    if r.engine == "ray":
        from .ray_engine import RayEngine

        inner, inner_kw = kw.pop("engine", "transformers"), dict(kw.pop("engine_kwargs", {}) or {})
        base = _base_dir(cfg, models)
        init = str(models.save_policy_adapter(adapter_dir(cfg) / "v-init"))
        kw.setdefault("num_gpus", 0.0 if models.device.type == "cpu" else 1.0)
        return RayEngine(make_actor_engine(inner, base, init, cfg.model.lora_r, inner_kw, r.max_batch_size), **kw)
    raise ValueError(f"unknown rollout.engine {r.engine!r}")


def make_actor_engine(kind: str, base: str, adapter: str, lora_rank: int, kwargs: dict[str, Any],
                      max_batch_size: int = 16) -> Any:
    """A picklable zero-argument factory of the engine inside a Ray actor."""

    def make() -> Any:
        if kind == "vllm":
            from codegym.agents.engines import VLLMEngine

            return VLLMEngine(base, **{"max_lora_rank": lora_rank, **kwargs})
        from codegym.agents.engines import TransformersEngine

        return TransformersEngine.from_pretrained(base, adapter=adapter, device=kwargs.get("device", "cpu"),
                                                  max_batch_size=max_batch_size)

    return make


def hand_off(engine: Any, models: Any, version: int, cfg: TrainConfig, *, live: bool) -> None:
    """Give the engine the policy adapter of `version` (see the module docstring)."""
    if live:
        engine.load_adapter(None, version)  # it serves the trainer's model itself
    elif cfg.rollout.engine == "transformers":
        engine.load_adapter(models.policy_adapter_state(), version)
    else:
        path = models.save_policy_adapter(adapter_dir(cfg) / f"v{version}")
        engine.load_adapter(str(path.resolve()), version)


def probe(engine: Any, models: Any, version: int, cfg: TrainConfig) -> list[Any]:
    """The adapter-sync probe against the engine (each engine of a `RayEngine`); raises
    `AdapterSyncError` naming the trainer's version and the engine's."""
    from codegym.agents.engines import probe_logprobs

    models.use_policy()
    tolerance = cfg.rollout.probe_tolerance or models.probe_tolerance  # bf16 rounding is not a stale adapter
    engines = engine.replicas if hasattr(engine, "replicas") else [engine]
    return [probe_logprobs(models.model, e, models.tokenizer, version=version, tolerance=tolerance) for e in engines]
