"""Async rollouts: iteration wall time, synchronous vs `rollout.max_staleness`, same config.

    .venv/bin/python benchmarks/async_rollouts.py [--iterations 4] [--staleness 1] [--backend docker]

One invocation trains the same PPO config on Toy-v0 (two toy tasks, 4 rollouts each, seed 0)
twice with the tiny model: synchronously (collect, then train) and with async rollouts (the next
iteration's episodes are collected while this one trains). Both runs collect the same episodes
per iteration and make the same number of optimizer steps (both checked). The first iteration
cannot overlap anything (and starts the sandboxes), so every figure is the mean over the
iterations after it.

Where the time goes, on 2 cores: torch runs one intra-op thread per run (`run.threads: 1`, which
the collector's thread inherits), so the update (trainer thread) and generation (collector
thread, on its own copy of the model) each use at most one core. With the Docker backend most of
a collection is env time: sandbox exec calls, workspace uploads and grading run in containers,
and for this process they are waits (sockets and subprocesses release the GIL), which is what
the update overlaps. The tiny model's generation and update are Python-bound and share the GIL,
so they overlap little. Async can at best hide the shorter of (collection) and (update + sync):
``bound = (C + U + S) / max(C, U + S)`` from the synchronous run's split, printed next to the
measured ratio. On a shared, loaded machine the figures move from run to run (the load average
is printed).
"""

from __future__ import annotations

import argparse
import os
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
                "threads": 1, "probe": True, "seed": args.seed}})


def mean(rows: list[dict], key: str) -> float:
    return sum(float(r.get(key, 0.0)) for r in rows) / len(rows)


def run(args: argparse.Namespace, staleness: int | None) -> dict:
    with tempfile.TemporaryDirectory(prefix="codegym-async-") as out:
        trainer = Trainer(config(out, args, staleness))
        t0 = time.perf_counter()
        rows = trainer.train()
        wall = time.perf_counter() - t0
        trainer.close()
    later = rows[1:]
    own = "time/rollout_s" if staleness is not None else "time/collect_s"  # the collection's own time
    out = {"iteration_s": mean(later, "time/iteration_s"), "wall_s": wall,
           "episodes": [int(r["episodes/count"]) for r in rows],
           "steps": [int(r["update/policy_steps"]) for r in rows],
           "collect_s": mean(later, own), "generate_s": mean(later, "time/rollout_generate_s"),
           "env_s": mean(later, "time/rollout_env_s"), "wait_s": mean(later, "time/collect_s"),
           "update_s": mean(later, "time/update_s"),
           "staleness_max": max(r.get("staleness/max", 0.0) for r in rows)}
    out["sync_s"] = out["iteration_s"] - out["wait_s"] - out["update_s"]  # hand-off + probe (+ logging)
    return out


def line(name: str, r: dict) -> str:
    return (f"{name}: {r['iteration_s']:.2f} s/iteration (trainer waited {r['wait_s']:.2f} s for the batch; "
            f"collection {r['collect_s']:.2f} s = generate {r['generate_s']:.2f} + env {r['env_s']:.2f}; "
            f"update {r['update_s']:.2f} s; hand-off + probe {r['sync_s']:.2f} s), total {r['wall_s']:.1f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iterations", type=int, default=4)
    ap.add_argument("--staleness", type=int, default=1)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--group-size", type=int, default=4)
    ap.add_argument("--max-new-tokens", type=int, default=24)
    ap.add_argument("--turns", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--backend", default="docker", help="sandbox backend of the toy envs (docker or local)")
    ap.add_argument("--async-first", action="store_true", help="run the async config first (order effects)")
    args = ap.parse_args()
    if args.iterations < 2:
        ap.error("--iterations must be >= 2 (the first iteration is not timed)")
    load0 = os.getloadavg()
    async_ = run(args, args.staleness) if args.async_first else None
    sync = run(args, None)
    async_ = async_ or run(args, args.staleness)
    load1 = os.getloadavg()
    assert sync["episodes"] == async_["episodes"], (sync["episodes"], async_["episodes"])
    assert sync["steps"] == async_["steps"], (sync["steps"], async_["steps"])  # the same number of updates
    c, u = sync["collect_s"], sync["update_s"] + sync["sync_s"]
    print(f"load average (1 min) {load0[0]:.1f} at the start, {load1[0]:.1f} at the end, on {os.cpu_count()} CPUs")
    print(f"episodes per iteration: {sync['episodes']}, optimizer steps per iteration: {sync['steps']} (both runs)")
    print(line("sync ", sync))
    print(line("async", async_) + f", max_staleness {args.staleness}, max staleness seen "
          f"{async_['staleness_max']:.0f}")
    print(f"speedup (sync / async iteration wall time): {sync['iteration_s'] / async_['iteration_s']:.2f}x "
          f"(bound from the sync split, (C + U + S) / max(C, U + S): {(c + u) / max(c, u):.2f}x)")


if __name__ == "__main__":
    main()
