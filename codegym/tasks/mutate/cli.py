"""`codegym tasks mutate`: mine mutation tasks from a PyPI release, a directory or a git repo.

    codegym tasks mutate --pypi toolz==0.12.1 --out mined/toolz --max-tasks 20 --seed 0
    codegym tasks mutate path/to/project --out mined/mine
    codegym tasks mutate https://github.com/pytoolz/toolz --rev 0.12.1 --out mined/toolz-git

Writes `OUT/tasks.jsonl` (load it with `load_tasks`, validate it with `codegym tasks
validate`), `OUT/repos/*.git` and `OUT/mined.jsonl`; prints a line per mutant tried and the
yield.
"""

from __future__ import annotations

from pathlib import Path

import typer


def resolve_source(source: str | None, pypi: str | None, rev: str, sha256: str | None):
    """The `SourceTree` the command line names (exactly one of SOURCE and --pypi)."""
    from codegym.tasks.mutate.sources import directory_tree, git_tree, pypi_tree

    if bool(source) == bool(pypi):
        raise ValueError(
            "give exactly one source: --pypi NAME==VERSION, a local directory or a git repository"
        )
    if pypi:
        name, sep, version = pypi.partition("==")
        if not sep or not name or not version:
            raise ValueError(
                f"--pypi {pypi!r}: expected NAME==VERSION (an exact release, e.g. toolz==0.12.1)"
            )
        return pypi_tree(name.strip(), version.strip(), sha256=sha256)
    path = Path(source)
    if path.is_dir() and not (path / ".git").exists() and not (path / "HEAD").exists():
        return directory_tree(path)
    if path.exists() or "://" in source or source.endswith(".git") or source.startswith("git@"):
        return git_tree(source, rev=rev)
    raise FileNotFoundError(f"{source}: neither a directory nor a git repository")


def mutate_command(
    source: str = typer.Argument(None, help="A local directory or a git repository (path or URL)."),
    pypi: str = typer.Option(None, "--pypi", help="NAME==VERSION: the release's sdist, from PyPI with pip."),
    out: str = typer.Option(..., "--out", help="Folder for tasks.jsonl, mined.jsonl and repos/."),
    max_tasks: int = typer.Option(20, "--max-tasks", min=1, help="Stop after this many kept tasks."),
    seed: int = typer.Option(0, "--seed", help="Seed of the mutants' order and choices."),
    max_broken: int = typer.Option(
        5, "--max-broken", min=1, help="Keep a mutant breaking at most this many tests."
    ),
    max_tried: int = typer.Option(None, "--max-tried", min=1, help="Stop after this many mutants tried."),
    rev: str = typer.Option("HEAD", "--rev", help="With a git repository: the revision to mine."),
    sha256: str = typer.Option(None, "--sha256", help="With --pypi: the sdist's expected sha256."),
    suite: str = typer.Option("mutants", "--suite", help="The tasks' `suite` field."),
    only: str = typer.Option(
        None,
        "--only",
        help="Comma-separated positions of the seeded order (as the "
        "progress lines number them) to try, the rest skipped: finishes a run cut short.",
    ),
) -> None:
    """Mine SWE-bench-form tasks from a real project: small AST mutations that 1..K of its own
    tests catch, each an orphan base commit holding the mutated code (see docs/tasks.md)."""
    from codegym.envs.pools import shared_pool
    from codegym.tasks.mutate.miner import mine

    tree = resolve_source(source, pypi, rev, sha256)
    pool = shared_pool(backend="docker", purpose="grade")
    report = mine(
        tree,
        Path(out),
        pool,
        max_tasks=max_tasks,
        seed=seed,
        max_broken=max_broken,
        max_tried=max_tried,
        suite=suite,
        log=lambda line: typer.echo(line),
        only={int(n) for n in only.split(",") if n.strip()} if only else None,
    )
    if not report.tasks:
        raise typer.Exit(1)
