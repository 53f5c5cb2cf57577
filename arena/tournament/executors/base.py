"""What every executor shares: the events it reports, the interface it offers, and ``play_job``.

An executor takes ``MatchJob``s and yields events in batches (those that arrived together, so that
the caller commits their games in one transaction): ``GameDone`` per game, ``JobDone`` per match,
and ``JobFailed`` when the harness itself failed, never charged to a bot (its games are replayed);
``ChunksShared`` stays between an executor and its workers (a match's later chunks given back).
``play_job`` is the unit any executor runs, wherever it runs; everything a job carries (the bots'
paths, the sandbox mode) is resolved on the machine that plays it.

A match is a run of chunks (games under one seed) played by one pair of bot processes. The chunk
is what is shared, replayed and resumed: a match gives its later chunks to an idle worker only
at a chunk's start, and a chunk stopped part-way is played again from its start (its stored games
as ``GameReplayed``), so that its games are those an unstopped run plays.
"""

from __future__ import annotations

import dataclasses
import enum
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


@dataclass(frozen=True)
class GameReplayed:
    """A game of job ``key`` was played again, not stored (a chunk resumed part-way): told as
    progress, so that a watchdog does not take a run of them for a stalled worker."""

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
        """The failure of job ``key`` by ``error``: an error the harness foresees (``ArenaError``:
        a machine too loaded to referee, a sandbox that cannot start) in its own one line, as the
        run tells it to the user and stores it; anything else with its traceback, a bug to
        report."""
        if isinstance(error, ArenaError):
            return cls(key, str(error))
        return cls(key, "".join(traceback.format_exception(error, limit=8)))


@dataclass(frozen=True)
class ChunksShared:
    """A match's answer to ``Asked.SHARE`` (``play_job``): the chunks it gives back, or None."""

    key: str
    rest: MatchJob | None
    """Its last chunks, about half of what it had left, as a job of the same key for another
    worker; None when it keeps them all (a bot that does not reset at ``match``, no chunk
    boundary left). A failure of either part replays what the key's job has not played."""


Event = GameDone | GameReplayed | JobDone | JobFailed | ChunksShared
GameSink = Callable[[list[GameDone]], list[bool]]
"""Records finished games where they were played (e.g. commits them to a store) and says, for
each, whether it was new. A factory of sinks is called once in each worker process."""


class MatchExecutor(Protocol):
    """Runs matches somewhere and reports their games as they finish."""

    def execute(self, jobs: Sequence[MatchJob]) -> Iterator[list[Event]]:
        """Run every job; yield batches of events until each job is done or failed."""
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
    """Told once when a worker is left with nothing to play nor to take a share of (the local
    pool): the run's last matches play, and a core waits; a time to prepare what follows."""
    live: Path | None = None
    """The run's live folder (``arena.tournament.live``), where workers on this machine write
    their games in progress (None: not kept); a local pool's sink writes it itself."""


_ACTIVE: list[Match] = []
"""The matches being played in this process (a worker's SIGTERM handler kills their bots)."""


def active_matches() -> list[Match]:
    """The matches ``play_job`` is playing in this process right now."""
    return list(_ACTIVE)


_KEEPERS: dict[str, BotKeeper] = {}
"""This process's keepers of bots between matches, by scope (made by the first job of the scope
that keeps bots). A local worker serves one run: one scope, ``""``. A Dask worker outlives runs
and may serve several drivers at once: a scope per run, released when its run ends."""
_KEEPERS_LOCK = threading.Lock()


def worker_keeper(settings: MatchSettings, scope: str = "") -> BotKeeper | None:
    """The keeper of this process's bots between the matches of ``scope``, or None when
    ``keep_bots`` is ``false``. Whoever runs ``play_job`` in a process calls ``close_keeper``
    when it is done there."""
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
    """Stop every bot kept in this process for ``scope`` (None: all); its next job starts anew.

    ``graceful``: ``quit``, then reaped; else killed at once. A match of the scope that ends
    later does not give its bots to the closed keeper: they quit."""
    with _KEEPERS_LOCK:
        closing = [_KEEPERS.pop(name) for name in list(_KEEPERS) if scope in (None, name)]
    for keeper in closing:
        keeper.close(graceful)


class Asked(enum.Enum):
    """What a match's worker was asked between two of its games (``play_job``'s ``asked``)."""

    NOTHING = "nothing"
    SHARE = "share"
    """Another worker waits idle: give back the later chunks (``ChunksShared``), or say no."""
    STOP = "stop"
    """The worker is closing: end the match here, its bots quit, and send no ``JobDone``."""


def play_job(
    job: MatchJob,
    settings: MatchSettings,
    emit: Callable[[Event], None],
    started: Callable[[Match], None] | None = None,
    scope: str = "",
    asked: Callable[[], Asked] | None = None,
) -> None:
    """Play one match job, emitting a ``GameDone`` after each game and a ``JobDone`` at the end.

    ``started``: told the match before its bots start (a cluster worker keeps it, so that its
    driver can stop it from outside: ``emit`` or ``started`` may raise to end the match).
    ``asked``: called after each game (``Asked``). Asked to share, the match gives back its later
    chunks if both bots reset at ``match`` (their games are then the same wherever a chunk is
    played), and answers either way. A new chunk reseeds the match.

    Unless ``settings.keep_bots`` is ``false``, the bots come from this process's keeper when it
    holds them, and go back to it at the end of a match that ended normally (``worker_keeper``
    of ``scope``; under ``auto``, only those that asked for the ``match`` extension)."""
    match = Match(
        job.bot_a,
        job.bot_b,
        settings,
        job.seed,
        job.games or len(job.slots),
        keeper=worker_keeper(settings, scope),
    )
    if started is not None:
        started(match)
    _ACTIVE.append(match)
    slots = list(job.slots)
    try:
        with match:
            for i, slot in enumerate(slots):  # ``slots`` may shrink meanwhile
                if i and slot.seed != slots[i - 1].seed:
                    match.reseed(slot.seed)
                record = match.play(slot.order_seat, slot.opening)
                if slot.replay:  # it only brings the bots where they were: not stored
                    emit(GameReplayed(job.key))
                else:
                    emit(GameDone(job.key, slot, record))
                request = Asked.NOTHING if asked is None else asked()
                if request is Asked.STOP:
                    match.close(keep=False)
                    return
                if request is Asked.SHARE:
                    emit(ChunksShared(job.key, _hand_back(job, slots, i + 1, match)))
    finally:
        _ACTIVE.remove(match)
    emit(JobDone(job.key))


def _hand_back(job: MatchJob, slots: list[GameSlot], played: int, match: Match) -> MatchJob | None:
    """Cut from ``slots`` (after ``played`` games) the chunks from the boundary nearest the middle
    of what is left, as a job of their own; None, and ``slots`` untouched, if the bots do not
    reset at ``match`` or no boundary is left before the last game (at the next game, it would
    only move the rest to another worker, which may have to start the bots)."""
    if not match.resets_at_match():
        return None
    bounds = [i for i in range(played + 1, len(slots)) if slots[i].seed != slots[i - 1].seed]
    middle = (played + len(slots)) / 2
    cut = min(bounds, key=lambda i: abs(i - middle), default=None)
    if cut is None:
        return None
    rest = tuple(slots[cut:])
    del slots[cut:]
    return dataclasses.replace(job, slots=rest, seed=rest[0].seed)
