"""``arena tournament``: run (or resume) a tournament with live progress, then print standings."""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import shlex
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape

from arena.commands.display.progress import ProgressDisplay
from arena.commands.start import sandbox_for, start_harness
from arena.commands.stopping import exit_code, stopped_like_ctrl_c
from arena.config import TournamentConfig, load_config
from arena.config.model import in_store_folder, store_folder_problem
from arena.errors import ArenaError
from arena.limits import AffinityMode, SandboxMode
from arena.tournament.affinity import core_count
from arena.tournament.executors import executor_names

if TYPE_CHECKING:
    from rich.console import Console

    from arena.store.database import Store
    from arena.tournament.run import TournamentResult


@dataclasses.dataclass(frozen=True)
class Overrides:
    """The command line's options that replace the config's own (None or False: keep the file's).

    ``--cluster`` implies the cluster executor (another ``--executor`` with it is an error);
    ``--executor local`` or ``inline`` runs here even when the config names a cluster."""

    workers: int | None = None
    sandbox: SandboxMode | None = None
    affinity: AffinityMode | None = None
    executor: str | None = None
    force_workers: bool = False
    cluster: str | None = None
    trusted_bots: bool = False

    def applied(self, config: TournamentConfig) -> TournamentConfig:
        """``config`` with these options in place of its own."""
        executor, cluster = self.executor, self.cluster
        if executor is not None and executor not in executor_names():
            known = ", ".join(repr(name) for name in executor_names())
            raise ArenaError(f"--executor: expected one of {known}, got {executor!r}")
        if self.sandbox is not None and self.sandbox is not SandboxMode.NONE:
            for spec in config.bots:
                if in_store_folder(spec, config.db):
                    raise ArenaError(
                        f"--sandbox {self.sandbox.value}: bot {spec.name}: "
                        + store_folder_problem(spec, config.db)
                    )
        if cluster is not None:
            from arena.tournament.executors.cluster import parse_cluster

            try:
                cluster = parse_cluster(cluster)
            except ValueError as exc:
                raise ArenaError(f"--cluster: {exc}") from None
            if executor not in (None, "cluster"):
                raise ArenaError(f"--cluster: runs the cluster executor, not --executor {executor}")
            executor = "cluster"
        return dataclasses.replace(
            config,
            workers=config.workers if self.workers is None else self.workers,
            sandbox=config.sandbox if self.sandbox is None else self.sandbox,
            affinity=config.affinity if self.affinity is None else self.affinity,
            executor=config.executor if executor is None else executor,
            force_workers=self.force_workers or config.force_workers,
            cluster=config.cluster if cluster is None else cluster,
            trusted_bots=self.trusted_bots or config.trusted_bots,
        )

    def options(self) -> list[str]:
        """These options as they are typed (for the command that resumes the run)."""
        valued = [
            (name, getattr(self, name))
            for name in ("workers", "sandbox", "affinity", "executor", "cluster")
        ]
        typed = [
            f"--{name} {value.value if isinstance(value, enum.Enum) else value}"
            for name, value in valued
            if value is not None
        ]
        return typed + [
            f"--{name.replace('_', '-')}"
            for name in ("force_workers", "trusted_bots")
            if getattr(self, name)
        ]


def run_tournament_command(
    config_path: Path,
    overrides: Overrides | None = None,
    *,
    fresh: bool,
    quiet: bool,
    rating_interval: int | None = None,
    serve: str | None = None,
) -> int:
    """``arena tournament``: the config with the command line's ``overrides``, announced, played
    into its store with live progress (the standings every ``rating_interval`` games; a live
    page at ``serve``, ``[HOST:]PORT``), then the standings and a summary."""
    from rich.console import Console

    from arena.store.database import Store
    from arena.tournament.live import live_folder
    from arena.tournament.run import run_tournament

    console = Console(highlight=False, soft_wrap=True)
    overrides = overrides or Overrides()
    config = overrides.applied(load_config(config_path))
    sock = None if serve is None else _listen(serve)
    _announce(config, console, quiet)
    display = ProgressDisplay(console, quiet, rating_interval=rating_interval)
    plan = config.plan()
    if sock is not None or display.live:  # the games in progress, for the page or the bar
        plan = dataclasses.replace(plan, live=True)
    with Store.open(config.db) as store, contextlib.ExitStack() as serving:
        if fresh:
            _say(f"--fresh: {store.reset().describe()}", console, quiet)
        serving.enter_context(_served(config.db, sock, console, quiet))
        display.follow(store, live_folder(config.db) if plan.live else None)
        try:
            with stopped_like_ctrl_c():
                result = run_tournament(plan, store, display)
        except KeyboardInterrupt as stop:
            display.stop()
            code, name = exit_code(stop)
            command = shlex.join(["arena", "tournament", str(config_path)])
            console.print(
                f"\ninterrupted ({name}): {display.plural(display.played, 'game')} stored"
                f" this run. Resume with:\n  {escape(' '.join([command, *overrides.options()]))}"
            )
            return code
        finally:
            display.stop()
        _summarise(result, config, store, console)
    return 0 if result.complete else 1


def _listen(address: str) -> socket.socket:
    """The live page's socket, listening at ``[HOST:]PORT`` (a clear error before the run)."""
    from arena.commands.serve import listening
    from arena.report.server import parse_address

    try:
        host, port = parse_address(address)
    except ValueError as exc:
        raise ArenaError(f"--serve: {exc}") from None
    return listening(host, port, "--serve")


@contextlib.contextmanager
def _served(db: Path, sock: socket.socket | None, console: Console, quiet: bool) -> Iterator[None]:
    """The live page of ``db`` served from ``sock`` (if any) by a process of its own while
    the block runs; stopped at its end."""
    if sock is None:
        yield
        return
    from arena.report.server import serve_in_background, stop_background, url_of

    with sock:
        server = serve_in_background(db, sock)
        _say(f"live page: {url_of(sock)}", console, quiet)
        try:
            yield
        finally:
            stop_background(server)


def _announce(config: TournamentConfig, console: Console, quiet: bool) -> None:
    """Before the run: the config's notices, an oversubscription warning, and the bots checked
    where they run here (the sandbox's one warning; a bot this machine cannot start, stopped)."""
    from arena.tournament.run import oversubscribed

    for notice in config.notices:  # once a run
        _say(notice, console, quiet)
    if oversubscribed(config.workers) and config.force_workers and not quiet:
        console.print(
            f"[yellow]warning:[/] {config.workers} workers on {core_count()} cores: bots "
            "will compete for CPU and move times become unfair"
        )
    if config.executor == "cluster":  # a cluster's workers resolve (and check) the sandbox there
        return
    # Only to tell the user (and to stop at once when bwrap is required but missing): the mode
    # shipped with the matches is the config's, resolved where the bots run.
    if sandbox_for(config.sandbox, quiet=quiet) is SandboxMode.NONE:
        from arena.launch.sandbox import check_launchable

        for spec in config.bots:
            check_launchable(spec, config.sandbox)
    if config.executor == "inline":  # bots run in this process: none may outlive it, even killed
        start_harness()


def _say(notice: str, console: Console, quiet: bool) -> None:
    """A note the user must see: on stderr when quiet, as it may matter."""
    if quiet:
        print(f"arena: note: {notice}", file=sys.stderr, flush=True)
    else:
        console.print(f"[yellow]note:[/] {escape(notice)}")


def _summarise(
    result: TournamentResult, config: TournamentConfig, store: Store, console: Console
) -> None:
    """After the run (--quiet hides the progress, never this): the standings and a summary."""
    from arena.commands.display.standings import print_standings

    if not result.complete:
        print(
            f"arena: incomplete: {result.missing} games are still owed (repeated harness "
            "errors, or a bot changed during the run); run the same command again",
            file=sys.stderr,
            flush=True,
        )
    print_standings(console, store)
    plural = ProgressDisplay.plural
    replayed = (
        f", {plural(result.replayed, 'game')} replayed (the machine too loaded to time a move)"
        if result.replayed
        else ""
    )
    console.print(
        f"{plural(result.played, 'game')} played this run, {result.already} resumed; "
        f"{plural(len(result.harness_errors), 'harness error')}{replayed}"
        f". Results: {escape(str(config.db))}"
    )
    repeats = result.distinct * 2 < result.total and not config.opening_plies
    console.print(
        f"{result.distinct} distinct {'game' if result.distinct == 1 else 'games'}"
        f" of {result.total}"
        + (
            " (deterministic bots repeat their games: try openings: {random_plies: 4})"
            if repeats
            else ""
        )
    )
    if result.stopped is not None and result.stopped != "incomplete":
        console.print(course_end(result, config))


RUN_NAMES = {
    "swiss": "Swiss course",
    "contested": "contested course",
    "round-robin": "round robin",
    "gauntlet": "gauntlet",
}


def course_end(result: TournamentResult, config: TournamentConfig) -> str:
    """What ended a run with rounds to stop at: its stopping rule, its budget or its rounds."""
    rule = config.until
    if result.stopped == "until":
        top = f"top {rule.top}" if rule is not None else "top 10 (the default)"
        los = rule.los if rule is not None else 0.95
        why = f"its stopping rule holds: each of the {top} ahead of the next at LOS >= {los:g}"
    elif result.stopped == "budget":
        assert result.budget is not None, "a run without a budget was stopped by one"
        why = f"its budget of {result.budget:,} games is spent"
    else:
        why = "all its rounds are played"
    plural = ProgressDisplay.plural
    done = plural(result.rounds, "round") if result.rounds else plural(result.total, "game")
    end = f"The {RUN_NAMES.get(config.format, config.format)} stopped after {done}: {why}."
    return end if not result.unplaced else f"{end} {unplaced_note(result)}"


def unplaced_note(result: TournamentResult) -> str:
    """Why a course's late entries are not placed: their placement games count in the budget."""
    assert result.budget is not None, "entries left unplaced without a budget"
    return (
        f"Not placed: {', '.join(result.unplaced)}; the budget of {result.budget:,} games,"
        " in which"
        " a late entry's placement games count, is spent (raise budget: to place it)."
    )
