"""`benchmarks/learning.py --compare`: RL arms run apart on one seed, paired over its held-out tasks."""

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "learning_bench", Path(__file__).resolve().parents[2] / "benchmarks" / "learning.py"
)
learning = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(learning)


def _eval(passed: dict[str, bool]) -> dict:
    from codegym.antihack.report import wilson_interval

    k = sum(passed.values())
    ci = list(wilson_interval(k, len(passed)))
    return {"pass": {"k": k, "n": len(passed), "value": k / len(passed), "wilson95": ci}, "passed": passed}


def _summary(start: dict[str, bool], **arms: dict[str, bool]) -> dict:
    out = {"warm start": {"kind": "start", "T1": _eval(start), "greedy": _eval(start)}}
    for name, passed in arms.items():
        out[name] = {"kind": "rl", "env_steps": 100, "T1": _eval(passed), "greedy": _eval(passed)}
    return {"arms": out}


def test_arms_of_two_runs_on_one_seed_are_paired_task_by_task():
    start = {"a": False, "b": False, "c": True, "d": False}
    one = _summary(start, gigpo={"a": True, "b": True, "c": True, "d": False})
    two = _summary(start, grpo={"a": True, "b": False, "c": True, "d": False})
    lines = learning.compare_arms([(0, one), (0, two)])
    assert "  gigpo      0.750  (mean 0.750; env steps 100-100)" in lines
    # one task (b) differs, in gigpo's favour: +1/4, and every resample is >= 0
    diff = next(x for x in lines if x.startswith("  gigpo - grpo"))
    assert diff.startswith("  gigpo - grpo: +0.250 [+0.000, ")


def test_runs_with_different_warm_starts_are_refused():
    one = _summary({"a": True, "b": False}, gigpo={"a": True, "b": True})
    two = _summary({"a": False, "b": False}, grpo={"a": True, "b": False})
    with pytest.raises(ValueError, match="not paired"):
        learning.compare_arms([(0, one), (0, two)])


def test_evaluations_over_different_tasks_are_refused():
    with pytest.raises(ValueError, match="different held-out tasks"):
        learning._outcomes(_eval({"a": True}), _eval({"b": True}))


def test_an_arm_run_apart_meets_its_seeds_best_control():
    tasks = [f"t{i}" for i in range(40)]
    start = {t: i < 2 for i, t in enumerate(tasks)}
    published = {
        "arms": {
            "warm start": {"kind": "start", "T1": _eval(start), "greedy": _eval(start)},
            "sft-continued": {
                "kind": "control",
                "T1": _eval({t: i < 6 for i, t in enumerate(tasks)}),
                "greedy": _eval(start),
            },
        }
    }
    strong = {t: i < 30 for i, t in enumerate(tasks)}
    weak = {t: i < 8 for i, t in enumerate(tasks)}
    apart = {
        "arms": {
            "warm start": published["arms"]["warm start"],
            "ppo cw0": {"kind": "rl", "env_steps": 100, "T1": _eval(weak), "greedy": _eval(strong)},
        }
    }
    lines = learning.compare_arms([(0, published), (0, apart)])
    greedy = next(x for x in lines if x.startswith("  ppo cw0 greedy"))
    t1 = next(x for x in lines if x.startswith("  ppo cw0 T1"))
    # greedy 30/40 against sft-continued's T=1 6/40: +0.600, holds; T=1 8/40 against 6/40: +0.050, misses
    assert (
        "holds in 1 of 1 seeds" in greedy
        and "seed 0 +0.600" in greedy
        and "sft-continued (T1) holds" in greedy
    )
    assert "holds in 0 of 1 seeds" in t1 and "seed 0 +0.050" in t1 and "misses" in t1
