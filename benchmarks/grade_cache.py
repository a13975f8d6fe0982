"""Grade cache: RL iteration time with `env.grade_cache` off vs on, same run, same policy.

    .venv/bin/python benchmarks/grade_cache.py [--iterations 6] [--algo gigpo]

The learning benchmark's setup (`benchmarks/learning.py`: tiny base warm-started to oracle
success 0.2, 4 toy tasks x 8 rollouts, guards on) trains two identical trainers side by side,
one with the grade cache off (the baseline: every episode graded in a pristine sandbox) and
one with it on; their iterations alternate so both see the same machine load. Sampling is
seeded, so both trainers see the same episodes: the script checks that every iteration's
rewards agree (the cache must not change what is learned) and prints the ratio of the
iteration and collection times, and how many gradings the cache saved.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import learning  # noqa: E402  (the benchmark's config)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--iterations", type=int, default=6)
    p.add_argument("--algo", default="gigpo")
    p.add_argument("--out", default="runs/grade-cache")
    args = p.parse_args()
    from codegym.envs.grade_cache import SHARED_GRADE_CACHE
    from codegym.trainer.loop import Trainer
    from codegym.trainer.report import apply_sft
    from codegym.trainer.sft import run_sft

    out = Path(args.out)
    cfg = learning.toy_config(args.algo, 0, out / "off")
    sft = run_sft(cfg, str(out / "sft"), steps=cfg.sft.steps, lr=cfg.sft.lr, batch_rows=cfg.sft.batch_rows,
                  full=cfg.sft.full)
    cfg = apply_sft(cfg, sft)
    trainers = {}
    for mode in ("off", "on"):
        c = replace(cfg, env=replace(cfg.env, grade_cache=mode == "on"),
                    run=replace(cfg.run, out_dir=str(out / mode)))
        trainers[mode] = Trainer(c)
    SHARED_GRADE_CACHE.clear()
    totals = {m: {"iteration_s": 0.0, "collect_s": 0.0} for m in trainers}
    same = True
    for it in range(args.iterations):
        row = {}
        for mode, trainer in trainers.items():
            t0 = time.perf_counter()
            m = trainer.train_iteration()
            totals[mode]["iteration_s"] += time.perf_counter() - t0
            totals[mode]["collect_s"] += m["time/collect_s"]
            row[mode] = m
        same &= row["off"]["reward/mean"] == row["on"]["reward/mean"]
        print(f"it {it}: reward off {row['off']['reward/mean']:.3f} on {row['on']['reward/mean']:.3f} | "
              f"iteration off {row['off']['time/iteration_s']:.1f} s on {row['on']['time/iteration_s']:.1f} s",
              flush=True)
    episodes = args.iterations * cfg.rollout.tasks_per_iteration * cfg.rollout.group_size
    print(f"\n{args.iterations} iterations, {episodes} episodes per trainer")
    print(f"gradings: off {episodes}, on {SHARED_GRADE_CACHE.misses} "
          f"({SHARED_GRADE_CACHE.hits} answered from the cache)")
    for key in ("iteration_s", "collect_s"):
        off, on = totals["off"][key], totals["on"][key]
        print(f"{key:12s} off {off:7.1f} s  on {on:7.1f} s  -> {off / on:.2f}x faster with the cache")
    print("rewards identical in every iteration:", same)
    if not same:
        raise SystemExit("the grade cache changed the rewards")


if __name__ == "__main__":
    main()
