"""Env overhead: `env.step` vs the bare `Sandbox.exec` of the same command, and reset latency.

    .venv/bin/python benchmarks/env.py [--steps 100]

The step path adds parsing, schema validation, the guard hooks, output capping, message
bookkeeping, and the state key (a git tree hash of the workspace by default; reported with
it on and with the cheap `observation` key).
"""

from __future__ import annotations

import argparse
import json
import time

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
    bare = []
    for _ in range(args.steps):
        t = time.perf_counter()
        sb.exec(cmd)
        bare.append(time.perf_counter() - t)
    sb.close()
    rows = [("Sandbox.exec (bare)", bare)]
    for key in ("observation", "workspace"):
        env = CodingEnv("toy", backend="docker", state_key=key, max_turns=args.steps + 10)
        resets, steps = [], []
        for _ in range(10):
            t = time.perf_counter()
            env.reset(options={"task_id": "toy-max-of"})
            resets.append(time.perf_counter() - t)
        for _ in range(args.steps):
            t = time.perf_counter()
            env.step(action)
            steps.append(time.perf_counter() - t)
        env.close()
        rows.append((f"env.step, state_key={key}", steps))
        rows.append((f"env.reset, state_key={key}", resets))
    print(f"{'operation':<40} {'p50 ms':>9} {'p95 ms':>9}")
    for name, xs in rows:
        print(f"{name:<40} {pct(xs, .5):9.2f} {pct(xs, .95):9.2f}")
    base = pct(bare, .5)
    for name, xs in rows[1:]:
        if "step" in name:
            print(f"overhead of {name}: +{pct(xs, .5) - base:.2f} ms p50 ({pct(xs, .5) / base:.2f}x the bare exec)")


if __name__ == "__main__":
    main()
