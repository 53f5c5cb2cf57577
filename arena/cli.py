"""The ``arena`` command: a thin layer over the library.

Each command imports what it needs when it runs, so that ``arena --help`` stays instant. User
errors (``ArenaError``) are printed as one line on stderr with exit code 2, never a traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from arena.limits import AffinityMode, Limits, SandboxMode, TimeControl, least

app = typer.Typer(
    name="arena",
    help="Run, referee and rate tournaments between Order and Chaos bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

SandboxOption = Annotated[
    SandboxMode,
    typer.Option(help="Isolate bots with bubblewrap (auto: when it is installed)."),
]
AffinityOption = Annotated[
    AffinityMode,
    typer.Option(help="Pin each match to a core (auto: when cores >= workers)."),
]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")]
AllVersionsOption = Annotated[
    bool,
    typer.Option(help="Every stored game, old bot versions too, each named NAME@VERSION."),
]


def _version(value: bool) -> None:
    if value:
        from arena import __version__

        typer.echo(f"arena {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Run, referee and rate tournaments between Order and Chaos bots."""


@app.command()
def match(
    bot_a: Annotated[str, typer.Argument(help="A bot: a program path, or a bundled bot's name.")],
    bot_b: Annotated[str, typer.Argument(help="The other bot.")],
    games: Annotated[int, typer.Option(min=1, help="Games to play; roles alternate.")] = 2,
    move_ms: Annotated[int, typer.Option(min=1, help="Time per move in ms.")] = 100,
    startup_ms: Annotated[
        int, typer.Option(min=least(TimeControl, "startup_ms"), help="Start-up allowance in ms.")
    ] = 5000,
    seed: Annotated[int, typer.Option(help="Seed given to the bots (ARENA_SEED).")] = 1,
    record: Annotated[
        Path | None, typer.Option(help="Write one JSON line per game to this file.")
    ] = None,
    sandbox: SandboxOption = SandboxMode.AUTO,
    affinity: AffinityOption = AffinityMode.AUTO,
    memory_mb: Annotated[
        int, typer.Option(min=least(Limits, "memory_mb"), help="Memory limit per bot.")
    ] = 1024,
    freeze_idle: Annotated[
        bool, typer.Option(help="Stop the bot that is not on move; record CPU times.")
    ] = False,
    quiet: QuietOption = False,
) -> None:
    """Play BOT_A against BOT_B, game 1 with BOT_A as Order, and print who won and why."""
    from arena.commands.match import run_match

    run_match(
        bot_a,
        bot_b,
        games=games,
        move_ms=move_ms,
        startup_ms=startup_ms,
        seed=seed,
        record=record,
        sandbox=sandbox,
        affinity=affinity,
        memory_mb=memory_mb,
        freeze_idle=freeze_idle,
        quiet=quiet,
    )


@app.command()
def tournament(
    config: Annotated[Path, typer.Argument(help="The tournament's YAML file.")],
    fresh: Annotated[bool, typer.Option(help="Discard stored games and start over.")] = False,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Worker processes (default: the config's).")
    ] = None,
    sandbox: Annotated[
        SandboxMode | None, typer.Option(help="Override the config's sandbox.")
    ] = None,
    affinity: Annotated[
        AffinityMode | None, typer.Option(help="Override the config's affinity.")
    ] = None,
    executor: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="Where matches run: local (worker processes) or inline (one by one, in this"
            " process); overrides the config's executor.",
        ),
    ] = None,
    force_workers: Annotated[
        bool,
        typer.Option(
            help="Use --workers/workers: even beyond what the machine runs fairly (its cores"
            " and memory); move times then become unfair."
        ),
    ] = False,
    quiet: QuietOption = False,
) -> None:
    """Run a tournament, or resume it: only the games missing from its store are played."""
    from arena.commands.tournament import run_tournament_command

    code = run_tournament_command(
        config,
        fresh=fresh,
        quiet=quiet,
        workers=workers,
        sandbox=sandbox,
        affinity=affinity,
        executor=executor,
        force_workers=force_workers,
    )
    raise typer.Exit(code)


@app.command()
def ratings(
    db: Annotated[Path, typer.Argument(help="A tournament's SQLite store.")],
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    all_versions: AllVersionsOption = False,
) -> None:
    """Standings of a stored tournament: Elo overall and per role, with intervals."""
    import json

    from arena.commands.standings import print_standings, standings_json
    from arena.store import Store

    with Store.open(db, readonly=True, all_versions=all_versions) as store:
        if json_output:
            typer.echo(json.dumps(standings_json(list(store.games())), indent=2))
        else:
            from rich.console import Console

            print_standings(Console(highlight=False, soft_wrap=True), store)


@app.command()
def export(
    db: Annotated[Path, typer.Argument(help="A tournament's SQLite store.")],
    format: Annotated[str, typer.Option("--format", help="jsonl, csv or pgn.")] = "jsonl",
    out: Annotated[Path | None, typer.Option(help="Write here instead of stdout.")] = None,
    all_versions: AllVersionsOption = False,
) -> None:
    """Export stored games as JSONL (like --record), CSV, or PGN for Ordo and BayesElo."""
    from arena.export import export_games

    export_games(db, format, out, all_versions=all_versions)


def main() -> None:
    """Entry point of the ``arena`` script: user errors become one line and exit code 2."""
    from arena.errors import ArenaError

    try:
        app()
    except ArenaError as exc:
        typer.echo(f"arena: error: {exc}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        typer.echo("arena: interrupted", err=True)
        sys.exit(130)
