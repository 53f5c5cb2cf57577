"""The live page's state at a run's end: its final standings are published at once, whatever
the throttle of the costly parts says, so that a page left open keeps the run's last standings.

A real store from a real run (half its games taken out, then put back as the run would store
them), the run's progress written by ``LiveProgress`` as a run writes it, and a ``LiveState``
whose tables may be redone only once an hour: only the run's end can make them current.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import run_arena, wait_until
from factories import bot_entries, write_config

from arena.report import live
from arena.report.live import LiveState
from arena.report.livestore import StoreWatch
from arena.tournament.live import LiveProgress, live_folder

GAMES = 12


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of ``GAMES`` games, played by the command."""
    folder = tmp_path_factory.mktemp("played")
    bots = bot_entries(folder, ["alpha", "beta"])
    config = write_config(folder, bots, games_per_pairing=GAMES // 2, sandbox="none")
    done = run_arena("tournament", config, "--quiet", timeout=120)
    assert done.returncode == 0, done.stderr
    return folder / "t.sqlite"


def _half(played: Path, db: Path) -> None:
    """``db``: the store ``played`` with half its games."""
    shutil.copy(played, db)
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM games WHERE id > ?", (GAMES // 2,))
    conn.close()


@pytest.fixture
def running(
    played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Path, LiveProgress, LiveState]]:
    """The store with half its games, a run playing into it, and a page open on it."""
    db = tmp_path / "t.sqlite"
    _half(played, db)
    progress = LiveProgress(live_folder(db), None)
    progress.started(GAMES, GAMES // 2, 1)
    monkeypatch.setattr(live, "TABLES_S", 3600.0)
    state = LiveState(db, charts=False).start()
    state.viewing(True)
    try:
        assert state.current(30).standings["games"] == GAMES // 2
        yield db, progress, state
    finally:
        state.stop()


def _store_the_rest(db: Path, played: Path) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute("ATTACH ? AS played", (str(played),))
        conn.execute("INSERT INTO games SELECT * FROM played.games WHERE id > ?", (GAMES // 2,))
    conn.close()


def test_the_last_game_stored_makes_the_standings_current_at_once(
    running: tuple[Path, LiveProgress, LiveState], played: Path
) -> None:
    db, progress, state = running
    _store_the_rest(db, played)
    time.sleep(2 * live.POLL_S)  # a poll sees the games: the tables are not due for an hour
    assert state.snapshot.standings["games"] == GAMES // 2
    progress.progress.done = GAMES
    progress.write(force=True)
    start = time.monotonic()
    snapshot = state.current(30)
    assert time.monotonic() - start < 10
    finished = json.loads(run_arena("ratings", db, "--json").stdout)
    assert snapshot.standings == finished and snapshot.standings_at == snapshot.stored


def test_a_server_told_to_stop_publishes_the_final_standings_first(
    running: tuple[Path, LiveProgress, LiveState], played: Path
) -> None:
    db, _, state = running
    _store_the_rest(db, played)
    state.finish(30)
    finished = json.loads(run_arena("ratings", db, "--json").stdout)
    assert state.snapshot.standings == finished


def _workers() -> list[int]:
    """This process's live workers (started by one of its threads)."""
    found = []
    for task in Path("/proc/self/task").iterdir():
        for child in (task / "children").read_text().split():
            with contextlib.suppress(OSError):
                if b"arena.report.livework" in Path(f"/proc/{child}/cmdline").read_bytes():
                    found.append(int(child))
    return found


def test_a_worker_that_died_is_replaced(
    running: tuple[Path, LiveProgress, LiveState], played: Path
) -> None:
    """The process computing the tables killed: the next computation starts another, and the
    run's end still brings the final standings."""
    db, progress, state = running
    (worker,) = _workers()
    os.kill(worker, signal.SIGKILL)
    _store_the_rest(db, played)
    progress.progress.done = GAMES
    progress.write(force=True)
    finished = json.loads(run_arena("ratings", db, "--json").stdout)
    assert wait_until(lambda: state.snapshot.standings == finished, 30)
    assert _workers() and worker not in _workers()


def test_a_look_at_a_store_that_did_not_change_reads_nothing(played: Path, tmp_path: Path) -> None:
    """The poller's store stays open and is read only when a writer committed: a look at an
    unchanged store costs a small fraction of opening it (which every poll used to), and the
    games that count follow every change."""
    db = tmp_path / "t.sqlite"
    _half(played, db)
    watch = StoreWatch(db)
    try:
        assert watch.read() == (GAMES // 2, GAMES // 2)
        started = time.thread_time()
        for _ in range(200):
            assert watch.read() == (GAMES // 2, GAMES // 2)
        assert (time.thread_time() - started) / 200 < 1e-4  # opening alone: about 3e-4
        _store_the_rest(db, played)  # games added: the new ones counted
        assert wait_until(lambda: watch.read() == (GAMES, GAMES), 10)
        # What else changes the games that count is seen too: a game removed, a bot's
        # version no longer active.
        for change, games in (("DELETE FROM games WHERE id = 1", GAMES - 1),
                              ("UPDATE bots SET active = 0 WHERE name = 'alpha'", 0)):  # fmt: skip
            with sqlite3.connect(db) as conn:
                conn.execute(change)
            conn.close()
            assert wait_until(lambda games=games: watch.read() == (GAMES, games), 10), change
        _half(played, tmp_path / "other.sqlite")
        os.replace(tmp_path / "other.sqlite", db)  # another file: opened again
        assert wait_until(lambda: watch.read() == (GAMES // 2, GAMES // 2), 10)
    finally:
        watch.close()


def test_a_young_run_s_charts_wait_for_its_end(played: Path, tmp_path: Path) -> None:
    """A page open on a run in its first minute: the tables come, the charts (a second of
    CPU) are not asked for; the run's end asks for them at once."""
    db = tmp_path / "t.sqlite"
    _half(played, db)
    progress = LiveProgress(live_folder(db), None)
    progress.started(GAMES, GAMES // 2, 1)
    state = LiveState(db).start()
    try:
        state.asked(page=True)
        assert state.current(30).sections, "no tables in time"
        polls = state._polls
        assert wait_until(lambda: state._polls > polls + 2, 10)
        state.asked(page=True)
        assert not state._chart_job.busy and "ratings" not in state.snapshot.sections  # not asked
        progress.progress.done = GAMES
        progress.write(force=True)
        # Asked of the worker at once (which draws them as its lowest priority lets it).
        asked = wait_until(
            lambda: state._chart_job.busy or "ratings" in state.snapshot.sections, 10
        )
        assert asked, "the charts were not asked for"
    finally:
        state.stop()
