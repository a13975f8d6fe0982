"""Async rollouts: the next iterations' episodes are collected while the current one trains.

    pipeline = RolloutPipeline(collect_fn, sampler, tasks_per_iteration=4, max_staleness=1, start=0, limit=10)
    episodes, stats, wall_s = pipeline.take(it, tasks)   # the batch of iteration `it` (waits for it)
    pipeline.completed(it + 1)                           # after the update and the adapter hand-off

**Admission**: the rollouts of iteration ``j`` may start only when the trainer has finished at
least ``j - k`` iterations (``k = rollout.max_staleness``), i.e. when the policy version they
start from is within ``k`` of the version that will train on them. Once started, an episode
always runs to its end and is kept, however long it takes: a slow coding episode is never
discarded for being slow (it may then be staler than ``k``; the ``staleness/*`` metrics show it).
The engine gets every new adapter as soon as it exists, so later turns of a running episode use
newer weights; each step records the version that sampled it.

With ``k = 0`` the rollouts of iteration ``j`` start only after iteration ``j - 1`` has updated
and synced: the synchronous schedule, and the same episodes (same tasks, seeds, weights).

Tasks are drawn, in order, from a look-ahead copy of the trainer's task sampler; the trainer's own
sampler advances only when it takes a batch, so a checkpoint's sampler state is that of the next
batch to train on (a resumed async run samples the same tasks; which policy version sampled each
turn depends on timing).
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable
from typing import Any


class RolloutPipeline:
    """A background thread collecting iterations ``start, start + 1, ...`` under admission."""

    def __init__(self, collect_fn: Callable[[int, list[str], dict[str, float]], list[Any]], sampler: Any, *,
                 tasks_per_iteration: int, max_staleness: int, start: int, limit: int):
        self.collect_fn, self.sampler = collect_fn, copy.deepcopy(sampler)
        self.n, self.k = tasks_per_iteration, max_staleness
        self.done, self.next_it, self.limit = start, start, limit
        self.ready: dict[int, tuple[list[str], list[Any], dict[str, float], float]] = {}
        self.error: BaseException | None = None
        self.stop = False
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._run, name="rollout-pipeline", daemon=True)
        self.thread.start()

    def _admitted(self) -> bool:
        return self.next_it < self.limit and self.next_it - self.done <= self.k

    def _run(self) -> None:
        while True:
            with self.cond:
                while not self.stop and not self._admitted():
                    self.cond.wait()
                if self.stop:
                    return
                it = self.next_it
                self.next_it += 1
            tasks = self.sampler.next(self.n)
            stats: dict[str, float] = {}
            t0 = time.monotonic()
            try:
                episodes = self.collect_fn(it, tasks, stats)
            except BaseException as exc:  # handed to the trainer's thread by take()
                with self.cond:
                    self.error = exc
                    self.cond.notify_all()
                return
            stats["started_after_done"] = float(it - self.done)  # how far ahead it was admitted
            with self.cond:
                self.ready[it] = (tasks, episodes, stats, time.monotonic() - t0)
                self.cond.notify_all()

    def take(self, it: int, tasks: list[str]) -> tuple[list[Any], dict[str, float], float]:
        """The episodes, stats and collection seconds of iteration `it` (blocks until collected)."""
        with self.cond:
            if it >= self.limit:
                self.limit = it + 1
                self.cond.notify_all()
            while it not in self.ready and self.error is None:
                self.cond.wait()
            if it not in self.ready:
                raise RuntimeError(f"rollout collection for iteration {it} failed: {self.error}") from self.error
            drawn, episodes, stats, wall = self.ready.pop(it)
        if drawn != list(tasks):
            raise RuntimeError(f"the pipeline collected tasks {drawn} for iteration {it}, the trainer expected {tasks}")
        return episodes, stats, wall

    def completed(self, iterations: int) -> None:
        """The trainer has finished (updated and synced) `iterations` iterations: admit more."""
        with self.cond:
            self.done = iterations
            self.cond.notify_all()

    def extend(self, limit: int) -> None:
        """Collect up to iteration ``limit - 1`` (a `train()` call that runs further)."""
        with self.cond:
            self.limit = max(self.limit, limit)
            self.cond.notify_all()

    def close(self, timeout: float = 600.0) -> None:
        """Stop admitting; wait for a collection in progress to finish (its envs are then closed)."""
        with self.cond:
            self.stop = True
            self.cond.notify_all()
        self.thread.join(timeout)
