"""Does RL learn? Mean reward on codegym/Toy-v0 (guards on) with a tiny model on the CPU.

    .venv/bin/python benchmarks/learning.py --algo ppo gigpo --seeds 0 1 2 --minutes 15

Per algorithm and seed: a full-weight behaviour-cloning warm start of the tiny base on
compact-oracle episodes that stops once the oracle success (the mean probability of sampling the
oracle episode at T=1, `codegym.trainer.sft.oracle_success`) reaches ``--target-success``
(0.2: the start level), then LoRA RL iterations until the time budget. The
target (issue 8): the mean reward rises by at least 0.3 (absolute) from a start level <= 0.5
within the budget. "start" is the mean reward of iteration 0 (sampled by the warm-started
policy before any update); "end" is the mean of the last three iterations. Results go to
``OUT/<algo>-seed<k>/`` (metrics.jsonl, learning_curve.png) and ``OUT/summary.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

TASKS = ["toy-add-typo", "toy-greeting-typo", "toy-max-of", "toy-missing-return"]


def config(algo: str, seed: int, out: Path, args: argparse.Namespace):
    from codegym.trainer.config import config_from_dict

    algorithm = {"name": algo, "epochs": args.epochs, "mini_batches": 2, "micro_batch_tokens": 16384}
    if algo == "ppo":
        algorithm["advantage_kwargs"] = {"gamma": 1.0, "lam": 1.0}
        algorithm["critic_warmup"] = args.critic_warmup
    return config_from_dict({
        "model": {"base": args.model, "lora_r": args.lora_r, "lora_alpha": 2 * args.lora_r},
        "env": {"tasks": args.tasks, "max_turns": 2, "kwargs": {"tools": ["create", "submit"]}},
        "rollout": {"tasks_per_iteration": args.tasks_per_iteration, "group_size": args.group_size,
                    "max_new_tokens": args.max_new_tokens, "temperature": 1.0, "stop_at_call": True,
                    "max_envs": args.max_envs},
        "algorithm": algorithm,
        "optim": {"lr": args.lr, "critic_lr": 3e-3},
        "run": {"iterations": 10_000, "seed": seed, "out_dir": str(out), "progress": False, "tensorboard": False,
                "probe": True},
        "sft": {"steps": args.sft_steps, "lr": args.sft_lr, "batch_rows": 8, "full": True,
                "target_success": args.target_success, "eval_every": 1},
    })


def run_one(algo: str, seed: int, args: argparse.Namespace) -> dict:
    from codegym.trainer.loop import Trainer
    from codegym.trainer.metrics import MetricsLogger
    from codegym.trainer.report import apply_sft, plot_learning_curve
    from codegym.trainer.sft import run_sft

    out = Path(args.out) / f"{algo}-seed{seed}"
    cfg = config(algo, seed, out, args)
    t0 = time.monotonic()
    sft = run_sft(cfg, str(out / "sft"), steps=cfg.sft.steps, lr=cfg.sft.lr, batch_rows=cfg.sft.batch_rows,
                  full=cfg.sft.full)
    print(f"{algo} seed {seed} sft: {sft['steps']} steps, oracle success {sft['success']}", flush=True)
    cfg = apply_sft(cfg, sft)
    t_sft = time.monotonic() - t0
    t1 = time.monotonic()
    trainer = Trainer(cfg)
    log = MetricsLogger(out, tensorboard=False, progress=False)
    rows = []
    while time.monotonic() - t1 < args.minutes * 60:
        m = trainer.train_iteration()
        log.log(trainer.iteration - 1, m)
        rows.append({"iteration": trainer.iteration - 1, **m})
        print(f"{algo} seed {seed} it {trainer.iteration - 1}: reward {m.get('reward/mean', 0):.3f} "
              f"pass {m.get('episodes/pass_rate', 0):.3f} hack {m.get('episodes/hack_event_rate', 0):.3f} "
              f"({time.monotonic() - t1:.0f} s)", flush=True)
    log.close()
    plot_learning_curve(rows, out / "learning_curve.png", f"{algo} seed {seed}")
    rewards = [r.get("reward/mean", 0.0) for r in rows]
    start, end = rewards[0], sum(rewards[-3:]) / len(rewards[-3:])
    result = {"algo": algo, "seed": seed, "start": start, "end": end, "gain": end - start, "max": max(rewards),
              "iterations": len(rows), "rl_seconds": time.monotonic() - t1, "sft_seconds": t_sft,
              "sft_steps": sft["steps"], "sft_success": sft["success"],
              "passed": start <= 0.5 and end - start >= 0.3, "rewards": rewards,
              # mean pass rate per task over the last 10 iterations (a plateau is often one task)
              "pass_rate_by_task_last10": {k.split("/", 1)[1]: sum(r.get(k, 0.0) for r in rows[-10:]) / len(rows[-10:])
                                           for k in sorted({k for r in rows for k in r if k.startswith("pass_rate/")})}}
    (out / "result.json").write_text(json.dumps(result, indent=2))
    return result


def plot_summary(results: list[dict], path: Path) -> None:
    """One panel per algorithm: every seed's reward per iteration (thin) and its 10-iteration
    rolling mean (thick), and each seed's target line (its start + 0.3, dotted)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    algos = sorted({r["algo"] for r in results}, key=lambda a: ["ppo", "gigpo"].index(a) if a in ("ppo", "gigpo") else 9)
    fig, axes = plt.subplots(1, len(algos), figsize=(6 * len(algos), 4), squeeze=False, sharey=True)
    for ax, algo in zip(axes[0], algos, strict=True):
        for k, r in enumerate(x for x in results if x["algo"] == algo):
            rw, color = r["rewards"], f"C{k}"
            roll = [sum(rw[max(0, i - 9): i + 1]) / len(rw[max(0, i - 9): i + 1]) for i in range(len(rw))]
            label = (f"seed {r['seed']}: {r['start']:.2f} -> {r['end']:.2f} ({r['gain']:+.2f}, "
                     f"{r['rl_seconds'] / 60:.0f} min) {'PASS' if r['passed'] else 'MISS'}")
            ax.plot(rw, color=color, alpha=0.25, lw=0.8)
            ax.plot(roll, color=color, lw=2, label=label)
            ax.axhline(r["start"] + 0.3, color=color, ls=":", lw=1)
        ax.set_title(f"{algo}: reward per iteration (dotted: start + 0.3)")
        ax.set_xlabel("iteration")
        ax.set_ylim(0, 1)
        ax.legend(fontsize=8, loc="upper left")
    axes[0][0].set_ylabel("mean reward (32 episodes)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--algo", nargs="+", default=["ppo", "gigpo"])
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    p.add_argument("--minutes", type=float, default=15.0, help="RL time budget per run")
    p.add_argument("--model", default="tiny")
    p.add_argument("--lora-r", type=int, default=16)
    p.add_argument("--max-new-tokens", type=int, default=72)
    p.add_argument("--critic-warmup", type=int, default=2, help="ppo: iterations that train only the critic")
    p.add_argument("--tasks", nargs="+", default=TASKS)
    p.add_argument("--tasks-per-iteration", type=int, default=4)
    p.add_argument("--group-size", type=int, default=8)
    p.add_argument("--max-envs", type=int, default=32, help="envs stepping at once (one generation batch)")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--sft-steps", type=int, default=300, help="cap of the warm start")
    p.add_argument("--sft-lr", type=float, default=1e-2)
    p.add_argument("--target-success", type=float, default=0.2,
                   help="the warm start stops at this oracle success (sets the start level)")
    p.add_argument("--out", default="runs/learning")
    return p


def main() -> None:
    args = parser().parse_args()
    results = []
    for algo in args.algo:
        for seed in args.seeds:
            r = run_one(algo, seed, args)
            results.append(r)
            print(f"== {algo} seed {seed}: start {r['start']:.3f} end {r['end']:.3f} gain {r['gain']:+.3f} "
                  f"({r['iterations']} iterations, {r['rl_seconds']:.0f} s RL + {r['sft_seconds']:.0f} s SFT) "
                  f"{'PASS' if r['passed'] else 'MISS'}", flush=True)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "summary.json").write_text(json.dumps(results, indent=2))
    plot_summary(results, Path(args.out) / "summary.png")
    for r in results:
        print(f"{r['algo']:6s} seed {r['seed']}: {r['start']:.3f} -> {r['end']:.3f} ({r['gain']:+.3f}) "
              f"{'PASS' if r['passed'] else 'MISS'}")


if __name__ == "__main__":
    main()
