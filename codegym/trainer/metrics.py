"""Per-iteration metrics: one JSONL line, TensorBoard scalars and a rich progress display.

    log = MetricsLogger("runs/x", tensorboard=True, progress=True, total=20)
    log.log(iteration, {"reward/mean": 0.4, "loss/policy": 0.01, ...})
    log.close()
    rows = read_metrics("runs/x/metrics.jsonl")

Keys are ``group/name`` (``reward/mean``, ``reward/correctness``, ``episodes/pass_rate``,
``episodes/hack_event_rate``, ``loss/policy``, ``loss/value``, ``policy/clipfrac``,
``policy/kl_ref``, ``batch/segments``, ``throughput/gen_tokens_per_s``, ...); see docs/training.md.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

#: what the progress line shows, in order (when present)
_SHOWN = [("reward/mean", "reward"), ("episodes/pass_rate", "pass"), ("loss/policy", "pg"),
          ("loss/value", "vf"), ("policy/clipfrac", "clip"), ("episodes/hack_event_rate", "hack"),
          ("time/iteration_s", "s/it")]


def _say(line: str) -> None:
    print(line, flush=True)


class MetricsLogger:
    """Writes each iteration's metrics; `progress` shows a live bar in a terminal and, when stdout
    is not one (a pipe, a CI log), a plain line per iteration plus a heartbeat until the first."""

    def __init__(self, out_dir: str | Path, *, tensorboard: bool = True, progress: bool = True, total: int = 0,
                 start: int = 0, append: bool = False):
        self.out = Path(out_dir)
        self.out.mkdir(parents=True, exist_ok=True)
        self.path = self.out / "metrics.jsonl"
        if not append and self.path.exists():
            self.path.unlink()
        self._tb = None
        if tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter

                self._tb = SummaryWriter(str(self.out / "tensorboard"))
            except ImportError:  # tensorboard is in the train extra; without it only JSONL
                self._tb = None
        self._progress = None
        self._plain = progress and not sys.stdout.isatty()  # a pipe or a CI log: plain lines
        self._total, self._t0, self._heartbeat = total, time.monotonic(), None
        if self._plain:
            from codegym.progress import Heartbeat

            # the first iteration (model load, image pulls, first generations) can take minutes
            self._heartbeat = Heartbeat("train", say=_say, status=lambda: f"iteration {start + 1} of {total}")
            self._heartbeat.__enter__()
            progress = False
        if progress:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._progress = Progress(TextColumn("[bold]train"), BarColumn(), MofNCompleteColumn(),
                                      TimeElapsedColumn(), TextColumn("{task.description}"))
            self._task = self._progress.add_task("", total=total, completed=start)
            self._progress.start()

    def log(self, iteration: int, metrics: dict[str, Any]) -> None:
        row = {"iteration": iteration, "time": time.time(), **metrics}
        with self.path.open("a") as f:
            f.write(json.dumps(row) + "\n")
        if self._tb is not None:
            for k, v in metrics.items():
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    self._tb.add_scalar(k, v, iteration)
            self._tb.flush()
        text = "  ".join(f"{short} {metrics[k]:.3g}" for k, short in _SHOWN if isinstance(metrics.get(k), float | int))
        if self._progress is not None:
            self._progress.update(self._task, completed=iteration + 1, description=text)
        if self._plain:
            self._stop_heartbeat()
            _say(f"train {iteration + 1}/{self._total}  {text}  ({time.monotonic() - self._t0:.0f} s)")

    def _stop_heartbeat(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.__exit__(None, None, None)
            self._heartbeat = None

    def close(self) -> None:
        self._stop_heartbeat()
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
        if self._tb is not None:
            self._tb.close()
            self._tb = None


def read_metrics(path: str | Path) -> list[dict[str, Any]]:
    p = Path(path)
    if p.is_dir():
        p = p / "metrics.jsonl"
    return [json.loads(line) for line in p.read_text().splitlines() if line.strip()]
