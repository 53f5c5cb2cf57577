"""A tournament's live progress (``arena tournament``, ``arena submit``): a bar where the
output is a terminal, a plain line per finished match elsewhere."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rich.markup import escape

from arena.records import GameRecord
from arena.store.database import VersionChange
from arena.tournament.eta import WorkLeft
from arena.tournament.executors import ExecutorStatus
from arena.tournament.schedule import MatchJob

if TYPE_CHECKING:
    from pathlib import Path

    from rich.console import Console
    from rich.progress import Progress, TaskID

    from arena.commands.display.watch import Redraw, RunWatch
    from arena.store.database import Store


class ProgressDisplay:
    """Games done/total, games/s, ETA and faults: a bar on a terminal, plain lines elsewhere.

    The ETA is the work left (``arena.tournament.eta.WorkLeft``): each game still owed costed by
    its bots' games so far, shared among the workers, never less than the longest chunk left. It
    is shown once ``ETA_MIN_GAMES`` games have finished: the first carry the bots' first starts,
    which the rest of the run does not repeat.
    """

    ETA_MIN_GAMES = 5

    def __init__(
        self,
        console: Console,
        quiet: bool,
        clock: Callable[[], float] = time.monotonic,
        rating_interval: int | None = None,
    ) -> None:
        self.console = console
        self.rating_interval = rating_interval
        """Print the compact standings every this many games of the run (None: never)."""
        self.watch: RunWatch | None = None
        """What the bar shows beneath it on a terminal (set by ``follow``)."""
        self.store: Store | None = None
        self.quiet = quiet
        self.live = console.is_terminal and not quiet
        self.clock = clock
        self.total = self.done = self.faults = self.played = 0
        self.start = clock()
        self.last_print = 0.0
        self.last_busy = -1e9
        self.work: WorkLeft | None = None  # the games left and their cost (``planned``)
        self.progress: Progress | None = None
        self.redraw: Redraw | None = None
        """Redraws the bar while no game ends (on a terminal, with ``watch``)."""
        self.task: TaskID | None = None
        self.workers = ""  # e.g. "busy 2/3 workers", from executors that tell (a cluster)

    @staticmethod
    def plural(count: int, word: str) -> str:
        """``1 game``, ``2 games``."""
        return f"{count} {word}{'s' * (count != 1)}"

    def eta(self) -> str:
        """``eta 1m05s``, or ``eta -`` while the pace is not known yet."""
        if self.total - self.done <= 0:
            return "eta 0s"
        expected = None if self.work is None else self.work.seconds()
        if expected is None or self.played < self.ETA_MIN_GAMES:
            return "eta -"
        seconds = round(expected)
        if seconds < 60:
            return f"eta {seconds}s"
        if seconds < 3600:
            return f"eta {seconds // 60}m{seconds % 60:02d}s"
        return f"eta {seconds // 3600}h{seconds % 3600 // 60:02d}m"

    def follow(self, store: Store, live: Path | None) -> None:
        """Read ``store`` for the periodic standings, and on a terminal show beneath the bar
        the top of the standings, the latest faults and the games in progress (``live``: the
        run's live folder, None when it keeps none)."""
        self.store = store
        if self.live:
            from arena.commands.display.watch import RunWatch

            self.watch = RunWatch(store, live, self.console, self.clock)

    def started(self, total: int, already: int, jobs: int) -> None:
        self.total, self.done = total, already
        if self.quiet:
            return
        if already:
            self.console.print(
                f"resuming: {already} of {self.plural(total, 'game')} already played"
            )
        if self.live and total > already:
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn

            from arena.commands.display.standings import no_color
            from arena.commands.display.watch import WatchedProgress

            # No refresh thread (auto_refresh=False): workers are forked from this process.
            progress = WatchedProgress(
                self.watch,
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
            if self.watch is not None:
                self.watch.update_standings()
            progress.start()
            self.progress = progress
            if self.watch is not None:
                from arena.commands.display.watch import Redraw

                self.redraw = Redraw(progress).start()

    def planned(self, jobs: Sequence[MatchJob], workers: int) -> None:
        self.work = WorkLeft(jobs, workers, self.clock)

    def total_grew(self, total: int) -> None:
        self.total = total
        if self.progress is not None and self.task is not None:
            self.progress.update(self.task, total=total)

    def game(self, record: GameRecord) -> None:
        self.done += 1
        self.played += 1
        self.faults += record.reason.is_fault
        now = self.clock()
        if self.work is not None:
            self.work.observe(record)
        rate = self.played / max(now - self.start, 1e-9)
        if self.watch is not None:
            self.watch.game(record)
        if self.rating_interval and self.played % self.rating_interval == 0:
            self.print_standings()
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

    def print_standings(self) -> None:
        """The compact standings of the games stored so far (``--rating-interval``)."""
        from rich.text import Text

        from arena.commands.display.standings import (
            compact_standings,
            load_standings,
            no_color,
            output_width,
        )

        if self.store is None:
            return
        standings = load_standings(self.store, for_terminal=True)
        bold = "" if no_color() else "bold"
        lines = compact_standings(standings, width=output_width(self.console))
        for line in lines:
            self.console.print(Text(line.text, style=bold if line.heading else ""), soft_wrap=True)
        self.console.print()
        if self.progress is None:
            self.console.file.flush()

    def winding_down(self) -> None:
        """The run's last matches play and a core waits: load what the standings need there,
        in a thread (``arena.ratings.standings.preload``), rather than after the last game."""
        from arena.ratings.standings import preload

        threading.Thread(target=preload, name="preload-ratings", daemon=True).start()

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
        if self.redraw is not None:
            self.redraw.stop()
            self.redraw = None
        if self.progress is not None:
            if self.task is not None:
                self.progress.update(
                    self.task, completed=self.done, faults=self.faults, eta=self.eta()
                )
            self.progress.refresh()
            self.progress.stop()
            self.progress = None
