"""`codegym demo`: the sandbox layer end to end, with timings a person can read."""

from __future__ import annotations

import statistics
import time

from rich.console import Console
from rich.progress import track
from rich.table import Table


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def run_demo(console: Console, n_commands: int = 200) -> dict:
    from codegym.sandbox import SandboxPool

    t0 = time.monotonic()
    pool = SandboxPool(size=2)
    console.print(f"pool ready on the [bold]{pool.backend}[/bold] backend, image "
                  f"{pool.config.image} ({time.monotonic() - t0:.1f} s incl. any image build)")
    pool.warm()
    rows = []
    with pool:
        acquire = []
        for i in range(10):
            t = time.perf_counter()
            sb = pool.acquire()
            acquire.append(time.perf_counter() - t)
            sb.exec(f"echo episode {i} > note.txt")
            pool.release(sb)
            pool.warm()
        sb = pool.acquire()
        for cmd in ["python3 --version", "git --version", "python3 -m pytest --version", "id", "ls -la /workspace"]:
            r = sb.exec(cmd)
            console.print(f"[dim]$ {cmd}[/dim]")
            console.print(r.output.strip(), markup=False, highlight=False)  # output may hold [brackets]
        execs = []
        for _ in track(range(n_commands), description="timing exec('true')", console=console):
            t = time.perf_counter()
            sb.exec("true")
            execs.append(time.perf_counter() - t)
        pool.release(sb)
        rows = [("pool.acquire() of a pristine sandbox", acquire), ("sandbox.exec('true')", execs)]
        table = Table("operation", "n", "p50 (ms)", "p95 (ms)", "mean (ms)")
        for name, xs in rows:
            table.add_row(name, str(len(xs)), f"{_pct(xs, .5) * 1e3:.2f}", f"{_pct(xs, .95) * 1e3:.2f}",
                          f"{statistics.mean(xs) * 1e3:.2f}")
        console.print(table)
    return {name: xs for name, xs in rows}
