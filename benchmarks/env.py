"""Env overhead: `env.step` vs the bare `Sandbox.exec` of the same command, and reset latency.

    .venv/bin/python benchmarks/env.py [--steps 100]

The step path adds parsing, schema validation, the guard hooks, output capping, message
bookkeeping, and the state key (a content hash of the workspace by default; reported with it
and with the cheap `observation` key), and, through `gym.make`, the guards and compaction.
"""

from __future__ import annotations

import argparse
import json
import time

import gymnasium as gym

import codegym  # noqa: F401  (registers the ids)
from codegym.envs import CodingEnv
from codegym.sandbox import DockerSandbox, SandboxConfig, docker_client
from codegym.sandbox.images import default_image


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] * 1e3


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=100)
    args = ap.parse_args()
    cmd = "ls -la && cat stats.py"
    action = "<tool_call>" + json.dumps({"name": "bash", "arguments": {"command": cmd}}) + "</tool_call>"
    client = docker_client()
    sb = DockerSandbox.create(SandboxConfig(image=default_image(client)), client=client)
    sb.write_file("stats.py", "def max_of(v):\n    return min(v)\n")
    variants = [("state_key=observation", lambda: CodingEnv("toy", backend="docker", state_key="observation",
                                                               max_turns=args.steps + 10)),
                ("state_key=workspace", lambda: CodingEnv("toy", backend="docker", max_turns=args.steps + 10)),
                ("gym.make default stack (guards + compaction)",
                 lambda: gym.make("codegym/Toy-v0", backend="docker", max_turns=args.steps + 10))]
    envs = [(key, make()) for key, make in variants]
    resets: dict[str, list[float]] = {key: [] for key, _ in envs}
    steps: dict[str, list[float]] = {key: [] for key, _ in envs}
    bare: list[float] = []
    for _ in range(10):
        for key, env in envs:
            t = time.perf_counter()
            env.reset(options={"task_id": "toy-max-of"})
            resets[key].append(time.perf_counter() - t)
    # Interleaved, so every variant sees the same load on this shared machine.
    for _ in range(args.steps):
        t = time.perf_counter()
        sb.exec(cmd)
        bare.append(time.perf_counter() - t)
        for key, env in envs:
            t = time.perf_counter()
            env.step(action)
            steps[key].append(time.perf_counter() - t)
    sb.close()
    for _, env in envs:
        env.close()
    rows = [("Sandbox.exec (bare)", bare)]
    for key, _ in envs:
        rows.append((f"env.step, {key}", steps[key]))
        rows.append((f"env.reset, {key}", resets[key]))
    print(f"{'operation':<58} {'p50 ms':>9} {'p95 ms':>9}")
    for name, xs in rows:
        print(f"{name:<58} {pct(xs, .5):9.2f} {pct(xs, .95):9.2f}")
    base = pct(bare, .5)
    for name, xs in rows[1:]:
        if "step" in name:
            print(f"overhead of {name}: +{pct(xs, .5) - base:.2f} ms p50 ({pct(xs, .5) / base:.2f}x the bare exec)")


if __name__ == "__main__":
    main()
