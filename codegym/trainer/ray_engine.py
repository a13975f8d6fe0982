"""Rollout engines as Ray actors: one engine per placement-group bundle, adapters sent to all.

    engine = RayEngine(lambda: VLLMEngine("Qwen/Qwen2.5-7B-Instruct", max_lora_rank=32), num_engines=4)
    agent = LLMAgent(engine, tokenizer, max_new_tokens=512)        # any collector, unchanged
    engine.load_adapter(policy_model, version=3)                    # every engine, then:
    engine.probe(policy_model, tokenizer)                           # the sync probe, engine by engine

`RayEngine` has the engine contract (`generate`, `load_adapter`, `policy_version`,
`eos_token_ids`, `max_context`), so an `LLMAgent` and `rollout.collect` use it like a local
engine. `make_engine` runs inside each actor (cloudpickled), on the GPUs of its bundle: a
placement group of `num_engines` bundles of ``{"GPU": num_gpus, "CPU": num_cpus}`` (``PACK``:
fill a node first; ``SPREAD``: one per node), and Ray sets ``CUDA_VISIBLE_DEVICES`` per actor.
A batch of requests is cut into `num_engines` contiguous shards, generated in parallel and put
back in order; each completion's ``meta["engine"]`` says which engine made it.

Adapters travel through Ray's object store once per version, whatever the number of engines:
a `PeftModel` or a peft directory as its files (written to a local directory in each actor,
so nodes need no shared filesystem), a state dict as tensors. ``load_adapter`` returns when
every engine serves the new version; `probe` then runs `probe_logprobs` against each engine.
Every remote call waits at most `timeout_s`; a dead or stuck engine raises `EngineError`
(the collector masks the episodes it was generating).
"""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegym.agents.engines.base import Completion, EngineError, GenerationRequest


@dataclass
class AdapterFiles:
    """A peft adapter directory as bytes (``adapter_config.json``, ``adapter_model.safetensors``)."""

    files: dict[str, bytes]

    @classmethod
    def from_dir(cls, path: str | Path) -> AdapterFiles:
        path = Path(path)
        if not path.is_dir():
            raise FileNotFoundError(f"no adapter directory at {path}")
        return cls({p.name: p.read_bytes() for p in sorted(path.iterdir()) if p.is_file()})

    def write(self, path: str | Path) -> Path:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        for name, data in self.files.items():
            (path / name).write_bytes(data)
        return path


class EngineActor:
    """One engine inside a Ray actor."""

    def __init__(self, make_engine: Callable[[], Any]):
        self.engine = make_engine()
        self.adapter_root = Path(tempfile.mkdtemp(prefix="codegym-adapters-"))

    def info(self) -> dict[str, Any]:
        import ray

        e = self.engine
        return {"eos_token_ids": list(getattr(e, "eos_token_ids", []) or []),
                "max_context": getattr(e, "max_context", None), "probe_tolerance": getattr(e, "probe_tolerance", 0.05),
                "policy_version": e.policy_version, "pid": os.getpid(), "host": socket.gethostname(),
                "gpu_ids": [str(g) for g in ray.get_gpu_ids()]}

    def generate(self, requests: list[GenerationRequest]) -> list[Completion]:
        return self.engine.generate(requests)

    def load_adapter(self, payload: Any, version: int) -> int:
        if isinstance(payload, AdapterFiles):
            payload = str(payload.write(self.adapter_root / f"v{version}"))
        self.engine.load_adapter(payload, version)
        return int(self.engine.policy_version)

    def call(self, name: str, args: tuple, kwargs: dict) -> Any:
        return getattr(self.engine, name)(*args, **kwargs)


class RayEngine:
    """`num_engines` engine actors behind one engine. See the module docstring.

    Args:
        make_engine: builds the engine inside an actor (e.g. ``lambda: VLLMEngine(...)``).
        num_engines: actors (data-parallel replicas).
        num_gpus, num_cpus: each actor's bundle (``num_gpus=0`` for CPU engines, as in tests;
            with both 0 there is no placement group).
        strategy: the placement group's strategy (``PACK``, ``SPREAD``, ``STRICT_PACK``, ...).
        placement_group: an existing group to use (bundle i for engine i) instead of a new one.
        timeout_s: the longest a `generate` or `load_adapter` may take.
        start_timeout_s: the longest the placement group and the engines may take to come up.
    """

    def __init__(self, make_engine: Callable[[], Any], num_engines: int = 1, *, num_gpus: float = 1.0,
                 num_cpus: float = 1.0, strategy: str = "PACK", placement_group: Any = None,
                 runtime_env: dict[str, Any] | None = None, timeout_s: float = 600.0,
                 start_timeout_s: float = 900.0, address: str | None = None,
                 init_kwargs: dict[str, Any] | None = None):
        import ray
        from ray.util.placement_group import placement_group as make_pg
        from ray.util.placement_group import remove_placement_group
        from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

        if num_engines < 1:
            raise ValueError(f"need num_engines >= 1, got {num_engines}")
        if not ray.is_initialized():
            ray.init(address=address, **{"include_dashboard": False, **(init_kwargs or {})})
        self.num_engines, self.timeout_s = num_engines, timeout_s
        bundle = {k: v for k, v in (("GPU", num_gpus), ("CPU", num_cpus)) if v}
        self._own_pg = placement_group is None and bool(bundle)
        self.pg = make_pg([dict(bundle) for _ in range(num_engines)], strategy=strategy) if self._own_pg \
            else placement_group
        self._remove_pg = remove_placement_group
        if self.pg is not None:
            try:
                ray.get(self.pg.ready(), timeout=start_timeout_s)
            except ray.exceptions.GetTimeoutError:
                self.close()
                raise RuntimeError(f"the placement group of {num_engines} x {bundle} was not ready within "
                                   f"{start_timeout_s:.0f} s: the cluster lacks those resources") from None
        self.actors = []
        for i in range(num_engines):
            options: dict[str, Any] = {"num_gpus": num_gpus, "num_cpus": num_cpus, "max_restarts": 0}
            if self.pg is not None:
                options["scheduling_strategy"] = PlacementGroupSchedulingStrategy(
                    self.pg, placement_group_bundle_index=i, placement_group_capture_child_tasks=True)
            if runtime_env:
                options["runtime_env"] = runtime_env
            self.actors.append(ray.remote(EngineActor).options(**options).remote(make_engine))
        try:
            self.infos = self._get([a.info.remote() for a in self.actors], start_timeout_s, "start")
        except EngineError:
            self.close()
            raise
        first = self.infos[0]
        self.eos_token_ids, self.max_context = first["eos_token_ids"], first["max_context"]
        self.probe_tolerance = first["probe_tolerance"]
        self.policy_version = int(first["policy_version"])
        self._next = 0

    # ---- the engine contract ---------------------------------------------------------------------

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        """Contiguous shards of `requests`, one per engine, generated in parallel; results in order."""
        requests = list(requests)
        if not requests:
            return []
        n = min(self.num_engines, len(requests))
        size, extra = divmod(len(requests), n)
        shards, start = [], 0
        for k in range(n):  # sizes differ by at most one; small batches rotate over the engines
            end = start + size + (k < extra)
            shards.append(((self._next + k) % self.num_engines, requests[start:end]))
            start = end
        self._next = (self._next + n) % self.num_engines
        refs = [self.actors[i].generate.remote(shard) for i, shard in shards]
        out: list[Completion] = []
        for (i, _), completions in zip(shards, self._get(refs, self.timeout_s, "generate"), strict=True):
            for c in completions:
                c.meta["engine"] = i
            out.extend(completions)
        return out

    def load_adapter(self, path_or_state: Any, version: int) -> None:
        """Send the adapter to every engine (one object-store copy); return when all serve `version`."""
        import ray

        payload = path_or_state
        if hasattr(payload, "save_pretrained") and hasattr(payload, "peft_config"):
            with tempfile.TemporaryDirectory(prefix="codegym-adapter-") as d:
                payload.save_pretrained(d)
                payload = AdapterFiles.from_dir(d)
        elif isinstance(payload, (str, Path)):
            payload = AdapterFiles.from_dir(payload)
        ref = ray.put(payload)
        versions = self._get([a.load_adapter.remote(ref, int(version)) for a in self.actors], self.timeout_s,
                             "load_adapter")
        if any(v != int(version) for v in versions):
            raise EngineError(f"engines report policy versions {versions} after loading version {version}")
        self.policy_version = int(version)

    # ---- per engine ----------------------------------------------------------------------------

    @property
    def replicas(self) -> list[EngineReplica]:
        """Each engine on its own, with the engine contract (to probe them one by one)."""
        return [EngineReplica(self, i) for i in range(self.num_engines)]

    def probe(self, trainer_model: Any, tokenizer: Any = None, **kwargs: Any) -> list[Any]:
        """`probe_logprobs` against every engine at this engine's `policy_version`."""
        from codegym.agents.engines.probe import probe_logprobs

        kwargs.setdefault("version", self.policy_version)
        return [probe_logprobs(trainer_model, r, tokenizer, **kwargs) for r in self.replicas]

    def call(self, name: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call a method of every engine (``sleep``, ``wake_up``, ...); their results in order."""
        return self._get([a.call.remote(name, args, kwargs) for a in self.actors], self.timeout_s, name)

    def close(self) -> None:
        import ray

        for a in getattr(self, "actors", []):
            try:
                ray.kill(a, no_restart=True)
            except Exception:
                pass
        self.actors = []
        if self._own_pg and self.pg is not None:
            try:
                self._remove_pg(self.pg)
            except Exception:
                pass
            self.pg = None

    def __enter__(self) -> RayEngine:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _get(self, refs: list, timeout: float, op: str) -> list[Any]:
        import ray

        try:
            return ray.get(refs, timeout=timeout)
        except ray.exceptions.GetTimeoutError:
            raise EngineError(f"{op} on the engine actors took more than {timeout:.0f} s") from None
        except ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, EngineError):
                raise cause from None
            raise EngineError(f"{op} failed in an engine actor: {type(cause).__name__}: {cause}") from None
        except ray.exceptions.RayError as exc:  # an actor died, a node was lost
            raise EngineError(f"an engine actor died during {op}: {_summary(exc)}") from None


def _summary(exc: BaseException) -> str:
    """The first and the last line of a Ray error (what died, and the exception that killed it)."""
    lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()] or [type(exc).__name__]
    text = lines[0][:300]
    return text if len(lines) == 1 else f"{text} ... {lines[-1][:300]}"


class EngineReplica:
    """One engine of a `RayEngine`, with the engine contract (its own version, from the actor)."""

    def __init__(self, parent: RayEngine, index: int):
        self.parent, self.index = parent, index
        self.eos_token_ids, self.max_context = parent.eos_token_ids, parent.max_context
        self.probe_tolerance = parent.probe_tolerance

    @property
    def policy_version(self) -> int:
        [info] = self.parent._get([self.parent.actors[self.index].info.remote()], self.parent.timeout_s, "info")
        return int(info["policy_version"])

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        [out] = self.parent._get([self.parent.actors[self.index].generate.remote(list(requests))],
                                 self.parent.timeout_s, "generate")
        for c in out:
            c.meta["engine"] = self.index
        return out
