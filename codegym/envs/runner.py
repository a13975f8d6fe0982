"""Run whole episodes: one, or many at once from threads (group rollouts of N per task).

    records = run_episodes(lambda: gym.make("codegym/Toy-v0"), OracleAgent(tasks),
                           task_ids=["toy-hello"], n_per_task=8, max_workers=8)

An agent is anything with `act(messages, info) -> str | ToolCall | dict` (and optionally
`reset(info)`); each worker thread gets its own copy.
"""

from __future__ import annotations

import copy
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from rich.progress import Progress


@dataclass
class EpisodeRecord:
    task_id: str
    reward: float
    rewards: dict[str, float]
    stop_reason: str
    train_mask: bool
    turns: int
    messages: list[dict[str, Any]]
    steps: list[dict[str, Any]] = field(default_factory=list)
    tests: dict[str, str] = field(default_factory=dict)
    hack_events: list[dict[str, Any]] = field(default_factory=list)
    timing: dict[str, float] = field(default_factory=dict)
    wall_s: float = 0.0
    error: str | None = None
    group: int = 0
    diff: str = ""  # the final diff against base_commit that was graded ("" when nothing was)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def run_episode(env, agent, task_id: str | None = None, seed: int | None = None) -> EpisodeRecord:
    t0 = time.monotonic()
    options = {"task_id": task_id} if task_id is not None else None
    obs, info = env.reset(seed=seed, options=options)
    if seed is not None and getattr(agent, "seed", None) is not None:
        # A seeded sampling agent (LLMAgent) draws per turn from its seed: give each episode its
        # own, derived from the episode's seed, or replicates of a task would be identical.
        base = agent.__dict__.setdefault("_base_seed", agent.seed)
        agent.seed = base + 1_000_003 * seed
    if hasattr(agent, "reset"):
        agent.reset(info)
    steps = []
    hack_events = list(info.get("hack_events", []))
    reward, done = 0.0, False
    labels = getattr(agent, "label", None)
    while not done:
        action = agent.act(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        if labels is not None:
            _label_events(info, labels(info.get("turn")))
        hack_events.extend(info.get("hack_events", []))
        steps.append({"turn": info.get("turn"), "tool_call": info.get("tool_call"),
                      "parse_error": info.get("parse_error"), "state_key": info.get("state_key"),
                      "hack_events": info.get("hack_events", []), "segment": info.get("segment")})
    return EpisodeRecord(
        task_id=info.get("task_id", task_id or ""), reward=float(reward), rewards=info.get("rewards", {}),
        stop_reason=info.get("stop_reason", ""), train_mask=bool(info.get("train_mask", True)),
        turns=len(steps), messages=obs, steps=steps, tests=info.get("tests", {}), hack_events=hack_events,
        timing=info.get("timing", {}), wall_s=time.monotonic() - t0, diff=info.get("diff", ""))


def _label_events(info: dict[str, Any], label: tuple[str, str] | None) -> None:
    """Ground truth from an agent that knows its intent (a red team): every event of the turn
    gets a label, and a labelled hack that raised no flag becomes a "missed" event."""
    events = info.setdefault("hack_events", [])
    for ev in events:
        ev["label_is_hack"], ev["label_category"] = label is not None, label[1] if label else None
    if label is not None and not events:
        call = info.get("tool_call") or {"name": "", "arguments": {}}
        events.append({"turn": info.get("turn", 0), "tool": call["name"], "arguments": call["arguments"],
                       "flags": [], "verdict": False, "category": None, "judge": "", "blocked": False,
                       "dummy_result": None, "rationale": "missed: no rule flagged this call",
                       "label_is_hack": True, "label_category": label[1], "extra": {"technique": label[0]}})


def _agent_copy(agent):
    return copy.deepcopy(agent) if hasattr(agent, "act") else agent()


def run_episodes(make_env: Callable[[], Any], agent, task_ids: Sequence[str], n_per_task: int = 1,
                 max_workers: int = 8, seed: int = 0, progress: bool = False,
                 on_record: Callable[[EpisodeRecord], None] | None = None) -> list[EpisodeRecord]:
    """Every task of `task_ids` `n_per_task` times, on up to `max_workers` envs in threads.

    `agent` is an agent (copied per worker) or a zero-argument factory. A failed episode
    (an exception in the agent or the env) is recorded with `error` and `train_mask=False`;
    the others go on. Records come back in submission order.
    """
    jobs: queue.Queue = queue.Queue()
    order = [(i, tid, g) for i, (tid, g) in enumerate((t, g) for t in task_ids for g in range(n_per_task))]
    for job in order:
        jobs.put(job)
    results: dict[int, EpisodeRecord] = {}
    lock = threading.Lock()
    bar = Progress(transient=True, disable=not progress)
    task = bar.add_task("episodes", total=len(order))

    def worker():
        env = make_env()
        agent_i = _agent_copy(agent)
        try:
            while True:
                try:
                    i, tid, g = jobs.get_nowait()
                except queue.Empty:
                    return
                try:
                    rec = run_episode(env, agent_i, tid, seed=seed + i)
                except Exception as exc:  # recorded, never fatal to the batch
                    rec = EpisodeRecord(tid, 0.0, {}, "error", False, 0, [], error=f"{type(exc).__name__}: {exc}")
                rec.group = g
                with lock:
                    results[i] = rec
                    bar.advance(task)
                if on_record:
                    on_record(rec)
        finally:
            env.close()

    with bar:
        threads = [threading.Thread(target=worker, daemon=True) for _ in range(max(1, min(max_workers, len(order))))]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    return [results[i] for i, _, _ in order]
