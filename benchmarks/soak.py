"""Soak test: many envs stepping at once while the sandboxes are broken on purpose.

    .venv/bin/python benchmarks/soak.py [--envs 16] [--steps 30] [--probe 0]

N `CodingEnv`s (toy tasks, Docker, one agent pool and one grading pool as in training) each
play `ScriptedAgent` episodes on their own thread until they have taken M steps. Every
episode applies the task's reference patch and submits; about half of them also run one
fault from inside the sandbox, and a chaos thread breaks sandboxes from outside:

  inside   `pkill -9 -f codegym-executor`, `kill -9 -1` (the executor and every process of
           the agent user), `sleep 1000` under a 2 s timeout, a 50 MB output,
           `sleep 1000 &` left running in the background
  outside  `docker kill` of an env's agent container mid-episode, of a grading container
           mid-grade, and of an idle pooled container that a later `reset()` gets
           (the engine's kill, SIGKILL)

Every episode must end one of two ways: completed (`train_mask` True), or masked
(`train_mask` False) with `stop_reason` and a `sandbox_error` saying why. Lost (target 0): an
exception out of `reset()` or `step()`, or a step that never returns (`--hang-s`). An episode
no fault reached must score 1 (the reference patch). Then every env and pool is closed and
the containers of this run are counted (target 0); a second run is killed with SIGKILL
mid-episode, `codegym sandbox gc` runs, and its containers are counted again (target 0).
Memory per idle sandbox comes from `docker stats` of the warm pool (the containers' cgroups)
and from the host's MemAvailable (which also pays for the engine's per-container shim).
`--probe K` first starts K idle sandboxes in steps of 16 to see where the machine stops.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import re
import shutil
import subprocess
import sys
import threading
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from codegym.agents.scripted import ScriptedAgent
from codegym.envs import CodingEnv
from codegym.sandbox import SandboxConfig, SandboxPool, docker_client
from codegym.sandbox.images import default_image
from codegym.sandbox.lifecycle import LABEL, RUN_ID
from codegym.tasks.loader import load_tasks

INSIDE_FAULTS = {
    "executor_kill": "pkill -9 -f codegym-executor; echo unreachable",
    "kill_all": "kill -9 -1; echo unreachable",
    "runaway": "sleep 1000",
    "big_output": "head -c 50000000 /dev/zero | tr '\\0' x",
    "background_runaway": "(sleep 1000 &) ; echo left",
}
OUTSIDE_FAULTS = ("docker_kill", "grade_kill", "idle_kill")


def bash(command: str, timeout: int | None = None) -> str:
    args = {"command": command} if timeout is None else {"command": command, "timeout": timeout}
    return "<tool_call>" + json.dumps({"name": "bash", "arguments": args}) + "</tool_call>"


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


# ---- what the run records ----------------------------------------------------------------

@dataclass
class Episode:
    env: int
    task: str
    faults: list[str] = field(default_factory=list)
    steps: int = 0
    outcome: str = "running"  # completed | masked | lost
    reward: float | None = None
    stop_reason: str | None = None
    reason: str | None = None  # the sandbox_error of a masked episode, or the lost one's exception


@dataclass
class Soak:
    """The shared state of one soak run: episodes, latencies and the chaos thread's kills."""

    episodes: list[Episode] = field(default_factory=list)
    step_s: dict[str, list[float]] = field(default_factory=lambda: {"plain": [], "fault": [], "submit": [],
                                                                     "reset": []})
    kills: Counter = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)
    current: dict[int, Episode] = field(default_factory=dict)  # env index -> its running episode
    step_started: dict[int, float] = field(default_factory=dict)


class TrackedPool:
    """A pool proxy that remembers which env thread holds which grading sandbox, so a kill
    from outside is charged to the episode being graded."""

    def __init__(self, pool: SandboxPool):
        self.pool = pool
        self.holders: dict[int, object] = {}  # env index -> its grading sandbox
        self._lock = threading.Lock()

    def acquire(self, workspace=None, timeout: float = 300.0):
        sb = self.pool.acquire(workspace, timeout)
        with self._lock:
            self.holders[_env_index()] = sb
        return sb

    def release(self, sandbox) -> None:
        with self._lock:
            self.holders = {k: v for k, v in self.holders.items() if v is not sandbox}
        self.pool.release(sandbox)

    def __getattr__(self, name):
        return getattr(self.pool, name)


def _env_index() -> int:
    name = threading.current_thread().name
    return int(name.split("-")[1]) if name.startswith("env-") else -1


class SoakEnv(CodingEnv):
    """A `CodingEnv` whose graders use the given pool (the agents use `pool`)."""

    def __init__(self, *args, grade_pool, **kwargs):
        super().__init__(*args, **kwargs)
        self._grade_pool = grade_pool

    def grade_pool_for(self, task):
        return self._grade_pool


# ---- one env's thread ----------------------------------------------------------------------

def episode_script(task, rng: random.Random, fault_rate: float) -> tuple[list[str], str | None]:
    patch = base64.b64encode(task.patch.encode()).decode()
    actions = [bash("ls -la && git status --short"),
               bash(f"echo {patch} | base64 -d | git apply && git status --short"),
               bash("cat *.py | head -50")]
    fault = None
    if rng.random() < fault_rate:
        fault = rng.choice(sorted(INSIDE_FAULTS))
        timeout = 2 if fault == "runaway" else None
        actions.insert(rng.randrange(len(actions) + 1), bash(INSIDE_FAULTS[fault], timeout))
    return actions, fault


def env_worker(i: int, env: CodingEnv, soak: Soak, steps: int, seed: int, fault_rate: float) -> None:
    rng = random.Random(seed * 1000 + i)
    taken = 0
    while taken < steps:
        task = env.tasks[rng.randrange(len(env.tasks))]
        actions, fault = episode_script(task, rng, fault_rate)
        ep = Episode(i, task.instance_id, faults=[fault] if fault else [])
        with soak.lock:
            soak.episodes.append(ep)
        agent = ScriptedAgent(actions)
        try:
            soak.step_started[i] = t = time.monotonic()
            obs, info = env.reset(options={"task_id": task.instance_id})
            soak.step_s["reset"].append(time.monotonic() - t)
            with soak.lock:
                soak.current[i] = ep
            agent.reset(info)
            done = False
            while not done:
                action = agent.act(obs, info)
                kind = "submit" if not isinstance(action, str) else (
                    "fault" if fault and INSIDE_FAULTS[fault] in action else "plain")
                soak.step_started[i] = t = time.monotonic()
                obs, reward, terminated, truncated, info = env.step(action)
                soak.step_s[kind].append(time.monotonic() - t)
                ep.steps += 1
                taken += 1
                done = terminated or truncated
            ep.reward, ep.stop_reason = reward, info.get("stop_reason")
            if info.get("train_mask", True):
                ep.outcome = "completed"
            else:
                ep.outcome, ep.reason = "masked", info.get("sandbox_error")
        except Exception as exc:  # an exception out of the env: the episode is lost
            ep.outcome, ep.reason = "lost", f"{type(exc).__name__}: {exc}"
            ep.stop_reason = traceback.format_exc(limit=6)
            taken += 1
        finally:
            with soak.lock:
                soak.current.pop(i, None)
            soak.step_started.pop(i, None)


def chaos(envs: list[CodingEnv], agent_pool: SandboxPool, grade_pool: TrackedPool, soak: Soak, client,
          every_s: float, stop: threading.Event, rng: random.Random) -> None:
    """In turn, `docker kill` an env's agent container mid-episode, a grading container
    mid-grade (waiting up to `every_s` for a grade to start), and an idle pooled container
    (charged to no episode: the next `reset()` that gets it must cope)."""
    turn = 0
    while not stop.wait(every_s):
        kind = OUTSIDE_FAULTS[turn % len(OUTSIDE_FAULTS)]
        turn += 1
        if kind == "idle_kill":
            idle = [slot.sandbox for slot in list(agent_pool._idle)]
            if idle:
                try:
                    client.api.kill(rng.choice(idle).container.id)
                    with soak.lock:
                        soak.kills[kind] += 1
                except Exception:
                    pass
            continue
        if kind == "docker_kill":
            with soak.lock:
                running = [(i, ep) for i, ep in soak.current.items() if envs[i].sandbox is not None]
            if not running:
                continue
            i, ep = rng.choice(running)
            sandbox = envs[i].sandbox
        else:
            deadline = time.monotonic() + every_s
            held = {}
            while not held and time.monotonic() < deadline and not stop.is_set():
                held = dict(grade_pool.holders)
                time.sleep(0.02)
            if not held:
                continue
            i, sandbox = rng.choice(sorted(held.items(), key=lambda kv: kv[0]))
            time.sleep(rng.uniform(0, 0.3))  # somewhere in the grade
            with soak.lock:
                ep = soak.current.get(i)
        container = getattr(sandbox, "container", None)
        if container is None or ep is None:
            continue
        try:
            client.api.kill(container.id)
        except Exception:  # already gone (the episode ended and the pool replaced it)
            continue
        with soak.lock:
            ep.faults.append(kind)
            soak.kills[kind] += 1


# ---- measurements --------------------------------------------------------------------------

def mem_available() -> int:
    text = Path("/proc/meminfo").read_text()
    return int(re.search(r"MemAvailable:\s+(\d+)", text).group(1)) * 1024


def run_containers(client, run_id: str = RUN_ID) -> int:
    return len(run_container_ids(client, run_id))


def run_container_ids(client, run_id: str = RUN_ID) -> set[str]:
    """The containers labelled `codegym.run=<run_id>`, whatever their state."""
    return {row["Id"] for row in client.api.containers(all=True, filters={"label": f"{LABEL}={run_id}"})}


_UNITS = {"b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "kb": 1000, "mb": 1000**2, "gb": 1000**3}


def docker_stats_bytes(ids: list[str]) -> list[int]:
    """The memory use `docker stats --no-stream` reports for each container (its cgroup, less
    the page cache the kernel may drop)."""
    if not ids or shutil.which("docker") is None:
        return []
    out = subprocess.run(["docker", "stats", "--no-stream", "--format", "{{.MemUsage}}", *ids],
                         capture_output=True, text=True, timeout=120).stdout
    sizes = []
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)\s*([KMG]i?B|B)", line, re.I)
        if m:
            sizes.append(int(float(m.group(1)) * _UNITS[m.group(2).lower()]))
    return sizes


def idle_memory(pool: SandboxPool, before: int) -> dict[str, float]:
    ids = [slot.sandbox.container.id for slot in list(pool._idle)]
    stats = docker_stats_bytes(ids)
    n = max(1, len(ids))
    return {"idle": len(ids), "stats_mib": (sum(stats) / len(stats) / 2**20) if stats else float("nan"),
            "host_mib": (before - mem_available()) / n / 2**20}


def probe(client, config: SandboxConfig, limit: int, step: int = 16) -> list[dict]:
    """Start idle sandboxes in steps of `step` up to `limit`, or until one fails to start or
    less than 2 GiB stays available; at each step: start time, `exec("true")` p50 over all of
    them, memory per sandbox."""
    rows, before = [], mem_available()
    pool = SandboxPool(config, size=0, max_live=limit, create_rate=50.0, backend="docker", client=client)
    held = []
    try:
        while len(held) < limit:
            t0, failed = time.monotonic(), None
            try:
                for _ in range(min(step, limit - len(held))):
                    held.append(pool.acquire(timeout=120))
            except Exception as exc:
                failed = f"{type(exc).__name__}: {exc}"[:200]
            start_s = time.monotonic() - t0
            lat = []
            for sb in held:
                t = time.monotonic()
                sb.exec("true", timeout=30)
                lat.append(time.monotonic() - t)
            avail = mem_available()
            stats = docker_stats_bytes([sb.container.id for sb in held])
            rows.append({"n": len(held), "start_s": start_s, "exec_p50_ms": pct(lat, 0.5) * 1e3,
                         "stats_mib": sum(stats) / max(1, len(stats)) / 2**20,
                         "host_mib": (before - avail) / len(held) / 2**20, "avail_gib": avail / 2**30,
                         "failed": failed})
            print(f"  probe: {len(held):4d} idle sandboxes, +{step} started in {start_s:5.1f} s, exec p50 "
                  f"{rows[-1]['exec_p50_ms']:6.1f} ms, {rows[-1]['stats_mib']:5.1f} MiB/sandbox (docker stats), "
                  f"{rows[-1]['host_mib']:5.1f} MiB (host), {avail / 2**30:5.1f} GiB left"
                  + (f", FAILED: {failed}" if failed else ""), flush=True)
            if failed or avail < 2 * 2**30:
                break
    finally:
        pool.close()
    return rows


# ---- the runs ------------------------------------------------------------------------------

def run_soak(n_envs: int, steps: int, *, seed: int = 0, fault_rate: float = 0.5, kill_every_s: float = 2.0,
             hang_s: float = 240.0, client=None, verbose: bool = True) -> dict:
    """The soak itself (in this process); returns the report's numbers."""
    client = client or docker_client()
    config = SandboxConfig(image=default_image(client))
    tasks = load_tasks("toy")
    others = run_container_ids(client)  # this process's other sandboxes (a test session's pool)
    before = mem_available()
    agent_pool = SandboxPool(config, size=n_envs, max_live=n_envs + 4, create_rate=8.0, backend="docker",
                             client=client)
    t_warm = time.monotonic()
    agent_pool.warm(timeout=600)
    warm_s = time.monotonic() - t_warm
    memory = idle_memory(agent_pool, before)
    grade_pool = TrackedPool(SandboxPool(config, size=min(4, n_envs), max_live=n_envs, create_rate=8.0,
                                         backend="docker", client=client, reap_leftovers=False))
    envs = [SoakEnv(tasks, backend="docker", pool=agent_pool, grade_pool=grade_pool, max_turns=8,
                    bash_timeout=30, grade_timeout=120) for _ in range(n_envs)]
    soak, stop = Soak(), threading.Event()
    threads = [threading.Thread(target=env_worker, args=(i, env, soak, steps, seed, fault_rate), name=f"env-{i}",
                                daemon=True) for i, env in enumerate(envs)]
    chaos_thread = threading.Thread(target=chaos, args=(envs, agent_pool, grade_pool, soak, client, kill_every_s,
                                                        stop, random.Random(seed)), daemon=True)
    t0 = time.monotonic()
    for th in threads:
        th.start()
    chaos_thread.start()
    hung = []
    while any(th.is_alive() for th in threads):
        time.sleep(0.5)
        now = time.monotonic()
        stuck = [i for i, t in list(soak.step_started.items()) if now - t > hang_s]
        if stuck:  # a step that never returns: report the env's stack, give up on it
            frames = sys._current_frames()
            for i in stuck:
                th = threads[i]
                stack = "".join(traceback.format_stack(frames.get(th.ident))) if th.ident in frames else "?"
                hung.append((i, stack))
                with soak.lock:
                    ep = soak.current.get(i) or next((e for e in reversed(soak.episodes) if e.env == i), None)
                if ep is not None:
                    ep.outcome, ep.reason = "lost", f"hang: a step or reset ran over {hang_s:.0f} s"
                soak.step_started.pop(i, None)
            break
    elapsed = time.monotonic() - t0
    stop.set()
    chaos_thread.join(10)
    t_close = time.monotonic()
    for env in envs:
        env.close()
    agent_pool.close()
    grade_pool.close()
    close_s = time.monotonic() - t_close
    left = len(run_container_ids(client) - others)
    report = {"envs": n_envs, "steps_per_env": steps, "elapsed_s": elapsed, "warm_s": warm_s, "memory": memory,
              "episodes": soak.episodes, "latency": soak.step_s, "kills": dict(soak.kills), "hung": hung,
              "left_after_close": left, "close_s": close_s,
              "pool": {"agent": vars(agent_pool.stats), "grade": vars(grade_pool.pool.stats)}}
    if verbose:
        print_soak(report)
    return report


CHILD = """
import sys, time
sys.path.insert(0, {here!r})
import soak
from codegym.sandbox.lifecycle import RUN_ID
print(RUN_ID, flush=True)
soak.run_soak({n}, 10**6, seed=1, kill_every_s=10**6, verbose=False)
"""


def kill9_and_gc(n_envs: int = 4, run_for_s: float = 8.0, client=None, verbose: bool = True) -> dict:
    """A soak run in a child process, killed with SIGKILL mid-episode; its containers are
    counted, `codegym sandbox gc` runs, and they are counted again."""
    client = client or docker_client()
    code = CHILD.format(here=str(Path(__file__).resolve().parent), n=n_envs)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    run_id = proc.stdout.readline().strip()
    deadline = time.monotonic() + 300
    while run_containers(client, run_id) < n_envs and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    time.sleep(run_for_s)  # episodes, resets and grades in flight
    before = run_containers(client, run_id)
    proc.kill()
    time.sleep(1.0)  # not reaped yet: the owner is a zombie, which gc must treat as dead
    after_kill = run_containers(client, run_id)
    codegym = Path(sys.executable).with_name("codegym")
    cmd = [str(codegym)] if codegym.exists() else [sys.executable, "-m", "codegym.cli"]
    gc = subprocess.run([*cmd, "sandbox", "gc"], capture_output=True, text=True, timeout=300)
    after_gc = run_containers(client, run_id)
    time.sleep(3.0)  # a creation the engine finished after the kill would show up now
    later = run_containers(client, run_id)
    proc.wait()
    report = {"run_id": run_id, "before_kill": before, "after_kill": after_kill, "after_gc": after_gc,
              "after_gc_3s": later, "gc_exit": gc.returncode, "gc_output": gc.stdout.strip().splitlines()[-1:]}
    if verbose:
        print(f"\nkill -9 of a runner with {n_envs} envs mid-episode (run {run_id}): {before} containers before, "
              f"{after_kill} after the kill, {after_gc} after `codegym sandbox gc` ({' '.join(report['gc_output'])}), "
              f"{later} three seconds later (target 0)")
    return report


def print_soak(r: dict) -> None:
    eps: list[Episode] = r["episodes"]
    outcome = Counter(e.outcome for e in eps)
    mem = r["memory"]
    print(f"\nsoak: {r['envs']} concurrent envs x {r['steps_per_env']} steps, {r['elapsed_s']:.0f} s "
          f"(pool warmed {r['envs']} sandboxes in {r['warm_s']:.0f} s)")
    print(f"memory per idle sandbox ({mem['idle']} idle): {mem['stats_mib']:.1f} MiB (docker stats), "
          f"{mem['host_mib']:.1f} MiB of host MemAvailable (with the engine's shim; noisy on a shared host)")
    print(f"episodes: {len(eps)}  completed {outcome['completed']}  masked {outcome['masked']}  "
          f"lost {outcome['lost']} (target 0)")
    print(f"faults: {sum(len(e.faults) for e in eps)} injected; outside kills {r['kills']}")
    print(f"  {'fault':<20} {'episodes':>8} {'completed':>9} {'masked':>7} {'lost':>5} {'scored 1':>9}")
    kinds = sorted({f for e in eps for f in e.faults}) + ["(none)"]
    for kind in kinds:
        group = [e for e in eps if (kind in e.faults if kind != "(none)" else not e.faults)]
        c = Counter(e.outcome for e in group)
        ones = sum(e.reward == 1.0 for e in group)
        print(f"  {kind:<20} {len(group):8d} {c['completed']:9d} {c['masked']:7d} {c['lost']:5d} {ones:9d}")
    masked = [e for e in eps if e.outcome == "masked"]
    no_reason = [e for e in masked if not (e.stop_reason and e.reason)]
    print(f"masked with a reason: {len(masked) - len(no_reason)} of {len(masked)}")
    for (faults, reason), n in Counter((",".join(e.faults) or "no fault", _short(e.reason))
                                       for e in masked).most_common(8):
        print(f"  {n:4d}  [{faults}] {reason}")
    clean_bad = [e for e in eps if not e.faults and (e.outcome != "completed" or e.reward != 1.0)]
    print(f"episodes no fault reached that did not complete with reward 1: {len(clean_bad)} (target 0)")
    for e in clean_bad[:5]:
        print(f"  env {e.env} {e.task}: {e.outcome} reward={e.reward} {e.stop_reason} {_short(e.reason)}")
    for e in [e for e in eps if e.outcome == "lost"][:5]:
        print(f"  LOST env {e.env} {e.task} faults={e.faults}: {e.reason}\n{e.stop_reason or ''}")
    for i, stack in r["hung"][:3]:
        print(f"  HUNG env {i}:\n{stack}")
    lat = r["latency"]
    print("step latency under load (ms):")
    for kind in ("plain", "fault", "submit", "reset"):
        xs = lat[kind]
        print(f"  {kind:<7} n={len(xs):5d}  p50 {pct(xs, .5) * 1e3:8.0f}  p99 {pct(xs, .99) * 1e3:8.0f}")
    every = lat["plain"] + lat["fault"] + lat["submit"]
    print(f"  {'all':<7} n={len(every):5d}  p50 {pct(every, .5) * 1e3:8.0f}  p99 {pct(every, .99) * 1e3:8.0f}")
    print(f"pools: agent {_pool(r['pool']['agent'])}; grade {_pool(r['pool']['grade'])}")
    print(f"containers of this run left after close(): {r['left_after_close']} (target 0; close took "
          f"{r['close_s']:.1f} s)")


def _pool(stats: dict) -> str:
    return f"created {stats['created']}, replaced {stats['replaced']}, reset failures {stats['reset_failures']}"


def _short(text: str | None) -> str:
    text = re.sub(r"\b[0-9a-f]{10,64}\b", "<id>", text or "(none)")
    return text[:150]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--envs", type=int, default=16, help="concurrent envs")
    ap.add_argument("--steps", type=int, default=30, help="steps per env")
    ap.add_argument("--fault-rate", type=float, default=0.5, help="share of episodes with an inside fault")
    ap.add_argument("--kill-every", type=float, default=2.0, help="seconds between kills from outside")
    ap.add_argument("--hang-s", type=float, default=240.0, help="a step longer than this is a hang")
    ap.add_argument("--probe", type=int, default=0, help="first start up to this many idle sandboxes")
    ap.add_argument("--kill9-envs", type=int, default=4, help="envs of the run killed with SIGKILL (0: skip)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    client = docker_client()
    print(f"image {default_image(client)}; {os.cpu_count()} cores, {mem_available() / 2**30:.1f} GiB available; "
          f"run {RUN_ID}")
    if args.probe:
        probe(client, SandboxConfig(image=default_image(client)), args.probe)
    report = run_soak(args.envs, args.steps, seed=args.seed, fault_rate=args.fault_rate,
                      kill_every_s=args.kill_every, hang_s=args.hang_s, client=client)
    kill = kill9_and_gc(args.kill9_envs, client=client) if args.kill9_envs else None
    lost = sum(e.outcome == "lost" for e in report["episodes"])
    no_reason = sum(e.outcome == "masked" and not e.reason for e in report["episodes"])
    ok = not lost and not no_reason and report["left_after_close"] == 0 and (kill is None or kill["after_gc_3s"] == 0)
    print("\nverdict:", "PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
