"""A running tournament seen from outside: its games in progress and its progress, in files.

A live view (``arena serve``, the terminal's progress) runs in another process than the games,
which are played in forked workers. So each process that plays matches keeps a small JSON file
in the run's live folder beside the store (``live_folder``): its games in progress, rewritten
by a thread at most every ``PERIOD_S`` from the matches' games (``Match.current``, whose moves
grow as they are played), so the game loop pays nothing per move. The run writes its progress
there too. Files are replaced whole (write, then rename), so a reader never sees half of one;
the run removes the folder at its end, and a reader ignores the file of a process that died.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the live page's server reads the folder without the run's code
    from arena.records import GameRecord
    from arena.store.database import VersionChange
    from arena.tournament.executors.base import ExecutorStatus
    from arena.tournament.schedule import MatchJob

PERIOD_S = 0.5
"""How often a process's games in progress are written, at most. With the page's server looking
four times a second, a move shows on the page within a second; writing more often costs the
run's own CPU."""
PROGRESS_FILE = "progress.json"


def live_folder(db: str | os.PathLike[str]) -> Path:
    """The live folder of the store at ``db``: ``<db>.live`` beside it."""
    path = Path(db)
    return path.with_name(path.name + ".live")


def _write_json(path: Path, data: Any) -> None:
    """``data`` as ``path``, replaced whole."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
    os.replace(temporary, path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read_json(path: Path) -> Any:
    """The file's JSON, or None when it is gone, half-written or not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


@dataclass(frozen=True)
class LiveGame:
    """A game being played, as far as it went."""

    order: str
    chaos: str
    order_display: str
    chaos_display: str
    opening: list[str]
    moves: list[str]
    started_at: float
    """Unix time when it started."""
    moved_at: float
    """Unix time of its last move seen (its start before any)."""

    @classmethod
    def from_json(cls, data: Any) -> LiveGame | None:
        """The game a live file describes, or None when it is not one."""
        try:
            game = cls(**data)
        except TypeError:
            return None
        strings = [game.order, game.chaos, game.order_display, game.chaos_display]
        lists = [*game.opening, *game.moves]
        numbers = [game.started_at, game.moved_at]
        if not all(type(text) is str for text in strings + lists):
            return None
        if not all(isinstance(n, int | float) for n in numbers):
            return None
        return game


class LiveFeed:
    """This process's games in progress, written to ``<folder>/<pid>.json`` by a thread.

    The thread only reads the matches' records (a list copied under the GIL) and writes when
    something changed; it holds no lock that a forked bot process could inherit taken."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / f"{os.getpid()}.json"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._moved: dict[int, tuple[int, float]] = {}  # id(record) -> (plies, when they changed)

    def start(self) -> LiveFeed:
        self._thread = threading.Thread(target=self._run, name="arena-live", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop writing and remove this process's file."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with contextlib.suppress(OSError):
            self.path.unlink()

    def games(self) -> list[LiveGame]:
        """The games this process plays now."""
        from arena.tournament.executors.base import active_matches

        now = time.time()
        games = []
        moved = {}
        for match in active_matches():
            record = match.current
            if record is None:
                continue
            moves = list(record.moves)
            plies, when = self._moved.get(id(record), (-1, now))
            moved[id(record)] = (len(moves), now if len(moves) != plies else when)
            seats = {seat.spec.name: seat.display_name for seat in match.seats}
            games.append(
                LiveGame(
                    record.order,
                    record.chaos,
                    seats.get(record.order) or "",
                    seats.get(record.chaos) or "",
                    list(record.opening),
                    moves,
                    record.started_at,
                    moved[id(record)][1],
                )
            )
        self._moved = moved
        return games

    def _run(self) -> None:
        written: list[dict[str, Any]] | None = None
        while not self._stop.wait(PERIOD_S):
            games = [asdict(game) for game in self.games()]
            if games == written:
                continue
            try:
                self.folder.mkdir(exist_ok=True)
                _write_json(self.path, {"pid": os.getpid(), "games": games})
                written = games
            except OSError:  # the run ended and took the folder: nothing left to show
                written = None


def read_games(folder: Path) -> list[LiveGame]:
    """The games in progress in a run's live folder (none when there is no run), oldest first;
    the files of processes that died are skipped."""
    games: list[LiveGame] = []
    for path in _live_files(folder):
        data = _read_json(path)
        if not isinstance(data, dict) or not isinstance(data.get("pid"), int):
            continue
        if not _alive(data["pid"]) or not isinstance(data.get("games"), list):
            continue
        games += [g for g in map(LiveGame.from_json, data["games"]) if g is not None]
    return sorted(games, key=lambda game: game.started_at)


class FolderReader:
    """A run's live folder as a poller reads it: read again only when a file in it was written,
    added or removed, or a process that wrote one ended (a look is a listing, not a read)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._seen: tuple[object, ...] | None = None
        self._progress = RunProgress()
        self._games: list[LiveGame] = []

    def read(self) -> tuple[RunProgress, list[LiveGame]]:
        """The run's progress and its games in progress, as ``read_progress`` and
        ``read_games`` give them (the same objects while nothing changed)."""
        seen = self._look()
        if seen != self._seen:
            self._progress, self._games = read_progress(self.folder), read_games(self.folder)
            self._seen = seen  # what was read is as new as this look, or newer
        return self._progress, self._games

    def _look(self) -> tuple[object, ...]:
        """Each file's name, inode, time and size (a file is replaced whole: a new inode), and
        whether each writer lives; empty without a folder."""
        files = []
        try:
            with os.scandir(self.folder) as entries:
                for entry in entries:
                    with contextlib.suppress(OSError):  # gone meanwhile
                        info = entry.stat()
                        files.append((entry.name, info.st_ino, info.st_mtime_ns, info.st_size))
        except OSError:
            return ()
        pids = [int(name[:-5]) for name, *_ in files if _games_file(name)]
        writers = [_alive(pid) for pid in (*pids, self._progress.pid) if pid > 0]
        return (*sorted(files), *writers)


def _live_files(folder: Path) -> Iterator[Path]:
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if _games_file(name):
            yield folder / name


def _games_file(name: str) -> bool:
    """Whether ``name`` is a process's games in progress (``<pid>.json``)."""
    return name.endswith(".json") and name[:-5].isdigit()


@dataclass
class RunProgress:
    """How far a run is: what ``read_progress`` returns."""

    total: int = 0
    """Games the tournament owes in all."""
    done: int = 0
    """Games stored (resumed ones included)."""
    played: int = 0
    """Games played by this run."""
    faults: int = 0
    """Games of this run lost by a fault."""
    started_at: float = 0.0
    """Unix time when the run started."""
    updated_at: float = 0.0
    """Unix time of this reading."""
    pid: int = 0
    """The run's process."""
    running: bool = False
    """Whether the run goes on (false once it ended, or for a store no run plays)."""

    def to_json(self) -> dict[str, Any]:
        return dict(vars(self))  # its fields are plain values: no copy as deep as asdict's


def read_progress(folder: Path) -> RunProgress:
    """The progress of the run writing ``folder`` (``running`` false when there is none)."""
    data = _read_json(folder / PROGRESS_FILE)
    if not isinstance(data, dict):
        return RunProgress()
    try:
        progress = RunProgress(**data)
    except TypeError:
        return RunProgress()
    numbers = [progress.total, progress.done, progress.played, progress.faults, progress.pid]
    if not all(type(n) is int for n in numbers) or not _alive(progress.pid):
        return RunProgress()
    return progress


class LiveProgress:
    """A run's observer that writes its progress to the live folder and tells ``inner`` all.

    Written at most every ``PERIOD_S`` (and at the start): the parent's work per game stays a
    counter's."""

    def __init__(self, folder: Path, inner: object | None) -> None:
        self.folder = folder
        self.inner = inner
        self.progress = RunProgress(started_at=time.time(), pid=os.getpid(), running=True)
        self.written = 0.0

    def _tell(self, name: str, *args: object) -> None:
        method = getattr(self.inner, name, None)
        if method is not None:
            method(*args)

    def write(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.written < PERIOD_S:
            return
        self.written = now
        self.progress.updated_at = time.time()
        with contextlib.suppress(OSError):
            self.folder.mkdir(exist_ok=True)
            _write_json(self.folder / PROGRESS_FILE, self.progress.to_json())

    def started(self, total: int, already: int, jobs: int) -> None:
        self.progress.total, self.progress.done = total, already
        self.write(force=True)
        self._tell("started", total, already, jobs)

    def game(self, record: GameRecord) -> None:
        self.progress.done += 1
        self.progress.played += 1
        self.progress.faults += record.reason.is_fault
        self.write(force=self.progress.done == self.progress.total)
        self._tell("game", record)

    def harness_error(self, job: str, error: str) -> None:
        self._tell("harness_error", job, error)

    def bot_changed(self, change: VersionChange, set_aside: int) -> None:
        self._tell("bot_changed", change, set_aside)

    def workers_capped(self, asked: int, used: int, reason: str) -> None:
        self._tell("workers_capped", asked, used, reason)

    def executor_status(self, status: ExecutorStatus) -> None:
        self._tell("executor_status", status)

    def winding_down(self) -> None:
        self._tell("winding_down")

    def planned(self, jobs: Sequence[MatchJob], workers: int) -> None:
        self._tell("planned", jobs, workers)

    def total_grew(self, total: int) -> None:
        self.progress.total = total
        self.write(force=True)
        self._tell("total_grew", total)


def remove_folder(folder: Path) -> None:
    """The run's live folder, gone (its end)."""
    shutil.rmtree(folder, ignore_errors=True)
