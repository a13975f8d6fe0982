"""`codegym.progress.Heartbeat`: plain progress lines while a long step runs."""

from __future__ import annotations

import time

from codegym.progress import Heartbeat


def test_heartbeat_says_how_long_and_how_far_until_the_step_ends():
    lines: list[str] = []
    done = {"n": 0}
    with Heartbeat("sft", lines.append, every_s=0.05, status=lambda: f"{done['n']} steps"):
        for _ in range(6):
            time.sleep(0.05)
            done["n"] += 1
    n = len(lines)
    time.sleep(0.15)
    assert len(lines) == n >= 3, lines  # one every interval, none once the block ended
    assert lines[0].startswith("sft: working, 0 s (") and lines[-1].endswith(" steps)")
    assert int(lines[-1].split("(")[1].split()[0]) > int(lines[0].split("(")[1].split()[0])


def test_a_failing_status_never_breaks_the_step():
    lines: list[str] = []
    with Heartbeat("eval", lines.append, every_s=0.02, status=lambda: 1 / 0):
        time.sleep(0.1)
    assert lines and all(line.startswith("eval: working, ") and "(" not in line for line in lines)
