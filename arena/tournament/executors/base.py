"""What every executor shares: its events, its interface, and the ``ChunkPlayer``.

An executor takes chunks (``MatchJob``) and yields events in batches (committed together):
``GameDone`` per game, ``JobDone`` per chunk, ``JobFailed`` when the harness failed (never a
bot's loss: the executor plays the chunk again). A ``ChunkPlayer`` plays chunks wherever they run,
keeping a match's bot processes open from one chunk to the next; what a chunk carries (bots'
paths, sandbox mode) is resolved where it plays. A chunk stopped part-way is played again from
its start (its stored games as ``GameReplayed``): its games are those of an unstopped run.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from arena.errors import ArenaError
from arena.launch.process import BotProcess
from arena.limits import AffinityMode, KeepBots
from arena.records import GameRecord
from arena.referee.keeper import BotKeeper
from arena.referee.match import Match, MatchSettings
from arena.tournament.schedule import GameSlot, MatchJob

MAX_ATTEMPTS = 3
"""How many times an executor plays a chunk that the harness failed, at most."""

KEPT_IDLE_S = 120.0
"""How long, by default, a cluster worker keeps a run's bots after its last match of the run
there when the driver never releases them (it was killed outright)."""


@dataclass(frozen=True)
class GameDone:
    """A game of job ``key`` finished."""

    key: str
    slot: GameSlot
    record: GameRecord
    recorded: bool = False
    """Whether the worker's ``GameSink`` stored it as a new game; if not, the caller stores it
    (a store refuses a game it holds, so a game offered twice counts once)."""
    resets: bool = False
    """Whether both bots reset at ``match``: their match's later chunks may go elsewhere."""


@dataclass(frozen=True)
class GameReplayed:
    """A game of chunk ``key`` played again, not stored: progress, for a watchdog."""

    key: str


@dataclass(frozen=True)
class JobDone:
    """Every game of job ``key`` was played."""

    key: str


@dataclass(frozen=True)
class JobFailed:
    """Job ``key`` stopped because of the harness (not a bot): replay what it did not play."""

    key: str
    error: str

    @classmethod
    def of(cls, key: str, error: BaseException) -> JobFailed:
        """The failure of chunk ``key`` by ``error``: a foreseen one (``ArenaError``: a loaded
        machine, a sandbox that cannot start) in its one line; else with its traceback."""
        if isinstance(error, ArenaError):
            return cls(key, str(error))
        return cls(key, "".join(traceback.format_exception(error, limit=8)))


Event = GameDone | GameReplayed | JobDone | JobFailed
GameSink = Callable[[list[GameDone]], list[bool]]
"""Records finished games where they were played (e.g. commits them to a store) and says, for
each, whether it was new. A factory of sinks is called once in each worker process."""


class MatchExecutor(Protocol):
    """Runs chunks somewhere and reports their games as they finish."""

    def execute(self, jobs: Sequence[MatchJob]) -> Iterator[list[Event]]:
        """Run every chunk (a failed one again, up to ``MAX_ATTEMPTS`` times); yield batches of
        events until each chunk is done or failed for good."""
        ...

    def close(self) -> None:
        """Stop everything still running (bots included)."""
        ...


@dataclass(frozen=True)
class ExecutorStatus:
    """Where an executor's matches run, as told to the user while they run."""

    workers: int
    """Workers the executor has (on a cluster: those connected now)."""
    busy: tuple[str, ...] = ()
    """The workers playing a match of this run now (their names or addresses), sorted."""


@dataclass(frozen=True)
class ExecutorSetup:
    """What an executor is made from (see ``arena.tournament.executors.make_executor``)."""

    settings: MatchSettings
    """How the games are played; shipped as is (the sandbox mode is resolved where bots run)."""
    workers: int = 1
    """Matches played at once (an executor may use fewer; the inline one plays one)."""
    affinity: AffinityMode = AffinityMode.AUTO
    """Whether local workers are pinned to cores."""
    sink_factory: Callable[[], GameSink] | None = None
    """Makes, in each worker process, the sink that records its games there (None: the caller
    records every game). Executors whose workers cannot reach the store ignore it."""
    cluster: str | None = None
    """The cluster executor's cluster (``tcp://HOST:PORT`` or ``local:N``); others ignore it."""
    status: Callable[[ExecutorStatus], None] | None = None
    """Told, now and then, how many workers there are and which are busy (None: nobody)."""
    trusted_bots: bool = False
    """Whether the bots are trusted: a cluster then lets them run without bubblewrap, where
    they could reach its scheduler (``arena.tournament.executors.cluster``); others ignore it."""
    winding_down: Callable[[], None] | None = None
    """Told once when a worker is left with nothing to play nor to take from another's match
    (the local pool): the run's last matches play, and a core waits; a time to prepare what
    follows."""
    live: Path | None = None
    """The run's live folder (``arena.tournament.live``), where workers on this machine write
    their games in progress (None: not kept); a local pool's sink writes it itself."""


_ACTIVE: list[Match] = []
"""The matches being played in this process (a worker's SIGTERM handler kills their bots)."""


def active_matches() -> list[Match]:
    """The matches open in this process right now (``ChunkPlayer``)."""
    return list(_ACTIVE)


_KEEPERS: dict[str, BotKeeper] = {}
"""This process's keepers of bots between matches, by scope: a local worker's is ``""``; a Dask
worker, serving several runs, has one per run, released when its run ends."""
_KEEPERS_LOCK = threading.Lock()


def worker_keeper(settings: MatchSettings, scope: str = "") -> BotKeeper | None:
    """The keeper of this process's bots between the matches of ``scope`` (None: ``keep_bots``
    is ``false``); whoever plays chunks here calls ``close_keeper`` when done."""
    if settings.keep_bots is KeepBots.OFF:
        return None
    with _KEEPERS_LOCK:
        keeper = _KEEPERS.get(scope)
        if keeper is None:
            keeper = _KEEPERS[scope] = BotKeeper()
        return keeper


def keepers() -> dict[str, BotKeeper]:
    """This process's keepers by scope (a copy)."""
    return dict(_KEEPERS)


def kept_processes(scope: str | None = None) -> list[BotProcess]:
    """The bot processes this process keeps between matches, of ``scope`` (None: all), to kill
    them on a stop. Takes no lock: a signal handler calls it."""
    return [
        process
        for name, keeper in list(_KEEPERS.items())
        if scope is None or name == scope
        for process in keeper.processes()
    ]


def forget_keeper() -> None:
    """Drop the keepers inherited through ``fork`` without touching their bots (the parent's)."""
    _KEEPERS.clear()


def close_keeper(scope: str | None = None, graceful: bool = True) -> None:
    """Stop every bot kept here for ``scope`` (None: all): ``graceful``, ``quit`` then reaped,
    else killed at once. A match that ends later does not give its bots to a closed keeper."""
    with _KEEPERS_LOCK:
        closing = [_KEEPERS.pop(name) for name in list(_KEEPERS) if scope in (None, name)]
    for keeper in closing:
        keeper.close(graceful)


class ChunkPlayer:
    """Plays chunks in this process: a chunk that follows the one it just played continues that
    match (its bot processes, reseeded); any other ends it and opens one. ``started``: told each
    match before its bots start (``emit`` or ``started`` may raise to end it). A match takes its
    bots from, and gives them back to, the keeper of ``scope`` (``worker_keeper``)."""

    def __init__(
        self,
        settings: MatchSettings,
        scope: str = "",
        started: Callable[[Match], None] | None = None,
    ) -> None:
        self.settings, self.scope, self.started = settings, scope, started
        self.match: Match | None = None
        self.last: str | None = None  # the chunk the open match played last

    def play(
        self,
        job: MatchJob,
        emit: Callable[[Event], None],
        stop: Callable[[], bool] | None = None,
        ends_match: bool = False,
    ) -> None:
        """Play ``job``: a ``GameDone`` after each game, a ``JobDone`` at the end. ``stop``: asked
        after each game; True, or an error (raised), ends the match there, its bots quit.
        ``ends_match``: no chunk follows this one here; its match ends before its ``JobDone``."""
        match = self._match_for(job)
        try:
            for slot in job.slots:
                record = match.play(slot.order_seat, slot.opening)
                if slot.replay:  # it only brings the bots where they were: not stored
                    emit(GameReplayed(job.key))
                else:
                    emit(GameDone(job.key, slot, record, resets=match.resets_at_match()))
                if stop is not None and stop():
                    self.end(keep=False)
                    return
        except BaseException:
            self.end(keep=False)
            raise
        self.last = job.key
        if ends_match:
            self.end()
        emit(JobDone(job.key))

    def _match_for(self, job: MatchJob) -> Match:
        """The open match when ``job`` follows its last chunk (reseeded), else a new one."""
        if self.match is not None and job.follows is not None and job.follows == self.last:
            if job.seed != self.match.seed:
                self.match.reseed(job.seed)
            return self.match
        self.end()
        match = Match(
            job.bot_a,
            job.bot_b,
            self.settings,
            job.seed,
            job.games or len(job.slots),
            keeper=worker_keeper(self.settings, self.scope),
        )
        if self.started is not None:
            self.started(match)
        _ACTIVE.append(match)
        self.match = match
        return match

    def end(self, keep: bool = True) -> None:
        """End the open match, if any: its bots go to the keeper (``keep``), else quit."""
        match, self.match, self.last = self.match, None, None
        if match is None:
            return
        try:
            match.close(keep=keep)
        finally:
            _ACTIVE.remove(match)
