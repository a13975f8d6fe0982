"""Envs on a Ray cluster: `RayEnvPool` runs them in worker actors, the collector stays as it is.

    pool = make_env_pool("ray", lambda: gym.make("codegym/Toy-v0"), num_workers=4, envs_per_worker=8)
    episodes = collect(pool.make_env, agent, tasks, group_size=8, max_envs=pool.max_envs)
    leaves = pool.collect_trees(agent, tasks, trees=2, rounds=1, expand=2)   # the same, shorter
    pool.close()

Each worker is a Ray actor that owns up to `envs_per_worker` envs and their sandboxes on its
node (the node's own Docker engine, or the `DOCKER_HOST` given per worker). It asks for
`slot_resources` (default ``{"sandbox": 1}`` when the cluster advertises a ``sandbox``
resource) per env slot, so a node takes as many workers as its ``ray start --resources``
allows. `pool.make_env` is a zero-argument env factory for `collect` / `collect_trees`: it
places a new env on the least loaded live worker and returns a `RemoteEnv`, a proxy with the
calls the collector makes (``reset``, ``step``, ``get_wrapper_attr("snapshot" | "restore")``,
``close``). Generation stays in the driver (or in `RayEngine` actors); observations, infos and
`EnvSnapshot`s (sandbox tar bytes) travel by pickle, so a tree node snapshotted on one worker
continues on another.

Failures never hang an iteration: every remote call waits at most `timeout_s` (creation
`start_timeout_s`). When a worker dies (its process or node is gone), every call on its envs
raises `WorkerDiedError`, which the collector turns into ``train_mask=False`` with the reason;
the pool starts a replacement actor at once and places later envs there. A call that times out
raises `RemoteEnvTimeout`; the worker is then pinged, and replaced when it does not answer.
Exceptions raised by the env itself come back as themselves (a `ValueError` stays one), so
masks and reasons read as in a local run. Orphaned containers of a dead worker stop on their
own (the sandbox keeper's TTL) and the replacement's sandbox pool reaps them on start.
"""

from __future__ import annotations

import itertools
import os
import socket
import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from codegym.trainer import rollout


class WorkerDiedError(RuntimeError):
    """The Ray actor that held this env is gone (process, node or connection lost)."""


class RemoteEnvTimeout(TimeoutError):
    """A remote env call did not answer within the pool's timeout."""


# ---- the worker actor (runs on a cluster node) -----------------------------------------------------


class EnvWorker:
    """Owns envs by id; each method is one env call. Runs as a threaded Ray actor."""

    def __init__(self, make_env: Callable[[], Any], index: int):
        self.make_env, self.index = make_env, index
        self.envs: dict[int, Any] = {}
        self.lock = threading.Lock()

    def ping(self) -> dict[str, Any]:
        return {"pid": os.getpid(), "host": socket.gethostname(), "envs": len(self.envs),
                "docker_host": os.environ.get("DOCKER_HOST", "")}

    def create(self, env_id: int) -> None:
        env = self.make_env()
        with self.lock:
            self.envs[env_id] = env

    def _env(self, env_id: int) -> Any:
        env = self.envs.get(env_id)
        if env is None:
            raise KeyError(f"env {env_id} is not on worker {self.index} (closed, or the worker restarted)")
        return env

    def reset(self, env_id: int, seed: int | None, options: dict | None) -> tuple:
        return self._env(env_id).reset(seed=seed, options=options)

    def step(self, env_id: int, action: Any) -> tuple:
        return self._env(env_id).step(action)

    def call(self, env_id: int, name: str, args: tuple, kwargs: dict) -> Any:
        return self._env(env_id).get_wrapper_attr(name)(*args, **kwargs)

    def close(self, env_id: int) -> None:
        with self.lock:
            env = self.envs.pop(env_id, None)
        if env is not None:
            env.close()

    def close_all(self) -> int:
        with self.lock:
            envs, self.envs = list(self.envs.values()), {}
        for env in envs:
            try:
                env.close()
            except Exception:  # best effort: the pool is going away
                pass
        return len(envs)


# ---- the driver side -----------------------------------------------------------------------------


class _Worker:
    """The driver's record of one worker slot: its current actor and generation."""

    def __init__(self, index: int):
        self.index = index
        self.actor: Any = None
        self.generation = 0  # bumped at each replacement; proxies of older generations are dead
        self.live: set[int] = set()
        self.where: dict[str, Any] = {}


class RemoteEnv:
    """A proxy for one env on a worker actor, with the calls `rollout.collect` makes."""

    def __init__(self, pool: RayEnvPool, worker: _Worker, generation: int, env_id: int):
        self.pool, self.worker, self.generation, self.env_id = pool, worker, generation, env_id
        self.closed = False

    @property
    def worker_index(self) -> int:
        return self.worker.index

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple:
        return self._call("reset", seed, options)

    def step(self, action: Any) -> tuple:
        return self._call("step", action)

    def get_wrapper_attr(self, name: str) -> Callable[..., Any]:
        """A remote method of the env (through its wrappers): ``snapshot``, ``restore``, ..."""
        def method(*args: Any, **kwargs: Any) -> Any:
            result = self._call("call", name, args, kwargs)
            if name in ("snapshot", "restore"):
                self.pool.events.append((name, self.worker.index, id(result if name == "snapshot" else args[0])))
            return result
        return method

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.pool._forget(self)
        if self.generation == self.worker.generation:
            try:  # fire and forget: closing must not stall the collector
                self.worker.actor.close.remote(self.env_id)
            except Exception:
                pass

    def _call(self, op: str, *args: Any) -> Any:
        if self.closed:
            raise RuntimeError(f"env {self.env_id} on worker {self.worker.index} is closed")
        return self.pool._call(self.worker, self.generation, op, self.env_id, *args)

    def __repr__(self) -> str:
        return f"RemoteEnv(worker={self.worker.index}, generation={self.generation}, env={self.env_id})"


class RayEnvPool:
    """Env workers on a Ray cluster; `make_env` hands out `RemoteEnv`s. See the module docstring.

    Args:
        make_env: the zero-argument env factory, run inside the workers (cloudpickled).
        num_workers: worker actors; envs_per_worker: env slots each (``max_envs`` is the product).
        address: the cluster to join when Ray is not initialized yet (None: start a local one;
            ``"auto"``: the cluster this node belongs to; ``"ray://head:10001"``: a client).
        slot_resources: Ray resources per env slot (default ``{"sandbox": 1}`` if the cluster
            has a ``sandbox`` resource, else none); a worker asks for ``envs_per_worker`` times them.
        docker_hosts: a ``DOCKER_HOST`` per worker (cycled), for sandboxes on remote engines.
        runtime_env: a Ray runtime env for the workers (``env_vars``, ``working_dir``, ...).
        timeout_s: the longest any env call may take (keep it above the env's grading timeout).
        start_timeout_s: the longest a worker may take to start and create an env.
        ping_timeout_s: how long a worker has to answer a health check after a timeout.
        init_kwargs: passed to ``ray.init`` when the pool starts Ray (e.g. ``num_cpus=2``).
    """

    def __init__(self, make_env: Callable[[], Any], num_workers: int = 2, envs_per_worker: int = 4, *,
                 address: str | None = None, slot_resources: dict[str, float] | None = None,
                 docker_hosts: Sequence[str] | None = None, runtime_env: dict[str, Any] | None = None,
                 timeout_s: float = 900.0, start_timeout_s: float = 300.0, ping_timeout_s: float = 30.0,
                 init_kwargs: dict[str, Any] | None = None):
        import ray

        if num_workers < 1 or envs_per_worker < 1:
            raise ValueError(f"need num_workers >= 1 and envs_per_worker >= 1, got {num_workers}, {envs_per_worker}")
        if not ray.is_initialized():
            ray.init(address=address, **{"include_dashboard": False, **(init_kwargs or {})})
        self.make_env_fn = make_env
        self.num_workers, self.envs_per_worker = num_workers, envs_per_worker
        self.timeout_s, self.start_timeout_s, self.ping_timeout_s = timeout_s, start_timeout_s, ping_timeout_s
        if slot_resources is None:
            slot_resources = {"sandbox": 1} if ray.cluster_resources().get("sandbox") else {}
        self.slot_resources = dict(slot_resources)
        self.docker_hosts, self.runtime_env = list(docker_hosts or []), runtime_env
        self.lock = threading.Lock()
        self.ids = itertools.count()
        self.stats: dict[str, float] = {"restarts": 0, "calls": 0, "timeouts": 0, "envs_created": 0}
        #: (op, worker index, key) of every snapshot and restore: which worker forked what.
        self.events: deque[tuple[str, int, int]] = deque(maxlen=100_000)
        self.workers = [_Worker(i) for i in range(num_workers)]
        self._closed = False
        for w in self.workers:
            self._start(w)
        for w in self.workers:  # all up, or a clear error (never a hang on unschedulable actors)
            self._ping(w, self.start_timeout_s, starting=True)

    @property
    def max_envs(self) -> int:
        return self.num_workers * self.envs_per_worker

    # ---- workers ---------------------------------------------------------------------------------

    def _start(self, w: _Worker) -> None:
        import ray

        runtime_env = dict(self.runtime_env or {})
        if self.docker_hosts:
            env_vars = dict(runtime_env.get("env_vars", {}))
            env_vars["DOCKER_HOST"] = self.docker_hosts[w.index % len(self.docker_hosts)]
            runtime_env["env_vars"] = env_vars
        # No CPU reservation (env steps mostly wait on Docker); restarts are ours (`_replace`).
        options: dict[str, Any] = {"num_cpus": 0, "max_restarts": 0, "max_concurrency": self.envs_per_worker + 4}
        if self.slot_resources:
            options["resources"] = {k: v * self.envs_per_worker for k, v in self.slot_resources.items()}
        if runtime_env:
            options["runtime_env"] = runtime_env
        w.actor = ray.remote(EnvWorker).options(**options).remote(self.make_env_fn, w.index)
        w.live, w.where = set(), {}

    def _ping(self, w: _Worker, timeout: float, starting: bool = False) -> bool:
        import ray

        try:
            w.where = ray.get(w.actor.ping.remote(), timeout=timeout)
            return True
        except ray.exceptions.GetTimeoutError:
            if starting:
                self.close()
                raise RuntimeError(
                    f"env worker {w.index} did not start within {timeout:.0f} s: no node offers "
                    f"{self.slot_resources or 'room'} x {self.envs_per_worker} (start the workers' nodes with "
                    "`ray start --address=HEAD:6379 --resources='{\"sandbox\": N}'`, or lower envs_per_worker)"
                ) from None
            return False
        except ray.exceptions.RayError:
            if starting:
                raise
            return False

    def _replace(self, w: _Worker, generation: int) -> None:
        """Start a new actor for worker `w` unless someone already did since `generation`."""
        import ray

        with self.lock:
            if w.generation != generation or self._closed:
                return
            old = w.actor
            w.generation += 1
            self.stats["restarts"] += 1
            self._start(w)
        try:
            ray.kill(old, no_restart=True)
        except Exception:  # already dead
            pass

    # ---- env placement -------------------------------------------------------------------------

    def make_env(self) -> RemoteEnv:
        """A new env on the least loaded worker (the `make_env` to give `collect`).

        A worker found dead here is replaced and the env made once more (on the replacement or
        another worker), so a job that never started is not lost to an earlier failure.
        """
        try:
            return self._make_env()
        except WorkerDiedError:
            return self._make_env()

    def _make_env(self) -> RemoteEnv:
        with self.lock:
            if self._closed:
                raise RuntimeError("the RayEnvPool is closed")
            free = [w for w in self.workers if len(w.live) < self.envs_per_worker]
            if not free:
                raise RuntimeError(f"all {self.max_envs} env slots of the pool are in use "
                                   f"(collect with max_envs <= pool.max_envs = {self.max_envs})")
            w = min(free, key=lambda w: (len(w.live), w.index))
            env_id, generation = next(self.ids), w.generation
            w.live.add(env_id)
            actor = w.actor
        proxy = RemoteEnv(self, w, generation, env_id)
        try:
            self._wait(w, generation, actor.create.remote(env_id), "create", self.start_timeout_s)
        except BaseException:
            self._forget(proxy)
            proxy.closed = True
            raise
        self.stats["envs_created"] += 1
        if not w.where and generation == w.generation:  # a replacement's first env: learn where it runs
            self._ping(w, self.ping_timeout_s)
        return proxy

    def _forget(self, proxy: RemoteEnv) -> None:
        with self.lock:
            if proxy.generation == proxy.worker.generation:
                proxy.worker.live.discard(proxy.env_id)

    # ---- remote calls ------------------------------------------------------------------------

    def _call(self, w: _Worker, generation: int, op: str, *args: Any) -> Any:
        with self.lock:
            actor = w.actor if generation == w.generation else None
        if actor is None:
            raise WorkerDiedError(f"env worker {w.index} died earlier in this batch and was restarted; "
                                  "its envs are gone")
        ref = getattr(actor, op).remote(*args)
        return self._wait(w, generation, ref, op, self.timeout_s)

    def _wait(self, w: _Worker, generation: int, ref: Any, op: str, timeout: float) -> Any:
        import ray

        self.stats["calls"] += 1
        try:
            return ray.get(ref, timeout=timeout)
        except ray.exceptions.GetTimeoutError:
            self.stats["timeouts"] += 1
            if not self._ping(w, self.ping_timeout_s):
                self._replace(w, generation)
            raise RemoteEnvTimeout(f"{op} on env worker {w.index} took more than {timeout:.0f} s") from None
        except ray.exceptions.RayTaskError as exc:  # the env raised: hand its own exception on
            cause = getattr(exc, "cause", None)
            if isinstance(cause, BaseException) and not isinstance(cause, ray.exceptions.RayError):
                raise cause from None
            raise
        except (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError) as exc:
            self._replace(w, generation)
            lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()] or [type(exc).__name__]
            where = w.where.get("host", "?")
            raise WorkerDiedError(f"env worker {w.index} on {where} died during {op}: {lines[0][:300]}") from None

    # ---- the collector, on this pool -----------------------------------------------------------

    def collect(self, agent: Any, tasks: Sequence[Any], group_size: int = 1, **kwargs: Any):
        """`rollout.collect` on this pool's envs (``max_envs`` defaults to `max_envs`)."""
        return rollout.collect(self.make_env, agent, tasks, group_size, **self._limit(kwargs))

    def collect_trees(self, agent: Any, tasks: Sequence[Any], **kwargs: Any):
        """`rollout.collect_trees` on this pool's envs (``max_envs`` defaults to `max_envs`)."""
        return rollout.collect_trees(self.make_env, agent, tasks, **self._limit(kwargs))

    def _limit(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        kwargs = dict(kwargs)
        kwargs.setdefault("max_envs", self.max_envs)
        if kwargs["max_envs"] > self.max_envs:
            raise ValueError(f"max_envs={kwargs['max_envs']} exceeds the pool's {self.max_envs} env slots")
        return kwargs

    def close(self) -> None:
        """Close every env and stop the workers (Ray itself keeps running)."""
        import ray

        with self.lock:
            if self._closed:
                return
            self._closed = True
            actors = [w.actor for w in self.workers if w.actor is not None]
            started = [w.actor for w in self.workers if w.actor is not None and w.where]
        refs = [a.close_all.remote() for a in started]  # a worker that never started has nothing to close
        try:
            ray.wait(refs, num_returns=len(refs), timeout=min(60.0, self.timeout_s))
        except Exception:
            pass
        for a in actors:
            try:
                ray.kill(a, no_restart=True)
            except Exception:
                pass

    def __enter__(self) -> RayEnvPool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class LocalEnvPool:
    """The same interface without Ray: `make_env` is the factory itself, envs run in threads here."""

    def __init__(self, make_env: Callable[[], Any], max_envs: int = 8):
        self.make_env, self.max_envs = make_env, max_envs
        self.stats: dict[str, float] = {}

    def collect(self, agent: Any, tasks: Sequence[Any], group_size: int = 1, **kwargs: Any):
        kwargs.setdefault("max_envs", self.max_envs)
        return rollout.collect(self.make_env, agent, tasks, group_size, **kwargs)

    def collect_trees(self, agent: Any, tasks: Sequence[Any], **kwargs: Any):
        kwargs.setdefault("max_envs", self.max_envs)
        return rollout.collect_trees(self.make_env, agent, tasks, **kwargs)

    def close(self) -> None:
        pass

    def __enter__(self) -> LocalEnvPool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def make_env_pool(backend: str, make_env: Callable[[], Any], *, max_envs: int = 8,
                  **ray_options: Any) -> LocalEnvPool | RayEnvPool:
    """The env provider for ``rollout.backend``: ``"local"`` (threads here) or ``"ray"``.

    ``ray_options`` are `RayEnvPool`'s keyword arguments (``num_workers``, ``envs_per_worker``,
    ``address``, ``slot_resources``, ``docker_hosts``, ``timeout_s``, ...; ``envs_per_worker``
    defaults to `max_envs` spread over the workers); the local backend ignores them. Either way: ``pool.collect(agent, tasks, group_size, ...)``,
    ``pool.collect_trees(...)``, or ``collect(pool.make_env, ..., max_envs=pool.max_envs)``.
    """
    if backend == "local":
        return LocalEnvPool(make_env, max_envs)
    if backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError as exc:
            raise ImportError("rollout.backend 'ray' needs Ray: pip install 'codegym[ray]'") from exc
        workers = int(ray_options.setdefault("num_workers", 2))
        ray_options.setdefault("envs_per_worker", max(1, -(-max_envs // workers)))  # max_envs spread over them
        return RayEnvPool(make_env, **ray_options)
    raise ValueError(f"unknown rollout backend {backend!r}: use 'local' or 'ray'")
