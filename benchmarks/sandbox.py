"""Sandbox layer speed, side by side with the plain Docker paths other gyms use.

    .venv/bin/python benchmarks/sandbox.py [--episodes 30] [--commands 200]

1. Episode start: a fresh container per episode (create, start, upload a 100-file workspace
   with put_archive, first command with exec_run) vs `SandboxPool.acquire()` of a pristine
   sandbox with the same workspace (and, for honesty, with a different workspace each time).
2. `exec("true")`: codegym's executor vs `docker exec` through the CLI.
3. 16 sandboxes each running commands concurrently: aggregate commands/s and errors.
Targets (2-core machine): acquire p50 <= 50 ms and >= 10x faster than a fresh container;
exec p50 <= 0.1x the CLI's; >= 10x the CLI's aggregate commands/s with zero errors.
"""

from __future__ import annotations

import argparse
import io
import subprocess
import tarfile
import threading
import time

from codegym.sandbox import DockerSandbox, SandboxConfig, SandboxPool, docker_client
from codegym.sandbox.images import default_image


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def workspace_tar(n_files: int = 100, salt: str = "") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for i in range(n_files):
            data = (f"# module {i} {salt}\n" + f"def f(x):\n    return x + {i}\n" * 20).encode()
            info = tarfile.TarInfo(f"pkg/sub{i % 10}/mod{i}.py")
            info.size, info.uid, info.gid = len(data), 1000, 1000
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def fresh_container_episode(client, image: str, ws: bytes) -> float:
    t = time.perf_counter()
    c = client.containers.create(image, ["sleep", "600"], user="agent", network_mode="none",
                                 cap_drop=["ALL"], security_opt=["no-new-privileges"], pids_limit=256,
                                 mem_limit="1g", memswap_limit="1g", init=True, working_dir="/workspace")
    c.start()
    c.put_archive("/workspace", ws)
    c.exec_run("ls pkg", user="agent")
    dt = time.perf_counter() - t
    c.remove(force=True)
    return dt


def row(name, xs, unit="ms", scale=1e3):
    return f"  {name:<52} p50 {pct(xs, .5) * scale:8.2f} {unit}   p95 {pct(xs, .95) * scale:8.2f} {unit}"


def concurrent(n_sandboxes: int, n_cmds: int, run_one) -> tuple[float, int]:
    errors = [0]
    lock = threading.Lock()

    def worker(i):
        for _ in range(n_cmds):
            try:
                ok = run_one(i)
            except Exception:
                ok = False
            if not ok:
                with lock:
                    errors[0] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n_sandboxes)]
    t = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return n_sandboxes * n_cmds / (time.perf_counter() - t), errors[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=30)
    ap.add_argument("--commands", type=int, default=200)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--per-sandbox", type=int, default=100)
    ap.add_argument("--cli-per-sandbox", type=int, default=15, help="CLI is slow: fewer commands, same rate")
    args = ap.parse_args()
    client = docker_client()
    image = default_image(client)
    ws = workspace_tar()
    print(f"image {image}; workspace: 100 files, {len(ws) / 1024:.0f} KiB tar\n")

    # 1. episode start
    fresh = [fresh_container_episode(client, image, ws) for _ in range(max(5, args.episodes // 2))]
    with SandboxPool(SandboxConfig(image=image), size=2, backend="docker", client=client) as pool:
        pool.warm()
        same, other = [], []
        for _ in range(args.episodes):
            t = time.perf_counter()
            sb = pool.acquire(ws)
            same.append(time.perf_counter() - t)
            sb.exec("ls pkg > /dev/null; echo x > new.txt")
            pool.release(sb)
            time.sleep(0.05)  # the rest of an episode: the background reset overlaps it
        for i in range(args.episodes):
            t = time.perf_counter()
            sb = pool.acquire(workspace_tar(salt=str(i)))
            other.append(time.perf_counter() - t)
            pool.release(sb)
            time.sleep(0.05)
    print("1. episode start (create+start+upload 100 files+first command vs pooled acquire)")
    print(row("fresh container per episode (docker SDK)", fresh))
    print(row("SandboxPool.acquire(), same workspace", same))
    print(row("SandboxPool.acquire(), a new workspace each time", other))
    print(f"  -> pooled acquire is {pct(fresh, .5) / pct(same, .5):.0f}x faster (p50, same workspace), "
          f"{pct(fresh, .5) / pct(other, .5):.0f}x (new workspace); target p50 <= 50 ms and >= 10x\n")

    # 2. exec latency
    sb = DockerSandbox.create(SandboxConfig(image=image), client=client)
    try:
        ours, cli = [], []
        for _ in range(args.commands):
            t = time.perf_counter()
            sb.exec("true")
            ours.append(time.perf_counter() - t)
        for _ in range(max(30, args.commands // 4)):
            t = time.perf_counter()
            subprocess.run(["docker", "exec", "-u", "agent", sb.container.id, "true"], check=True)
            cli.append(time.perf_counter() - t)
        api = []
        for _ in range(max(30, args.commands // 4)):
            t = time.perf_counter()
            sb.container.exec_run("true", user="agent")
            api.append(time.perf_counter() - t)
    finally:
        sb.close()
    print("2. exec('true')")
    print(row("codegym exec (persistent executor)", ours))
    print(row("docker exec via the CLI", cli))
    print(row("docker exec API (exec_run), for reference", api))
    print(f"  -> codegym / CLI p50 = {pct(ours, .5) / pct(cli, .5):.3f} (target <= 0.1)\n")

    # 3. concurrency
    n = args.concurrency
    sbs = [DockerSandbox.create(SandboxConfig(image=image), client=client) for _ in range(n)]
    try:
        ours_rate, ours_err = concurrent(n, args.per_sandbox, lambda i: sbs[i].exec("true").exit_code == 0)
        ids = [s.container.id for s in sbs]
        cli_rate, cli_err = concurrent(
            n, args.cli_per_sandbox,
            lambda i: subprocess.run(["docker", "exec", "-u", "agent", ids[i], "true"]).returncode == 0)
    finally:
        for s in sbs:
            s.close()
    print(f"3. {n} sandboxes running commands concurrently")
    print(f"  codegym: {ours_rate:8.0f} commands/s, {ours_err} errors ({n}x{args.per_sandbox} commands)")
    print(f"  CLI:     {cli_rate:8.0f} commands/s, {cli_err} errors ({n}x{args.cli_per_sandbox} commands)")
    print(f"  -> {ours_rate / cli_rate:.1f}x the CLI's aggregate rate (target >= 10x, zero errors)")


if __name__ == "__main__":
    main()
