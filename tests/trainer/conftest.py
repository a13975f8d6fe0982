"""Fixtures shared by the trainer tests."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def ray_cluster():
    """A small local Ray cluster for one test module (2 CPUs, 4 sandbox slots), gone after it."""
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, resources={"sandbox": 4}, include_dashboard=False, log_to_driver=False)
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture(scope="session")
def warm_tiny_base(tmp_path_factory):
    """A tiny base trained (every weight, fp32, 40 steps to a loss of ~0.9) on one probe-like
    episode, saved as a model directory: sharper logits, like the warm start of `codegym sft
    --full`. In bf16 its adapter-sync self-probe differs by 1e-4 to 2e-3 (1.9e-3 at seed 0 on the
    machine this was written on), over the float32 tolerance of 1e-3."""
    import torch

    from codegym.agents.engines.probe import PROBE_MESSAGES
    from codegym.agents.tiny import build_tiny_model, build_tiny_tokenizer

    tok = build_tiny_tokenizer()
    model = build_tiny_model(tok)
    text = tok.apply_chat_template(PROBE_MESSAGES, tokenize=False, add_generation_prompt=True)
    text += '<tool_call>{"name": "create", "arguments": {"path": "calc.py", "content": "def add(a, b):\\n    return a + b\\n"}}</tool_call>'
    ids = torch.tensor([tok.encode(text, add_special_tokens=False)])
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    for _ in range(40):
        model(input_ids=ids, labels=ids).loss.backward()
        opt.step()
        opt.zero_grad()
    path = tmp_path_factory.mktemp("warm")
    model.eval().save_pretrained(path)
    tok.save_pretrained(path)
    return str(path)


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Linux: the server gets SIGTERM when the test process dies, even if pytest is killed."""
    import ctypes
    import signal

    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def codegym_command() -> list[str]:
    """The installed `codegym` entry point next to this interpreter (else ``python -m codegym.cli``)."""
    script = Path(sys.executable).with_name("codegym")
    return [str(script)] if script.exists() else [sys.executable, "-m", "codegym.cli"]


@pytest.fixture
def codegym_serve():
    """A factory: start `codegym serve` (the real CLI) in a separate process on a free port of
    127.0.0.1 and return its API root, ``http://127.0.0.1:<port>/v1``; every server is stopped at
    the end of the test (and gets SIGTERM if the test process dies).

        url = codegym_serve()                            # the tiny model, served as "tiny"
        url = codegym_serve("--ignore-adapter-loads")    # a stale server (fault injection)

    The server runs torch on one thread (``OMP_NUM_THREADS=1``): the trainer needs the other core.
    """
    procs: list[tuple[subprocess.Popen, list[str]]] = []

    def start(*flags: str, model: str = "tiny", name: str = "tiny", timeout_s: float = 300.0) -> str:
        cmd = [*codegym_command(), "serve", "--model", model, "--served-model-name", name, "--port", "0", *flags]
        env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                                preexec_fn=_die_with_parent)
        lines: list[str] = []
        seen: queue.Queue[str | None] = queue.Queue()

        def drain() -> None:  # keeps reading, so a chatty server never blocks on a full pipe
            for line in proc.stdout:
                lines.append(line)
                seen.put(line)
            seen.put(None)

        threading.Thread(target=drain, daemon=True).start()
        procs.append((proc, lines))
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                line = seen.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                line = None
            if line is None:
                out = "".join(lines)
                raise RuntimeError(f"`{' '.join(cmd)}` did not start within {timeout_s:.0f} s (exit code "
                                   f"{proc.poll()}); its output:\n{out}")
            m = re.search(r"serve: (http://127\.0\.0\.1:\d+/v1)", line)
            if m:
                return m.group(1)

    yield start
    for proc, _ in procs:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
