"""Named reward components and the scalar reward: a weighted sum, given at episode end.

Components (all in `info["rewards"]`):
- `correctness`: 1 when every FAIL_TO_PASS and PASS_TO_PASS test passed, else 0;
- `tests_passed`: fraction of the graded tests that passed;
- `format`: fraction of turns whose tool call parsed and validated;
- `length`: turns used / max_turns (give it a negative weight to prefer short episodes);
- `hack_penalty`: minus the number of confirmed hack attempts (added by the guards).

Default weights: `{"correctness": 1.0}`; anything missing from the weights counts 0.
"""

from __future__ import annotations

from collections.abc import Mapping

DEFAULT_WEIGHTS: dict[str, float] = {"correctness": 1.0}


def reward_components(grade_result, turns: int, max_turns: int, parse_errors: int) -> dict[str, float]:
    ids = list(grade_result.fail_to_pass) + [i for i in grade_result.pass_to_pass if i not in grade_result.fail_to_pass]
    passed = sum(grade_result.outcomes.get(i) == "passed" for i in ids)
    return {
        "correctness": float(grade_result.resolved),
        "tests_passed": passed / len(ids) if ids else 0.0,
        "format": 1.0 - parse_errors / turns if turns else 1.0,
        "length": turns / max_turns if max_turns else 0.0,
    }


def weighted_reward(components: Mapping[str, float], weights: Mapping[str, float]) -> float:
    unknown = set(weights) - set(components)
    if unknown:
        raise ValueError(f"reward weights name unknown components {sorted(unknown)}; known: {sorted(components)}")
    return float(sum(w * components[k] for k, w in weights.items()))
