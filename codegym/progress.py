"""Progress lines for steps that take more than a few seconds (model loading, SFT, evaluation).

    with Heartbeat("sft", say=print, status=lambda: f"{done} episodes"):
        long_step()
    # sft: working, 5 s (3 episodes)
    # sft: working, 10 s (7 episodes)

Plain lines, not a live bar: they read the same in a terminal, a pipe and a CI log.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class Heartbeat:
    """Says `label: working, N s (status)` every `every_s` seconds until the block ends.

    Args:
        label: what is running (`eval`, `sft`).
        say: where lines go (default: `print`).
        every_s: seconds between lines.
        status: returns the current state in a few words (optional).
    """

    def __init__(self, label: str, say: Callable[[str], None] = print, every_s: float = 10.0,
                 status: Callable[[], str] | None = None):
        self.label, self.say, self.every_s, self.status = label, say, every_s, status
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._t0 = 0.0

    def __enter__(self) -> Heartbeat:
        self._t0 = time.monotonic()
        self._thread = threading.Thread(target=self._beat, name=f"codegym-progress-{self.label}", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _beat(self) -> None:
        while not self._stop.wait(self.every_s):
            detail = ""
            if self.status is not None:
                try:
                    detail = f" ({self.status()})"
                except Exception:  # a progress line must never break the step it reports on
                    detail = ""
            self.say(f"{self.label}: working, {time.monotonic() - self._t0:.0f} s{detail}")
