"""The ``arena`` command: a thin layer over the library.

Each command imports what it needs when it runs, so that ``arena --help`` stays instant. User
errors (``ArenaError``) are printed as one line on stderr with exit code 2, never a traceback.
"""

from __future__ import annotations

import enum
import gc
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
import typer.core

from arena.limits import AffinityMode, Limits, Measure, SandboxMode, TimeControl, least, parse_clock

# The choices of options, as Typer wants them: enums of the values. They mirror the library's
# (``arena.rules.Reason``, ``FAULT_REASONS``, ``Role``; ``arena.commands.new_bot.Language``;
# ``arena.report.audience.NAME_CHOICES``)
# instead of importing them, so that ``arena --help`` does not import the rules;
# tests/test_layers.py checks that they stay the same.


class FaultReason(enum.StrEnum):
    """The ways a bot loses by its own fault (``arena.rules.Reason``'s faults)."""

    timeout = "timeout"
    illegal = "illegal"
    malformed = "malformed"
    crash = "crash"
    startup = "startup"


class EndReason(enum.StrEnum):
    """Every way a game ends (``arena.rules.Reason``)."""

    five = "five"
    full = "full"
    timeout = "timeout"
    illegal = "illegal"
    malformed = "malformed"
    crash = "crash"
    startup = "startup"


class Side(enum.StrEnum):
    """The two roles (``arena.rules.Role``)."""

    order = "order"
    chaos = "chaos"


class ShownNames(enum.StrEnum):
    """The names a report shows (``arena.report.audience.NAME_CHOICES``)."""

    entry = "entry"
    both = "both"


_HYPHEN = "\u2011"  # a non-breaking hyphen: wrapping never splits `--move-ms` or `no-color`


if TYPE_CHECKING:
    from click import HelpFormatter as _HelpFormatter
else:  # the formatter of the click that Typer runs on (a copy of its own in recent versions)
    _HelpFormatter = typer.Context.formatter_class


class _Formatter(_HelpFormatter):
    """Click's plain help, as a well-kept CLI prints it at any width: lines are never
    broken at a hyphen (an option, a path), and the description column stays readable on a
    narrow terminal (the option column gives way first)."""

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        super().write_usage(prog.replace("-", _HYPHEN), args.replace("-", _HYPHEN), prefix)

    def write_text(self, text: str) -> None:
        super().write_text(text.replace("-", _HYPHEN))

    def write_dl(
        self, rows: Iterable[tuple[str, str]], col_max: int = 30, col_spacing: int = 2
    ) -> None:
        kept = [(a.replace("-", _HYPHEN), b.replace("-", _HYPHEN)) for a, b in rows]
        super().write_dl(kept, min(col_max, max(14, self.width // 3)), col_spacing)

    def getvalue(self) -> str:
        return super().getvalue().replace(_HYPHEN, "-")


class _Context(typer.Context):
    formatter_class = _Formatter  # type: ignore[assignment]


class _Command(typer.core.TyperCommand):
    """A command whose usage line names its arguments as its help does (``BOT_A``, ``[GAME]``),
    without Typer's braces."""

    context_class = _Context

    def collect_usage_pieces(self, ctx: typer.Context) -> list[str]:  # type: ignore[override]
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                name = (param.metavar or param.name or "").upper()
                pieces.append(name if param.required else f"[{name}]")
        return pieces


class _Group(typer.core.TyperGroup):
    """The command list with each command's whole first sentence, wrapped, never cut short."""

    context_class = _Context

    def format_commands(  # type: ignore[override]
        self, ctx: typer.Context, formatter: _HelpFormatter
    ) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                first = (command.help or "").split("\n\n")[0]
                rows.append((name, " ".join(first.split())))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


app = typer.Typer(
    name="arena",
    cls=_Group,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    # Plain help (click's), the same on a terminal, in a pipe and with NO_COLOR: no boxes cut
    # at the terminal's width, and no import of rich (a faster `arena --help`).
    rich_markup_mode=None,
)


def _a_store(path: Path) -> Path:
    """A tournament file given where its store is meant is said so, with the store's path."""
    if path.suffix.lower() in (".yaml", ".yml") and path.is_file():
        from arena.config import load_config
        from arena.errors import ArenaError

        try:
            db = load_config(path).db
        except ArenaError:
            return path  # not a tournament file after all: the store's own error follows
        raise ArenaError(f"{path} is a tournament file, not a store: its games are in {db}")
    return path


StoreArgument = Annotated[
    Path,
    typer.Argument(metavar="DB", help="A tournament's SQLite store.", callback=_a_store),
]
SandboxOption = Annotated[
    SandboxMode,
    typer.Option(
        metavar="auto|bwrap|none", help="Isolate bots with bubblewrap (auto: when installed)."
    ),
]
AffinityOption = Annotated[
    AffinityMode,
    typer.Option(
        metavar="auto|on|off", help="Pin each match to a core (auto: when cores >= workers)."
    ),
]
QuietOption = Annotated[
    bool, typer.Option("--quiet", "-q", help="No progress output (the results still print).")
]
MoveMsOption = Annotated[int, typer.Option(min=1, metavar="MS", help="Time per move in ms.")]
MemoryMbOption = Annotated[
    int,
    typer.Option(
        min=least(Limits, "memory_mb"),
        metavar="MB",
        help="limits.memory_mb: each bot's resident memory, all its processes together, where "
        "arena has a memory cgroup for it (root); else the address space of each process.",
    ),
]
StartupMsOption = Annotated[
    int,
    typer.Option(
        min=least(TimeControl, "startup_ms"), metavar="MS", help="Start-up allowance in ms."
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON (for scripts).")]
ClockOption = Annotated[
    str | None,
    typer.Option(
        metavar="SECONDS[+INC]",
        help="A game clock per bot with a Fischer increment, e.g. 60+0.5 (replaces --move-ms).",
    ),
]
MeasureOption = Annotated[
    Measure,
    typer.Option(
        metavar="wall|cpu",
        help="Charge each move the CPU time of the bot's processes, or wall time.",
    ),
]
MarginMsOption = Annotated[
    int, typer.Option(min=0, metavar="MS", help="Lateness within this many ms is not a loss.")
]


def _time_control(
    move_ms: int, startup_ms: int, clock: str | None, measure: Measure, margin_ms: int
) -> TimeControl:
    """The time control the options describe (a bad --clock is a usage error, in one line)."""
    clock_ms, increment_ms = None, 0
    if clock is not None:
        try:
            clock_ms, increment_ms = parse_clock(clock)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="'--clock'") from None
    return TimeControl(
        move_ms=move_ms,
        startup_ms=startup_ms,
        clock_ms=clock_ms,
        increment_ms=increment_ms,
        measure=measure,
        margin_ms=margin_ms,
    )


AllVersionsOption = Annotated[
    bool,
    typer.Option(
        "--all-versions",
        help="Every stored game, old bot versions too, each named NAME@VERSION.",
    ),
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
    """Run, referee and rate tournaments between Order and Chaos bots.

    A bot is a program (any language) speaking the "arena 1" line protocol (docs/protocol.md),
    or the name of a bundled bot (random, greedy, heuristic, alphabeta, mcts, perfect, shell). Each
    command has -h with an example.

    \b
    Example:
      arena tournament tournaments/example.yaml
      arena ratings tournaments/results/example.sqlite
      arena new-bot mybot && arena validate mybot
      arena match mybot greedy --games 20
    """


# The options of `arena match`.
BotAArgument = Annotated[
    str, typer.Argument(metavar="BOT_A", help="A bot: a program path, or a bundled bot's name.")
]
BotBArgument = Annotated[str, typer.Argument(metavar="BOT_B", help="The other bot.")]
MatchGamesOption = Annotated[
    int, typer.Option(min=1, metavar="N", help="Games to play; roles alternate.")
]
MatchSeedOption = Annotated[
    int, typer.Option(metavar="N", help="Seed given to the bots (ARENA_SEED).")
]
RecordOption = Annotated[
    Path | None, typer.Option(metavar="FILE", help="Write one JSON line per game to this file.")
]
FreezeIdleOption = Annotated[
    bool,
    typer.Option(
        "--freeze-idle/--no-freeze-idle",
        help="Stop the bot that is not on move (--no-freeze-idle: let bots ponder).",
    ),
]
MatchOpeningsOption = Annotated[
    int,
    typer.Option(
        min=0,
        max=24,  # schedule.MAX_OPENING_PLIES, not imported here: --help stays instant
        metavar="N",
        help="Start each pair of games from N random plies.",
    ),
]


@app.command(cls=_Command)
def match(
    bot_a: BotAArgument,
    bot_b: BotBArgument,
    games: MatchGamesOption = 2,
    move_ms: MoveMsOption = 100,
    clock: ClockOption = None,
    measure: MeasureOption = Measure.CPU,
    margin_ms: MarginMsOption = 0,
    startup_ms: StartupMsOption = 5000,
    seed: MatchSeedOption = 1,
    record: RecordOption = None,
    sandbox: SandboxOption = SandboxMode.AUTO,
    affinity: AffinityOption = AffinityMode.AUTO,
    memory_mb: MemoryMbOption = 1024,
    freeze_idle: FreezeIdleOption = True,
    openings: MatchOpeningsOption = 0,
    quiet: QuietOption = False,
) -> None:
    """Play BOT_A against BOT_B, game 1 with BOT_A as Order, and print who won and why.

    It ends with each bot's score per role, the Elo difference with its 95% interval (Order's
    advantage taken out) and the likelihood of superiority.

    \b
    Example:
      arena match my_bot.py greedy --games 20 --move-ms 200
    """
    from arena.commands.match import run_match
    from arena.commands.start import Duel

    time_control = _time_control(move_ms, startup_ms, clock, measure, margin_ms)
    duel = Duel(bot_a, bot_b, time_control, seed, openings, sandbox, quiet)
    run_match(duel, games, record, affinity, memory_mb=memory_mb, freeze_idle=freeze_idle)


# The options of `arena tournament`.
ConfigArgument = Annotated[
    Path, typer.Argument(metavar="CONFIG", help="The tournament's YAML file.")
]
FreshOption = Annotated[bool, typer.Option("--fresh", help="Discard stored games and start over.")]
WorkersOption = Annotated[
    int | None,
    typer.Option(min=1, metavar="N", help="Worker processes (default: the config's)."),
]
SandboxOverride = Annotated[
    SandboxMode | None,
    typer.Option(metavar="auto|bwrap|none", help="Override the config's sandbox."),
]
AffinityOverride = Annotated[
    AffinityMode | None,
    typer.Option(metavar="auto|on|off", help="Override the config's affinity."),
]
ExecutorOverride = Annotated[
    str | None,
    typer.Option(
        metavar="NAME",
        help="Where matches run: local (worker processes), inline (one by one, in this"
        " process) or cluster (see --cluster); overrides the config's executor.",
    ),
]
ClusterOverride = Annotated[
    str | None,
    typer.Option(
        metavar="ADDRESS",
        help="Play the matches on a Dask cluster: tcp://HOST:PORT (its scheduler) or"
        " local:N (N worker processes here); overrides the config's cluster.",
    ),
]
ForceWorkersOption = Annotated[
    bool,
    typer.Option(
        "--force-workers",
        help="Use --workers/workers: even beyond what the machine runs fairly (its cores"
        " and memory); move times then become unfair.",
    ),
]
TrustedBotsOption = Annotated[
    bool,
    typer.Option(
        "--trusted-bots",
        help="The bots are trusted: on a cluster they may run without bubblewrap, where"
        " they could reach its scheduler (and so run code on every worker).",
    ),
]
RatingIntervalOption = Annotated[
    int | None,
    typer.Option(
        min=1,
        metavar="N",
        help="Print the standings (compact) every N games, also with --quiet.",
    ),
]
ServeOption = Annotated[
    str | None,
    typer.Option(
        metavar="[HOST:]PORT",
        help="Serve a live page of the run (standings, games in progress) at HOST:PORT;"
        " HOST is 127.0.0.1 unless given.",
    ),
]


@app.command(cls=_Command)
def tournament(
    config: ConfigArgument,
    fresh: FreshOption = False,
    workers: WorkersOption = None,
    sandbox: SandboxOverride = None,
    affinity: AffinityOverride = None,
    executor: ExecutorOverride = None,
    cluster: ClusterOverride = None,
    force_workers: ForceWorkersOption = False,
    trusted_bots: TrustedBotsOption = False,
    rating_interval: RatingIntervalOption = None,
    serve: ServeOption = None,
    quiet: QuietOption = False,
) -> None:
    """Run a tournament, or resume it: only the games missing from its store are played.

    \b
    Example:
      arena tournament tournaments/example.yaml --workers 2
    """
    from arena.commands.tournament import Overrides, run_tournament_command

    overrides = Overrides(
        workers, sandbox, affinity, executor, force_workers, cluster, trusted_bots
    )
    code = run_tournament_command(
        config,
        overrides,
        fresh=fresh,
        quiet=quiet,
        rating_interval=rating_interval,
        serve=serve,
    )
    raise typer.Exit(code)


@app.command(cls=_Command)
def serve(
    db: StoreArgument,
    port: Annotated[
        int, typer.Option(min=0, max=65535, metavar="N", help="The port (0: any free one).")
    ] = 8642,
    host: Annotated[
        str, typer.Option(metavar="HOST", help="The address to listen on.")
    ] = "127.0.0.1",
) -> None:
    """Serve the live page of a store, running or finished, until Ctrl-C: the standings, the
    cross-table, faults, the games in progress move by move, a page per bot.

    \b
    Example:
      arena serve tournaments/results/example.sqlite
    """
    from arena.commands.serve import serve_command

    serve_command(db, host, port)


@app.command(cls=_Command)
def ratings(
    db: StoreArgument,
    json_output: JsonOption = False,
    wide: Annotated[
        bool, typer.Option("--wide", help="Every column; matrices at any width.")
    ] = False,
    all_versions: AllVersionsOption = False,
    csv_output: Annotated[
        bool, typer.Option("--csv", help="Print the standings as CSV (for a gradebook).")
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", metavar="FILE", help="With --csv: write here, not stdout."),
    ] = None,
) -> None:
    """Standings of a stored tournament: score, Elo overall and per role, with intervals.

    Elo: a maximum-likelihood fit of all games (order-independent, 95% intervals). seq:
    sequential Elo, K=16, every bot starting at 1500, over the games in a fixed interleaving of
    rounds (the same games give the same numbers). A legend and a footer explain every column.

    \b
    Example:
      arena ratings tournaments/results/example.sqlite --wide
      arena ratings tournaments/results/example.sqlite \\
          --csv -o marks.csv
    """
    from arena.commands.ratings import ratings_command

    ratings_command(
        db,
        json_output=json_output,
        wide=wide,
        all_versions=all_versions,
        csv_output=csv_output,
        out=out,
    )


@app.command(cls=_Command)
def export(
    db: StoreArgument,
    format: Annotated[
        str, typer.Option("--format", metavar="jsonl|csv|pgn", help="The file format.")
    ] = "jsonl",
    out: Annotated[
        Path | None, typer.Option(metavar="FILE", help="Write here instead of stdout.")
    ] = None,
    all_versions: AllVersionsOption = False,
) -> None:
    """Export stored games as JSONL (like --record), CSV, or PGN for Ordo and BayesElo.

    \b
    Example:
      arena export tournaments/results/example.sqlite \\
          --format pgn --out games.pgn
    """
    from arena.export.formats import export_games

    export_games(db, format, out, all_versions=all_versions)


@app.command(cls=_Command)
def faults(
    db: StoreArgument,
    bot: Annotated[str | None, typer.Option(metavar="NAME", help="Only this bot's faults.")] = None,
    reason: Annotated[
        FaultReason | None,
        typer.Option(
            metavar="timeout|illegal|malformed|crash|startup", help="Only faults of this kind."
        ),
    ] = None,
    lines: Annotated[
        int, typer.Option(min=0, metavar="N", help="Lines of the bot's stderr to show.")
    ] = 5,
    json_output: JsonOption = False,
    all_versions: AllVersionsOption = False,
) -> None:
    """The games bots lost by their own fault: why, and the end of their stderr (escaped).

    \b
    Example:
      arena faults tournaments/results/example.sqlite \\
          --bot shell --reason crash
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


# --- the bot author's loop: new-bot, validate, submit, sprt -----------------------------------
class Language(enum.StrEnum):
    """The languages ``arena new-bot`` writes a skeleton in (``arena.commands.new_bot``)."""

    python = "python"
    c = "c"
    sh = "sh"


@app.command("new-bot", cls=_Command)
def new_bot(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The bot's name (and its folder's).")],
    lang: Annotated[
        Language, typer.Option(metavar="python|c|sh", help="The skeleton's language.")
    ] = Language.python,
    dir: Annotated[
        Path, typer.Option(metavar="DIR", help="Where to create the bot's folder.")
    ] = Path("."),
    build: Annotated[
        bool,
        typer.Option(
            "--build/--no-build",
            show_default=False,
            help="Compile a C skeleton at once, with cc (the default).",
        ),
    ] = True,
    json_output: JsonOption = False,
) -> None:
    """Write a working, commented bot skeleton in DIR/NAME/ (never over anything).

    It plays legal moves, shows where the strategy goes, and passes arena validate as written.

    \b
    Example:
      arena new-bot mybot --lang c
      arena validate mybot
    """
    from arena.commands.new_bot import run_new_bot

    run_new_bot(name, lang.value, dir, build=build, json_output=json_output)


@app.command(cls=_Command)
def validate(
    bots: Annotated[
        list[str],
        typer.Argument(
            metavar="BOT...", help="Programs, bot folders, bundled names, folders of bots."
        ),
    ],
    games: Annotated[
        int, typer.Option(min=1, metavar="N", help="Games in each role against random.")
    ] = 3,
    move_ms: MoveMsOption = 100,
    clock: ClockOption = None,
    measure: MeasureOption = Measure.CPU,
    margin_ms: MarginMsOption = 0,
    startup_ms: StartupMsOption = 5000,
    sandbox: SandboxOption = SandboxMode.AUTO,
    transcript: Annotated[
        bool, typer.Option("--transcript", help="Show every line both ways, timestamped (ms).")
    ] = False,
    json_output: JsonOption = False,
    memory_mb: MemoryMbOption = 1024,
    total_s: Annotated[
        float,
        typer.Option(
            min=1,
            metavar="S",
            help="With several bots: bots not started within S seconds are not checked.",
        ),
    ] = 600,
) -> None:
    """Check that a bot speaks the protocol: start-up, replies, timing, silence, quit, sandbox.

    Prints a checklist, each failure with what the bot wrote and a hint; exit status 0 only when
    every check passes. Several bots, or a folder of bots (each sub-folder and program in it),
    are checked at once, as many as the machine runs fairly, into one table: a row per bot.

    \b
    Example:
      arena validate mybot --transcript
      arena validate bots/
    """
    from arena.commands.validate import run_validate

    raise typer.Exit(
        run_validate(
            bots,
            games=games,
            time_control=_time_control(move_ms, startup_ms, clock, measure, margin_ms),
            sandbox=sandbox,
            json_output=json_output,
            transcript=transcript,
            memory_mb=memory_mb,
            total_s=total_s,
        )
    )


@app.command(cls=_Command)
def submit(
    bot: Annotated[
        str,
        typer.Argument(metavar="BOT", help="The bot: a program, its folder, or a bundled name."),
    ],
    config: Annotated[
        Path, typer.Argument(metavar="CONFIG", help="The tournament's YAML file (edited in place).")
    ],
    name: Annotated[
        str | None, typer.Option(metavar="NAME", help="Its name in the tournament.")
    ] = None,
    workers: WorkersOption = None,
    json_output: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Validate BOT, add it to CONFIG (comments kept), play its games only, show its place.

    A bot that fails validation is not added; the checklist says why.

    \b
    Example:
      arena submit mybot tournaments/ladder.yaml --name v1
    """
    from arena.commands.submit import run_submit

    raise typer.Exit(
        run_submit(bot, config, name=name, json_output=json_output, quiet=quiet, workers=workers)
    )


# The options of `arena sprt`.
CandidateArgument = Annotated[
    str,
    typer.Argument(metavar="BOT_A", help="The candidate: a program, its folder, or a name."),
]
BaselineArgument = Annotated[str, typer.Argument(metavar="BOT_B", help="The baseline.")]
Elo0Option = Annotated[
    float, typer.Option(metavar="ELO", help="H0: A is this much stronger (Elo).")
]
Elo1Option = Annotated[
    float, typer.Option(metavar="ELO", help="H1: A is this much stronger (Elo).")
]
AlphaOption = Annotated[
    float, typer.Option(metavar="P", help="Risk of accepting H1 when H0 holds.")
]
BetaOption = Annotated[float, typer.Option(metavar="P", help="Risk of accepting H0 when H1 holds.")]
NormalizedOption = Annotated[
    bool,
    typer.Option(
        "--normalized", help="--elo0/--elo1 in normalized Elo (as fishtest), not logistic."
    ),
]
MaxGamesOption = Annotated[
    int, typer.Option(min=2, metavar="N", help="Stop undecided after this many games.")
]
PairOpeningsOption = Annotated[
    int,
    typer.Option(
        min=0,
        max=24,  # arena.tournament.schedule.MAX_OPENING_PLIES
        metavar="N",
        help="Random opening plies, the same for both games of a pair (0: none).",
    ),
]
SprtStoreOption = Annotated[
    Path | None,
    typer.Option(metavar="FILE", help="The store (default: results/sprt-A-vs-B.sqlite)."),
]
SprtSeedOption = Annotated[
    int, typer.Option(metavar="N", help="Seed of the openings and the bots.")
]
FreshStoreOption = Annotated[
    bool, typer.Option("--fresh", help="Discard the store's games and start over.")
]


@app.command(cls=_Command)
def sprt(
    bot_a: CandidateArgument,
    bot_b: BaselineArgument,
    elo0: Elo0Option = 0.0,
    elo1: Elo1Option = 20.0,
    alpha: AlphaOption = 0.05,
    beta: BetaOption = 0.05,
    normalized: NormalizedOption = False,
    max_games: MaxGamesOption = 20000,
    move_ms: MoveMsOption = 100,
    clock: ClockOption = None,
    measure: MeasureOption = Measure.CPU,
    margin_ms: MarginMsOption = 0,
    startup_ms: StartupMsOption = 5000,
    openings: PairOpeningsOption = 4,
    db: SprtStoreOption = None,
    seed: SprtSeedOption = 1,
    fresh: FreshStoreOption = False,
    sandbox: SandboxOption = SandboxMode.AUTO,
    json_output: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Is BOT_A stronger than BOT_B? Game pairs until the SPRT accepts H0 or H1 (resumable).

    Each pair plays both role assignments from one opening. The log-likelihood ratio shows
    against its bounds as it goes; at the end: the verdict, games, Elo difference with its
    interval, LOS. Exit status 0 on a verdict, 1 undecided at --max-games, 128 + the signal
    when stopped by Ctrl-C, SIGTERM or SIGHUP (the same command resumes).

    \b
    Example:
      arena sprt mybot greedy --elo0 0 --elo1 20 --move-ms 50
    """
    from arena.commands.sprt import run_sprt, sprt_test
    from arena.commands.start import Duel

    time_control = _time_control(move_ms, startup_ms, clock, measure, margin_ms)
    duel = Duel(bot_a, bot_b, time_control, seed, openings, sandbox, quiet)
    test = sprt_test(elo0, elo1, alpha, beta, normalized)
    raise typer.Exit(run_sprt(duel, test, max_games, db, json_output=json_output, fresh=fresh))


# The options of `arena replay`.
AnyStoreArgument = Annotated[
    Path,
    typer.Argument(
        metavar="DB",
        help="A SQLite store (a tournament's, or arena play's).",
        callback=_a_store,
    ),
]
GameArgument = Annotated[
    int | None, typer.Argument(metavar="GAME", help="The game's number, as the list shows it.")
]
ListBotOption = Annotated[
    str | None, typer.Option(metavar="NAME", help="List only this bot's games.")
]
ListRoleOption = Annotated[
    Side | None,
    typer.Option("--as", metavar="order|chaos", help="With --bot: only its games in this role."),
]
ListReasonOption = Annotated[
    EndReason | None,
    typer.Option(
        metavar="REASON",
        help="List only games that ended so (five, full, timeout,"
        " illegal, malformed, crash or startup).",
    ),
]
ListWinnerOption = Annotated[
    str | None,
    typer.Option(metavar="ROLE|BOT", help="List only games won by this role or bot."),
]
MinPliesOption = Annotated[
    int, typer.Option(min=0, metavar="N", help="List only games this long or longer.")
]
PlayOption = Annotated[bool, typer.Option("--play", help="Animate the game, move by move.")]
PlyOption = Annotated[
    int | None,
    typer.Option(min=0, metavar="N", help="Print the position after N plies (0: empty)."),
]
DelayMsOption = Annotated[
    int, typer.Option(min=0, metavar="MS", help="With --play: time per move in ms.")
]


@app.command(cls=_Command)
def replay(
    db: AnyStoreArgument,
    game: GameArgument = None,
    bot: ListBotOption = None,
    role: ListRoleOption = None,
    reason: ListReasonOption = None,
    winner: ListWinnerOption = None,
    min_plies: MinPliesOption = 0,
    play: PlayOption = False,
    ply: PlyOption = None,
    delay_ms: DelayMsOption = 500,
) -> None:
    """List stored games, or show one: the board with coordinates, [X] the last move, (X) the
    winning five.

    On a terminal the arrow keys step through the game (Home/End: first/last, q: quit); other
    output gets plain text, ready to paste into a bug report. NO_COLOR turns styles off.

    \b
    Example:
      arena replay tournaments/results/example.sqlite \\
          --bot greedy --as chaos
      arena replay tournaments/results/example.sqlite 12 \\
          --ply 9
    """
    from arena.commands.replay import GameFilter, replay_command
    from arena.rules import Role

    wanted = GameFilter(
        bot=bot,
        role=None if role is None else Role(role.value),
        reason=None if reason is None else reason.value,
        winner=winner,
        min_plies=min_plies,
    )
    replay_command(db, game, wanted, play=play, ply=ply, delay_ms=delay_ms)


@app.command(cls=_Command)
def discard(
    db: StoreArgument,
    games: Annotated[
        list[int] | None,
        typer.Argument(metavar="GAME...", help="The games' numbers, as arena replay lists them."),
    ] = None,
    list_only: Annotated[
        bool, typer.Option("--list", help="List the games discarded so far.")
    ] = False,
) -> None:
    """Set a result right: discard stored games by number. They are kept aside (listed by
    --list), count no more, and the next run of the tournament plays their slots again.

    \b
    Example:
      arena discard tournaments/results/example.sqlite 5 9
    """
    from arena.commands.discard import discard_command

    discard_command(db, games or [], list_only=list_only)


@app.command(cls=_Command)
def play(
    bot: Annotated[
        str, typer.Argument(metavar="BOT", help="A bot: a program path, or a bundled bot's name.")
    ],
    role: Annotated[Side, typer.Option("--as", metavar="order|chaos", help="The role YOU play.")],
    move_ms: Annotated[
        int, typer.Option(min=1, metavar="MS", help="The bot's time per move in ms.")
    ] = 100,
    clock: ClockOption = None,
    measure: MeasureOption = Measure.CPU,
    margin_ms: MarginMsOption = 0,
    db: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE", help="Store the game in this SQLite file (created if missing)."
        ),
    ] = None,
    seed: Annotated[int, typer.Option(metavar="N", help="Seed given to the bot (ARENA_SEED).")] = 1,
    sandbox: SandboxOption = SandboxMode.AUTO,
) -> None:
    """Play a bot yourself: type moves such as c4X (a column a-f, a row 1-6, X or O; any case).

    The bot runs as in a tournament (sandbox, limits, time per move, faults); you have no clock.
    Order moves first. q or Ctrl-D abandons the game (it is not stored).

    \b
    Example:
      arena play greedy --as order --db results/mine.sqlite
    """
    from arena.commands.play import play_command
    from arena.rules import Role

    time_control = _time_control(move_ms, 5000, clock, measure, margin_ms)
    play_command(
        bot, Role(role.value), move_ms=move_ms, db=db, seed=seed, sandbox=sandbox,
        time_control=time_control,
    )  # fmt: skip


@app.command(cls=_Command)
def report(
    db: StoreArgument,
    out: Annotated[
        Path, typer.Option("--out", "-o", metavar="FILE", help="The HTML file to write.")
    ] = Path("report.html"),
    viewer_games: Annotated[
        int,
        typer.Option(
            min=1,
            metavar="N",
            help="Games the page's viewer holds at most; beyond, an even share of each bot's"
            " games in each role (one at least: more than N when N is under twice the bots).",
        ),
    ] = 3000,
    all_versions: AllVersionsOption = False,
    public: Annotated[
        bool,
        typer.Option(
            "--public",
            help="A page to publish: no path of this machine (paths relative to the config's"
            " folder) and no bot's stderr.",
        ),
    ] = False,
    names: Annotated[
        ShownNames | None,
        typer.Option(
            metavar="entry|both",
            help="The bots' names shown: the config's names only (entry), or with the names"
            " the bots gave themselves (both). Default: entry with --public, else both.",
        ),
    ] = None,
) -> None:
    """Write a one-file HTML report: settings, standings, charts, faults, a section per bot,
    survival, a game viewer and every game.

    The page needs no network (charts inlined as SVG, the viewer a small script in the page).
    Each bot's section and each game have an anchor (#bot-NAME, #game-N) to link to.

    \b
    Example:
      arena report tournaments/results/example.sqlite \\
          --out report.html --public
    """
    from arena.commands.report import report_command

    report_command(
        db, out, viewer_games=viewer_games, all_versions=all_versions, public=public,
        names=None if names is None else names.value,
    )  # fmt: skip


def main() -> None:
    """Entry point of the ``arena`` script: user errors become one line and exit code 2.

    ``arena.errors`` (which imports the rules) is imported only once an exception reaches here,
    so that ``--help`` and the commands that never raise one do not pay for it.
    """
    if os.environ.get("ARENA_DEBUG_STACKS"):  # a hung run: `kill -USR1 PID` prints its stacks
        import faulthandler
        import signal

        faulthandler.register(signal.SIGUSR1, all_threads=True)
    try:
        _run_app()
    finally:
        # What is left is freed at exit without the interpreter's last collections walking it
        # (every store, bot and worker is closed by now, and atexit handlers still run): 30-40
        # ms of the end of a command that read many games (a large tournament's standings).
        gc.freeze()


def _run_app() -> None:
    try:
        app(prog_name="arena")  # `python -m arena` too: its help and errors name `arena`
    except KeyboardInterrupt:
        typer.echo("arena: interrupted", err=True)
        sys.exit(130)
    except Exception as exc:
        from arena.errors import ArenaError

        if not isinstance(exc, ArenaError):
            raise
        typer.echo(f"arena: error: {exc}", err=True)
        sys.exit(2)
