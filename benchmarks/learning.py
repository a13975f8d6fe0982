"""Does RL generalize? Held-out pass@1 on the task families, RL arms against controls, per seed.

    .venv/bin/python benchmarks/learning.py --algo gigpo ppo --seeds 0 1 2 --tasks-per-iteration 8 --env-steps 2000 \
        --train-tasks 256 --heldout-tasks 64 --threads 1          # the published target run (3/3)
    .venv/bin/python benchmarks/learning.py --algo gigpo ppo grpo tree_grpo gdpo --env-steps 3000 --seeds 0
    .venv/bin/python benchmarks/learning.py --families lookup noisy_log --train-tasks 48 --heldout-tasks 48
    .venv/bin/python benchmarks/learning.py --compare benchmarks/results/learning/seed*-summary.json \
        benchmarks/results/learning/five_algos/seed*-summary.json   # RL arms paired, per seed
    .venv/bin/python benchmarks/learning.py --families noisy_log --context-budget 512 --compaction-strategy window \
        --max-new-tokens 64 --copy-width 640

Per seed (`codegym.trainer.learning.LearningStudy`): the tiny base is warm-started (full-weight
behaviour cloning) on the demonstrations of ``--train-tasks`` train instances of ``--families``
of ``codegym/Families-v0`` (the tokenizer is built from the toy suite alone, so it has seen no
family instance); then

- **start**: the warm start's held-out pass@1, greedy and T=1;
- **controls**: the warm start at T = 0.3, 0.5, 0.7 (no update); SFT continued on the same
  demonstrations for as many training tokens as the first RL arm passed through its updates;
  RL (the first ``--algo``) with shuffled rewards (`algorithm.shuffle_rewards`), same budget,
  ``--shuffle-replicates`` runs (their spread is printed; each counts as a control);
- **RL arms**: each ``--algo`` (LoRA on the warm start, train instances only) for
  ``--minutes`` or ``--env-steps`` (whichever ends first), logging entropy and KL to the
  reference (the warm start);

every one evaluated on the same ``--heldout-tasks`` held-out instances (one episode per task,
greedy and T=1, Wilson 95% intervals). The target (issue 14): each RL arm beats the best control
(any control at any temperature it was sampled at, the warm start included) by >= 0.10 held-out
pass@1 and lies above that control's 95% interval. Per seed a table, ``OUT/seed<k>/summary.json``
and ``OUT/seed<k>/heldout.png``; all seeds in ``OUT/summary.json``.
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import time
from pathlib import Path

FAMILIES = ["lookup"]
#: a short system prompt (the env's default is ~330 tokens of instructions; the tool schemas follow anyway)
SYSTEM_PROMPT = "Solve the task with tool calls, one per message. Call submit when done."


def base_config(args: argparse.Namespace, seed: int, out: Path):
    from codegym.trainer.config import config_from_dict

    tools = ["view", "create", "submit"] + (["str_replace"] if "bug_location" in args.families else [])
    env_kwargs = {"split": "train", "families": list(args.families), "tools": tools}
    if args.context_budget:
        env_kwargs["context_budget"] = args.context_budget
    if args.compaction_strategy:
        env_kwargs["compaction_strategy"] = args.compaction_strategy
    if args.system_prompt:
        env_kwargs["system_prompt"] = args.system_prompt
    max_turns = args.max_turns or (4 if "bug_location" in args.families else 3)
    return config_from_dict({
        "model": {"base": args.model, "lora_r": args.lora_r, "lora_alpha": 2 * args.lora_r},
        "env": {"id": "codegym/Families-v0", "max_turns": max_turns, "kwargs": env_kwargs},
        "rollout": {"tasks_per_iteration": args.tasks_per_iteration, "group_size": args.group_size,
                    "max_new_tokens": args.max_new_tokens, "temperature": 1.0, "stop_at_call": True,
                    "max_envs": args.max_envs, "max_batch_size": args.max_envs},
        "algorithm": {"name": "grpo", "epochs": args.epochs, "mini_batches": 2, "micro_batch_tokens": 16384,
                      "kl_coef": args.kl_coef, "log_kl_ref": True},
        "optim": {"lr": args.lr, "critic_lr": 3e-3},
        "run": {"iterations": 10_000, "seed": seed, "out_dir": str(out), "progress": False, "tensorboard": False,
                "probe": True, "threads": args.threads},
    })


def toy_config(algo: str, seed: int, out: Path):
    """The previous, memorizing setup on four toy tasks (no held-out set), kept for
    `benchmarks/grade_cache.py`, which times iterations on it: a warm start to oracle success 0.2,
    4 tasks x 8 rollouts, 72 new tokens, 2 turns."""
    from codegym.trainer.config import config_from_dict

    algorithm = {"name": algo, "epochs": 2, "mini_batches": 2, "micro_batch_tokens": 16384}
    if algo == "ppo":
        algorithm.update(advantage_kwargs={"gamma": 1.0, "lam": 1.0}, critic_warmup=2)
    return config_from_dict({
        "model": {"base": "tiny", "lora_r": 16, "lora_alpha": 32},
        "env": {"tasks": ["toy-add-typo", "toy-greeting-typo", "toy-max-of", "toy-missing-return"], "max_turns": 2,
                "kwargs": {"tools": ["create", "submit"]}},
        "rollout": {"tasks_per_iteration": 4, "group_size": 8, "max_new_tokens": 72, "temperature": 1.0,
                    "stop_at_call": True, "max_envs": 32},
        "algorithm": algorithm, "optim": {"lr": 1e-3, "critic_lr": 3e-3},
        "run": {"iterations": 10_000, "seed": seed, "out_dir": str(out), "progress": False, "tensorboard": False},
        "sft": {"steps": 300, "lr": 1e-2, "batch_rows": 8, "full": True, "target_success": 0.2, "eval_every": 1},
    })


#: per-algorithm settings on top of the base config (ppo: gamma = lam = 1 and a critic warmup)
PPO_CRITIC_WARMUP = 2  # the published lookup rows; noisy_log's PPO rows also report 0 (--ppo-critic-warmup)
ALGO_OVERRIDES = {
    "ppo": {"algorithm": {"advantage_kwargs": {"gamma": 1.0, "lam": 1.0}, "critic_warmup": PPO_CRITIC_WARMUP}},
    "gdpo": {"algorithm": {"reward_components": ["correctness", "format"]}},
}


def algo_overrides(ppo_critic_warmup: int = PPO_CRITIC_WARMUP) -> dict:
    """`ALGO_OVERRIDES` with PPO's ``critic_warmup`` (iterations that train only the critic, inside the
    env-step budget) set to `ppo_critic_warmup`."""
    out = copy.deepcopy(ALGO_OVERRIDES)
    out["ppo"]["algorithm"]["critic_warmup"] = ppo_critic_warmup
    return out


def arm_name(algo: str, args: argparse.Namespace) -> str:
    """The arm's name in tables and summaries: the algorithm, plus ``cw<N>`` for PPO run with a
    ``--ppo-critic-warmup`` other than the published one (so that `--compare` can merge both)."""
    if algo == "ppo" and args.ppo_critic_warmup != PPO_CRITIC_WARMUP:
        return f"ppo cw{args.ppo_critic_warmup}"
    return algo


def run_seed(seed: int, args: argparse.Namespace) -> dict:
    from codegym.trainer.learning import LearningStudy, pick_tasks

    out = Path(args.out) / f"seed{seed}"
    t0 = time.monotonic()
    train, held = pick_tasks(args.families, args.train_tasks, args.heldout_tasks, seed)
    say = lambda m: print(f"seed {seed}: {m}", flush=True)  # noqa: E731
    study = LearningStudy(base_config(args, seed, out), train, held, out, say=say)
    study.warm_start(steps=args.sft_steps, lr=args.sft_lr, target_success=args.target_success,
                     flawed_fraction=args.flawed_fraction, copy_steps=args.copy_steps, copy_lr=args.copy_lr,
                     copy_width=args.copy_width or None)
    study.evaluate_start(args.low_temperatures)
    budget = dict(seconds=args.minutes * 60, env_steps=args.env_steps)
    first = None
    overrides = algo_overrides(args.ppo_critic_warmup)
    for algo in args.algo:
        row = study.rl(algo, overrides=overrides, eval_every=args.eval_every, name=arm_name(algo, args), **budget)
        first = first or row
    if "shuffled" in args.controls:
        first_name = f"{args.algo[0]} shuffled"
        for k in range(args.shuffle_replicates):
            study.rl(args.algo[0], shuffle_rewards=True, overrides=overrides, **budget,
                     name=first_name if k == 0 else f"{first_name} r{k + 1}",
                     seed=None if k == 0 else seed + 1000 * k, replicate_of=first_name)
    if "sft" in args.controls:
        study.sft_continued(tokens=first["trained_tokens"], lr=args.sft_lr)
    study.write()
    table = study.table()
    (out / "table.md").write_text(table + "\n")
    print(f"\n== seed {seed} ({time.monotonic() - t0:.0f} s): held-out pass@1 on {len(held)} tasks\n{table}\n",
          flush=True)
    if not args.keep_weights:
        study.cleanup()
    return {"seed": seed, "seconds": time.monotonic() - t0, **study.summary()}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--algo", nargs="+", default=["gigpo", "ppo"],
                   help="RL arms; the first is also the shuffled-reward control's algorithm")
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    p.add_argument("--minutes", type=float, default=20.0, help="RL budget per arm (wall time)")
    p.add_argument("--env-steps", type=int, default=None, help="RL budget per arm in env steps (turns)")
    p.add_argument("--families", nargs="+", default=FAMILIES, help="lookup, noisy_log, bug_location")
    p.add_argument("--controls", nargs="*", default=["shuffled", "sft"], help="shuffled, sft (lower T always)")
    p.add_argument("--shuffle-replicates", type=int, default=3,
                   help="runs of the shuffled-reward control (seeds S, S+1000, ...): each is a control of its own in "
                        "the verdict, and the table gives their spread (one run's greedy can flip a near-tie)")
    p.add_argument("--train-tasks", type=int, default=512, help="train instances (warm start and RL)")
    p.add_argument("--heldout-tasks", type=int, default=64, help="held-out instances evaluated")
    p.add_argument("--model", default="tiny", help="tiny or tiny:small")
    p.add_argument("--lora-r", type=int, default=16)
    p.add_argument("--max-turns", type=int, default=None, help="default 3, 4 with bug_location (its demo's calls)")
    p.add_argument("--max-new-tokens", type=int, default=40, help="per turn (a lookup call is <= 32 tokens)")
    p.add_argument("--context-budget", type=int, default=0, help="compaction budget in tokens (0: the env's)")
    p.add_argument("--compaction-strategy", default="",
                   help="digest, window or summarize ('': the env's, digest); window adds no digest to the new "
                        "segment (noisy_log at budget 512: rows of ~690 tokens instead of ~835)")
    p.add_argument("--tasks-per-iteration", type=int, default=4)
    p.add_argument("--group-size", type=int, default=8)
    p.add_argument("--max-envs", type=int, default=32)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=1e-3, help="RL learning rate (LoRA)")
    p.add_argument("--ppo-critic-warmup", type=int, default=PPO_CRITIC_WARMUP,
                   help="PPO iterations that train only the critic, inside the env-step budget (another value than "
                        f"{PPO_CRITIC_WARMUP} names the arm 'ppo cw<N>')")
    p.add_argument("--kl-coef", type=float, default=0.05,
                   help="KL(policy || warm start) loss, k3, every RL arm: it holds the tokens a lone or "
                        "noisy signal does not touch (without it PPO and shuffled GiGPO collapsed at lr 2e-3)")
    p.add_argument("--sft-steps", type=int, default=400, help="warm-start steps (the cap with --target-success)")
    p.add_argument("--sft-lr", type=float, default=1e-3, help="warm-start learning rate (decays linearly to 0)")
    p.add_argument("--flawed-fraction", type=float, default=0.75,
                   help="train instances demonstrated by their flawed demonstration (lookup: no read, a guess)")
    p.add_argument("--copy-steps", type=int, default=2400,
                   help="cap on the synthetic copy pre-training of the random base (sft.COPY_STAGES; 0: none)")
    p.add_argument("--copy-lr", type=float, default=1e-3)
    p.add_argument("--copy-width", type=int, default=0,
                   help="the copy pre-training's last-stage width (0: the longest demonstration + 64, rounded "
                        "up to 128, at least 640); noisy_log at budget 512: 640, the cached lookup base")
    p.add_argument("--low-temperatures", nargs="*", type=float, default=[0.3, 0.5, 0.7],
                   help="the warm start sampled at these temperatures (a control)")
    p.add_argument("--system-prompt", default=SYSTEM_PROMPT, help="the env's system prompt ('' for its default)")
    p.add_argument("--target-success", type=float, default=None,
                   help="stop the warm start at this oracle success on the train demonstrations")
    p.add_argument("--eval-every", type=int, default=0, help="held-out T=1 point every N RL iterations (0: end)")
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--keep-weights", action="store_true", help="keep OUT/seed<k>/warm (the warm-start model)")
    p.add_argument("--out", default="runs/learning")
    p.add_argument("--plot", nargs="+", default=None, metavar="SUMMARY",
                   help="only plot these per-seed summaries (seed<k>-summary.json) into --plot-to")
    p.add_argument("--plot-to", default=None, help="the figure --plot writes (default OUT/seeds.png)")
    p.add_argument("--compare", nargs="+", default=None, metavar="SUMMARY",
                   help="only compare the RL arms of these per-seed summaries (several per seed are merged: "
                        "arms run apart on the same seed share its warm start and held-out tasks)")
    return p


def _outcomes(ea: dict, eb: dict) -> tuple[list[bool], list[bool]]:
    """Per held-out task (``passed``: task id -> outcome), the two evaluations' outcomes, paired."""
    if set(ea["passed"]) != set(eb["passed"]):
        raise ValueError("the two evaluations ran on different held-out tasks: not paired")
    ids = sorted(ea["passed"])
    return [ea["passed"][i] for i in ids], [eb["passed"][i] for i in ids]


def compare_arms(summaries: list[tuple[int, dict]]) -> list[str]:
    """The RL arms of each seed side by side at equal env steps: held-out pass@1 (greedy, T=1) per
    arm and seed, and every pair's paired-bootstrap difference over the same held-out tasks
    (`paired_bootstrap`, 95%). Summaries of one seed are merged only if their warm starts passed the
    same held-out tasks (else the runs did not share a warm start and the comparison is not paired)."""
    from codegym.trainer.heldout import paired_bootstrap

    by_seed: dict[int, dict] = {}
    for seed, s in summaries:
        merged = by_seed.setdefault(seed, {"arms": {}})
        start = merged["arms"].get("warm start")
        if start is not None and start["T1"]["passed"] != s["arms"]["warm start"]["T1"]["passed"]:
            raise ValueError(f"seed {seed}: summaries with different held-out tasks or warm starts are not paired")
        merged["arms"].update(s["arms"])
    rl = list(dict.fromkeys(n for s in by_seed.values() for n, a in s["arms"].items() if a.get("kind") == "rl"))
    out = []
    for metric in ("T1", "greedy"):
        out.append(f"== held-out pass@1, {metric} (per seed; mean)")
        for n in rl:
            vals = [s["arms"][n][metric]["pass"]["value"] for s in by_seed.values() if n in s["arms"]]
            steps = [s["arms"][n]["env_steps"] for s in by_seed.values() if n in s["arms"]]
            out.append(f"  {n:10s} " + " / ".join(f"{v:.3f}" for v in vals)
                       + f"  (mean {sum(vals) / len(vals):.3f}; env steps {min(steps)}-{max(steps)})")
        for i, a in enumerate(rl):
            for b in rl[i + 1:]:
                cells = []
                for s in by_seed.values():
                    if a in s["arms"] and b in s["arms"]:
                        d, (lo, hi) = paired_bootstrap(*_outcomes(s["arms"][a][metric], s["arms"][b][metric]))
                        cells.append(f"{d:+.3f} [{lo:+.3f}, {hi:+.3f}]")
                out.append(f"  {a} - {b}: " + ", ".join(cells))
    out += _verdict_lines(by_seed, rl)
    return out


def _best_control(arms: dict) -> tuple[str, dict] | None:
    """The highest-passing evaluation of any control or the warm start, at any temperature it ran at
    (`LearningStudy.verdict`'s rule), as ``(name (metric), evaluation)``."""
    cands = [(f"{n} ({m})", e) for n, a in arms.items() if a.get("kind") in ("control", "start")
             for m, e in a.items() if isinstance(e, dict) and "pass" in e and "passed" in e]
    return max(cands, key=lambda c: c[1]["pass"]["value"], default=None)


def _verdict_lines(by_seed: dict[int, dict], rl: list[str], margin: float = 0.10) -> list[str]:
    """Per RL arm and metric, each seed's delta to that seed's best control (paired over the held-out
    tasks) and whether the target holds: delta >= `margin` and the arm's pass rate above the best
    control's Wilson 95% upper bound. An arm run apart (``ppo cw0``) meets the controls of its seed."""
    from codegym.trainer.heldout import paired_bootstrap

    out = [f"== target per seed: RL arm - best control >= {margin:.2f}, above the control's 95% interval"]
    for n in rl:
        for metric in ("greedy", "T1"):
            cells, held, seen = [], 0, 0
            for seed, s in by_seed.items():
                best = _best_control(s["arms"])
                if n not in s["arms"] or best is None:
                    continue
                name, ctl = best
                mine = s["arms"][n][metric]
                d, (lo, hi) = paired_bootstrap(*_outcomes(mine, ctl))
                ok = d >= margin and mine["pass"]["value"] > ctl["pass"]["wilson95"][1]
                held, seen = held + ok, seen + 1
                cells.append(f"seed {seed} {d:+.3f} [{lo:+.3f}, {hi:+.3f}] vs {name} {'holds' if ok else 'misses'}")
            if cells:
                out.append(f"  {n} {metric}: holds in {held} of {seen} seeds; " + "; ".join(cells))
    return out


def plot_seeds(summaries: list[dict], path: Path) -> Path:
    """Held-out pass@1 at T=1 of every arm (warm start, controls at their best temperature, RL
    arms), one marker per seed, with each seed's Wilson 95% bar: the spread over seeds at a glance.

        .venv/bin/python benchmarks/learning.py --plot benchmarks/results/learning/seed*-summary.json
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def best(row: dict) -> dict | None:  # a control's best evaluation; an RL arm's or the start's T=1
        evals = [v for v in row.values() if isinstance(v, dict) and "pass" in v]
        if row.get("kind") == "control":
            return max(evals, key=lambda e: e["pass"]["value"], default=None)
        return row.get("T1")

    names = list(dict.fromkeys(n for s in summaries for n in s["arms"]))
    fig, ax = plt.subplots(figsize=(max(7, 0.75 * len(names)), 4))
    for k, s in enumerate(summaries):
        for i, n in enumerate(names):
            e = best(s["arms"].get(n, {}))
            if e is None:
                continue
            v, (lo, hi) = e["pass"]["value"], e["pass"]["wilson95"]
            ax.errorbar(i + (k - 1) * 0.18, v, yerr=[[v - lo], [hi - v]], fmt="o", color=f"C{k}", capsize=2,
                        label=f"seed {s.get('seed', k)}" if i == 0 else None)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel("held-out pass@1\n(T=1; a control: its best T)")
    ax.legend(fontsize=8)
    ax.set_title(f"held-out pass@1 over {len(summaries)} seeds, 95% Wilson intervals")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main() -> None:
    args = parser().parse_args()
    if args.compare:
        seed_of = lambda p: int(re.findall(r"seed(\d+)", str(p))[-1])  # noqa: E731  seed<k>-summary.json, seed<k>/
        print("\n".join(compare_arms([(seed_of(p), json.loads(Path(p).read_text())) for p in args.compare])))
        return
    if args.plot:
        summaries = [{"seed": int(Path(p).name.split("-")[0].removeprefix("seed")), **json.loads(Path(p).read_text())}
                     for p in args.plot]
        print(plot_seeds(summaries, Path(args.out) / "seeds.png" if args.plot_to is None else Path(args.plot_to)))
        return
    results = [run_seed(seed, args) for seed in args.seeds]
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "summary.json").write_text(json.dumps({"args": vars(args), "seeds": results}, indent=2))
    print(plot_seeds(results, Path(args.out) / "seeds.png"))
    print("== target per seed (RL arm beats the best control by >= 0.10 held-out pass@1, above its 95% interval)")
    for r in results:
        for arm, v in r["verdict"].items():
            print(f"seed {r['seed']} {arm:10s} " + "  ".join(
                f"{m}: {x['pass']:.3f} vs {x['best_control_pass']:.3f} ({x['delta']:+.3f}) "
                f"{'holds' if x['holds'] else 'misses'}" for m, x in v.items()))
    arms = sorted({(arm, m) for r in results for arm, v in r["verdict"].items() for m in v})
    for arm, m in arms:
        held = sum(r["verdict"].get(arm, {}).get(m, {}).get("holds", False) for r in results)
        print(f"{arm} {m}: target holds in {held} of {len(results)} seeds")


if __name__ == "__main__":
    main()
