"""The main job and its report: warm start -> controls and LoRA RL -> held-out evaluation -> markdown + PNGs.

    codegym main                                   # examples/main_job.yaml -> runs/main/
    cfg, spec = load_main_job("examples/main_job.yaml")
    run_main_job(cfg, spec)

The learning benchmark's protocol at one seed and one algorithm (`codegym.trainer.learning`):
a full-weight warm start on the demonstrations of `spec.train_tasks` train instances of
``codegym/Families-v0``, then `cfg.algorithm` for ``run.iterations`` iterations on those
instances, and the controls (the warm start at lower temperatures, SFT continued for the same
wall time, the same RL with shuffled rewards); every arm evaluated on the same
`spec.heldout_tasks` held-out instances (pass@1 greedy and T=1, 95% intervals). Writes
``report.md``, ``heldout.png`` (every arm's held-out pass@1; the RL curve), ``learning_curve.png``
(the RL arm's reward, pass rate and hack-event rate per iteration, train instances),
``hack_rates.png`` (hack attempts in the RL arm's held-out episodes) and ``summary.json``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .config import TrainConfig


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


def apply_sft(cfg: TrainConfig, sft_summary: dict[str, Any]) -> TrainConfig:
    """The config that starts from an SFT result (a new base, or an initial policy adapter)."""
    if "base" in sft_summary:
        return replace(cfg, model=replace(cfg.model, base=sft_summary["base"], init_adapter=None))
    return replace(cfg, model=replace(cfg.model, init_adapter=sft_summary["adapter"]))


@dataclass
class MainJobSpec:
    """The ``main:`` section of the main job's YAML (beside the training config's sections)."""

    train_tasks: int = 64  # train instances: the warm start's demonstrations and RL's tasks
    heldout_tasks: int = 32  # held-out instances every arm is evaluated on
    low_temperatures: list[float] = field(default_factory=lambda: [0.5])  # the warm start sampled lower
    controls: list[str] = field(default_factory=lambda: ["shuffled", "sft"])  # plus lower temperatures
    eval_every: int = 0  # a held-out T=1 point on the RL curve every N iterations (0: only at the end)
    flawed_fraction: float = 0.0  # train instances demonstrated by their flawed demonstration (lookup: a guess)
    copy_steps: int = 0  # synthetic copy pre-training of the random base before the warm start
    copy_lr: float = 1e-3


def load_main_job(path: str | Path, overrides: dict[str, Any] | None = None) -> tuple[TrainConfig, MainJobSpec]:
    """(training config, `MainJobSpec`) from the main job's YAML: its ``main:`` section is the spec,
    the rest a training config (`load_config`)."""
    import yaml

    from .config import ConfigError, config_from_dict

    data = yaml.safe_load(Path(path).read_text()) or {}
    main = dict(data.pop("main", None) or {})
    known = {f.name for f in fields(MainJobSpec)}
    unknown = sorted(set(main) - known)
    if unknown:
        raise ConfigError(f"{path}: main.{unknown[0]} is not a main-job setting; known: {', '.join(sorted(known))}")
    unknown_controls = sorted(set(main.get("controls", [])) - {"shuffled", "sft"})
    if unknown_controls:
        raise ConfigError(f"{path}: main.controls: unknown control {unknown_controls[0]!r}; use shuffled, sft")
    try:
        cfg = config_from_dict(data, overrides)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    if cfg.env.id != "codegym/Families-v0":
        raise ConfigError(f"{path}: env.id: the main job evaluates on held-out instances of codegym/Families-v0, "
                          f"got {cfg.env.id}")
    return cfg, MainJobSpec(**main)


def write_report(out: Path, cfg: TrainConfig, study: Any, timings: dict[str, float]) -> Path:
    """report.md from a finished `LearningStudy` (one RL arm, its controls)."""
    rl = [n for n, r in study.results.items() if r.get("kind") == "rl"]
    rows = study.curves.get(rl[0], []) if rl else []
    plot_learning_curve(rows, out / "learning_curve.png",
                        f"{cfg.algorithm.name} on train instances of {cfg.env.id} ({cfg.model.base})")
    warm = getattr(study, "warm_summary", {}) or {}
    families = ", ".join(cfg.env.kwargs.get("families") or ["all"])
    lines = [f"# codegym main job: {cfg.algorithm.name} on {cfg.env.id} ({families}), held-out evaluation", ""]
    lines += [f"Base `{cfg.model.base}`: full-weight warm start on the demonstrations of {len(study.train_ids)} "
              f"train instances ({warm.get('steps')} steps, loss {_fmt(warm.get('first_loss'))} -> "
              f"{_fmt(warm.get('last_loss'))}), then LoRA r={cfg.model.lora_r} {cfg.algorithm.name} on the same "
              f"instances, {cfg.rollout.tasks_per_iteration} tasks x {cfg.rollout.group_size} rollouts per "
              f"iteration, {cfg.run.iterations} iterations, seed {cfg.run.seed}; guards on: "
              f"{cfg.env.kwargs.get('guards', True)}. Every arm is evaluated on the same "
              f"{len(study.heldout_ids)} held-out instances (never trained on, not in the tokenizer's corpus): "
              "pass@1, one episode per task, greedy and T=1, Wilson 95% intervals; deltas with a paired "
              "bootstrap over tasks.", ""]
    lines += ["## Held-out evaluation beside the controls", "", study.table(), "",
              "![held-out pass@1 and the RL curve](heldout.png)", ""]
    lines += ["| stage | seconds |", "|---|---|"] + [f"| {k} | {v:.0f} |" for k, v in timings.items()] + [""]
    if rows:
        first, last = rows[0], rows[-1]
        k = max(1, min(5, len(rows) // 4))

        def mean(rs: list, key: str = "episodes/pass_rate") -> float:
            return sum(r.get(key, 0.0) for r in rs) / len(rs)

        lines += [f"## Training ({rl[0]}, train instances)", "",
                  f"Pass rate {first.get('episodes/pass_rate', 0):.3f} (iteration 0) -> "
                  f"{last.get('episodes/pass_rate', 0):.3f} (iteration {last['iteration']}); mean of the first {k} "
                  f"iterations {mean(rows[:k]):.3f}, of the last {k} {mean(rows[-k:]):.3f}; entropy "
                  f"{_fmt(first.get('policy/entropy'))} -> {_fmt(last.get('policy/entropy'))}, KL to the warm start "
                  f"{_fmt(last.get('policy/kl_ref'))}.", "", "![learning curve](learning_curve.png)", ""]
        keys = ["reward/mean", "episodes/pass_rate", "episodes/hack_event_rate", "policy/entropy", "policy/kl_ref",
                "loss/policy", "policy/clipfrac", "episodes/masked", "batch/segments", "time/iteration_s"]
        keys = [k for k in keys if any(k in r for r in rows)]
        lines += ["| iteration | " + " | ".join(keys) + " |", "|---" * (len(keys) + 1) + "|"]
        lines += [f"| {r['iteration']} | " + " | ".join(_fmt(r.get(k, "")) for k in keys) + " |" for r in rows]
        lines.append("")
    if (out / "hack_rates.png").exists():
        lines += ["## Hack attempts (the RL arm's held-out episodes, guards on)", "", "![hack rates](hack_rates.png)",
                  ""]
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path


def run_main_job(cfg: TrainConfig, spec: MainJobSpec | None = None, console: Any = None,
                 prepare_only: bool = False) -> Path | None:
    """Warm start, the RL arm and the controls, held-out evaluation, the report (see the module docstring).
    `prepare_only`: only the base the warm start starts from (the copy pre-training, cached on
    disk: ~6 min once on 2 cores) and the demonstrations; no report (returns None). `scripts/run.sh`
    runs it first, as part of setting up, so that the timed job only loads the base."""
    from .learning import LearningStudy, pick_tasks

    spec = spec or MainJobSpec()
    say = (lambda m: console.print(m, markup=False, highlight=False)) if console is not None else print
    out = Path(cfg.run.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    families = list(cfg.env.kwargs.get("families") or [])
    if not families:
        from codegym.tasks.suites.families import FAMILIES

        families = list(FAMILIES)
    train, held = pick_tasks(families, spec.train_tasks, spec.heldout_tasks, cfg.run.seed)
    cfg = replace(cfg, env=replace(cfg.env, kwargs={**cfg.env.kwargs, "split": "train"}))
    study = LearningStudy(cfg, train, held, out, say=lambda m: say(f"[main] {m}"))
    if prepare_only:
        t0 = time.monotonic()
        say("[main] preparing the base (copy pre-training, cached after the first run)")
        study.prepare_base(flawed_fraction=spec.flawed_fraction, copy_steps=spec.copy_steps, copy_lr=spec.copy_lr)
        say(f"[main] base ready ({time.monotonic() - t0:.0f} s)")
        study.cleanup()
        return None
    timings: dict[str, float] = {}
    t0 = time.monotonic()
    say(f"[main] warm start: at most {cfg.sft.steps} steps on demonstrations of {len(train)} train instances")
    study.warm_start(steps=cfg.sft.steps, lr=cfg.sft.lr, batch_rows=cfg.sft.batch_rows,
                     target_success=cfg.sft.target_success, eval_every=cfg.sft.eval_every,
                     flawed_fraction=spec.flawed_fraction, copy_steps=spec.copy_steps, copy_lr=spec.copy_lr)
    timings["warm start"] = time.monotonic() - t0
    t = time.monotonic()
    study.evaluate_start(spec.low_temperatures)
    timings["evaluate warm start"] = time.monotonic() - t
    t = time.monotonic()
    say(f"[main] training: {cfg.algorithm.name}, {cfg.run.iterations} iterations")
    row = study.rl(cfg.algorithm.name, iterations=cfg.run.iterations, eval_every=spec.eval_every, name=cfg.algorithm.name)
    timings[cfg.algorithm.name] = time.monotonic() - t
    _hack_chart(row.get("T1"), out / "hack_rates.png")
    if "shuffled" in spec.controls:
        t = time.monotonic()
        study.rl(cfg.algorithm.name, iterations=cfg.run.iterations, shuffle_rewards=True)
        timings["shuffled-reward RL"] = time.monotonic() - t
    if "sft" in spec.controls:
        t = time.monotonic()
        study.sft_continued(tokens=row["trained_tokens"], lr=cfg.sft.lr, batch_rows=cfg.sft.batch_rows)
        timings["sft continued"] = time.monotonic() - t
    timings["total"] = time.monotonic() - t0
    study.write()
    study.cleanup()
    return write_report(out, cfg, study, timings)


def _hack_chart(result: Any, path: Path) -> None:
    """The hack-rate chart of an evaluation's episodes (`codegym.antihack.plot_report`)."""
    from codegym.antihack import HackEvent, hack_rate_report, plot_report

    if result is None:
        return
    events = result.extra.get("hack_events", {})
    report = hack_rate_report({k: [HackEvent.from_dict(e) for e in v] for k, v in events.items()})
    plot_report(report, str(path), title="Hack attempt rate by category (held-out, RL arm)")
