"""Rollout throughput: episodes/s and generated tokens/s with 1 vs 8 concurrent envs.

    .venv/bin/python benchmarks/rollout.py [--episodes 16] [--max-new-tokens 32] [--turns 3]

The tiny model (`codegym.agents.tiny`) acts in real Docker sandboxes on Toy-v0 through
`codegym.trainer.rollout.collect`. With 1 env every turn is one sequence through `generate`
and one env step; with 8, the turn's 8 requests go through one batched `generate` and the 8
env steps run concurrently in threads. The ratio is the concurrency speedup measured in
this run (the baseline is the 1-env run); each setting runs `--repeats` times, interleaved,
and the fastest run is shown (other jobs on a shared machine add noise).
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym

import codegym  # noqa: F401  (registers the ids)
from codegym.agents import LLMAgent
from codegym.agents.engines import TransformersEngine
from codegym.agents.tiny import build_tiny_model, build_tiny_tokenizer
from codegym.tasks.loader import load_tasks
from codegym.trainer.rollout import collect


def run(agent, tasks, group: int, envs: int, turns: int) -> dict[str, float]:
    stats: dict[str, float] = {}
    t0 = time.perf_counter()
    episodes = collect(lambda: gym.make("codegym/Toy-v0", backend="docker", max_turns=turns), agent, tasks,
                       group_size=group, max_envs=envs, stats=stats)
    wall = time.perf_counter() - t0
    assert all(e.train_mask for e in episodes), [e.mask_reason for e in episodes if not e.train_mask]
    timing = [e.metadata.get("timing", {}) for e in episodes]
    return {"episodes": len(episodes), "wall_s": wall, "episodes_per_s": len(episodes) / wall,
            "tokens_per_s": stats["generated_tokens"] / wall, "generate_s": stats["generate_s"],
            "env_s": stats["env_s"], "tokens": stats["generated_tokens"],
            "reset_ms": 1e3 * sum(t.get("reset_s", 0.0) for t in timing) / len(timing),
            "grade_ms": 1e3 * sum(t.get("grade_s", 0.0) for t in timing) / len(timing)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=16)
    ap.add_argument("--max-new-tokens", type=int, default=32)
    ap.add_argument("--turns", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=2, help="interleaved runs per setting; the fastest is shown")
    args = ap.parse_args()
    tok = build_tiny_tokenizer()
    agent = LLMAgent(TransformersEngine(build_tiny_model(tok), tok), tok, max_new_tokens=args.max_new_tokens)
    tasks = [t.instance_id for t in load_tasks("toy")][:4]
    group = max(1, args.episodes // len(tasks))
    run(agent, tasks[:1], 1, 2, 1)  # warm-up: pools, caches, first generate
    runs: dict[int, list[dict[str, float]]] = {1: [], 8: []}
    for _ in range(args.repeats):  # interleaved, so load from elsewhere hits both settings alike
        for envs in runs:
            runs[envs].append(run(agent, tasks, group, envs, args.turns))
    rows = {envs: min(rs, key=lambda r: r["wall_s"]) for envs, rs in runs.items()}
    print(f"tiny model on Toy-v0: {rows[1]['episodes']} episodes of {args.turns} turns, "
          f"{args.max_new_tokens} new tokens per turn")
    print(f"{'envs':>4} {'wall s':>8} {'episodes/s':>11} {'tokens/s':>9} {'generate s':>11} {'env s':>7} "
          f"{'reset ms/ep':>12} {'grade ms/ep':>12}")
    for envs, r in rows.items():
        print(f"{envs:>4} {r['wall_s']:8.2f} {r['episodes_per_s']:11.3f} {r['tokens_per_s']:9.1f} "
              f"{r['generate_s']:11.2f} {r['env_s']:7.2f} {r['reset_ms']:12.0f} {r['grade_ms']:12.0f}")
    print(f"concurrency speedup (8 envs vs 1): episodes/s x{rows[8]['episodes_per_s'] / rows[1]['episodes_per_s']:.2f}, "
          f"tokens/s x{rows[8]['tokens_per_s'] / rows[1]['tokens_per_s']:.2f}")


if __name__ == "__main__":
    main()
