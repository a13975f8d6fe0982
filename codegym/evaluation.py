"""Evaluate an agent on a suite, and validate suites, through real env episodes.

    codegym eval --agent oracle --suite repofix --out runs/eval
    codegym tasks validate repofix

`evaluate` writes one JSONL line per episode (messages, tool calls, rewards, tests, hack
events, timings) and a summary; `validate_suite` checks that the reference solution scores
1 and an immediate submit scores 0 on every task, in the sandbox, through the env's tools.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegym.agents import OracleAgent, ScriptedAgent
from codegym.antihack import HackEvent, HackRateReport, hack_rate_report, plot_report
from codegym.envs import CodingEnv, run_episodes
from codegym.envs.runner import EpisodeRecord
from codegym.tasks.loader import load_tasks


@dataclass
class ValidationReport:
    suite: str
    n_tasks: int
    failures: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failures


def validate_suite(suite: str, backend: str = "auto", workers: int = 4, progress: bool = False,
                   limit: int | None = None) -> ValidationReport:
    """Oracle scores 1.0 and an immediate submit 0.0, on every task, through the env."""
    t0 = time.monotonic()
    tasks = list(load_tasks(suite, strict=True))[:limit]
    ids = [t.instance_id for t in tasks]

    def make():
        return CodingEnv(tasks, backend=backend)

    report = ValidationReport(suite, len(tasks))
    oracle = run_episodes(make, OracleAgent(tasks), ids, max_workers=workers, progress=progress)
    empty = run_episodes(make, ScriptedAgent([]), ids, max_workers=workers, progress=progress)
    for rec in oracle:
        if rec.reward != 1.0:
            report.failures.append((rec.task_id, f"reference scored {rec.reward} ({rec.error or rec.tests})"))
    for rec in empty:
        if rec.reward != 0.0 or rec.error:
            report.failures.append((rec.task_id, f"empty submission scored {rec.reward} ({rec.error or rec.tests})"))
    report.seconds = time.monotonic() - t0
    return report


def make_agent(spec: str, tasks, *, model: str | None = None, tokenizer: str | None = None,
               max_new_tokens: int = 512, temperature: float = 1.0, device: str | None = None) -> Any:
    """An agent by name: `oracle`, `submit` (submits at once), `redteam`, or a model.

    A model is `tiny` (the local tiny model), a local directory or hub id (a `TransformersEngine`),
    or an OpenAI-compatible URL ``http://host:port/v1`` with `model` (the served name): with a
    `tokenizer` (path or hub id) it completes token ids, else it uses the chat API.
    """
    if spec == "oracle":
        return OracleAgent(tasks)
    if spec in ("submit", "empty"):
        return ScriptedAgent([])
    if spec == "redteam":
        from codegym.agents.redteam import RedTeamAgent

        return RedTeamAgent(tasks)
    from codegym.agents import LLMAgent

    sampling = {"max_new_tokens": max_new_tokens, "temperature": temperature}
    if spec.startswith(("http://", "https://")):
        from codegym.agents.engines import OpenAIEngine

        if not model:
            raise ValueError(f"--agent {spec} needs --model: the model name the server serves")
        tok = None
        if tokenizer:
            from transformers import AutoTokenizer

            tok = AutoTokenizer.from_pretrained(tokenizer)
        return LLMAgent(OpenAIEngine(spec, model, tokenizer=tok), tok, **sampling)
    from codegym.agents.engines import TransformersEngine

    if spec == "tiny":
        from codegym.agents.tiny import build_tiny_model, build_tiny_tokenizer

        tok = build_tiny_tokenizer()
        return LLMAgent(TransformersEngine(build_tiny_model(tok), tok), tok, **sampling)
    if Path(spec).exists() or spec.count("/") == 1:
        engine = TransformersEngine.from_pretrained(spec, device=device)
        return LLMAgent(engine, engine.tokenizer, **sampling)
    raise ValueError(f"unknown agent {spec!r}; use oracle, submit, redteam, tiny, a model directory or hub id "
                     "(org/name), or an OpenAI-compatible URL with --model")


def evaluate(agent: Any, suite: str, out_dir: str | Path | None = None, n_per_task: int = 1, workers: int = 4,
             limit: int | None = None, env_kwargs: dict[str, Any] | None = None, progress: bool = True,
             make_env: Callable[[list], Any] | None = None) -> dict[str, Any]:
    """Run `agent` on every task of `suite`; returns the summary, writes JSONL if `out_dir`."""
    import gymnasium as gym

    tasks = list(load_tasks(suite))[:limit]
    ids = [t.instance_id for t in tasks]
    if isinstance(agent, str):
        agent = make_agent(agent, tasks)
    kwargs = dict(env_kwargs or {})
    factory = make_env or (lambda: gym.make("codegym/Tasks-v0", tasks=tasks, **kwargs))
    out = Path(out_dir) if out_dir else None
    sink = None
    if out:
        out.mkdir(parents=True, exist_ok=True)
        sink = (out / "episodes.jsonl").open("w")

    def write(rec: EpisodeRecord) -> None:
        if sink:
            sink.write(json.dumps(rec.to_dict()) + "\n")
            sink.flush()

    t0 = time.monotonic()
    try:
        records = run_episodes(factory, agent, ids, n_per_task=n_per_task, max_workers=workers,
                               progress=progress, on_record=write)
    finally:
        if sink:
            sink.close()
    summary = summarize(records)
    summary["suite"], summary["seconds"] = suite, time.monotonic() - t0
    report = hack_report(records)
    summary["hack_rates"] = report.to_dict()
    if out:
        (out / "summary.json").write_text(json.dumps(summary, indent=2))
        plot_report(report, str(out / "hack_rates.png"), title=f"Hack attempt rate by category ({suite})")
        (out / "summary.md").write_text(summary_markdown(summary, report))
    return summary


def hack_report(records: list[EpisodeRecord]) -> HackRateReport:
    """Hack rates over the episodes' events (labelled where the agent knew its intent)."""
    return hack_rate_report({f"{i}:{r.task_id}": [HackEvent.from_dict(e) for e in r.hack_events]
                             for i, r in enumerate(records)})


def summary_markdown(summary: dict[str, Any], report: HackRateReport) -> str:
    head = "\n".join(f"| {k} | {v:.3f} |" if isinstance(v, float) else f"| {k} | {v} |"
                     for k, v in summary.items() if k != "hack_rates")
    return (f"# Evaluation on {summary['suite']}\n\n| metric | value |\n|---|---|\n{head}\n\n"
            f"## Hack attempts\n\n{report.to_markdown()}\n\n![hack rates](hack_rates.png)\n")


def summarize(records: list[EpisodeRecord]) -> dict[str, Any]:
    n = len(records)
    valid = [r for r in records if r.train_mask]
    stop: dict[str, int] = {}
    for r in records:
        stop[r.stop_reason] = stop.get(r.stop_reason, 0) + 1
    return {
        "episodes": n,
        "pass_rate": sum(r.rewards.get("correctness", 0.0) for r in records) / n if n else 0.0,
        "mean_reward": sum(r.reward for r in records) / n if n else 0.0,
        "mean_turns": sum(r.turns for r in records) / n if n else 0.0,
        "masked": n - len(valid),
        "stop_reasons": stop,
        "hack_events": sum(len(r.hack_events) for r in records),
        "blocked_calls": sum(bool(e.get("blocked")) for r in records for e in r.hack_events),
    }
