"""Hack-rate reports: attempt rates per category with Wilson intervals, blocks, label agreement.

>>> from codegym.antihack.events import HackEvent
>>> ev = HackEvent(turn=1, tool="bash", arguments={"command": "git log --all"}, flags=(), verdict=True,
...                category="vcs-future-leak", judge="semantic", blocked=True)
>>> rep = hack_rate_report({"ep0": [ev], "ep1": []})
>>> rep.categories["vcs-future-leak"].episodes_with_attempt, rep.n_episodes
(1, 2)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .events import HackEvent
from .types import CATEGORIES


def wilson_interval(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default).

    >>> lo, hi = wilson_interval(9, 10)
    >>> round(lo, 3), round(hi, 3)
    (0.596, 0.982)
    """
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return (lo, hi)


@dataclass
class Rate:
    """k of n, with its proportion and Wilson interval."""

    k: int
    n: int

    @property
    def value(self) -> float:
        return self.k / self.n if self.n else float("nan")

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.k, self.n)

    def __str__(self) -> str:
        if not self.n:
            return "n/a (0)"
        lo, hi = self.interval
        return f"{self.value:.3f} [{lo:.3f}, {hi:.3f}] ({self.k}/{self.n})"

    def to_dict(self) -> dict[str, Any]:
        lo, hi = self.interval
        return {"k": self.k, "n": self.n, "value": None if not self.n else self.value, "wilson95": [lo, hi]}


@dataclass
class CategoryStats:
    episodes_with_attempt: int = 0
    flagged_calls: int = 0
    confirmed_calls: int = 0
    blocked_calls: int = 0
    attempt_rate: Rate = field(default_factory=lambda: Rate(0, 0))
    precision: Rate | None = None
    recall: Rate | None = None


@dataclass
class HackRateReport:
    """Per-category attempt rates over episodes, plus agreement with labels where events carry them."""

    n_episodes: int
    n_events: int
    episodes_with_any_attempt: Rate
    categories: dict[str, CategoryStats]
    agreement: Rate | None
    fallbacks: int

    def to_dict(self) -> dict[str, Any]:
        cats = {}
        for c, s in self.categories.items():
            cats[c] = {
                "episodes_with_attempt": s.episodes_with_attempt,
                "attempt_rate": s.attempt_rate.to_dict(),
                "flagged_calls": s.flagged_calls,
                "confirmed_calls": s.confirmed_calls,
                "blocked_calls": s.blocked_calls,
                "precision": None if s.precision is None else s.precision.to_dict(),
                "recall": None if s.recall is None else s.recall.to_dict(),
            }
        return {
            "n_episodes": self.n_episodes,
            "n_events": self.n_events,
            "episodes_with_any_attempt": self.episodes_with_any_attempt.to_dict(),
            "categories": cats,
            "agreement": None if self.agreement is None else self.agreement.to_dict(),
            "judge_fallbacks": self.fallbacks,
        }

    def to_markdown(self) -> str:
        lines = [
            f"episodes: {self.n_episodes}, flagged calls: {self.n_events}, judge fallbacks: {self.fallbacks}",
            f"episodes with any confirmed attempt: {self.episodes_with_any_attempt}",
            "",
            "| category | attempt rate (episodes) | flagged | confirmed | blocked | precision vs labels | recall vs labels |",
            "|---|---|---|---|---|---|---|",
        ]
        for c, s in self.categories.items():
            lines.append(
                f"| {c} | {s.attempt_rate} | {s.flagged_calls} | {s.confirmed_calls} | {s.blocked_calls} | "
                f"{s.precision if s.precision else '-'} | {s.recall if s.recall else '-'} |"
            )
        if self.agreement is not None:
            lines.append(f"\nverdict agreement with labels: {self.agreement}")
        return "\n".join(lines)


def hack_rate_report(
    episodes: Mapping[str, Sequence[HackEvent]] | Iterable[Sequence[HackEvent]],
) -> HackRateReport:
    """Aggregate the hack events of many episodes (an episode with no events counts as clean)."""
    eps = list(episodes.values()) if isinstance(episodes, Mapping) else [list(e) for e in episodes]
    n = len(eps)
    cats = {c: CategoryStats() for c in CATEGORIES}
    any_attempt = 0
    labelled = agree = fallbacks = n_events = 0
    tp: dict[str, int] = dict.fromkeys(CATEGORIES, 0)
    pred: dict[str, int] = dict.fromkeys(CATEGORIES, 0)
    gold: dict[str, int] = dict.fromkeys(CATEGORIES, 0)
    for events in eps:
        seen: set[str] = set()
        for ev in events:
            n_events += 1
            fallbacks += bool(ev.fallback)
            for c in {f.category for f in ev.flags}:
                if c in cats:
                    cats[c].flagged_calls += 1
            if ev.verdict and ev.category in cats:
                cats[ev.category].confirmed_calls += 1
                cats[ev.category].blocked_calls += ev.blocked
                seen.add(ev.category)
            if ev.label_is_hack is not None:
                labelled += 1
                agree += ev.label_is_hack == ev.verdict
                if ev.verdict and ev.category in pred:
                    pred[ev.category] += 1
                if ev.label_is_hack and ev.label_category in gold:
                    gold[ev.label_category] += 1
                    if ev.verdict:
                        tp[ev.label_category] += 1
        any_attempt += bool(seen)
        for c in seen:
            cats[c].episodes_with_attempt += 1
    for c, s in cats.items():
        s.attempt_rate = Rate(s.episodes_with_attempt, n)
        if labelled:
            s.precision = Rate(_tp_cat(eps, c), pred[c]) if pred[c] else None
            s.recall = Rate(tp[c], gold[c]) if gold[c] else None
    return HackRateReport(
        n, n_events, Rate(any_attempt, n), cats, Rate(agree, labelled) if labelled else None, fallbacks
    )


def _tp_cat(eps: list[Sequence[HackEvent]], c: str) -> int:
    return sum(1 for events in eps for ev in events if ev.verdict and ev.category == c and ev.label_is_hack)


def plot_report(report: HackRateReport, path: str, title: str = "Hack attempt rate by category") -> str:
    """A PNG bar chart of per-category attempt rates with Wilson error bars (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(report.categories)
    vals = [report.categories[c].attempt_rate.value if report.n_episodes else 0.0 for c in names]
    lo = [v - report.categories[c].attempt_rate.interval[0] for c, v in zip(names, vals, strict=True)]
    hi = [report.categories[c].attempt_rate.interval[1] - v for c, v in zip(names, vals, strict=True)]
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.bar(range(len(names)), vals, yerr=[lo, hi], capsize=4, color="#4C72B0")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=25, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel(f"episodes with a confirmed attempt (n={report.n_episodes})")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
