"""A run's live folder (``arena.tournament.live``): the games in progress, move by move, from every
process that plays them (the inline executor's parent, the pool's workers, a local Dask
cluster's workers), the run's progress, and nothing left at the end; a dead process's file and
a damaged one are skipped.

Real runs of paced bots through ``run_tournament`` with ``live=True``; a thread here reads the
folder as a live page would, every 50 ms, for as long as the run lasts (bounded by it)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from factories import copy_bot

from arena.botspec import BotSpec
from arena.limits import SandboxMode, TimeControl
from arena.referee.match import MatchSettings
from arena.store.database import Store
from arena.tournament.live import (
    PERIOD_S,
    FolderReader,
    LiveGame,
    live_folder,
    read_games,
    read_progress,
)
from arena.tournament.run import TournamentPlan, run_tournament

# A Dask LocalCluster starts multiprocessing's resource tracker in this process.
pytestmark = pytest.mark.usefixtures("no_resource_tracker_left")


PACE_MS = round(1200 * PERIOD_S)
"""The paced bots' time a move: longer than the feed's period, so each of a game's plies is
written on its own."""


def _plan(folder: Path, executor: str) -> TournamentPlan:
    paced = copy_bot(folder / "bots", "paced.py")
    bots = tuple(
        BotSpec.from_command(["python3", str(paced), str(PACE_MS), f"shown-{name}"], name)
        for name in ("a", "b")
    )
    settings = MatchSettings(
        time_control=TimeControl(move_ms=PACE_MS + 1000, startup_ms=5000),
        sandbox=SandboxMode.NONE,
    )
    return TournamentPlan(
        name="t",
        bots=bots,
        games_per_pairing=2,
        workers=2,
        settings=settings,
        db=folder / "t.sqlite",
        executor=executor,
        cluster="local:2" if executor == "cluster" else None,
        trusted_bots=executor == "cluster",  # the paced bots run without bubblewrap
        live=True,
    )


@pytest.mark.parametrize("executor", ["inline", "local", "cluster"])
def test_the_games_in_progress_are_seen_move_by_move(tmp_path: Path, executor: str) -> None:
    if executor == "cluster":
        pytest.importorskip("distributed")
    plan = _plan(tmp_path, executor)
    folder = live_folder(plan.db or "")
    seen: list[LiveGame] = []
    progress = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(0.05):
            seen.extend(read_games(folder))
            progress.append(read_progress(folder))

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        with Store.open(tmp_path / "t.sqlite") as store:
            result = run_tournament(plan, store)
    finally:
        stop.set()
        watcher.join(timeout=10)
    assert result.played == 4
    assert not folder.exists()
    # The same game seen at several plies, its moves growing one by one (a prefix each time).
    by_game: dict[tuple[str, float], set[tuple[str, ...]]] = {}
    for game in seen:
        by_game.setdefault((game.order, game.started_at), set()).add(tuple(game.moves))
    grown = max(by_game.values(), key=len)
    assert len(grown) >= 3, by_game
    ordered = sorted(grown, key=len)
    pairs = zip(ordered, ordered[1:], strict=False)
    assert all(longer[: len(shorter)] == shorter for shorter, longer in pairs)
    # The names the bots gave in ``ready`` (none yet while they start).
    assert {game.order_display for game in seen} - {""} == {"shown-a", "shown-b"}
    running = [p for p in progress if p.running]
    assert running and running[-1].total == 4 and running[0].done <= running[-1].done


def test_a_dead_process_and_a_damaged_file_are_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "t.sqlite.live"
    folder.mkdir()
    game = {
        "order": "a",
        "chaos": "b",
        "order_display": "",
        "chaos_display": "",
        "opening": [],
        "moves": ["a1X"],
        "started_at": 1.0,
        "moved_at": 2.0,
    }
    dead = 2**22 + 12345  # above pid_max's default: no such process
    (folder / f"{dead}.json").write_text(json.dumps({"pid": dead, "games": [game]}))
    (folder / "1.json").write_text(json.dumps({"pid": 1, "games": [game, {"order": 3}]}))
    (folder / "2.json").write_text("{half")
    (folder / "progress.json").write_text(json.dumps({"total": "many", "pid": 1}))
    assert read_games(folder) == [LiveGame(**game)]  # pid 1 lives; its bad entry skipped
    assert not read_progress(folder).running
    assert read_games(tmp_path / "nothing") == []


def _game_file(folder: Path, pid: int, moves: list[str]) -> None:
    """A process's games file, replaced whole as a playing process replaces it."""
    game = {"order": "a", "chaos": "b", "order_display": "", "chaos_display": "",
            "opening": [], "moves": moves, "started_at": 1.0, "moved_at": 2.0}  # fmt: skip
    temporary = folder / f".{pid}.json.tmp"
    temporary.write_text(json.dumps({"pid": pid, "games": [game]}))
    temporary.replace(folder / f"{pid}.json")


def test_the_folder_is_read_again_only_when_it_changed(tmp_path: Path) -> None:
    """A poller's reader: the same objects while nothing changed (nothing parsed again); a
    file replaced, added or removed, or a writer that ended, is seen at the next read."""
    folder = tmp_path / "t.sqlite.live"
    reader = FolderReader(folder)
    assert reader.read() == (read_progress(folder), [])  # no folder yet
    folder.mkdir()
    writer = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                              stdin=subprocess.PIPE)  # fmt: skip
    try:
        _game_file(folder, writer.pid, ["a1X"])
        progress, games = reader.read()
        assert [game.moves for game in games] == [["a1X"]]
        assert reader.read()[1] is games  # nothing changed: not read again
        _game_file(folder, writer.pid, ["a1X", "b2O"])
        assert [game.moves for game in reader.read()[1]] == [["a1X", "b2O"]]
        _game_file(folder, 1, ["c3X"])  # another process's file (pid 1 lives)
        assert len(reader.read()[1]) == 2
        (folder / "1.json").unlink()
        assert len(reader.read()[1]) == 1
    finally:
        assert writer.stdin is not None
        writer.stdin.close()
        writer.wait(timeout=10)
    assert reader.read()[1] == []  # its writer ended: its file is skipped
