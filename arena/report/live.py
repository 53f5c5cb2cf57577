"""What the live page shows, kept fresh by one thread: a store read-only, and its run's live folder.

The thread polls cheaply (the highest game number, the count of games, the live folder's small
files) every ``POLL_S``, and publishes a ``Snapshot`` whenever a game ended or a move was played:
the game count and the games in progress are always fresh. The costly parts are redone only as
often as their cost allows: the standings tables and the matplotlib charts (drawn by a thread of
their own, so that polls go on meanwhile) each wait ``COST_SHARE`` times what they last took,
and at least ``TABLES_S`` or ``CHARTS_S``. So the page takes about 1% of a core each for tables
and charts from the machine whose cores the run uses, and a small store shows its standings
within a second.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.report.data import ReportData, collect
from arena.tournament.live import RunProgress, live_folder, read_games, read_progress

__all__ = ["LiveState", "Snapshot"]

POLL_S = 0.25
IDLE_S = 10.0
"""Nothing asked for this long and no stream open: nobody looks, nothing costly is computed."""
STOP_S = 2.0
"""How long stopping waits for a poll under way (a computation of the tables may be)."""
TABLES_S = 0.5
"""The least time between two computations of the standings' tables."""
CHARTS_S = 5.0
"""The least time between two drawings of the charts."""
COST_SHARE = 100
"""A costly part waits this many times its own cost before it is redone (and at least its
least time): each takes 1% of a core at most."""


@dataclass(frozen=True)
class Snapshot:
    """One state of the page, shared by every request until the next."""

    version: int = 0
    title: str = ""
    games: int = 0
    """Games that count (the standings may lag behind them: they are computed less often)."""
    stored: int = 0
    """The highest game number in the store (it grows with each stored game)."""
    progress: RunProgress = field(default_factory=RunProgress)
    live: list[dict[str, Any]] = field(default_factory=list)
    """The games in progress (``arena.tournament.live.LiveGame`` as JSON)."""
    standings: dict[str, Any] = field(default_factory=dict)
    """What ``arena ratings DB --json`` prints."""
    sections: dict[str, str] = field(default_factory=dict)
    """Section id -> its HTML (every bot-controlled string escaped by ``arena.report.page``)."""
    sections_version: int = 0
    """Changes when ``sections`` do (the page then fetches them)."""

    def state_json(self) -> dict[str, Any]:
        """What each pushed update carries."""
        return {
            "version": self.version,
            "title": self.title,
            "games": self.games,
            "progress": self.progress.to_json(),
            "live": self.live,
            "sections_version": self.sections_version,
        }

    def standings_json(self) -> dict[str, Any]:
        """``GET /standings.json``: the standings and the run's progress."""
        return {**self.standings, "progress": self.progress.to_json()}


class _Throttle:
    """When a costly part may be redone: after ``COST_SHARE`` times its last cost, and no sooner
    than ``floor`` seconds."""

    def __init__(self, floor: float, first_free: bool = False) -> None:
        self.floor = floor
        self.next = 0.0
        self.first = first_free

    def due(self, now: float) -> bool:
        return now >= self.next

    def spent(self, started: float, now: float) -> None:
        # The tables' first time includes importing numpy and scipy: it says nothing of the
        # next ones, which would wait too long for it. (The charts' first, with matplotlib's
        # import, only a third more than the next: counted.)
        cost = 0.0 if self.first else now - started
        self.first = False
        self.next = now + max(self.floor, COST_SHARE * cost)


class LiveState:
    """The store at ``db`` and its live folder, watched by a thread (``start``/``stop``)."""

    def __init__(self, db: Path, *, charts: bool = True) -> None:
        self.db = db
        self.folder = live_folder(db)
        self.charts = charts
        self.snapshot = Snapshot()
        self.changed = threading.Condition()
        self.computed = threading.Event()
        """Set once the standings were computed (a request that needs them waits for it)."""
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._asked = -1e9  # when a page or its data was last asked for
        self._viewers = 0  # open event streams
        self._viewers_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._tables = _Throttle(TABLES_S, first_free=True)
        self._chart_throttle = _Throttle(CHARTS_S)
        self._computed_at = -1  # the store's highest game number at the last computation
        self._charted_at = -1
        self._chart_html: dict[str, str] = {}
        self._published_charts = self._chart_html
        self._chart_data: tuple[ReportData, int]
        self._chart_wanted = threading.Event()
        self._charter = threading.Thread(target=self._draw_charts, name="arena-live-charts")
        self._charter.daemon = True

    def start(self) -> LiveState:
        """Start watching (the server answers at once; the first snapshot follows)."""
        self._thread = threading.Thread(target=self._run, name="arena-live-state", daemon=True)
        self._thread.start()
        self._charter.start()
        return self

    def stop(self, wait: bool = True) -> None:
        """Stop watching: the streams end now; with ``wait``, after the poll under way (a
        drawing under way is left to finish alone: its thread is a daemon)."""
        self._stop.set()
        self._chart_wanted.set()
        with self.changed:
            self.changed.notify_all()
        if wait and self._thread is not None:
            self._thread.join(timeout=STOP_S)

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def wait(self, version: int, timeout: float) -> Snapshot:
        """The snapshot after ``version``, or the same one after ``timeout`` seconds."""
        with self.changed:
            self.changed.wait_for(
                lambda: self.snapshot.version != version or self._stop.is_set(), timeout
            )
            return self.snapshot

    @property
    def watched(self) -> bool:
        """Whether anyone looks: an event stream is open, or something was asked lately.
        Nobody looking, the costly parts wait (a run served to nobody pays for nothing)."""
        return self._viewers > 0 or time.monotonic() - self._asked < IDLE_S

    def asked(self) -> bool:
        """A request came; whether it found nobody looking before (the standings may be old:
        the next poll, at once, brings them up to date)."""
        idle = not self.watched
        self._asked = time.monotonic()
        if idle:  # nothing was computed meanwhile: one computation now is within the share
            self._tables.next = 0.0
            self._wake.set()
        return idle

    def viewing(self, opened: bool) -> None:
        """An event stream opened (``opened``) or closed."""
        with self._viewers_lock:
            self._viewers += 1 if opened else -1
        if opened:
            self._wake.set()

    def current(self, timeout: float) -> Snapshot:
        """The snapshot once the standings take every game stored now in (or after
        ``timeout`` seconds, as they are)."""
        deadline = time.monotonic() + timeout
        with self.changed:
            self.changed.wait_for(
                lambda: self._computed_at >= self.snapshot.stored or self._stop.is_set(),
                max(deadline - time.monotonic(), 0),
            )
            return self.snapshot

    def _run(self) -> None:
        while not self._stop.is_set():
            # A store being replaced, a file half there: next time.
            with contextlib.suppress(Exception):
                self.refresh()
            self._wake.wait(POLL_S)
            self._wake.clear()

    def _draw_charts(self) -> None:
        """The charts' thread: draws when asked, so that polls go on meanwhile."""
        while self._chart_wanted.wait() and not self._stop.is_set():
            self._chart_wanted.clear()
            data, stored = self._chart_data
            started = time.monotonic()
            try:
                from arena.report.page import live_charts

                charts = live_charts(data)
            except ImportError:  # no matplotlib: the page goes without its charts
                self.charts = False
                return
            except Exception:  # a store that changed under it: next time
                continue
            with self.changed:
                self._chart_html, self._charted_at = charts, stored
            self._chart_throttle.spent(started, time.monotonic())

    def refresh(self) -> None:
        """Read what changed and publish it (one poll)."""
        from arena.store.database import Store

        old, old_charts = self.snapshot, self._published_charts
        progress = read_progress(self.folder)
        live = [game.__dict__ for game in read_games(self.folder)]
        now = time.monotonic()
        with Store.open(self.db, readonly=True) as store:
            stored = store.game_numbers()[1] or 0
            games = store.count_games() if stored != old.stored else old.games
            update: dict[str, Any] = {}
            if stored != self._computed_at and self._tables.due(now) and self.watched:
                update = self._compute(store, stored, now)
        if not update and self._chart_html is not old_charts:  # new charts, drawn meanwhile
            self._published_charts = self._chart_html
            update = {"sections": {**old.sections, **self._chart_html}}
        if not update and (progress, live, stored) == (old.progress, old.live, old.stored):
            return
        new = Snapshot(
            version=old.version + 1,
            title=update.get("title", old.title),
            games=games,
            stored=stored,
            progress=progress,
            live=live,
            standings=update.get("standings", old.standings),
            sections=update.get("sections", old.sections),
            sections_version=old.sections_version + bool(update),
        )
        with self.changed:
            self.snapshot = new
            self.changed.notify_all()
        if new.sections:
            self.computed.set()

    def _compute(self, store: Any, stored: int, now: float) -> dict[str, Any]:
        """The standings and the page's sections, from the store as it is now."""
        from arena.commands.ratings import ratings_json
        from arena.report.page import live_sections

        title = store.get_meta("name") or self.db.stem
        standings = ratings_json(store)
        data = collect(store.numbered_games(), title=title, max_viewer_games=0)
        sections = live_sections(data)
        self._computed_at = stored
        self._tables.spent(now, time.monotonic())
        sections.update(self._charts(data, stored))
        return {
            "title": title,
            "standings": json.loads(json.dumps(standings, allow_nan=False)),
            "sections": sections,
        }

    def _charts(self, data: ReportData, stored: int) -> dict[str, str]:
        """The charts last drawn; the charts' thread asked for new ones when they are due."""
        now = time.monotonic()
        wanted = self.charts and stored != self._charted_at and self._chart_throttle.due(now)
        if wanted and not self._chart_wanted.is_set():
            self._chart_data = (data, stored)
            self._chart_throttle.next = float("inf")  # until this drawing says its cost
            self._chart_wanted.set()
        self._published_charts = self._chart_html
        return self._chart_html
