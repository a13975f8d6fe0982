"""`codegym tasks ...`: list, show, build and validate task suites.

    codegym tasks list                    # built-in suites and their sizes
    codegym tasks validate toy            # reference solves every task, empty submission does not
    codegym tasks validate my.jsonl --jobs 2 --ids calc-1,calc-2
    codegym tasks show toy toy-add-typo   # one task as JSON

Mounted by `codegym.cli` as `codegym tasks`; also runs as `python -m codegym.tasks`.
"""

from __future__ import annotations

import difflib
import json
import os
import sys
import time

import typer

tasks_app = typer.Typer(help="Task suites: list, show, validate.", no_args_is_help=True)

REPOS_DIR_HELP = ("Where 'owner/name' task repos live: <dir>/<owner>/<name> (a clone or bare repo) or "
                  "<name>.bundle (default: $CODEGYM_REPOS_DIR).")


def use_repos_dir(repos_dir: str | None) -> None:
    """Make `--repos-dir` the repos directory of every task this process loads (it sets
    `$CODEGYM_REPOS_DIR`, which env workers and nested loaders read too)."""
    if not repos_dir:
        return
    from pathlib import Path

    from codegym.tasks.loader import REPOS_DIR_ENV

    path = Path(repos_dir).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(f"--repos-dir {repos_dir}: no such directory")
    os.environ[REPOS_DIR_ENV] = str(path.resolve())


@tasks_app.command("list")
def list_suites() -> None:
    """The built-in suites and how many tasks each holds (generated on first use)."""
    from codegym.tasks.loader import load_tasks
    from codegym.tasks.suites import SUITES

    for name in SUITES:
        typer.echo(f"{name}\t{len(load_tasks(name))} tasks")


@tasks_app.command("show")
def show(source: str, instance_id: str,
         repos_dir: str = typer.Option(None, "--repos-dir", help=REPOS_DIR_HELP)) -> None:
    """Print one task as JSON."""
    from codegym.tasks.loader import load_tasks

    use_repos_dir(repos_dir)
    tasks = load_tasks(source)
    try:
        task = tasks.by_id(instance_id)
    except KeyError:
        close = difflib.get_close_matches(instance_id, [t.instance_id for t in tasks], n=3)
        hint = f"did you mean {' or '.join(close)}? " if close else ""
        typer.echo(f"codegym: no task {instance_id!r} in {source} ({len(tasks)} tasks); {hint}"
                   f"`codegym tasks list {source}` lists them", err=True)
        raise typer.Exit(2) from None
    typer.echo(json.dumps(task.to_dict(), indent=2))


@tasks_app.command("validate")
def validate(
    source: str = typer.Argument(..., help="A built-in suite (humaneval, repofix, toy) or a JSONL file."),
    jobs: int = typer.Option(2, help="Tasks validated at once."),
    ids: str = typer.Option("", help="Comma-separated instance ids to validate (default: all)."),
    limit: int = typer.Option(0, help="Validate only the first N tasks (0: all)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Print every task, not only failures."),
    repos_dir: str = typer.Option(None, "--repos-dir", help=REPOS_DIR_HELP),
    repeats: int = typer.Option(1, "--repeats", min=1, help="Grade each submission N times; tests whose "
                                "outcome differs across the runs are flaky."),
    write_valid_to: str = typer.Option(None, "--write-valid", help="Write the task file without the broken "
                                       "tasks and the flaky tests to this JSONL path."),
) -> None:
    """Check every task on this host: the reference patch scores 1, the empty submission 0, and
    the workspace hides the hidden tests and the upstream refs. Exit code 1 if any task fails
    or any test is flaky."""
    from codegym.tasks.loader import load_tasks
    from codegym.tasks.validate import validate_tasks

    use_repos_dir(repos_dir)
    start = time.monotonic()
    tasks = load_tasks(source)
    for err in tasks.errors:
        typer.echo(f"LOAD ERROR {err}", err=True)
    chosen = list(tasks)
    if ids:
        wanted = set(ids.split(","))
        chosen = [t for t in chosen if t.instance_id in wanted]
        missing = wanted - {t.instance_id for t in chosen}
        if missing:
            typer.echo(f"unknown ids: {', '.join(sorted(missing))}", err=True)
            raise typer.Exit(2)
    if limit:
        chosen = chosen[:limit]

    def report(result) -> None:
        if not result.ok:
            typer.echo(f"FAIL {result.instance_id} ({result.seconds:.1f}s)")
            for problem in result.problems:
                typer.echo(f"    {problem}")
        elif verbose:
            typer.echo(f"ok   {result.instance_id} ({result.seconds:.1f}s)")

    results = validate_tasks(chosen, jobs=jobs, on_result=report, repeats=repeats)
    finish_report(source, results, len(tasks.errors), write_valid_to, seconds=time.monotonic() - start)


from codegym.tasks.mutate.cli import mutate_command  # noqa: E402 - `codegym tasks mutate`

tasks_app.command("mutate")(mutate_command)


def finish_report(source: str, results: list, load_errors: int, write_valid_to: str | None,
                  seconds: float) -> None:
    """The end of `tasks validate` in either mode: `--write-valid`, the summary lines, the exit
    code (1 when a task is broken, a test is flaky or a line did not load)."""
    from codegym.tasks.suites import SUITES, suite_jsonl
    from codegym.tasks.validate import summary, write_valid

    lines = summary(source, results, load_errors)
    lines[-1] += f", {seconds:.1f}s"
    if write_valid_to:
        path = suite_jsonl(source) if source in SUITES else source
        written, removed = write_valid(path, results, write_valid_to)
        lines.insert(-1, f"wrote {written} valid task(s) to {write_valid_to} ({removed} flaky test(s) removed)")
    for line in lines:
        typer.echo(line)
    if load_errors or any(not r.ok or r.flaky for r in results):
        raise typer.Exit(1)


def main() -> None:
    """`python -m codegym.tasks`: a mistake (an unknown suite or file) is one line and exit code 2."""
    try:
        tasks_app()
    except (ValueError, LookupError, FileNotFoundError) as exc:
        typer.echo(f"codegym: {exc}", err=True)
        sys.exit(2)
