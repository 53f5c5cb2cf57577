"""The ``arena`` command: a thin layer over the library.

Each command imports what it needs when it runs, so that ``arena --help`` stays instant. User
errors (``ArenaError``) are printed as one line on stderr with exit code 2, never a traceback.
"""

from __future__ import annotations

import enum
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from arena.limits import AffinityMode, Limits, SandboxMode, TimeControl, least


class FaultReason(enum.StrEnum):
    """The ways a bot loses by its own fault (``arena.rules.Reason``'s faults)."""

    timeout = "timeout"
    illegal = "illegal"
    malformed = "malformed"
    crash = "crash"
    startup = "startup"


app = typer.Typer(
    name="arena",
    help="Run, referee and rate tournaments between Order and Chaos bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    # NO_COLOR (https://no-color.org): plain help, without bold or dim either.
    rich_markup_mode=None if os.environ.get("NO_COLOR") else "rich",
)

SandboxOption = Annotated[
    SandboxMode,
    typer.Option(help="Isolate bots with bubblewrap (auto: when it is installed)."),
]
AffinityOption = Annotated[
    AffinityMode,
    typer.Option(help="Pin each match to a core (auto: when cores >= workers)."),
]
QuietOption = Annotated[
    bool, typer.Option("--quiet", "-q", help="No progress output (the results still print).")
]
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
    openings: Annotated[
        int,
        typer.Option(
            min=0,
            max=24,  # arena.schedule.MAX_OPENING_PLIES, not imported here: --help stays instant
            help="Start each pair of games from N random plies.",
        ),
    ] = 0,
    quiet: QuietOption = False,
) -> None:
    """Play BOT_A against BOT_B, game 1 with BOT_A as Order, and print who won and why.

    It ends with each bot's score per role, the Elo difference with its 95% interval (Order's
    advantage taken out) and the likelihood of superiority.

    Example: arena match my_bot.py greedy --games 20 --move-ms 200
    """
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
        openings=openings,
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
            help="Where matches run: local (worker processes), inline (one by one, in this"
            " process) or cluster (see --cluster); overrides the config's executor.",
        ),
    ] = None,
    cluster: Annotated[
        str | None,
        typer.Option(
            metavar="ADDRESS",
            help="Play the matches on a Dask cluster: tcp://HOST:PORT (its scheduler) or"
            " local:N (N worker processes here); overrides the config's cluster.",
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
    """Run a tournament, or resume it: only the games missing from its store are played.

    Example: arena tournament tournaments/example.yaml --workers 2
    """
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
        cluster=cluster,
    )
    raise typer.Exit(code)


@app.command()
def ratings(
    db: Annotated[Path, typer.Argument(help="A tournament's SQLite store.")],
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    wide: Annotated[bool, typer.Option(help="Every column; matrices at any width.")] = False,
    all_versions: AllVersionsOption = False,
) -> None:
    """Standings of a stored tournament: Elo overall and per role, with intervals.

    Elo: a maximum-likelihood fit of all games (order-independent, 95% intervals). seq:
    sequential Elo, K=16, every bot starting at 1500, over the games in a fixed interleaving of
    rounds (the same games give the same numbers). A footer explains every column.

    Example: arena ratings results/example.sqlite --wide
    """
    from arena.commands.standings import ratings_command

    ratings_command(db, json_output=json_output, wide=wide, all_versions=all_versions)


@app.command()
def export(
    db: Annotated[Path, typer.Argument(help="A tournament's SQLite store.")],
    format: Annotated[
        str, typer.Option("--format", metavar="[jsonl|csv|pgn]", help="jsonl, csv or pgn.")
    ] = "jsonl",
    out: Annotated[Path | None, typer.Option(help="Write here instead of stdout.")] = None,
    all_versions: AllVersionsOption = False,
) -> None:
    """Export stored games as JSONL (like --record), CSV, or PGN for Ordo and BayesElo.

    Example: arena export results/example.sqlite --format pgn --out games.pgn
    """
    from arena.export import export_games

    export_games(db, format, out, all_versions=all_versions)


@app.command()
def faults(
    db: Annotated[Path, typer.Argument(help="A tournament's SQLite store.")],
    bot: Annotated[str | None, typer.Option(help="Only this bot's faults.")] = None,
    reason: Annotated[FaultReason | None, typer.Option(help="Only faults of this kind.")] = None,
    lines: Annotated[int, typer.Option(min=0, help="Lines of the bot's stderr to show.")] = 5,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    all_versions: AllVersionsOption = False,
) -> None:
    """The games bots lost by their own fault: why, and the end of their stderr (escaped).

    Example: arena faults results/example.sqlite --bot my_bot --reason crash
    """
    from arena.commands.faults import faults_command

    faults_command(
        db,
        bot=bot,
        reason=None if reason is None else reason.value,
        json_output=json_output,
        stderr_lines=lines,
        all_versions=all_versions,
    )


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
