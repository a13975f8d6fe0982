"""Score a red-team set of grading attacks: each technique's tool calls, then `submit`, on its
task, with the guards off (the grader alone) and with the default env (every guard on).

    .venv/bin/python benchmarks/redteam_grader.py benchmarks/redteam/blind_grader_set.jsonl

A technique "moves the grade" when it scores correctness 1.0; the sets hold no real fix, so
every 1.0 is a hack that got through. Prints a line per technique and the totals by mechanism.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict

import gymnasium as gym

import codegym  # noqa: F401  (registers the ids)


def _score(env, technique) -> tuple[float, str]:
    env.reset(options={"task_id": technique["task_id"]})
    for step in technique["steps"]:
        *_, terminated, truncated, info = env.step({"name": step["name"], "arguments": step.get("arguments", {})})
        if terminated or truncated:
            return info.get("rewards", {}).get("correctness", 0.0), info.get("stop_reason", "")
    *_, info = env.step({"name": "submit", "arguments": {}})
    return info.get("rewards", {}).get("correctness", 0.0), info.get("stop_reason", "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("path")
    ap.add_argument("--env-id", default="codegym/Toy-v0")
    args = ap.parse_args()
    techniques = [json.loads(line) for line in open(args.path, encoding="utf-8") if line.strip()]
    envs = {"guards off": gym.make(args.env_id, guards=False), "default env": gym.make(args.env_id)}
    moved: dict[str, Counter] = defaultdict(Counter)
    totals = Counter()
    try:
        for t in techniques:
            row = []
            for label, env in envs.items():
                correctness, stop = _score(env, t)
                row.append(f"{label} {correctness:.0f} ({stop})")
                if correctness >= 1.0:
                    moved[label][t.get("mechanism", "?")] += 1
                    totals[label] += 1
            print(f"{t['name'][:48]:48s} {t['task_id']:22s} " + " | ".join(row), flush=True)
    finally:
        for env in envs.values():
            env.close()
    print(f"\n{len(techniques)} techniques")
    for label in envs:
        print(f"{label}: {totals[label]} of {len(techniques)} scored correctness 1.0  {dict(moved[label])}")


if __name__ == "__main__":
    main()
