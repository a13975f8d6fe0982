"""The `codegym` command.

    codegym doctor                 # what is installed, what is missing, how to fix it
    codegym images build           # build the sandbox images (offline bootstrap if needed)
    codegym sandbox gc             # remove leftover containers of dead runs
    codegym demo                   # build, warm a pool, run commands, print timings
"""

from __future__ import annotations

import sys

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(help="codegym: coding tasks as Gymnasium envs in Docker sandboxes.", no_args_is_help=True)
images_app = typer.Typer(help="Sandbox images.", no_args_is_help=True)
sandbox_app = typer.Typer(help="Sandboxes and their containers.", no_args_is_help=True)
app.add_typer(images_app, name="images")
app.add_typer(sandbox_app, name="sandbox")
console = Console()


def _client():
    from codegym.sandbox import SandboxError, docker_client

    try:
        return docker_client()
    except SandboxError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc


@images_app.command("build")
def images_build(
    name: str = typer.Argument("python", help="Which image (a directory under sandbox_images/)."),
    base_image: str = typer.Option(None, help="Build FROM this image instead of the offline Debian bootstrap."),
    force: bool = typer.Option(False, help="Rebuild even if the content-addressed tag exists."),
) -> None:
    """Build a sandbox image; an unchanged image is never rebuilt."""
    from codegym.sandbox.images import build_image

    tag = build_image(_client(), name, base_image=base_image, force=force)
    console.print(tag)


@images_app.command("list")
def images_list() -> None:
    """List codegym images in the local engine."""
    from codegym.sandbox.images import list_images

    table = Table("tag", "id", "size (MB)", "created")
    for row in list_images(_client()):
        table.add_row(row["tag"], row["id"], f"{row['size_mb']:.0f}", str(row["created"])[:19])
    console.print(table)


@sandbox_app.command("gc")
def sandbox_gc(
    everything: bool = typer.Option(False, "--all", help="Also remove live runs' containers on this host."),
) -> None:
    """Remove leftover containers of dead codegym runs."""
    from codegym.sandbox.lifecycle import reap

    removed = reap(_client(), everything=everything)
    for name in removed:
        console.print(f"removed {name}")
    console.print(f"{len(removed)} container(s) removed")


@app.command()
def doctor() -> None:
    """Check the Docker engine, images, bubblewrap and torch, with the fix for each gap."""
    from codegym.doctor import run_checks

    table = Table("check", "status", "detail / fix")
    ok = True
    for check in run_checks():
        ok &= check.ok or not check.required
        status = "[green]ok[/green]" if check.ok else ("[red]missing[/red]" if check.required else "[yellow]optional[/yellow]")
        table.add_row(check.name, status, check.detail if check.ok else check.fix)
    console.print(table)
    raise typer.Exit(0 if ok else 1)


@app.command()
def demo(
    commands: int = typer.Option(200, help="Commands to time in the pooled sandbox."),
) -> None:
    """Build the image, warm a pool, run commands in a pooled sandbox and print timings."""
    from codegym.demo import run_demo

    run_demo(console, n_commands=commands)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
