"""Async rollouts: iteration wall time, synchronous vs `rollout.max_staleness`, same config.

    .venv/bin/python benchmarks/async_rollouts.py [--iterations 4] [--staleness 1] [--backend docker]

One invocation trains the same PPO config on Toy-v0 twice with the tiny model: synchronously
(collect, then train) and with async rollouts (the next iteration's episodes are collected while
this one trains). Both runs collect the same number of episodes per iteration (checked). The
first iteration cannot overlap anything, so the figure is the mean wall time of the iterations
after it. Torch runs one intra-op thread per run (`run.threads: 1`): generation in the
collector's thread and the update in the trainer's each keep one core busy, the sandboxes grade
in their own processes. Prints both means and the ratio; on a shared, loaded machine the
figures move from run to run.
"""

from __future__ import annotations

import argparse
import tempfile
import time

from codegym.trainer.config import config_from_dict
from codegym.trainer.loop import Trainer


def config(out: str, args: argparse.Namespace, staleness: int | None):
    return config_from_dict({
        "algorithm": {"name": "ppo", "epochs": args.epochs},
        "model": {"lora_r": 8, "lora_alpha": 16},
        "env": {"tasks": ["toy-add-typo", "toy-is-even"], "max_turns": args.turns,
                "grade_cache": False,  # per process: the second run would grade from the first run's cache
                "kwargs": {"backend": args.backend, "tools": ["create", "submit"]}},
        "rollout": {"tasks_per_iteration": 2, "group_size": args.group_size, "max_new_tokens": args.max_new_tokens,
                    "max_envs": args.group_size * 2, "max_staleness": staleness},
        "run": {"iterations": args.iterations, "out_dir": out, "progress": False, "tensorboard": False,
                "threads": 1, "probe": True}})


def run(args: argparse.Namespace, staleness: int | None) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="codegym-async-") as out:
        trainer = Trainer(config(out, args, staleness))
        t0 = time.perf_counter()
        rows = trainer.train()
        wall = time.perf_counter() - t0
        trainer.close()
    later = [r["time/iteration_s"] for r in rows[1:]]
    return {"iteration_s": sum(later) / len(later), "wall_s": wall,
            "episodes": [int(r["episodes/count"]) for r in rows],
            "update_s": sum(r["time/update_s"] for r in rows[1:]) / len(later),
            "staleness_max": max(r.get("staleness/max", 0.0) for r in rows)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iterations", type=int, default=4)
    ap.add_argument("--staleness", type=int, default=1)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--group-size", type=int, default=4)
    ap.add_argument("--max-new-tokens", type=int, default=24)
    ap.add_argument("--turns", type=int, default=2)
    ap.add_argument("--backend", default="local", help="sandbox backend of the toy envs (local or docker)")
    ap.add_argument("--async-first", action="store_true", help="run the async config first (order effects)")
    args = ap.parse_args()
    if args.iterations < 2:
        ap.error("--iterations must be >= 2 (the first iteration is not timed)")
    async_first = args.async_first
    async_ = run(args, args.staleness) if async_first else None
    sync = run(args, None)
    async_ = async_ or run(args, args.staleness)
    assert sync["episodes"] == async_["episodes"], (sync["episodes"], async_["episodes"])
    print(f"episodes per iteration: {sync['episodes']} (both runs)")
    print(f"sync : {sync['iteration_s']:.2f} s/iteration (update {sync['update_s']:.2f} s), total {sync['wall_s']:.1f} s")
    print(f"async: {async_['iteration_s']:.2f} s/iteration (update {async_['update_s']:.2f} s), total "
          f"{async_['wall_s']:.1f} s, max_staleness {args.staleness}, max staleness seen {async_['staleness_max']:.0f}")
    print(f"speedup (sync / async iteration wall time): {sync['iteration_s'] / async_['iteration_s']:.2f}x")


if __name__ == "__main__":
    main()
