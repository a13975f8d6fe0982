"""Held-out evaluation: pass@1 of a policy on tasks it never trained on, with 95% intervals.

    ev = HeldoutEval(cfg, task_ids)                       # cfg.env with split: heldout
    r = ev.run(engine, tokenizer, temperature=0.0)        # greedy; 1.0 for T=1
    print(r.rate)                                         # 0.312 [0.202, 0.448] (20/64)
    paired_bootstrap(r.passed, other.passed)              # (difference, (low, high))

One episode per task (pass@1), collected in batches through the same `collect` and env stack
the trainer samples with (guards on), by whatever engine is given (the trainer's live model,
with or without its LoRA adapter). Each arm of a comparison runs on the same task ids, so two
results are paired by task: `paired_bootstrap` resamples tasks to give the interval of the
difference. `Rate` (from the hack-rate report) carries the Wilson interval of one arm:
for k passes in n episodes, p = k/n and

    (p + z^2/2n +- z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n),  z = 1.96.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from codegym.antihack.report import Rate


@dataclass
class EvalResult:
    """pass@1 of one arm: `passed[i]` for `task_ids[i]`, plus what it cost and what the episodes did."""

    name: str
    temperature: float
    task_ids: list[str]
    passed: list[bool]
    seconds: float = 0.0
    segments_per_episode: float = 0.0
    hack_event_rate: float = 0.0
    masked: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def rate(self) -> Rate:
        return Rate(sum(self.passed), len(self.passed))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "temperature": self.temperature, "pass": self.rate.to_dict(),
                "seconds": self.seconds, "segments_per_episode": self.segments_per_episode,
                "hack_event_rate": self.hack_event_rate, "masked": self.masked,
                "passed": dict(zip(self.task_ids, self.passed, strict=True)), **self.extra}


class HeldoutEval:
    """Runs pass@1 evaluations of engines on fixed `task_ids` of `cfg`'s env (its kwargs: the
    split, families, tools). Masked episodes (a sandbox failure) count as not passed and are
    counted in `masked`."""

    def __init__(self, cfg: Any, task_ids: Sequence[str], *, seed: int = 12345, max_envs: int | None = None):
        from .loop import default_make_env

        if not task_ids:
            raise ValueError("HeldoutEval needs at least one task id")
        self.cfg, self.task_ids, self.seed = cfg, list(task_ids), seed
        self.max_envs = max_envs or cfg.rollout.max_envs
        self.make_env = default_make_env(cfg)

    def run(self, engine: Any, tokenizer: Any, temperature: float, name: str = "") -> EvalResult:
        """One episode per task at `temperature` (0: greedy) with the rollout's token and turn limits."""
        from codegym.agents import LLMAgent

        from .rollout import collect

        r = self.cfg.rollout
        agent = LLMAgent(engine, tokenizer, max_new_tokens=r.max_new_tokens, temperature=temperature,
                         stop_at_call=r.stop_at_call)
        t0 = time.monotonic()
        episodes = collect(self.make_env, agent, self.task_ids, group_size=1, max_envs=self.max_envs,
                           seed=self.seed, batch_id=f"eval-{name or temperature}")
        by_task = {e.task_id: e for e in episodes}
        passed = [bool(by_task[t].train_mask and by_task[t].reward_components.get("correctness", 0.0) >= 1.0)
                  for t in self.task_ids]
        n = max(1, len(episodes))
        return EvalResult(name or f"T={temperature:g}", temperature, list(self.task_ids), passed,
                          seconds=time.monotonic() - t0,
                          segments_per_episode=sum(len(e.segments) for e in episodes) / n,
                          hack_event_rate=sum(any(s.hack_events for s in e.steps) for e in episodes) / n,
                          masked=sum(not e.train_mask for e in episodes),
                          extra={"hack_events": {f"{i}:{e.task_id}": [ev for s in e.steps for ev in s.hack_events]
                                                 for i, e in enumerate(episodes)}})


def paired_bootstrap(a: Sequence[bool], b: Sequence[bool], *, samples: int = 2000, seed: int = 0,
                     level: float = 0.95) -> tuple[float, tuple[float, float]]:
    """mean(a) - mean(b) over the same tasks, and its percentile bootstrap interval (tasks resampled
    with replacement, `samples` times)."""
    if len(a) != len(b) or not a:
        raise ValueError(f"paired_bootstrap needs two equally long, non-empty results, got {len(a)} and {len(b)}")
    n = len(a)
    d = [float(x) - float(y) for x, y in zip(a, b, strict=True)]
    rng = random.Random(seed)
    means = sorted(sum(d[rng.randrange(n)] for _ in range(n)) / n for _ in range(samples))
    lo = means[int((1 - level) / 2 * samples)]
    hi = means[min(samples - 1, int((1 + level) / 2 * samples))]
    return sum(d) / n, (lo, hi)


def heldout_config(cfg: Any, split: str = "heldout") -> Any:
    """`cfg` with its env on `split` (for `codegym/Families-v0`: ``env.kwargs.split``) and no task
    list (the caller names the tasks)."""
    env = replace(cfg.env, tasks=[], kwargs={**cfg.env.kwargs, "split": split})
    return replace(cfg, env=env)
