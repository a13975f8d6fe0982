"""Rollout collection: the policy acting in many envs at once, recorded as `Episode`s.

    agent = LLMAgent(TransformersEngine(model, tokenizer), tokenizer, max_new_tokens=128)
    episodes = collect(lambda: gym.make("codegym/Toy-v0"), agent, ["toy-add-typo"], group_size=8)
    leaves = collect_trees(make_env, agent, tasks, trees=2, rounds=1, expand=2)   # Tree-GRPO

Up to `max_envs` envs step concurrently in threads. Turns run in lockstep: every env that
awaits an action contributes one request and the engine generates them in one batch; then
all envs step concurrently (an env whose episode ended resets for the next job in the same
phase). An env that fails (sandbox gone, an exception) or an engine error ends that episode
with ``train_mask=False`` and the reason; the others go on.

Tree rollouts (Tree-GRPO, Ji et al. 2025): per task, M = `trees` initial trajectories (one tree
each); then L = `rounds` rounds, each expanding N = `expand` nodes of every tree, for
G = M x (L x N + 1) leaves per task. A node is the state after a non-final
step of one of the tree's trajectories, kept as `env.snapshot()` plus the agent's state. A
fresh env `restore()`s it and the policy continues from there. The new leaf holds the whole
root-to-leaf trajectory, with `branch_step` = the steps it shares with its parent: `to_sequences`
leaves those copied steps out of the leaf's loss mask, so a branch trains only on what it sampled
after its branch point and every prefix is trained once, by the trajectory that sampled it. A
tree with fewer than N nodes samples them with replacement, and one with none starts a new
trajectory from the root (``branch_step = 0``).
"""

from __future__ import annotations

import copy
import random
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from codegym.agents.engines.base import Completion
from codegym.agents.llm import ContextLimitError, LLMAgent

from .data import Episode, episode_from_turns


@dataclass
class _Node:
    """The state after `step` steps of an episode, ready to continue elsewhere."""

    episode_id: str
    step: int
    env_snapshot: Any
    agent_state: dict[str, Any]
    obs: Any
    info: dict[str, Any]


@dataclass
class _Job:
    index: int
    task_id: str
    group_id: str
    episode_id: str
    seed: int
    tree_id: str | None = None
    branch_id: int = 0
    node: _Node | None = None
    keep_nodes: bool = False


@dataclass
class _Slot:
    """One env and its agent, running one job at a time."""

    agent: LLMAgent
    env: Any = None
    job: _Job | None = None
    obs: Any = None
    info: dict[str, Any] = field(default_factory=dict)
    text: str | None = None
    started: float = 0.0
    nodes: list[_Node] = field(default_factory=list)
    fresh: bool = True  # the env was never reset


def _task_id(task: Any) -> str:
    return task if isinstance(task, str) else task.instance_id


def _make_agent(agent: Any) -> LLMAgent:
    if isinstance(agent, LLMAgent):
        return agent.clone()
    made = agent()
    if not isinstance(made, LLMAgent):
        raise TypeError(f"collect needs an LLMAgent or a factory of them, got {type(made).__name__}")
    return made


class _Collector:
    def __init__(self, make_env: Callable[[], Any], agent: Any, max_envs: int, progress: bool,
                 on_episode: Callable[[Episode], None] | None, stats: dict[str, float] | None):
        self.make_env, self.agent_spec = make_env, agent
        self.max_envs = max(1, int(max_envs))
        self.progress, self.on_episode = progress, on_episode
        self.stats = stats if stats is not None else {}
        for k in ("episodes", "turns", "generated_tokens", "generate_s", "env_s", "wall_s", "masked"):
            self.stats.setdefault(k, 0)
        self.slots: list[_Slot] = []
        self.lock = threading.Lock()
        self.base_seed: int | None = None

    # ---- running a list of jobs ----------------------------------------------------------------

    def run(self, jobs: list[_Job]) -> tuple[list[Episode], dict[str, list[_Node]]]:
        from rich.progress import Progress

        t_start = time.monotonic()
        self.queue = deque(jobs)
        self.results: dict[int, Episode] = {}
        self.nodes: dict[str, list[_Node]] = {}
        while len(self.slots) < min(self.max_envs, len(jobs)):
            self.slots.append(_Slot(_make_agent(self.agent_spec)))
        engine = self.slots[0].agent.engine if self.slots else None
        if any(s.agent.engine is not engine for s in self.slots):
            raise ValueError("all agents of a collection must share one engine (batched generation)")
        if self.slots and self.slots[0].agent.tokenizer is None:
            raise ValueError("collect needs token ids: give the LLMAgent a tokenizer (chat mode is for evaluation)")
        bar = Progress(transient=True, disable=not self.progress)
        self.bar, self.bar_task = bar, bar.add_task("episodes", total=len(jobs))
        with bar, ThreadPoolExecutor(max_workers=len(self.slots) or 1, thread_name_prefix="rollout") as pool:
            busy = list(self.slots)
            while busy:
                t0 = time.monotonic()
                list(pool.map(self._advance, busy))  # env phase: step, finish, start next jobs
                self.stats["env_s"] += time.monotonic() - t0
                busy = [s for s in self.slots if s.job is not None]
                if busy:
                    self._generate(busy)
        self.stats["wall_s"] += time.monotonic() - t_start
        return [self.results[j.index] for j in jobs], self.nodes

    def close(self) -> None:
        for slot in self.slots:
            if slot.env is not None:
                try:
                    slot.env.close()
                except Exception:  # closing is best effort
                    pass
                slot.env = None

    # ---- generation phase (main thread) ---------------------------------------------------------

    def _generate(self, slots: list[_Slot]) -> None:
        t0 = time.monotonic()
        ready, requests = [], []
        for slot in slots:
            try:
                requests.append(slot.agent.prepare(slot.obs, slot.info))
                ready.append(slot)
            except ContextLimitError as exc:
                self._end(slot, None, f"context_limit: {exc}", stop_reason="context_limit")
        completions = self._safe_generate(ready[0].agent.engine, requests) if ready else []
        for slot, c in zip(ready, completions, strict=True):
            if isinstance(c, Completion):
                slot.text = slot.agent.finish(c)
                self.stats["generated_tokens"] += len(c.token_ids)
                self.stats["turns"] += 1
            else:
                slot.agent.abort()
                self._end(slot, None, f"engine_error: {c}", stop_reason="engine_error")
        self.stats["generate_s"] += time.monotonic() - t0

    @staticmethod
    def _safe_generate(engine: Any, requests: list) -> list[Completion | str]:
        """Completions, or the error message of each request that failed."""
        try:
            out = engine.generate(requests)
            if len(out) != len(requests):
                raise RuntimeError(f"the engine returned {len(out)} completions for {len(requests)} requests")
            return list(out)
        except Exception as exc:
            if len(requests) == 1:
                return [f"{type(exc).__name__}: {exc}"]
        results: list[Completion | str] = []
        for r in requests:  # isolate the failing request(s)
            try:
                results.append(engine.generate([r])[0])
            except Exception as exc:
                results.append(f"{type(exc).__name__}: {exc}")
        return results

    # ---- env phase (pool threads) ----------------------------------------------------------------

    def _advance(self, slot: _Slot) -> None:
        """Step the env with the slot's action; when the episode ends, start the next job."""
        if slot.job is not None and slot.text is not None:
            text, slot.text = slot.text, None
            try:
                slot.obs, reward, terminated, truncated, slot.info = slot.env.step(text)
            except Exception as exc:
                self._end(slot, None, f"env_error: {type(exc).__name__}: {exc}", stop_reason="env_error")
                self._drop_env(slot)
            else:
                slot.agent.observe(slot.info)
                if terminated or truncated:
                    self._end(slot, float(reward), None)
                elif slot.job.keep_nodes:
                    self._keep_node(slot)
        while slot.job is None and self._next_job(slot):
            self._start(slot)

    def _next_job(self, slot: _Slot) -> bool:
        with self.lock:
            if not self.queue:
                return False
            slot.job = self.queue.popleft()
        return True

    def _start(self, slot: _Slot) -> None:
        job = slot.job
        slot.started, slot.nodes, slot.text = time.monotonic(), [], None
        agent = slot.agent
        agent.reset()
        if self.base_seed is not None:  # distinct, reproducible sampling seeds per rollout
            agent.seed = self.base_seed * 1_000_003 + job.index * 1009
        try:
            if slot.env is None:
                slot.env, slot.fresh = self.make_env(), True
            if job.node is None:
                slot.obs, slot.info = slot.env.reset(seed=job.seed, options={"task_id": job.task_id})
                slot.fresh = False
                agent.reset(slot.info)
            else:
                if slot.fresh:  # wrappers (OrderEnforcing) want a reset before anything else
                    slot.env.reset(seed=job.seed, options={"task_id": job.task_id})
                    slot.fresh = False
                slot.env.get_wrapper_attr("restore")(job.node.env_snapshot)
                slot.obs, slot.info = copy.deepcopy(job.node.obs), copy.deepcopy(job.node.info)
                agent.restore(job.node.agent_state)
        except Exception as exc:
            self._end(slot, None, f"start_error: {type(exc).__name__}: {exc}", stop_reason="start_error")
            self._drop_env(slot)

    def _drop_env(self, slot: _Slot) -> None:
        if slot.env is not None:
            try:
                slot.env.close()
            except Exception:
                pass
        slot.env = None

    def _keep_node(self, slot: _Slot) -> None:
        try:
            snap = slot.env.get_wrapper_attr("snapshot")()
        except Exception:  # no node here; a broken sandbox shows up at the next step
            return
        slot.nodes.append(_Node(slot.job.episode_id, len(slot.agent.turns), snap, slot.agent.snapshot(),
                                copy.deepcopy(slot.obs), copy.deepcopy(slot.info)))

    def _end(self, slot: _Slot, reward: float | None, error: str | None, stop_reason: str = "") -> None:
        """Record the slot's episode and free the slot."""
        job, info = slot.job, slot.info or {}
        parent = job.node
        fields = dict(task_id=job.task_id, group_id=job.group_id, episode_id=job.episode_id, tree_id=job.tree_id,
                      branch_id=job.branch_id, parent_id=parent.episode_id if parent else None,
                      branch_step=parent.step if parent else 0)
        turns = slot.agent.turns
        if error is None:
            ep = episode_from_turns(turns, **fields, reward=reward, reward_components=dict(info.get("rewards", {})),
                                    stop_reason=info.get("stop_reason", ""))
            if not info.get("train_mask", True):
                ep.mask(info.get("sandbox_error") or info.get("stop_reason") or "the env masked the episode")
            ep.metadata = {"tests": info.get("tests", {}), "timing": info.get("timing", {}), "turns": len(turns)}
        else:
            ep = episode_from_turns(turns, **fields, stop_reason=stop_reason)
            ep.mask(error)
            ep.metadata = {"turns": len(turns)}
        ep.metadata.update(seed=job.seed, wall_s=time.monotonic() - slot.started)
        with self.lock:
            self.results[job.index] = ep
            if slot.nodes:
                self.nodes[job.episode_id] = slot.nodes
            self.stats["episodes"] += 1
            self.stats["masked"] += 0 if ep.train_mask else 1
            self.bar.advance(self.bar_task)
        slot.job, slot.nodes, slot.text = None, [], None
        if self.on_episode is not None:
            self.on_episode(ep)


def collect(make_env: Callable[[], Any], agent: Any, tasks: Sequence[Any], group_size: int = 1, *,
            max_envs: int = 8, seed: int | None = 0, batch_id: str | None = None, progress: bool = False,
            on_episode: Callable[[Episode], None] | None = None,
            stats: dict[str, float] | None = None) -> list[Episode]:
    """`group_size` rollouts of every task, `max_envs` envs at a time; one GRPO group per task.

    Args:
        make_env: a zero-argument env factory (e.g. ``lambda: gym.make("codegym/Toy-v0")``).
        agent: an `LLMAgent` (cloned per env; all share its engine) or a factory of them.
        tasks: task ids or `Task`s; each entry is its own group (a task listed twice gives two).
        seed: env reset seeds are ``seed + job index``; sampling seeds derive from it (None: unseeded).
        batch_id: prefix of the group ids (default: random), e.g. the training iteration.
        stats: a dict filled with counts and seconds (episodes, turns, generated_tokens, ...).

    Returns the episodes in order: task by task, `group_size` each. Group ids are
    ``"<batch_id>/<task position>:<task id>"``; episode ids append ``/<rollout>``.
    """
    batch = batch_id or uuid.uuid4().hex[:8]
    jobs = []
    for i, task in enumerate(tasks):
        tid = _task_id(task)
        group = f"{batch}/{i}:{tid}"
        for g in range(group_size):
            k = len(jobs)
            jobs.append(_Job(k, tid, group, f"{group}/{g}", (seed or 0) + k))
    collector = _Collector(make_env, agent, max_envs, progress, on_episode, stats)
    collector.base_seed = seed
    try:
        episodes, _ = collector.run(jobs)
    finally:
        collector.close()
    return episodes


def collect_trees(make_env: Callable[[], Any], agent: Any, tasks: Sequence[Any], *, trees: int = 2,
                  rounds: int = 1, expand: int = 2, max_envs: int = 8, seed: int | None = 0, batch_id: str | None = None,
                  progress: bool = False, on_episode: Callable[[Episode], None] | None = None,
                  stats: dict[str, float] | None = None) -> list[Episode]:
    """Tree-GRPO rollouts: per task `trees` (M) trees, each grown by `rounds` (L) rounds of `expand`
    (N) expansions.

    Every task yields ``M * (L * N + 1)`` leaf episodes, all in one group (``group_id``), each
    with its ``tree_id``, ``branch_id`` (0 = the tree's initial trajectory), ``parent_id`` and
    ``branch_step``. See the module docstring. Returns the episodes ordered by task, tree,
    branch.
    """
    m, n = trees, expand
    if m < 1 or rounds < 0 or n < 1:
        raise ValueError(f"need trees >= 1, rounds >= 0, expand >= 1; got {trees}, {rounds}, {expand}")
    batch = batch_id or uuid.uuid4().hex[:8]
    rng = random.Random(seed)
    collector = _Collector(make_env, agent, max_envs, progress, on_episode, stats)
    collector.base_seed = seed
    leaves: dict[str, list[Episode]] = {}
    tree_nodes: dict[str, list[_Node]] = {}
    tree_task: dict[str, tuple[str, str]] = {}
    counter = 0

    def job(tid: str, group: str, tree: str, branch: int, node: _Node | None, keep: bool) -> _Job:
        nonlocal counter
        counter += 1
        return _Job(counter - 1, tid, group, f"{tree}/b{branch}", (seed or 0) + counter - 1, tree, branch, node, keep)

    try:
        jobs = []
        for i, task in enumerate(tasks):
            tid = _task_id(task)
            group = f"{batch}/{i}:{tid}"
            for t in range(m):
                tree = f"{group}/t{t}"
                leaves[tree], tree_nodes[tree], tree_task[tree] = [], [], (tid, group)
                jobs.append(job(tid, group, tree, 0, None, rounds > 0))
        for rnd in range(rounds + 1):
            episodes, nodes = collector.run(jobs)
            for ep in episodes:
                leaves[ep.tree_id].append(ep)
                tree_nodes[ep.tree_id].extend(nodes.get(ep.episode_id, []))
            if rnd == rounds:
                break
            jobs = []
            for tree, candidates in tree_nodes.items():
                tid, group = tree_task[tree]
                if len(candidates) >= n:
                    chosen: list[_Node | None] = rng.sample(candidates, n)
                elif candidates:
                    chosen = [rng.choice(candidates) for _ in range(n)]
                else:
                    chosen = [None] * n
                for node in chosen:
                    branch = len(leaves[tree]) + sum(j.tree_id == tree for j in jobs)
                    jobs.append(job(tid, group, tree, branch, node, rnd + 1 < rounds))
    finally:
        collector.close()
    return [ep for tree in leaves for ep in sorted(leaves[tree], key=lambda e: e.branch_id)]
