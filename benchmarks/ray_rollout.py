"""Ray's overhead on rollouts: episodes/s of the local collector vs `RayEnvPool` with 2 workers.

    .venv/bin/python benchmarks/ray_rollout.py [--episodes 16] [--max-new-tokens 32] [--turns 3]

The tiny model (`codegym.agents.tiny`) acts in real Docker sandboxes on Toy-v0. Both runs use
the same driver-side engine and agent and 8 concurrent envs: locally the envs step in 8
threads of this process; on Ray they live in 2 worker actors of 4 envs each (a local cluster,
``ray.init(num_cpus=2)``), and every reset, step and close is a remote call. The baseline is the
local run measured in this process; each setting runs `--repeats` times, interleaved, and the
fastest run is shown (other jobs on a shared machine add noise). The overhead is
``1 - ray episodes/s / local episodes/s``. A last line times one remote env step against a local
one (the same env, a cheap `ls`), which is Ray's own cost per call.
"""

from __future__ import annotations

import argparse
import statistics
import time

import gymnasium as gym
import ray

import codegym  # noqa: F401  (registers the ids)
from codegym.agents import LLMAgent
from codegym.agents.engines import TransformersEngine
from codegym.agents.tiny import build_tiny_model, build_tiny_tokenizer
from codegym.tasks.loader import load_tasks
from codegym.trainer.ray_pool import RayEnvPool
from codegym.trainer.rollout import collect

LS = '<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>'


def make_env_factory(turns: int):
    return lambda: gym.make("codegym/Toy-v0", backend="docker", max_turns=turns)


def run(make_env, agent, tasks, group: int, envs: int) -> dict[str, float]:
    stats: dict[str, float] = {}
    t0 = time.perf_counter()
    episodes = collect(make_env, agent, tasks, group_size=group, max_envs=envs, stats=stats)
    wall = time.perf_counter() - t0
    assert all(e.train_mask for e in episodes), [e.mask_reason for e in episodes if not e.train_mask]
    return {"episodes": len(episodes), "wall_s": wall, "episodes_per_s": len(episodes) / wall,
            "tokens_per_s": stats["generated_tokens"] / wall, "generate_s": stats["generate_s"],
            "env_s": stats["env_s"]}


def step_ms(env, n: int = 40) -> float:
    """Median milliseconds of one cheap step (`ls`), the episode reset before each batch of 2."""
    times = []
    for i in range(n // 2):
        env.reset(seed=i, options={"task_id": "toy-add-typo"})
        for _ in range(2):
            t0 = time.perf_counter()
            env.step(LS)
            times.append(1e3 * (time.perf_counter() - t0))
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=16)
    ap.add_argument("--max-new-tokens", type=int, default=32)
    ap.add_argument("--turns", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=4, help="interleaved runs per setting; the fastest is shown")
    args = ap.parse_args()
    envs = 8
    tok = build_tiny_tokenizer()
    agent = LLMAgent(TransformersEngine(build_tiny_model(tok), tok), tok, max_new_tokens=args.max_new_tokens)
    tasks = [t.instance_id for t in load_tasks("toy")][:4]
    group = max(1, args.episodes // len(tasks))
    make_env = make_env_factory(args.turns)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    pool = RayEnvPool(make_env, num_workers=args.workers, envs_per_worker=envs // args.workers, timeout_s=300)
    try:
        run(make_env, agent, tasks[:1], 1, 2)  # warm-up: pools, caches, first generate
        run(pool.make_env, agent, tasks, 1, envs)  # warm-up: every worker's sandbox pool
        runs: dict[str, list[dict[str, float]]] = {"local": [], "ray": []}
        for _ in range(args.repeats):  # interleaved, so load from elsewhere hits both settings alike
            runs["local"].append(run(make_env, agent, tasks, group, envs))
            runs["ray"].append(run(pool.make_env, agent, tasks, group, envs))
        rows = {name: min(rs, key=lambda r: r["wall_s"]) for name, rs in runs.items()}
        local_env, remote_env = make_env(), pool.make_env()
        try:
            local_ms, remote_ms = step_ms(local_env), step_ms(remote_env)
        finally:
            local_env.close()
            remote_env.close()
    finally:
        pool.close()
        ray.shutdown()
    print(f"tiny model on Toy-v0: {rows['local']['episodes']} episodes of {args.turns} turns, "
          f"{args.max_new_tokens} new tokens per turn, {envs} envs (Ray: {args.workers} workers x "
          f"{envs // args.workers})")
    print(f"{'backend':>8} {'wall s':>8} {'episodes/s':>11} {'tokens/s':>9} {'generate s':>11} {'env s':>7}")
    for name, r in rows.items():
        print(f"{name:>8} {r['wall_s']:8.2f} {r['episodes_per_s']:11.3f} {r['tokens_per_s']:9.1f} "
              f"{r['generate_s']:11.2f} {r['env_s']:7.2f}")
    overhead = 1 - rows["ray"]["episodes_per_s"] / rows["local"]["episodes_per_s"]
    print(f"Ray overhead: {100 * overhead:.1f}% of local episodes/s (ray/local x"
          f"{rows['ray']['episodes_per_s'] / rows['local']['episodes_per_s']:.2f})")
    print(f"one cheap env step (median): local {local_ms:.1f} ms, through Ray {remote_ms:.1f} ms "
          f"(+{remote_ms - local_ms:.1f} ms per remote call)")


if __name__ == "__main__":
    main()
