"""What the live page shows, kept fresh by one thread: a store read-only, and its run's live folder.

The thread polls cheaply every ``POLL_S``: the store, kept open, is read only when a writer
committed (``arena.report.livestore``), the live folder's small files only when one changed. It
publishes a ``Snapshot`` whenever a game ended or a move was played, so the game count and the
games in progress are always fresh, and does nothing more while nothing changes. The costly
parts (the standings tables, and the matplotlib charts when a page asks for them) are computed
by a worker process at the lowest CPU priority (``arena.report.livework``), so that this process
answers requests promptly however busy the machine is. Each is redone only as often as its cost
allows: after ``COST_SHARE`` times the CPU it last used, and at least ``TABLES_S`` or
``CHARTS_S``; a run's charts not in its first ``CHARTS_AFTER_S``; the run's end makes both due
at once. So the page takes at most a quarter of a percent of a core each for tables and charts from
the machine whose cores the run uses, and a small store shows its standings within a second.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.report.livestore import StoreWatch
from arena.report.livework import Worker
from arena.tournament.live import FolderReader, RunProgress, live_folder

POLL_S = 0.25
IDLE_S = 10.0
"""Nothing asked for this long and no stream open: nobody looks, nothing costly is computed."""
STOP_S = 2.0
"""How long stopping waits for a poll under way."""
RESTART_S = 1.0
"""How long after a worker that died the parts it was computing are asked of another."""
TABLES_S = 0.5
"""The least time between two computations of the standings' tables."""
CHARTS_S = 5.0
"""The least time between two drawings of the charts."""
CHARTS_AFTER_S = 60.0
"""A run's charts wait this long after its start: their first drawing costs about a second of
CPU (matplotlib's start, then the drawing), so that a short run draws them once, at its end."""
BOT_PAGES = 64
"""Bot pages kept rendered at most."""
COST_SHARE = 400
"""A costly part waits this many times its own cost before it is redone (and at least its
least time): each takes a quarter of a percent of a core at most."""


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
    standings_at: int = -1
    """The highest game number the standings take in (``stored`` when they are current)."""
    _encoded: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)

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

    def encoded(self, path: str) -> bytes | None:
        """``/standings.json``, ``/state.json`` or ``/sections.json`` as sent (None for any
        other path): encoded once per snapshot, however many clients ask for it."""
        body = self._encoded.get(path)
        if body is None:
            if path == "/standings.json":
                data: dict[str, Any] = self.standings_json()
            elif path == "/state.json":
                data = self.state_json()
            elif path == "/sections.json":
                data = {"version": self.sections_version, **self.sections}
            else:
                return None
            body = self._encoded[path] = json.dumps(data, allow_nan=False).encode()
        return body


class _Costly:
    """The throttle of a costly part of the page: one computation at a time, each after
    ``COST_SHARE`` times the CPU the last one used and at least ``floor`` seconds; at once
    when ``hurry`` is set (nobody looked meanwhile, or the run just ended).

    The cost is the CPU time of the worker's thread that did it, not the time it took: at the
    lowest priority on a machine the run keeps busy, a computation waits for the CPU far longer
    than it uses it, and that wait takes nothing from the run."""

    def __init__(self, floor: float, first_free: bool = False) -> None:
        self.floor = floor
        self.next = 0.0
        self.first = first_free
        self.busy = False
        self.hurry = False
        self._lock = threading.Lock()

    def ask(self) -> bool:
        """Whether it is due and idle; if so, it is busy from now on (the caller asks the
        worker for it)."""
        with self._lock:
            if self.busy or not (self.hurry or time.monotonic() >= self.next):
                return False
            self.busy, self.hurry = True, False
            return True

    def spent(self, cpu: float) -> None:
        """The worker is done with it, having used ``cpu`` seconds of CPU."""
        # The tables' first time includes the worker's imports (numpy): it says nothing of the
        # next ones, which would wait too long for it. (The charts' first, with matplotlib's
        # import, only a third more than the next: counted.)
        cost = 0.0 if self.first else cpu
        with self._lock:
            self.first = False
            self.next = time.monotonic() + max(self.floor, COST_SHARE * cost)
            self.busy = False

    def lost(self) -> None:
        """The worker died with it under way: due again in ``RESTART_S``."""
        with self._lock:
            self.busy, self.hurry = False, False
            self.next = time.monotonic() + RESTART_S


def _playing(progress: RunProgress) -> bool:
    return progress.running and progress.done < progress.total


def _young(progress: RunProgress) -> bool:
    """Whether a run plays that started less than ``CHARTS_AFTER_S`` ago."""
    return _playing(progress) and time.time() - progress.started_at < CHARTS_AFTER_S


class LiveState:
    """The store at ``db`` and its live folder, watched by a thread (``start``/``stop``); the
    tables and the charts computed by a worker process, read back by a thread of its own."""

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
        self._polls = 0  # polls done (``finish`` waits for one after it was called)
        self._asked = -1e9  # when a page or its data was last asked for
        self._page_asked = -1e9  # when the page or its sections were last asked for
        self._store = StoreWatch(db)
        self._folder = FolderReader(self.folder)
        self._viewers = 0  # open event streams
        self._viewers_lock = threading.Lock()
        self._tables = _Costly(TABLES_S, first_free=True)
        self._chart_job = _Costly(CHARTS_S)
        self._computed: tuple[int, dict[str, Any]] = (-1, {})
        """The tables last computed: the highest game number they take in, and what they are."""
        self._chart_html: dict[str, str] = {}
        self._charted_at = -1
        self._published: tuple[object, object] = (self._computed, self._chart_html)
        self._worker = Worker(db, self._took, self._worker_died)
        self._bot_pages: dict[str, str | None] = {}
        """Bot pages by the store's highest game number and name (None: it could not be read),
        each rendered once however often it is asked for."""
        self._bot_pages_asked: set[str] = set()
        self._bot_pages_came = threading.Condition()
        self._poller = threading.Thread(target=self._run, name="arena-live-state", daemon=True)

    def start(self) -> LiveState:
        """Start watching (the server answers at once; the first snapshot follows, and the
        worker is started for the first standings)."""
        self._poller.start()
        return self

    def stop(self, wait: bool = True) -> None:
        """Stop watching: the streams end now, the worker is killed (it only reads); with
        ``wait``, after the poll under way, and the worker reaped."""
        self._stop.set()
        self._wake.set()
        for condition in (self.changed, self._bot_pages_came):
            with condition:
                condition.notify_all()
        self._worker.stop(wait)
        if wait:
            self._poller.join(timeout=STOP_S)

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

    def asked(self, page: bool = False) -> bool:
        """A request came (``page``: for the page or its sections, which show the charts);
        whether it found nobody looking before (the standings may be old: the next poll, at
        once, brings them up to date)."""
        idle = not self.watched
        now = self._asked = time.monotonic()
        if page:
            self._page_asked = now
            self._want_charts()
        if idle:  # nothing was computed meanwhile: one computation now is within the share
            self._tables.hurry = True
            self._wake.set()
        return idle

    def viewing(self, opened: bool) -> None:
        """An event stream opened (``opened``) or closed."""
        with self._viewers_lock:
            self._viewers += 1 if opened else -1
        if opened:
            self._wake.set()

    def current(self, timeout: float) -> Snapshot:
        """The snapshot once its standings take every game stored now in (or after
        ``timeout`` seconds, as they are): games stored meanwhile are not waited for."""
        with self.changed:
            stored = self.snapshot.stored
            self.changed.wait_for(
                lambda: self.snapshot.standings_at >= stored or self._stop.is_set(), timeout
            )
            return self.snapshot

    def finish(self, timeout: float) -> bool:
        """When anyone looks: wait until the standings published take every game stored now
        in (the run ended: its last state is the one its viewers keep), at most ``timeout``;
        whether anyone looks."""
        if not self.watched:
            return False
        with self.changed:
            polls = self._polls
        self._tables.hurry = True
        self._wake.set()
        with self.changed:
            self.changed.wait_for(lambda: self._polls > polls and self._up_to_date(), timeout)
        return True

    def _up_to_date(self) -> bool:
        """Whether the standings take every game stored in (the run ended: no more come)."""
        snapshot = self.snapshot
        return snapshot.standings_at >= snapshot.stored or self._stop.is_set()

    def _run(self) -> None:
        while not self._stop.is_set():
            # A store being replaced, a file half there: next time.
            with contextlib.suppress(Exception):
                self.refresh()
            with self.changed:
                self._polls += 1
                self.changed.notify_all()
            self._wake.wait(POLL_S)
            self._wake.clear()
        self._store.close()

    def refresh(self) -> None:
        """Read what changed and publish it (one poll)."""
        old = self.snapshot
        progress, games_in_progress = self._folder.read()
        live = [game.__dict__ for game in games_in_progress]
        stored, games = self._store.read()
        if _playing(old.progress) and not _playing(progress):  # its final standings, at once
            self._tables.hurry = self._chart_job.hurry = True
        # The first standings are computed at once, so that the first request finds them.
        first = self._computed[0] < 0
        if stored != self._computed[0] and (self.watched or first) and self._tables.ask():
            self._send({"part": "tables"})
        self._want_charts()  # a run no longer young
        computed, charts = self._computed, self._chart_html
        fresh = computed is not self._published[0] or charts is not self._published[1]
        if not fresh and (progress, live, stored) == (old.progress, old.live, old.stored):
            return
        self._published = (computed, charts)
        tables = computed[1]
        new = Snapshot(
            version=old.version + 1,
            title=tables.get("title", old.title),
            games=games,
            stored=stored,
            progress=progress,
            live=live,
            standings=tables.get("standings", old.standings),
            sections={**tables.get("sections", {}), **charts} if fresh else old.sections,
            sections_version=old.sections_version + fresh,
            standings_at=computed[0],
        )
        with self.changed:
            self.snapshot = new
            self.changed.notify_all()
        if new.sections:
            self.computed.set()

    def bot_page(self, name: str, standing: str, timeout: float) -> str | None:
        """The page of the bot ``name`` (``standing``: its line in the standings, escaped),
        rendered by the worker from the store once per game stored, however often it is
        asked for; None when it could not be read, did not come within ``timeout``, or
        ``BOT_PAGES`` others wait to be read (the worker's stdin is not filled)."""
        key = f"{self.snapshot.stored}/{name}"
        with self._bot_pages_came:
            if key not in self._bot_pages and key not in self._bot_pages_asked:
                if len(self._bot_pages_asked) >= BOT_PAGES:  # clients ask faster than it reads
                    return None
                if len(self._bot_pages) >= BOT_PAGES:  # the oldest goes
                    del self._bot_pages[next(iter(self._bot_pages))]
                request = {"part": "bot", "key": key, "name": name, "standing": standing}
                if not self._worker.ask(request):  # stopped, or no worker now
                    return None
                self._bot_pages_asked.add(key)
            self._bot_pages_came.wait_for(lambda: key in self._bot_pages or self.stopped, timeout)
            return self._bot_pages.get(key)

    def _worker_died(self) -> None:
        """What the worker was asked is asked of the next one."""
        self._tables.lost()
        self._chart_job.lost()
        with self._bot_pages_came:
            self._bot_pages_asked.clear()

    def _took(self, reply: dict[str, Any]) -> None:
        """A part the worker computed (its value None when it could not): published by the
        next poll, at once."""
        try:
            self._take(reply)
        finally:
            self._wake.set()

    def _take(self, reply: dict[str, Any]) -> None:
        value, stored = reply["value"], int(reply["stored"])
        if reply["part"] == "tables":
            if value is not None:
                self._computed = (stored, value)
            self._tables.spent(float(reply["cpu"]))
            self._want_charts()
        elif reply["part"] == "charts":
            if reply.get("unavailable"):  # no matplotlib: the page goes without its charts
                self.charts = False
            elif value is not None:
                self._chart_html, self._charted_at = value, stored
            self._chart_job.spent(float(reply["cpu"]))
        elif reply["part"] == "bot":
            with self._bot_pages_came:
                key = str(reply["key"])
                self._bot_pages_asked.discard(key)
                self._bot_pages[key] = None if value is None else str(value)
                self._bot_pages_came.notify_all()

    def _want_charts(self) -> None:
        """New charts, when a page asked for them lately and they are due (and older than the
        tables, and the run not young): nobody but a page shows them."""
        if (
            self.charts
            and time.monotonic() - self._page_asked < IDLE_S
            and self._charted_at != self._computed[0] >= 0
            and not _young(self.snapshot.progress)
            and self._chart_job.ask()
        ):
            self._send({"part": "charts"})

    def _send(self, request: dict[str, Any]) -> None:
        """Ask the worker for a part (the tables and charts one at a time: ``_Costly.ask``
        said it was idle)."""
        if not self._worker.ask(request):  # asked again later
            (self._tables if request["part"] == "tables" else self._chart_job).lost()
