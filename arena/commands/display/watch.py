"""Beneath a run's progress bar on a terminal: the top of the standings, the latest faults, and
the games in progress (which pairings, for how long since their last move: a stuck one shows).

The standings are recomputed at most every ``STANDINGS_S`` (the fit reads every game), the
games in progress read from the run's live folder (``arena.tournament.live``) at each redraw.
Every stored or bot-written string goes through ``protocol.shown`` and reaches rich as plain
``Text``, never as markup.
"""

from __future__ import annotations

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

__all__ = ["RunWatch", "WatchedProgress"]

STANDINGS_S = 5.0
TOP = 5
FAULTS = 3
STUCK_S = 10.0
"""A game with no move for this long is said to be stuck (the time it waits is shown)."""


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
        """A game was stored: remember it when a bot lost it by a fault."""
        if record.reason.is_fault:
            detail = f": {shown(record.detail, 60)}" if record.detail else ""
            self.faults.append(
                f"{shown(record.loser_name, 30)} ({record.reason.value} against "
                f"{shown(record.winner_name, 30)}){detail}"
            )

    def _standings(self) -> list[str]:
        now = self.clock()
        if now - self.computed >= STANDINGS_S:
            from arena.commands.display.standings import compact_standings, load_standings

            self.computed = now
            standings = load_standings(self.store, for_terminal=True)
            width = self.console.width
            self.standings = [
                line.text for line in compact_standings(standings, width=width, top=TOP)
            ]
        return self.standings

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
        yield from self._standings()
        if self.faults:
            yield "latest faults:"
            yield from (f"  {fault}" for fault in self.faults)
        running = self.running()
        if running:
            yield "playing now:"
            yield from running


class WatchedProgress(Progress):
    """A rich ``Progress`` bar with a ``RunWatch``'s lines beneath it (none when None)."""

    def __init__(self, watch: RunWatch | None, *columns: Any, **options: Any) -> None:
        self.watch = watch  # before the base's start, which draws
        super().__init__(*columns, **options)

    def get_renderables(self) -> Iterable[RenderableType]:
        yield from super().get_renderables()
        if self.watch is not None:
            try:
                lines = list(self.watch.lines())
            except Exception as exc:  # a store busy or damaged: the bar goes on
                lines = [f"(standings unavailable: {shown(str(exc), 80)})"]
            yield Group(*(Text(line, no_wrap=True, overflow="ellipsis") for line in lines))
