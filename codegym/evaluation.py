"""Evaluate an agent on a suite, and validate suites, through real env episodes.

    codegym eval --agent oracle --suite repofix --out runs/eval
    codegym tasks validate repofix

`evaluate` writes one JSONL line per episode (messages, tool calls, rewards, tests, hack
events, timings) and a summary; `EpisodeEnd` and `failure_cause` serve the sandbox validator
(`codegym.tasks.validate.validate_in_sandboxes`): why an episode did not score what it should.
"""

from __future__ import annotations

import difflib
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym

from codegym.agents import OracleAgent, ScriptedAgent
from codegym.antihack import HackEvent, HackRateReport, hack_rate_report, plot_report
from codegym.envs import run_episodes
from codegym.envs.runner import EpisodeRecord
from codegym.tasks.loader import load_tasks


class EpisodeEnd(gym.Wrapper):
    """Keeps, per task id, what an episode's steps said: the final info (grading status, a
    sandbox error) and the output of every command that failed. For the causes of failures."""

    def __init__(self, env, sink: dict[str, dict[str, Any]]):
        super().__init__(env)
        self.sink = sink
        self._task_id = ""

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self._task_id = info.get("task_id", "")
        self.sink[self._task_id] = {"failed_commands": [], "info": {}}
        return obs, info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        end = self.sink[self._task_id]
        if info.get("exit_code") not in (None, 0):
            end["failed_commands"].append(info["new_messages"][-1]["content"])
        if terminated or truncated:
            end["info"] = info
        return obs, reward, terminated, truncated, info


def failure_cause(rec: EpisodeRecord, end: dict[str, Any], task, should_pass: bool) -> str:
    """Why a validation episode did not score what it should, in the words `--local` uses:
    an error, a patch that does not apply (with git's message), or the tests that did (not) pass."""
    info = end.get("info") or {}
    if rec.error:
        return rec.error
    if info.get("sandbox_error"):
        return str(info["sandbox_error"])
    failed = end.get("failed_commands") or []
    if should_pass and failed:  # the oracle's `git apply` of the reference patch
        return f"the reference patch does not apply in the workspace: {_last_lines(failed[0])}"
    status = info.get("grade_status") or {}
    stages = {"agent_patch": "the submitted diff does not apply in the grading sandbox",
              "test_patch": "the test patch (hidden tests) does not apply", "workdir": "the workdir is missing"}
    for stage, what in stages.items():
        if status.get(stage) in ("failed", "missing"):
            return f"{what} ({stage} {status[stage]})"
    if status.get("tests") == "none":
        return "none of the graded test files exists once the test patch is applied"
    tests = rec.tests or {}
    if should_pass:
        bad = {i: tests.get(i, "missing") for i in task.tests_to_run() if tests.get(i) != "passed"}
        return f"tests that do not pass with the reference patch: {_outcomes(bad)}" if bad else \
            f"stopped: {rec.stop_reason}"
    f2p = {i: tests[i] for i in task.FAIL_TO_PASS if tests.get(i) == "passed"}
    p2p = {i: tests.get(i, "missing") for i in task.PASS_TO_PASS if tests.get(i) != "passed"}
    parts = ([f"FAIL_TO_PASS tests pass without a fix: {_outcomes(f2p)}"] if f2p else []) + \
        ([f"PASS_TO_PASS tests fail at base: {_outcomes(p2p)}"] if p2p else [])
    return "; ".join(parts) or f"stopped: {rec.stop_reason}"


def _outcomes(outcomes: dict[str, str], most: int = 5) -> str:
    shown = ", ".join(f"{i}={o}" for i, o in list(outcomes.items())[:most])
    return shown + (f" (+{len(outcomes) - most} more)" if len(outcomes) > most else "")


def _last_lines(text: str, n: int = 3) -> str:
    return " / ".join(line.strip() for line in text.strip().splitlines()[-n:])


#: agents that need no model (`make_agent` names).
SCRIPTED_AGENTS = ("oracle", "submit", "empty", "redteam")


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
    if (Path(spec) / "adapter_config.json").is_file():
        return adapter_agent(spec, device=device, **sampling)
    if Path(spec).exists() or spec.count("/") == 1:
        engine = TransformersEngine.from_pretrained(spec, device=device)
        return LLMAgent(engine, engine.tokenizer, **sampling)
    close = difflib.get_close_matches(spec, (*SCRIPTED_AGENTS, "tiny"), n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise ValueError(f"unknown agent {spec!r}; {hint}use oracle, submit, redteam, tiny, a model directory or hub "
                     "id (org/name), or an OpenAI-compatible URL with --model")


class Tally:
    """Episodes finished and turns taken so far, counted across an evaluation's threads."""

    def __init__(self, total: int):
        self.total, self.done, self.turns = total, 0, 0
        self._lock = threading.Lock()

    def add(self, done: int = 0, turns: int = 0) -> None:
        with self._lock:
            self.done += done
            self.turns += turns

    def status(self) -> str:
        return f"{self.done}/{self.total} episodes done, {self.turns} turns taken"


class TurnCounter(gym.Wrapper):
    """Counts every step of the wrapped env into a `Tally` (progress of long episodes)."""

    def __init__(self, env, tally: Tally):
        super().__init__(env)
        self.tally = tally

    def step(self, action):
        out = self.env.step(action)
        self.tally.add(turns=1)
        return out


def adapter_agent(adapter: str | Path, *, base: str | None = None, config: str | Path | None = None,
                  device: str | None = None, **sampling: Any) -> Any:
    """An `LLMAgent` on a trained LoRA adapter directory with the base it was trained on.

    An adapter is a checkpoint's ``policy/`` or `codegym sft`'s ``OUT/policy``. Its base and
    model settings come from `config` (a training config), else from the ``config.yaml`` of the
    run it belongs to (in the adapter's directory or one of its two parents), else from the
    adapter's own ``base_model_name_or_path``; `base` overrides the base model. The LoRA rank,
    alpha and target modules are the adapter's own.
    """
    from dataclasses import replace

    from codegym.agents import LLMAgent
    from codegym.agents.engines import TransformersEngine
    from codegym.trainer.models import POLICY, build_models

    path = Path(adapter)
    if not (path / "adapter_config.json").is_file():
        raise FileNotFoundError(f"{adapter} is not a LoRA adapter directory (no adapter_config.json); a "
                                "checkpoint's adapter is CHECKPOINT/policy, `codegym sft`'s OUT/policy")
    lora = json.loads((path / "adapter_config.json").read_text())
    model = _adapter_base(path, lora, base, config)
    targets = lora.get("target_modules") or model.target_modules
    model = replace(model, init_adapter=str(path), critic="none", lora_r=int(lora.get("r", model.lora_r)),
                    lora_alpha=int(lora.get("lora_alpha", model.lora_alpha)),
                    target_modules=sorted(targets) if isinstance(targets, (list, set, tuple)) else model.target_modules,
                    device=device or model.device)
    models = build_models(model, critic="none")
    models.model.eval()
    return LLMAgent(TransformersEngine(models.model, models.tokenizer, adapter_name=POLICY), models.tokenizer,
                    **sampling)


def _adapter_base(path: Path, lora: dict[str, Any], base: str | None, config: str | Path | None):
    """The `ModelConfig` an adapter was trained with (see `adapter_agent`)."""
    from dataclasses import replace

    from codegym.trainer.config import ModelConfig, load_config

    if config is None:
        config = next((d / "config.yaml" for d in (path, path.parent, path.parent.parent)
                       if (d / "config.yaml").is_file()), None)
    model = load_config(config).model if config is not None else None
    if base:
        return replace(model or ModelConfig(), base=base)
    if model is not None:
        return model
    if lora.get("base_model_name_or_path"):
        return ModelConfig(base=lora["base_model_name_or_path"])
    raise ValueError(f"cannot tell which base model adapter {path} was trained on: no config.yaml beside it or "
                     "in its run; pass --base (tiny, a model directory or hub id) or --config (its training config)")


def evaluate(agent: Any, suite: str, out_dir: str | Path | None = None, n_per_task: int = 1, workers: int = 4,
             limit: int | None = None, env_kwargs: dict[str, Any] | None = None, progress: bool = True,
             make_env: Callable[[list], Any] | None = None,
             say: Callable[[str], None] | None = None, repos_dir: str | Path | None = None,
             predictions: str | Path | None = None, model_name: str = "codegym") -> dict[str, Any]:
    """Run `agent` on every task of `suite`; returns the summary, writes JSONL if `out_dir`
    (one line per episode, with its final `diff`).

    With `say`, progress goes there as plain lines (instead of a live bar): one per finished
    episode, and every 10 s the episodes done and turns taken so far. With `predictions`, the
    final diffs are also written as SWE-bench predictions (`write_predictions`). `repos_dir` is
    where "owner/name" repos are found (default `$CODEGYM_REPOS_DIR`).
    """
    import contextlib

    from codegym.progress import Heartbeat

    tasks = list(load_tasks(suite, repos_dir=repos_dir))[:limit]
    ids = [t.instance_id for t in tasks]
    if isinstance(agent, str):
        agent = make_agent(agent, tasks)
    kwargs = dict(env_kwargs or {})
    make_one = make_env or (lambda: gym.make("codegym/Tasks-v0", tasks=tasks, **kwargs))
    tally = Tally(len(ids) * n_per_task)
    factory = (lambda: TurnCounter(make_one(), tally)) if say else make_one
    out = Path(out_dir) if out_dir else None
    sink = None
    if out:
        out.mkdir(parents=True, exist_ok=True)
        sink = (out / "episodes.jsonl").open("w")

    def write(rec: EpisodeRecord) -> None:
        if sink:
            sink.write(json.dumps(rec.to_dict()) + "\n")
            sink.flush()
        if say:
            tally.add(done=1)
            say(f"eval: {tally.done}/{tally.total} {rec.task_id}: reward {rec.reward:.2f}, {rec.turns} turns, "
                f"{rec.wall_s:.0f} s" + (f" ({rec.error})" if rec.error else ""))

    t0 = time.monotonic()
    beat = Heartbeat("eval", say, status=tally.status) if say else contextlib.nullcontext()
    try:
        with beat:
            records = run_episodes(factory, agent, ids, n_per_task=n_per_task, max_workers=workers,
                                   progress=progress and say is None, on_record=write)
    finally:
        if sink:
            sink.close()
    if predictions:
        write_predictions(records, predictions, model_name)
    summary = summarize(records)
    summary["suite"], summary["seconds"] = suite, time.monotonic() - t0
    report = hack_report(records)
    summary["hack_rates"] = report.to_dict()
    if out:
        (out / "summary.json").write_text(json.dumps(summary, indent=2))
        plot_report(report, str(out / "hack_rates.png"), title=f"Hack attempt rate by category ({suite})")
        (out / "summary.md").write_text(summary_markdown(summary, report))
    return summary


def write_predictions(records: list[EpisodeRecord], path: str | Path, model_name: str = "codegym") -> int:
    """SWE-bench predictions of the episodes' final diffs, for SWE-bench's harness
    (`python -m swebench.harness.run_evaluation --predictions_path FILE`): one
    `{"instance_id", "model_name_or_path", "model_patch"}` per task, from its first episode
    (`group` 0). A `.jsonl` path gets one JSON object a line, any other a JSON list. Returns
    how many were written.

        write_predictions(records, "runs/eval/preds.jsonl", model_name="my-model")
    """
    first: dict[str, EpisodeRecord] = {}
    for rec in records:
        if rec.task_id not in first or rec.group < first[rec.task_id].group:
            first[rec.task_id] = rec
    rows = [{"instance_id": tid, "model_name_or_path": model_name, "model_patch": rec.diff}
            for tid, rec in first.items()]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    else:
        path.write_text(json.dumps(rows, indent=2) + "\n")
    return len(rows)


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
