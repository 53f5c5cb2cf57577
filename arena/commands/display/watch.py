"""Beneath a run's progress bar on a terminal: the top of the standings, the latest faults, and
the games in progress (which pairings, for how long since their last move: a stuck one shows).

The standings are recomputed at most every ``STANDINGS_S`` as games end (the fit reads every
game, through the run's own store connection: in the thread that plays the run), the games in
progress read from the run's live folder (``arena.tournament.live``) at each redraw, which
``Redraw`` also does every ``REDRAW_S`` while no game ends. Every stored or bot-written string
goes through ``protocol.shown`` and reaches rich as plain ``Text``, never as markup.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.progress import Progress
from rich.text import Text

from arena.protocol import shown
from arena.records import GameRecord
from arena.tournament.live import read_games

if TYPE_CHECKING:
    from rich.console import Console

    from arena.store.database import Store


STANDINGS_S = 5.0
TOP = 5
FAULTS = 3
STUCK_S = 10.0
"""A game with no move for this long is said to be stuck (the time it waits is shown)."""
REDRAW_S = 1.0
"""How often the bar is redrawn while no game ends (a stuck game's wait goes on counting)."""

_DRAWING = threading.Lock()
"""Held by ``Redraw`` while it draws, and by any fork of this process (the local pool's
workers): a child never starts with a lock of the terminal's, or of rich's, taken by it."""
os.register_at_fork(
    before=_DRAWING.acquire,
    after_in_parent=_DRAWING.release,
    after_in_child=_DRAWING.release,
)


class RunWatch:
    """What ``WatchedProgress`` shows beneath its bar."""

    def __init__(
        self,
        store: Store,
        live: Path | None,
        console: Console,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.live = live
        self.console = console
        self.clock = clock
        self.faults: deque[str] = deque(maxlen=FAULTS)
        self.standings: list[str] = []
        self.computed = -1e9

    def game(self, record: GameRecord) -> None:
        """A game was stored: remember it when a bot lost it by a fault; the standings
        recomputed when they are due."""
        self.update_standings()
        if record.reason.is_fault:
            detail = f": {shown(record.detail, 60)}" if record.detail else ""
            self.faults.append(
                f"{shown(record.loser_name, 30)} ({record.reason.value} against "
                f"{shown(record.winner_name, 30)}){detail}"
            )

    def update_standings(self) -> None:
        """The top of the standings recomputed, when ``STANDINGS_S`` passed since the last
        time (in the thread that plays the run: the store's connection is its own)."""
        now = self.clock()
        if now - self.computed < STANDINGS_S:
            return
        from arena.commands.display.standings import compact_standings, load_standings

        self.computed = now
        try:
            standings = load_standings(self.store, for_terminal=True)
        except Exception as exc:  # a store busy or damaged: the bar goes on
            self.standings = [f"(standings unavailable: {shown(str(exc), 80)})"]
            return
        width = self.console.width
        self.standings = [line.text for line in compact_standings(standings, width=width, top=TOP)]

    def running(self) -> list[str]:
        """A line per game in progress: its pairing, its ply, how long since its last move."""
        if self.live is None:
            return []
        now = time.time()
        lines = []
        for game in read_games(self.live):
            idle = max(now - game.moved_at, 0.0)
            stuck = "  STUCK?" if idle >= STUCK_S else ""
            plies = len(game.opening) + len(game.moves)
            lines.append(
                f"  {shown(game.order, 30)} vs {shown(game.chaos, 30)}: ply {plies},"
                f" {now - game.started_at:.0f} s in, last move {idle:.1f} s ago{stuck}"
            )
        return lines

    def lines(self) -> Iterable[str]:
        """What is shown beneath the bar (the standings as last computed: any thread)."""
        yield from self.standings
        if self.faults:
            yield "latest faults:"
            yield from (f"  {fault}" for fault in list(self.faults))  # a copy: any thread
        running = self.running()
        if running:
            yield "playing now:"
            yield from running


class Redraw:
    """A thread that redraws ``progress`` every ``REDRAW_S`` until ``stop``."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="arena-redraw", daemon=True)

    def start(self) -> Redraw:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(REDRAW_S):
            # A file of the live folder replaced as it is read, the terminal gone: the next
            # game's redraw, in the run's own thread, says what is wrong.
            with _DRAWING, contextlib.suppress(Exception):
                self.progress.refresh()


class WatchedProgress(Progress):
    """A rich ``Progress`` bar with a ``RunWatch``'s lines beneath it (none when None)."""

    def __init__(self, watch: RunWatch | None, *columns: Any, **options: Any) -> None:
        self.watch = watch  # before the base's start, which draws
        super().__init__(*columns, **options)

    def get_renderables(self) -> Iterable[RenderableType]:
        yield from super().get_renderables()
        if self.watch is not None:
            lines = list(self.watch.lines())
            yield Group(*(Text(line, no_wrap=True, overflow="ellipsis") for line in lines))
