"""`codegym tasks ...`: list, show, build and validate task suites.

    codegym tasks list                    # built-in suites and their sizes
    codegym tasks validate toy            # reference solves every task, empty submission does not
    codegym tasks validate my.jsonl --jobs 2 --ids calc-1,calc-2
    codegym tasks show toy toy-add-typo   # one task as JSON

Mounted by `codegym.cli` as `codegym tasks`; also runs as `python -m codegym.tasks`.
"""

from __future__ import annotations

import json
import time

import typer

tasks_app = typer.Typer(help="Task suites: list, show, validate.", no_args_is_help=True)


@tasks_app.command("list")
def list_suites() -> None:
    """The built-in suites and how many tasks each holds (generated on first use)."""
    from codegym.tasks.loader import load_tasks
    from codegym.tasks.suites import SUITES

    for name in SUITES:
        typer.echo(f"{name}\t{len(load_tasks(name))} tasks")


@tasks_app.command("show")
def show(source: str, instance_id: str) -> None:
    """Print one task as JSON."""
    from codegym.tasks.loader import load_tasks

    typer.echo(json.dumps(load_tasks(source).by_id(instance_id).to_dict(), indent=2))


@tasks_app.command("validate")
def validate(
    source: str = typer.Argument(..., help="A built-in suite (humaneval, repofix, toy) or a JSONL file."),
    jobs: int = typer.Option(2, help="Tasks validated at once."),
    ids: str = typer.Option("", help="Comma-separated instance ids to validate (default: all)."),
    limit: int = typer.Option(0, help="Validate only the first N tasks (0: all)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Print every task, not only failures."),
) -> None:
    """Check every task: the reference patch scores 1, the empty submission 0, and the
    workspace hides the hidden tests and the upstream refs. Exit code 1 if any task fails."""
    from codegym.tasks.loader import load_tasks
    from codegym.tasks.validate import validate_tasks

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

    results = validate_tasks(chosen, jobs=jobs, on_result=report)
    failed = [r for r in results if not r.ok]
    typer.echo(
        f"{source}: {len(results) - len(failed)}/{len(results)} tasks valid, "
        f"{len(tasks.errors)} load error(s), {time.monotonic() - start:.1f}s"
    )
    if failed or tasks.errors:
        raise typer.Exit(1)


def main() -> None:
    tasks_app()
