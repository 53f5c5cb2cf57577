"""``arena tournament``: run (or resume) a tournament with live progress, then print standings."""

from __future__ import annotations

import dataclasses
import shlex
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape

from arena.commands.stopping import exit_code, stopped_like_ctrl_c
from arena.config import TournamentConfig, load_config
from arena.config.model import in_store_folder, store_folder_problem
from arena.errors import ArenaError
from arena.launch.sandbox import resolve_mode
from arena.limits import AffinityMode, SandboxMode
from arena.records import GameRecord
from arena.referee.match import TOO_LOADED_HINT
from arena.store.database import VersionChange
from arena.tournament.affinity import core_count
from arena.tournament.executors import ExecutorStatus, executor_names

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

__all__ = ["run_tournament_command", "ProgressDisplay"]


class ProgressDisplay:
    """Games done/total, games/s, ETA and faults: a bar on a terminal, plain lines elsewhere.

    The ETA divides the games left by the rate of the *recent* games (the last
    ``ETA_WINDOW_S`` seconds, and at least the last ``ETA_MIN_GAMES`` games), so that it follows
    a run whose games slow down (one long pairing left, fewer busy workers), and it is shown
    only once a few games have finished: the first games carry the bots' start-up and say
    nothing of the pace.
    """

    ETA_WINDOW_S = 30.0
    ETA_MIN_GAMES = 5

    def __init__(
        self, console: Console, quiet: bool, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.console = console
        self.quiet = quiet
        self.live = console.is_terminal and not quiet
        self.clock = clock
        self.total = self.done = self.faults = self.played = 0
        self.start = clock()
        self.last_print = 0.0
        self.last_busy = -1e9
        self.recent: deque[float] = deque()  # finishing times of the recent games
        self.progress: Progress | None = None
        self.task: TaskID | None = None
        self.workers = ""  # e.g. "busy 2/3 workers", from executors that tell (a cluster)

    @staticmethod
    def plural(count: int, word: str) -> str:
        """``1 game``, ``2 games``."""
        return f"{count} {word}{'s' * (count != 1)}"

    def eta(self) -> str:
        """``eta 1m05s``, or ``eta -`` while the pace is not known yet."""
        left = self.total - self.done
        if left <= 0:
            return "eta 0s"
        if self.played < self.ETA_MIN_GAMES or len(self.recent) < 2:
            return "eta -"
        span = self.clock() - self.recent[0]
        if span <= 0:
            return "eta -"
        seconds = round(left * span / (len(self.recent) - 1))
        if seconds < 60:
            return f"eta {seconds}s"
        if seconds < 3600:
            return f"eta {seconds // 60}m{seconds % 60:02d}s"
        return f"eta {seconds // 3600}h{seconds % 3600 // 60:02d}m"

    def started(self, total: int, already: int, jobs: int) -> None:
        self.total, self.done = total, already
        if self.quiet:
            return
        if already:
            self.console.print(
                f"resuming: {already} of {self.plural(total, 'game')} already played"
            )
        if self.live and total > already:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            from arena.commands.ratings import no_color

            # No refresh thread (auto_refresh=False): workers are forked from this process.
            progress = Progress(
                TextColumn("games" if no_color() else "[bold]games"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]:.1f} games/s"),
                TextColumn("faults {task.fields[faults]}"),
                TextColumn("{task.fields[eta]}"),
                TextColumn("{task.fields[workers]}"),
                console=self.console,
                auto_refresh=False,
                transient=False,
            )
            self.task = progress.add_task(
                "games",
                total=total,
                completed=already,
                rate=0.0,
                faults=0,
                eta="eta -",
                workers=self.workers,
            )
            progress.start()
            self.progress = progress

    def game(self, record: GameRecord) -> None:
        self.done += 1
        self.played += 1
        self.faults += record.reason.is_fault
        now = self.clock()
        self.recent.append(now)
        while (
            len(self.recent) > self.ETA_MIN_GAMES + 1 and now - self.recent[0] > self.ETA_WINDOW_S
        ):
            self.recent.popleft()
        rate = self.played / max(now - self.start, 1e-9)
        if self.progress is not None and self.task is not None:
            # Ten redraws a second at most: with fast bots, games come in by the thousand.
            if now - self.last_print > 0.1 or self.done == self.total:
                self.progress.update(
                    self.task,
                    completed=self.done,
                    rate=rate,
                    faults=self.faults,
                    eta=self.eta(),
                    workers=self.workers,
                )
                self.progress.refresh()
                self.last_print = now
        elif not self.quiet and (now - self.last_print > 2 or self.done == self.total):
            busy = f"  {self.workers}" if self.workers else ""
            print(
                f"games {self.done}/{self.total}  {rate:.1f} games/s  faults {self.faults}"
                f"  {self.eta()}{busy}",
                flush=True,
            )
            self.last_print = now

    def executor_status(self, status: ExecutorStatus) -> None:
        """A cluster's workers: how many are busy with this run (which, once a minute when
        the output is plain lines)."""
        self.workers = f"busy {len(status.busy)}/{status.workers} workers"
        now = self.clock()
        if self.progress is not None and self.task is not None:
            self.progress.update(self.task, workers=self.workers)
            self.progress.refresh()
        elif not self.quiet and now - self.last_busy > 60 and status.busy:
            print(f"busy workers: {', '.join(status.busy)}", flush=True)
            self.last_busy = now

    def bot_changed(self, change: VersionChange, set_aside: int) -> None:
        if not set_aside:  # nothing was played with the old version (or the store was reset)
            return
        message = (
            f"bot {change.name} changed since the last run: its "
            f"{self.plural(set_aside, 'earlier game')} "
            f"{'is' if set_aside == 1 else 'are'} set aside and its pairings replayed"
        )
        if self.quiet:  # still worth saying, but not on stdout
            print(message, file=sys.stderr, flush=True)
        else:
            self.console.print(escape(message))

    def workers_capped(self, asked: int, used: int, reason: str) -> None:
        message = (
            f"note: {used} of the {asked} workers asked are used: {reason}; more would make"
            " bots time out for the harness's sake (--force-workers to use them anyway)"
        )
        if self.quiet:
            print(f"arena: {message}", file=sys.stderr, flush=True)
        else:
            self.console.print(escape(message))

    def harness_error(self, job: str, error: str) -> None:
        if not self.quiet:
            last = error.strip().splitlines()[-1] if error.strip() else error
            self.console.print(
                f"[yellow]harness error in {escape(job)}[/] (replaying): {escape(last)}"
            )

    def stop(self) -> None:
        if self.progress is not None:
            if self.task is not None:
                self.progress.update(
                    self.task, completed=self.done, faults=self.faults, eta=self.eta()
                )
            self.progress.refresh()
            self.progress.stop()
            self.progress = None


def with_overrides(
    config: TournamentConfig,
    *,
    workers: int | None = None,
    sandbox: SandboxMode | None = None,
    affinity: AffinityMode | None = None,
    executor: str | None = None,
    force_workers: bool = False,
    cluster: str | None = None,
    trusted_bots: bool = False,
) -> TournamentConfig:
    """The config with the command line's options in place of its own (None: keep the file's).

    ``--cluster`` implies the cluster executor (another ``--executor`` with it is an error);
    ``--executor local`` or ``inline`` runs here even when the config names a cluster."""
    if executor is not None and executor not in executor_names():
        known = ", ".join(repr(name) for name in executor_names())
        raise ArenaError(f"--executor: expected one of {known}, got {executor!r}")
    if sandbox is not None and sandbox is not SandboxMode.NONE:
        for spec in config.bots:
            if in_store_folder(spec, config.db):
                raise ArenaError(
                    f"--sandbox {sandbox.value}: bot {spec.name}: "
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
        workers=config.workers if workers is None else workers,
        sandbox=config.sandbox if sandbox is None else sandbox,
        affinity=config.affinity if affinity is None else affinity,
        executor=config.executor if executor is None else executor,
        force_workers=force_workers or config.force_workers,
        cluster=config.cluster if cluster is None else cluster,
        trusted_bots=trusted_bots or config.trusted_bots,
    )


def run_tournament_command(
    config_path: Path,
    *,
    fresh: bool,
    quiet: bool,
    workers: int | None,
    sandbox: SandboxMode | None,
    affinity: AffinityMode | None,
    executor: str | None = None,
    force_workers: bool = False,
    cluster: str | None = None,
    trusted_bots: bool = False,
) -> int:
    from rich.console import Console

    from arena.store.database import Store
    from arena.tournament.run import oversubscribed, run_tournament

    console = Console(highlight=False, soft_wrap=True)
    overrides = {
        key: value
        for key, value in (
            ("workers", workers),
            ("sandbox", sandbox),
            ("affinity", affinity),
            ("executor", executor),
            ("cluster", cluster),
        )
        if value is not None
    }
    config = with_overrides(
        load_config(config_path),
        workers=workers,
        sandbox=sandbox,
        affinity=affinity,
        executor=executor,
        force_workers=force_workers,
        cluster=cluster,
        trusted_bots=trusted_bots,
    )
    for notice in config.notices:  # once a run; on stderr when quiet, as it may matter
        if quiet:
            print(f"arena: note: {notice}", file=sys.stderr, flush=True)
        else:
            console.print(f"[yellow]note:[/] {escape(notice)}")
    if oversubscribed(config.workers) and config.force_workers and not quiet:
        console.print(
            f"[yellow]warning:[/] {config.workers} workers on {core_count()} cores: bots "
            "will compete for CPU and move times become unfair"
        )
    # Only to tell the user (and to stop at once when bwrap is required but missing): the mode
    # shipped with the matches is the config's, resolved where the bots run.
    unsandboxed = resolve_mode(config.sandbox) is SandboxMode.NONE
    if unsandboxed and config.executor != "cluster":  # the bots run on this machine: can they?
        from arena.launch.sandbox import check_launchable

        for spec in config.bots:
            check_launchable(spec, config.sandbox)
    local = config.executor != "cluster"  # a cluster's workers resolve (and check) it there
    if unsandboxed and local and config.sandbox is SandboxMode.AUTO and not quiet:
        console.print(
            "[yellow]warning:[/] bubblewrap (bwrap) is not usable here: bots run with "
            "resource limits only, without a sandbox (apt-get install bubblewrap)"
        )
    if config.executor == "inline":  # bots run in this process: none may outlive it, even killed
        from arena.launch import reaper

        reaper.install_harness()
    display = ProgressDisplay(console, quiet)
    with Store.open(config.db) as store:
        if fresh:
            store.reset()
        try:
            with stopped_like_ctrl_c():
                result = run_tournament(config.plan(), store, display)
        except KeyboardInterrupt as stop:
            display.stop()
            options = [f"--{key} {value}" for key, value in overrides.items()]
            options += ["--force-workers"] if force_workers else []
            options += ["--trusted-bots"] if trusted_bots else []
            command = shlex.join(["arena", "tournament", str(config_path)])
            code, name = exit_code(stop)
            console.print(
                f"\ninterrupted ({name}): "
                f"{display.plural(display.played, 'game')} stored"
                f" this run. Resume with:\n  {escape(' '.join([command, *options]))}"
            )
            return code
        finally:
            display.stop()
        if not result.complete:
            print(
                f"arena: incomplete: {result.missing} games are still owed (repeated harness "
                "errors, or a bot changed during the run); run the same command again",
                file=sys.stderr,
                flush=True,
            )
        # --quiet hides the progress, never the result: the standings and the summary print.
        from arena.commands.ratings import print_standings

        print_standings(console, store)
        plural = ProgressDisplay.plural
        console.print(
            f"{plural(result.played, 'game')} played this run, {result.already} resumed; "
            f"{plural(len(result.harness_errors), 'harness error')}"
            + (
                f", {plural(result.replayed, 'game')} replayed (the machine too loaded to time"
                " a move)"
                if result.replayed
                else ""
            )
            + f". Results: {escape(str(config.db))}"
        )
        if any(TOO_LOADED_HINT in error for error in result.harness_errors):
            console.print(f"The machine was too loaded to referee in wall time: {TOO_LOADED_HINT}.")
        console.print(
            f"{result.distinct} distinct {'game' if result.distinct == 1 else 'games'}"
            f" of {result.total}"
            + (
                " (deterministic bots repeat their games: try openings: {random_plies: 4})"
                if result.distinct * 2 < result.total and not config.opening_plies
                else ""
            )
        )
    return 0 if result.complete else 1
