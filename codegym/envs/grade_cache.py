"""Grade each distinct submission once: a process-wide cache of grades by content.

    cache = GradeCache(max_entries=4096)
    grade = cache.get_or_grade(key_for(task, script, diff), lambda: grader.grade(task, diff))

In RL a group of rollouts of one task often ends in the same workspace (a sharpening policy
writes the same fix; a failed tool call leaves the workspace untouched). Grading is the
costliest step of a toy episode (a pristine sandbox and a pytest run), so identical
submissions are graded once. The key is a SHA-256 over everything that decides the grade:
the task id and base commit, the hidden test patch, the tests to run, the grading script
and the agent's diff. Concurrent requests for one key wait for the first instead of grading
twice (envs in a lockstep batch submit together).

Only correct for deterministic tests: a flaky test's first outcome sticks. The env takes
``grade_cache=True`` to use it (off by default); the trainer turns it on (``env.grade_cache``).
A grade that raised is not cached.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def grade_key(*parts: str | bytes) -> str:
    """SHA-256 over length-prefixed parts (so no two part lists collide by concatenation)."""
    h = hashlib.sha256()
    for p in parts:
        b = p.encode("utf-8", errors="surrogateescape") if isinstance(p, str) else p
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


class GradeCache:
    """A thread-safe LRU map key -> grade with in-flight de-duplication."""

    def __init__(self, max_entries: int = 4096):
        self.max_entries = max(1, int(max_entries))
        self._done: OrderedDict[str, Any] = OrderedDict()
        self._pending: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get_or_grade(self, key: str, grade: Callable[[], T]) -> tuple[T, bool]:
        """(the grade, whether it came from the cache). `grade()` runs at most once per key at a time."""
        while True:
            with self._lock:
                if key in self._done:
                    self._done.move_to_end(key)
                    self.hits += 1
                    return self._done[key], True
                waiter = self._pending.get(key)
                if waiter is None:
                    self._pending[key] = threading.Event()
                    self.misses += 1
                    break
            waiter.wait()  # the first grader finished (or failed: then loop and grade ourselves)
        try:
            value = grade()
            with self._lock:
                self._done[key] = value
                while len(self._done) > self.max_entries:
                    self._done.popitem(last=False)
            return value, False
        finally:
            with self._lock:
                self._pending.pop(key).set()

    def clear(self) -> None:
        with self._lock:
            self._done.clear()
            self.hits = self.misses = 0


#: The process-wide cache the env uses with ``grade_cache=True``.
SHARED_GRADE_CACHE = GradeCache()
