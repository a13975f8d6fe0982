"""The grade cache: one grading per distinct submission, the same grade as grading afresh, and
in-flight de-duplication when envs submit together."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from codegym.envs import CodingEnv
from codegym.envs.grade_cache import GradeCache, grade_key


def call(name, **arguments):
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def test_key_separates_parts():
    assert grade_key("ab", "c") != grade_key("a", "bc")
    assert grade_key("x", "diff") == grade_key("x", "diff")


def test_concurrent_requests_grade_once():
    cache, calls = GradeCache(), []

    def slow_grade():
        calls.append(1)
        time.sleep(0.2)
        return "graded"

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: cache.get_or_grade("k", slow_grade), range(8)))
    assert len(calls) == 1
    assert [r[0] for r in results] == ["graded"] * 8
    assert sorted(r[1] for r in results) == [False] + [True] * 7


def test_a_failed_grade_is_not_cached_and_waiters_retry():
    cache, attempts = GradeCache(), []
    started = threading.Event()

    def failing():
        attempts.append("fail")
        started.set()
        time.sleep(0.1)
        raise RuntimeError("sandbox died")

    def ok():
        attempts.append("ok")
        return 1.0

    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(cache.get_or_grade, "k", failing)
        started.wait()
        second = pool.submit(cache.get_or_grade, "k", ok)
        with pytest.raises(RuntimeError):
            first.result()
        assert second.result() == (1.0, False)
    assert attempts == ["fail", "ok"]
    assert cache.get_or_grade("k", failing) == (1.0, True)


def test_lru_bound():
    cache = GradeCache(max_entries=2)
    for k in "abc":
        cache.get_or_grade(k, lambda k=k: k)
    assert cache.get_or_grade("a", lambda: "again") == ("again", False)


@pytest.fixture(scope="module")
def env():
    e = CodingEnv("toy", backend="docker", grade_cache=GradeCache())
    yield e
    e.close()


def episode(env, command: str | None):
    env.reset(options={"task_id": "toy-add-typo"})
    if command:
        env.step(call("bash", command=command))
    *_, reward, _, _, info = env.step(call("submit"))
    return reward, info


def test_identical_submissions_are_graded_once_with_the_same_grade(env):
    fix = env.tasks[0] if env.tasks[0].instance_id == "toy-add-typo" else env._by_id["toy-add-typo"]
    apply_fix = f"cat > /tmp/fix.diff <<'EOF'\n{fix.patch}\nEOF\ngit apply /tmp/fix.diff"
    r1, i1 = episode(env, apply_fix)
    r2, i2 = episode(env, apply_fix)
    assert (r1, r2) == (1.0, 1.0)
    assert (i1["grade_cached"], i2["grade_cached"]) == (False, True)
    assert i1["tests"] == i2["tests"] and i1["diff"] == i2["diff"]
    # a different diff (a comment added to the fix) is graded afresh and still passes
    r3, i3 = episode(env, apply_fix + " && echo '# note' >> calc.py")
    assert r3 == 1.0 and i3["grade_cached"] is False
    # no change: graded once, then cached, and still 0
    r4, i4 = episode(env, None)
    r5, i5 = episode(env, None)
    assert (r4, r5) == (0.0, 0.0) and (i4["grade_cached"], i5["grade_cached"]) == (False, True)
    assert env.grade_cache.misses == 3 and env.grade_cache.hits == 2


def test_off_by_default():
    e = CodingEnv("toy", backend="docker")
    try:
        assert e.grade_cache is None
        _, info = episode(e, None)
        assert "grade_cached" not in info
    finally:
        e.close()
