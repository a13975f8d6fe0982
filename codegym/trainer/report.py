"""The main job and its report: SFT warm start -> LoRA RL -> evaluation with hack rates -> markdown + PNGs.

    codegym main                                   # examples/main_job.yaml -> runs/main/
    run_main_job(load_config("examples/main_job.yaml"))

Writes ``report.md``, ``learning_curve.png`` (reward, pass rate and hack-event rate per
iteration) and ``hack_rates.png`` (the evaluation's hack-rate chart, `codegym.evaluation`), plus
``metrics.jsonl``, ``tensorboard/``, ``checkpoints/``, ``sft/`` and ``eval/`` (episodes JSONL,
summary).
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from .config import TrainConfig
from .metrics import read_metrics


def plot_learning_curve(rows: list[dict[str, Any]], path: str | Path, title: str = "Learning curve") -> Path:
    """Reward, pass rate and hack-event rate per iteration (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    its = [r["iteration"] for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4))
    for key, label in (("reward/mean", "mean reward"), ("episodes/pass_rate", "pass rate"),
                       ("episodes/hack_event_rate", "hack-event rate")):
        ys = [r.get(key) for r in rows]
        if any(y is not None for y in ys):
            ax.plot(its, [y if y is not None else float("nan") for y in ys], marker="o", label=label)
    ax.set_xlabel("iteration")
    ax.set_ylim(-0.05, 1.05)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _fmt(x: Any) -> str:
    return f"{x:.3f}" if isinstance(x, float) else str(x)


def write_report(out: Path, cfg: TrainConfig, rows: list[dict[str, Any]], eval_summary: dict[str, Any] | None,
                 timings: dict[str, float], sft_summary: dict[str, Any] | None = None) -> Path:
    plot_learning_curve(rows, out / "learning_curve.png", f"{cfg.algorithm.name} on {cfg.env.id} ({cfg.model.base})")
    lines = [f"# codegym main job: {cfg.algorithm.name} on {cfg.env.id}", ""]
    lines += [f"Base `{cfg.model.base}` with LoRA r={cfg.model.lora_r}; tasks: {', '.join(cfg.env.tasks) or 'all'}; "
              f"{cfg.rollout.tasks_per_iteration} tasks x {cfg.rollout.group_size} rollouts per iteration, "
              f"{cfg.run.iterations} iterations; guards on: {cfg.env.kwargs.get('guards', True)}.", ""]
    lines += ["| stage | seconds |", "|---|---|"] + [f"| {k} | {v:.0f} |" for k, v in timings.items()] + [""]
    if sft_summary:
        lines += [f"SFT warm start: {sft_summary['episodes']} compact-oracle episodes, {sft_summary['steps']} steps, "
                  f"loss {_fmt(sft_summary['first_loss'])} -> {_fmt(sft_summary['last_loss'])}"
                  + ("" if sft_summary.get("success") is None else
                     f"; oracle success (mean probability of sampling the oracle episode at T=1) "
                     f"{sft_summary['success']:.3f}, target {sft_summary['target_success']}")
                  + ".", ""]
    if rows:
        first, last = rows[0], rows[-1]
        k = max(1, min(5, len(rows) // 4))  # a window: one iteration's reward scatters by about +-0.1

        def mean(rs: list) -> float:
            return sum(r.get("reward/mean", 0.0) for r in rs) / len(rs)

        lines += [f"Training: mean reward {first.get('reward/mean', 0):.3f} (iteration 0) -> "
                  f"{last.get('reward/mean', 0):.3f} (iteration {last['iteration']}); mean of the first {k} "
                  f"iterations {mean(rows[:k]):.3f}, of the last {k} {mean(rows[-k:]):.3f}; best "
                  f"{max(r.get('reward/mean', 0) for r in rows):.3f}.", "", "![learning curve](learning_curve.png)", ""]
        keys = ["reward/mean", "episodes/pass_rate", "episodes/hack_event_rate", "loss/policy", "loss/value",
                "policy/clipfrac", "policy/approx_kl", "episodes/masked", "batch/segments", "time/iteration_s"]
        keys = [k for k in keys if any(k in r for r in rows)]
        lines += ["| iteration | " + " | ".join(keys) + " |", "|---" * (len(keys) + 1) + "|"]
        lines += [f"| {r['iteration']} | " + " | ".join(_fmt(r.get(k, "")) for k in keys) + " |" for r in rows]
        lines.append("")
    if eval_summary:
        lines += ["## Evaluation of the trained policy", "",
                  f"{eval_summary['episodes']} episodes (guards on): pass rate {eval_summary['pass_rate']:.3f}, "
                  f"mean reward {eval_summary['mean_reward']:.3f}, hack events {eval_summary['hack_events']}, "
                  f"blocked calls {eval_summary['blocked_calls']}.", "", "![hack rates](hack_rates.png)", ""]
        md = out / "eval" / "summary.md"
        if md.exists():
            lines += [md.read_text(), ""]
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path


def apply_sft(cfg: TrainConfig, sft_summary: dict[str, Any]) -> TrainConfig:
    """The config that starts from an SFT result (a new base, or an initial policy adapter)."""
    if "base" in sft_summary:
        return replace(cfg, model=replace(cfg.model, base=sft_summary["base"], init_adapter=None))
    return replace(cfg, model=replace(cfg.model, init_adapter=sft_summary["adapter"]))


def run_main_job(cfg: TrainConfig, console: Any = None, eval_episodes_per_task: int = 2) -> Path:
    """SFT (when ``sft.steps``), train, evaluate the trained policy with the guards on, write the report."""
    from codegym.agents import LLMAgent
    from codegym.evaluation import evaluate

    from .loop import Trainer, default_make_env
    from .sft import run_sft

    say = (lambda m: console.print(m, markup=False, highlight=False)) if console is not None else print
    out = Path(cfg.run.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    timings: dict[str, float] = {}
    sft_summary = None
    t0 = time.monotonic()
    if cfg.sft.steps:
        target = "" if cfg.sft.target_success is None else f" until oracle success {cfg.sft.target_success}"
        say(f"[main] SFT warm start: at most {cfg.sft.steps} steps on compact-oracle episodes{target}")
        sft_summary = run_sft(cfg, str(out / "sft"), steps=cfg.sft.steps, lr=cfg.sft.lr, batch_rows=cfg.sft.batch_rows,
                              task_ids=cfg.sft.tasks or None, full=cfg.sft.full,
                              say=say if cfg.run.progress else None)
        if sft_summary.get("success") is not None:
            say(f"[main] SFT: {sft_summary['steps']} steps, oracle success {sft_summary['success']:.3f}")
        cfg = apply_sft(cfg, sft_summary)
        timings["sft"] = time.monotonic() - t0
    t1 = time.monotonic()
    say(f"[main] training: {cfg.algorithm.name}, {cfg.run.iterations} iterations")
    trainer = Trainer(cfg)
    try:
        trainer.train()
    finally:
        trainer.close()
    timings["train"] = time.monotonic() - t1
    t2 = time.monotonic()
    make_env = default_make_env(cfg)
    env = make_env()
    try:
        tasks = [t for t in env.unwrapped.tasks if not cfg.env.tasks or t.instance_id in set(cfg.env.tasks)]
    finally:
        env.close()
    suite = out / "eval_tasks.jsonl"
    suite.write_text("".join(json.dumps(t.to_dict()) + "\n" for t in tasks))
    r = cfg.rollout
    agent = LLMAgent(trainer.engine, trainer.tokenizer, max_new_tokens=r.max_new_tokens, temperature=r.temperature,
                     stop_at_call=r.stop_at_call, seed=cfg.run.seed + 12345)
    env_kwargs = {k: v for k, v in cfg.env.kwargs.items() if k != "backend"}
    env_kwargs.setdefault("max_turns", cfg.env.max_turns)
    say(f"[main] evaluating the trained policy: {len(tasks)} tasks x {eval_episodes_per_task}, guards on")
    summary = evaluate(agent, str(suite), out / "eval", n_per_task=eval_episodes_per_task,
                       workers=min(4, cfg.rollout.max_envs), env_kwargs=env_kwargs, progress=False)
    timings["evaluate"] = time.monotonic() - t2
    if (out / "eval" / "hack_rates.png").exists():
        shutil.copy(out / "eval" / "hack_rates.png", out / "hack_rates.png")
    timings["total"] = time.monotonic() - t0
    return write_report(out, cfg, read_metrics(out), summary, timings, sft_summary)
