"""The `codegym` command.

    codegym doctor                 # what is installed, what is missing, how to fix it
    codegym images build           # build the sandbox images (offline bootstrap if needed)
    codegym sandbox gc             # remove leftover containers of dead runs
    codegym demo                   # build, warm a pool, run commands, print timings
    codegym serve --model tiny     # an OpenAI-compatible server that records token ids
    codegym sft CONFIG.yaml        # behaviour cloning from oracle episodes (a warm start)
    codegym train CONFIG.yaml      # RL training (ppo, grpo, gigpo, tree_grpo, gdpo, gd2po)
    codegym main                   # the main job: warm start + RL + controls, held-out evaluation, report

A mistake (an unknown task id or agent, a missing file, a bad config) prints one line and
exits with code 2; `--debug` (anywhere on the line) shows the traceback instead. Text that
comes from tasks, tests or exceptions is printed without rich markup: node ids such as
`test_x[a-1 Bytes]` would otherwise be eaten as style tags.
"""

from __future__ import annotations

import os
import sys

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from codegym.tasks.cli import REPOS_DIR_HELP

app = typer.Typer(help="codegym: coding tasks as Gymnasium envs in Docker sandboxes.", no_args_is_help=True)
images_app = typer.Typer(help="Sandbox images.", no_args_is_help=True)
sandbox_app = typer.Typer(help="Sandboxes and their containers.", no_args_is_help=True)
app.add_typer(images_app, name="images")
app.add_typer(sandbox_app, name="sandbox")
tasks_app = typer.Typer(help="Task suites.", no_args_is_help=True)
app.add_typer(tasks_app, name="tasks")
console = Console(soft_wrap=True)
_DEBUG = {"on": bool(os.environ.get("CODEGYM_DEBUG"))}

#: exceptions that mean the command line asked for something that is not there (exit code 2).
USER_ERRORS = (ValueError, LookupError, FileNotFoundError, NotADirectoryError, IsADirectoryError)


@app.callback()
def _options(debug: bool = typer.Option(False, "--debug", help="On an error, show the whole traceback.")) -> None:
    if debug:
        _DEBUG["on"] = True


def say(text: str, style: str | None = None) -> None:
    """Print `text` as it is: no rich markup, no highlighting (see the module docstring)."""
    console.print(text, style=style, markup=False, highlight=False)


def _use_repos_dir(repos_dir: str | None) -> None:
    """`--repos-dir`: where "owner/name" task repos live (see `codegym.tasks.cli.use_repos_dir`)."""
    from codegym.tasks.cli import use_repos_dir

    try:
        use_repos_dir(repos_dir)
    except FileNotFoundError as exc:
        raise fail(str(exc)) from exc


def fail(message: str, code: int = 2) -> typer.Exit:
    """One line on stderr; raise the result: `raise fail("unknown ...")`."""
    Console(stderr=True, soft_wrap=True).print(f"codegym: {message}", style="red", markup=False, highlight=False)
    return typer.Exit(code)


def _client():
    from codegym.sandbox import SandboxError, docker_client

    try:
        return docker_client()
    except SandboxError as exc:
        raise fail(str(exc)) from exc


@images_app.command("build")
def images_build(
    name: str = typer.Argument("python", help="Which image (a directory under sandbox_images/)."),
    base_image: str = typer.Option(None, help="Build FROM this image instead of the offline Debian bootstrap."),
    force: bool = typer.Option(False, help="Rebuild even if the content-addressed tag exists."),
    tasks: str = typer.Option(None, "--tasks", help="Build the environment images the tasks of this JSONL file, "
                              "suite or Harbor folder name (codegym.tasks.environment) instead."),
    repos_dir: str = typer.Option(None, "--repos-dir", help=REPOS_DIR_HELP),
) -> None:
    """Build a sandbox image (or, with --tasks, the tasks' own environments); an unchanged image is never rebuilt."""
    if tasks:
        from codegym.sandbox.task_images import build_task_images
        from codegym.tasks.loader import load_tasks

        _use_repos_dir(repos_dir)
        results = build_task_images(load_tasks(tasks, strict=True, repos_dir=repos_dir), _client(), force=force)
        for r in results:
            typer.echo(f"{r.status}\t{r.tag}\t{','.join(r.task_ids)}")  # tab-separated, for scripts
        say(f"{len(results)} environment image(s): {sum(r.status == 'built' for r in results)} built, "
            f"{sum(r.status == 'reused' for r in results)} reused")
        return
    from codegym.sandbox.images import build_image

    tag = build_image(_client(), name, base_image=base_image, force=force)
    say(tag)


@images_app.command("list")
def images_list() -> None:
    """List codegym images in the local engine."""
    from codegym.sandbox.images import list_images

    rows = [(r["tag"], r["id"], f"{r['size_mb']:.0f}", str(r["created"])[:19]) for r in list_images(_client())]
    if not console.is_terminal:  # plain lines for pipes and scripts
        for row in rows:
            print("\t".join(row))
        return
    table = Table("tag", "id", "size (MB)", "created")
    for row in rows:
        table.add_row(*row)
    console.print(table)


@sandbox_app.command("gc")
def sandbox_gc(
    everything: bool = typer.Option(False, "--all", help="Also remove live runs' containers on this host."),
) -> None:
    """Remove leftover containers of dead codegym runs."""
    from codegym.sandbox.lifecycle import reap

    removed = reap(_client(), everything=everything)
    for name in removed:
        say(f"removed {name}")
    say(f"{len(removed)} container(s) removed")


@app.command()
def doctor() -> None:
    """Check the Docker engine, images, bubblewrap and torch, with the fix for each gap."""
    from codegym.doctor import run_checks

    table = Table("check", "status", "detail / fix")
    ok = True
    for check in run_checks():
        ok &= check.ok or not check.required
        status = "[green]ok[/green]" if check.ok else ("[red]missing[/red]" if check.required else "[yellow]optional[/yellow]")
        table.add_row(check.name, status, escape(check.detail if check.ok else check.fix))
    console.print(table)
    raise typer.Exit(0 if ok else 1)


@tasks_app.command("validate")
def tasks_validate(
    suite: str = typer.Argument(..., help="A built-in suite (humaneval, repofix, toy) or a JSONL path."),
    backend: str = typer.Option("auto", help="Sandbox backend: docker, local or auto."),
    workers: int = typer.Option(4, help="Episodes in parallel."),
    limit: int = typer.Option(None, help="Only the first N tasks."),
    local: bool = typer.Option(False, help="Grade on the host (no sandbox) with codegym.tasks.validate."),
    repos_dir: str = typer.Option(None, "--repos-dir", help=REPOS_DIR_HELP),
    repeats: int = typer.Option(1, "--repeats", min=1, help="Run each submission N times; tests whose outcome "
                                "differs across the runs are flaky."),
    write_valid_to: str = typer.Option(None, "--write-valid", help="Write the task file without the broken "
                                       "tasks and the flaky tests to this JSONL path."),
) -> None:
    """Check every task: the reference solution scores 1, an immediate submit scores 0.

    By default through real env episodes in sandboxes: the oracle applies the reference patch
    with the bash tool and submits; an empty agent submits at once; the grader decides; the
    agent's sandbox is probed for leaks (hidden tests, future history).
    """
    import time

    from codegym.tasks.cli import finish_report

    _use_repos_dir(repos_dir)
    if local:
        from codegym.tasks.cli import validate as validate_on_host

        validate_on_host(suite, jobs=workers, ids="", limit=limit or 0, verbose=False, repos_dir=None,
                         repeats=repeats, write_valid_to=write_valid_to)
        return
    from codegym.tasks.loader import load_tasks
    from codegym.tasks.validate import validate_in_sandboxes

    start = time.monotonic()
    tasks = list(load_tasks(suite, strict=True, repos_dir=repos_dir))[:limit]
    results = validate_in_sandboxes(tasks, repeats=repeats, backend=backend, workers=workers, progress=True)
    for result in results:
        for problem in result.problems:
            console.print(f"FAIL {result.instance_id}: {problem}", markup=False, highlight=False)
    finish_report(suite, results, 0, write_valid_to, seconds=time.monotonic() - start)


from codegym.tasks.mutate.cli import mutate_command  # noqa: E402 - `codegym tasks mutate`

tasks_app.command("mutate")(mutate_command)


@tasks_app.command("show")
def tasks_show(suite: str, instance_id: str,
               repos_dir: str = typer.Option(None, "--repos-dir", help=REPOS_DIR_HELP)) -> None:
    """Print one task as JSON."""
    from codegym.tasks.cli import show

    show(suite, instance_id, repos_dir=repos_dir)


@tasks_app.command("export")
def tasks_export(
    source: str = typer.Argument(..., help="A built-in suite, a JSONL path or a folder of Harbor tasks."),
    fmt: str = typer.Option("harbor", "--format", help="harbor (one task folder each) or jsonl (one file)."),
    out: str = typer.Option(..., "--out", help="The folder (harbor) or file (jsonl) to write."),
    ids: str = typer.Option("", help="Comma-separated instance ids (default: all)."),
    repos_dir: str = typer.Option(None, "--repos-dir", help=REPOS_DIR_HELP),
) -> None:
    """Write tasks in another format: Harbor task folders (hidden tests in tests/, the fix in solution/)."""
    from codegym.tasks.loader import load_tasks, write_tasks_jsonl

    if fmt not in ("harbor", "jsonl"):
        raise fail(f"--format {fmt!r}: expected harbor or jsonl")
    _use_repos_dir(repos_dir)
    tasks = list(load_tasks(source, strict=True, repos_dir=repos_dir))
    if ids:
        wanted = ids.split(",")
        unknown = sorted(set(wanted) - {t.instance_id for t in tasks})
        if unknown:
            raise fail(f"no task(s) {unknown} in {source}")
        tasks = [t for t in tasks if t.instance_id in wanted]
    if fmt == "jsonl":
        write_tasks_jsonl(tasks, out)
        say(f"wrote {len(tasks)} task(s) to {out}")
        return
    from codegym.tasks.harbor import export_harbor

    written = export_harbor(tasks, out)
    say(f"wrote {len(written)} Harbor task folder(s) to {out}; build them with `codegym images build --tasks {out}`")


@tasks_app.command("list")
def tasks_list(suite: str = typer.Argument(..., help="A built-in suite or a JSONL path."),
               repos_dir: str = typer.Option(None, "--repos-dir", help=REPOS_DIR_HELP)) -> None:
    """List the tasks of a suite."""
    from codegym.tasks.loader import load_tasks

    _use_repos_dir(repos_dir)
    table = Table("instance_id", "FAIL_TO_PASS", "PASS_TO_PASS", "visible tests")
    for t in load_tasks(suite):
        table.add_row(escape(t.instance_id), str(len(t.FAIL_TO_PASS)), str(len(t.PASS_TO_PASS)),
                      str(len(t.visible_tests)))
    console.print(table)


@app.command("eval")
def eval_cmd(
    agent: str = typer.Option("oracle", help="oracle, submit, redteam, tiny, a model directory or hub id, "
                              "or an OpenAI-compatible URL (http://host:port/v1, with --model)."),
    suite: str = typer.Option("toy", help="A built-in suite or a JSONL path."),
    out: str = typer.Option(None, help="Directory for episodes.jsonl and summary.json."),
    n: int = typer.Option(1, help="Episodes per task."),
    workers: int = typer.Option(4, help="Episodes in parallel."),
    limit: int = typer.Option(None, help="Only the first N tasks."),
    max_turns: int = typer.Option(30, help="Turns per episode."),
    honeypot: bool = typer.Option(False, help="Plant decoys (hidden tests, upstream history) to measure propensity."),
    guards: bool = typer.Option(True, help="Anti-hack guards on (block) or off (only record)."),
    model: str = typer.Option(None, help="With a URL --agent: the served model name."),
    tokenizer: str = typer.Option(None, help="With a URL --agent: complete token ids with this tokenizer."),
    max_new_tokens: int = typer.Option(512, help="Model agents: tokens per turn."),
    temperature: float = typer.Option(1.0, help="Model agents: sampling temperature."),
    adapter: str = typer.Option(None, help="Evaluate a trained LoRA adapter directory (a checkpoint's policy/, "
                                "`codegym sft`'s OUT/policy) on the base it was trained on."),
    base: str = typer.Option(None, help="With --adapter: the base model (default: from the run's config.yaml)."),
    config: str = typer.Option(None, help="With --adapter: the training config it was trained with."),
    predictions: str = typer.Option(None, help="Also write SWE-bench predictions (instance_id, model_name_or_path, "
                                    "model_patch) of the final diffs here (.jsonl: one a line; else a JSON list)."),
    repos_dir: str = typer.Option(None, "--repos-dir", help=REPOS_DIR_HELP),
) -> None:
    """Evaluate an agent on a suite: pass rate, and per-episode JSONL (with each final diff) with --out."""
    import time

    from codegym.evaluation import SCRIPTED_AGENTS, adapter_agent, evaluate, make_agent

    _use_repos_dir(repos_dir)
    model_name = adapter or model or agent

    if adapter and agent != "oracle":
        raise fail("--adapter and --agent both choose the agent: give one of them")
    if (base or config) and not adapter:
        raise fail("--base and --config go with --adapter")
    sampling = {"max_new_tokens": max_new_tokens, "temperature": temperature}
    is_model = bool(adapter) or agent not in SCRIPTED_AGENTS
    if is_model:
        t0 = time.monotonic()
        say(f"eval: loading {adapter or agent} ...")
        try:
            agent = adapter_agent(adapter, base=base, config=config, **sampling) if adapter else \
                make_agent(agent, None, model=model, tokenizer=tokenizer, **sampling)
        except USER_ERRORS as exc:
            raise fail(_message(exc)) from exc
        say(f"eval: agent ready ({time.monotonic() - t0:.0f} s)")
    summary = evaluate(agent, suite, out, n_per_task=n, workers=workers, limit=limit,
                       env_kwargs={"max_turns": max_turns, "honeypot": honeypot, "guards": guards},
                       say=say if is_model else None, predictions=predictions, model_name=model_name)
    _print_summary(summary)
    if out:
        say(f"wrote {out}/episodes.jsonl, summary.json, summary.md, hack_rates.png")
    if predictions:
        say(f"wrote SWE-bench predictions to {predictions}")


def _print_summary(summary: dict) -> None:
    table = Table("metric", "value")
    for key, value in summary.items():
        if key != "hack_rates":
            table.add_row(escape(key), escape(f"{value:.3f}" if isinstance(value, float) else str(value)))
    console.print(table)
    rates = Table("category", "attempt rate (episodes)", "flagged", "confirmed", "blocked", "recall vs labels")
    for category, row in summary["hack_rates"]["categories"].items():
        rate = row["attempt_rate"]
        recall = row["recall"]
        rates.add_row(escape(category), f"{rate['value'] or 0:.3f} ({rate['k']}/{rate['n']})",
                      str(row["flagged_calls"]), str(row["confirmed_calls"]), str(row["blocked_calls"]),
                      "-" if recall is None else f"{recall['value']:.3f} ({recall['k']}/{recall['n']})")
    console.print(rates)
    agreement = summary["hack_rates"]["agreement"]
    if agreement:
        say(f"judge agreement with labels: {agreement['value']:.3f} ({agreement['k']}/{agreement['n']})")


def _load_train_config(config: str, out: str | None, iterations: int | None, init_adapter: str | None = None):
    from codegym.trainer.config import ConfigError, load_config

    overrides: dict = {}
    if out:
        overrides.setdefault("run", {})["out_dir"] = out
    if iterations is not None:
        overrides.setdefault("run", {})["iterations"] = iterations
    if init_adapter:
        overrides.setdefault("model", {})["init_adapter"] = init_adapter
    try:
        return load_config(config, overrides)
    except (ConfigError, FileNotFoundError) as exc:
        say(str(exc), style="red")
        raise typer.Exit(2) from exc


def _resume_run_dir(resume: str) -> str:
    """The run directory a `--resume` path belongs to: the run itself, or the run whose
    ``checkpoints/`` holds the checkpoint (a checkpoint elsewhere is its own run directory)."""
    from codegym.trainer.checkpoint import find_checkpoint

    try:
        ckpt = find_checkpoint(resume)
    except FileNotFoundError as exc:
        console.print(f"--resume: {exc}", style="red", markup=False)
        raise typer.Exit(2) from exc
    return str(ckpt.parent.parent if ckpt.parent.name == "checkpoints" else ckpt)


@app.command()
def train(
    config: str = typer.Argument(..., help="A YAML training config (see examples/train_*.yaml)."),
    resume: str = typer.Option(None, help="Continue the run in this directory (a run directory or one of its "
                               "checkpoints): new checkpoints and metrics go there too, unless --out is given."),
    out: str = typer.Option(None, help="Override run.out_dir."),
    iterations: int = typer.Option(None, help="Override run.iterations."),
    init_adapter: str = typer.Option(None, help="Override model.init_adapter (e.g. runs/sft/policy)."),
    repos_dir: str = typer.Option(None, "--repos-dir", help=REPOS_DIR_HELP),
) -> None:
    """Train a LoRA policy on codegym envs (config: model, env, rollout, algorithm, optim, run).

    Exit codes: 0 done, 1 the run stopped (`TrainingError`: e.g. every episode of an iteration
    was masked; the reasons are printed), 2 a bad config or --resume path.
    """
    from codegym.trainer.config import ConfigError, dump_config
    from codegym.trainer.loop import Trainer, TrainingError

    _use_repos_dir(repos_dir)
    if resume and not out:
        out = _resume_run_dir(resume)
    cfg = _load_train_config(config, out, iterations, init_adapter)
    dump_config(cfg, f"{cfg.run.out_dir}/config.yaml")
    trainer = Trainer(cfg, resume=resume)
    try:
        rows = trainer.train()
    except TrainingError as exc:
        console.print(f"training stopped: {exc}", style="red", markup=False)  # reasons may hold [brackets]
        raise typer.Exit(1) from exc
    except ConfigError as exc:  # found only once episodes come back (e.g. unknown reward components)
        console.print(str(exc), style="red", markup=False)
        raise typer.Exit(2) from exc
    finally:
        trainer.close()
    if rows:
        last = rows[-1]
        console.print(f"done: {trainer.iteration} iterations, last reward {last.get('reward/mean', 0):.3f}, "
                      f"pass rate {last.get('episodes/pass_rate', 0):.3f}; metrics in {cfg.run.out_dir}/metrics.jsonl")


@app.command()
def sft(
    config: str = typer.Argument(..., help="A YAML training config: its model and env sections are used."),
    out: str = typer.Option("runs/sft", help="Output directory (the adapter goes to OUT/policy)."),
    steps: int = typer.Option(None, help="Optimizer steps (the cap with a target; default: the config's sft.steps, "
                              "else 40)."),
    lr: float = typer.Option(None, help="Learning rate (default: the config's sft.lr)."),
    batch_rows: int = typer.Option(None, help="Sequences per step (default: the config's sft.batch_rows)."),
    target_success: float = typer.Option(None, help="Stop once the oracle success (mean probability of sampling "
                                         "the oracle episode at T=1) reaches this (default: sft.target_success)."),
    tasks: str = typer.Option(None, help="Comma-separated task ids (default: env.tasks, else all)."),
    full: bool = typer.Option(None, help="Train every base weight (-> OUT/model, use as model.base) instead of "
                              "the policy adapter (-> OUT/policy); default: the config's sft.full."),
    repos_dir: str = typer.Option(None, "--repos-dir", help=REPOS_DIR_HELP),
) -> None:
    """Behaviour cloning from compact oracle episodes: a warm start for `train` (model.init_adapter).

    Writes OUT/config.yaml too, so `codegym eval --adapter OUT/policy` finds the base."""
    from codegym.progress import Heartbeat
    from codegym.trainer.config import dump_config
    from codegym.trainer.sft import run_sft

    _use_repos_dir(repos_dir)
    cfg = _load_train_config(config, None, None)
    dump_config(cfg, f"{out}/config.yaml")
    last = {"line": "collecting oracle episodes, building the model"}

    def report(line: str) -> None:
        last["line"] = f"last: {line}"
        say(line)

    say(f"sft: collecting oracle episodes and building {cfg.model.base} ...")
    with Heartbeat("sft", say, status=lambda: last["line"]):
        summary = run_sft(cfg, out, steps=steps if steps is not None else (cfg.sft.steps or 40),
                          lr=cfg.sft.lr if lr is None else lr,
                          batch_rows=cfg.sft.batch_rows if batch_rows is None else batch_rows,
                          task_ids=tasks.split(",") if tasks else None, full=cfg.sft.full if full is None else full,
                          target_success=cfg.sft.target_success if target_success is None else target_success,
                          say=report)
    made = f"base model {summary['base']} (model.base)" if "base" in summary else \
        f"adapter {summary['adapter']} (model.init_adapter)"
    success = "" if summary.get("success") is None else f", oracle success {summary['success']:.3f}"
    say(f"sft: {summary['episodes']} oracle episodes, {summary['steps']} steps, loss "
        f"{summary['first_loss']} -> {summary['last_loss']}{success}; {made}")


@app.command("main")
def main_job(
    config: str = typer.Option("examples/main_job.yaml", help="The main job's YAML: a training config and its main: "
                               "section."),
    out: str = typer.Option("runs/main", help="Output directory (report.md, PNGs, summary.json, each arm's metrics)."),
    iterations: int = typer.Option(None, help="Override run.iterations."),
    seed: int = typer.Option(None, help="Override run.seed (the tasks drawn, the warm start, the rollouts)."),
    prepare_only: bool = typer.Option(False, "--prepare-only", help="Only build (and cache) the base the warm "
                                      "start starts from, then stop; scripts/run.sh runs this first."),
) -> None:
    """The main job: a warm start on train instances of the task families, a short LoRA RL run and
    its controls, all evaluated on held-out instances; a report."""
    from codegym.trainer.config import ConfigError
    from codegym.trainer.report import load_main_job, run_main_job

    overrides: dict = {"run": {"out_dir": out, **({} if iterations is None else {"iterations": iterations}),
                               **({} if seed is None else {"seed": seed})}}
    try:
        cfg, spec = load_main_job(config, overrides)
    except (ConfigError, FileNotFoundError) as exc:
        say(str(exc), style="red")
        raise typer.Exit(2) from exc
    report = run_main_job(cfg, spec, console=console, prepare_only=prepare_only)
    if report is not None:
        say(f"wrote {report}")


@app.command()
def demo(
    commands: int = typer.Option(200, help="Commands to time in the pooled sandbox."),
) -> None:
    """Build the image, warm a pool, run commands in a pooled sandbox and print timings."""
    from codegym.demo import run_demo

    run_demo(console, n_commands=commands)


@app.command()
def serve(
    model: str = typer.Option("tiny", help="tiny, tiny:small, a local model directory or a hub id."),
    port: int = typer.Option(8000, help="Port on 127.0.0.1 (0: a free one)."),
    adapter: str = typer.Option(None, help="Serve this peft adapter directory on the base."),
    name: str = typer.Option(None, "--served-model-name", help="The model's name in requests (default: --model)."),
    out: str = typer.Option(None, help="Also append every request's record (token ids, logprobs) to this JSONL."),
    ignore_adapter_loads: bool = typer.Option(False, "--ignore-adapter-loads", help="Fault injection, only to test "
                                              "adapter-sync checks: /v1/load_lora_adapter answers 200 but loads "
                                              "nothing (the old weights keep serving). Never for real serving."),
) -> None:
    """An OpenAI-compatible server on 127.0.0.1 that records exact token ids per session
    (header X-Codegym-Session); see docs/integrations.md."""
    from codegym.integrations.serve import CaptureServer, build_engine

    say(f"serve: loading {model} ...")
    server = CaptureServer(build_engine(model, adapter=adapter), model_name=name or model, port=port, out=out,
                           ignore_adapter_loads=ignore_adapter_loads)
    if ignore_adapter_loads:
        say("serve: --ignore-adapter-loads: adapter loads are answered but ignored (fault injection for tests)")
    say(f"serve: {server.url} (model {server.model_name}); Ctrl-C stops")
    try:
        server.serve_forever()
    finally:
        server.stop()


def _message(exc: BaseException) -> str:
    """An exception as one line: its message (a KeyError's without the quotes), else its type."""
    text = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
    lines = str(text).strip().splitlines()
    first = lines[0] if lines else type(exc).__name__
    return first if isinstance(exc, USER_ERRORS) else f"{type(exc).__name__}: {first}"


def main() -> None:
    """The `codegym` entry point: signal handlers first, then one line per error (see the module
    docstring)."""
    from codegym.sandbox.lifecycle import install_signal_handlers

    install_signal_handlers()  # the main thread: pools create sandboxes on worker threads
    args = sys.argv[1:]
    if "--debug" in args:
        _DEBUG["on"] = True
        args = [a for a in args if a != "--debug"]
    try:
        app(args=args, prog_name="codegym")
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:
        if _DEBUG["on"]:
            raise
        hint = "" if isinstance(exc, USER_ERRORS) else " (run with --debug for the traceback)"
        print(f"codegym: {_message(exc)}{hint}", file=sys.stderr)
        sys.exit(2 if isinstance(exc, USER_ERRORS) else 1)


if __name__ == "__main__":
    main()
