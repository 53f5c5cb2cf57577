"""The store against user mistakes, end to end through ``python -m arena``.

A config pointed at another tournament's store, a lowered ``games_per_pairing``, two runs on one
store at once: real configs, real bot processes (copied into ``tmp_path``, so that a scan of
``/proc`` for ``tmp_path`` finds every process a run started), real SQLite files.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import REPO_ROOT, run_arena, wait_for_no_leftovers, wait_until
from factories import bot_entries, write_config

ROOT = REPO_ROOT


# room for every name in the tables
arena = functools.partial(run_arena, env={**os.environ, "COLUMNS": "250"})


def three_bot_config(
    tmp_path: Path, file: str = "t.yaml", pace_ms: int = 1, **extra: object
) -> Path:
    """Three bots (instant, random and a paced one), 500 ms a move, seed 1, the store in
    ``tmp_path`` (``factories.write_config``; ``extra`` replaces top-level keys)."""
    bots = bot_entries(tmp_path, ["instant", "random", "paced"], pace_ms=pace_ms)
    fields: dict[str, object] = {"time_control": {"move_ms": 500, "startup_ms": 5000}, "seed": 1}
    return write_config(tmp_path, bots, file, **{**fields, **extra})


def run_lock_taken(db: Path) -> bool:
    """Whether a run holds the store's run lock (a ``flock`` on the file itself)."""
    try:
        fd = os.open(db, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # this test process holds no SQLite lock on the file to lose
    return False


def stored(db: Path) -> Counter[tuple[str, str, int]]:
    """(order, chaos, slot) of every stored game, read from the file itself."""
    conn = sqlite3.connect(f"{db.absolute().as_uri()}?mode=ro", uri=True, timeout=5)
    try:
        rows = conn.execute("SELECT order_name, chaos_name, slot FROM games").fetchall()
        return Counter(tuple(row) for row in rows)
    finally:
        conn.close()


def meta(db: Path) -> dict[str, str]:
    conn = sqlite3.connect(f"{db.absolute().as_uri()}?mode=ro", uri=True, timeout=5)
    try:
        return dict(conn.execute("SELECT key, value FROM meta").fetchall())
    finally:
        conn.close()


def test_another_tournaments_store_is_refused(tmp_path: Path) -> None:
    first = three_bot_config(tmp_path)
    assert arena("tournament", first, "--quiet").returncode == 0
    db = tmp_path / "t.sqlite"
    games, before = stored(db), meta(db)
    assert sum(games.values()) == 12

    other = three_bot_config(
        tmp_path, "other.yaml", name="other", seed=2, time_control={"move_ms": 300}
    )
    result = arena("tournament", other)
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"arena: error: {db}: holds the games of another tournament (")
    for difference in ('name: "t" in the store, "other" now', "seed: 1 in the store, 2 now"):
        assert difference in line
    assert "time_control.move_ms: 500 in the store, 300 now" in line
    assert "--fresh" in line
    assert "Traceback" not in result.stderr and "resumed" not in result.stdout
    assert stored(db) == games and meta(db) == before  # nothing adopted, nothing overwritten

    fresh = arena("tournament", other, "--fresh", "--quiet")
    assert fresh.returncode == 0, fresh.stderr
    assert meta(db)["name"] == "other" and meta(db)["seed"] == "2"
    assert arena("tournament", first).returncode == 2  # now the first is the other one


def test_lowering_games_per_pairing_rates_only_the_owed_games(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    assert (
        arena("tournament", three_bot_config(tmp_path, games_per_pairing=4), "--quiet").returncode
        == 0
    )
    fewer = arena("tournament", three_bot_config(tmp_path, games_per_pairing=2))
    assert fewer.returncode == 0, fewer.stderr
    assert "0 games played this run, 12 resumed" in fewer.stdout
    assert sum(stored(db).values()) == 24  # kept
    data = json.loads(arena("ratings", db, "--json").stdout)
    assert {bot["name"]: bot["games"] for bot in data["bots"]} == dict.fromkeys(
        ("instant", "random", "paced"), 8
    )
    assert len(arena("export", db).stdout.splitlines()) == 12


def test_a_second_run_on_the_same_store_is_refused(tmp_path: Path) -> None:
    # The first run must outlast three refused commands, each a Python start: on a loaded
    # machine a second or more each (at 50 ms a paced move it once finished first).
    config = three_bot_config(tmp_path, pace_ms=100, games_per_pairing=4)
    db = tmp_path / "t.sqlite"
    first = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", str(config), "--quiet"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until(lambda: run_lock_taken(db) or first.poll() is not None, 60)
        assert first.poll() is None, first.communicate()
        assert run_lock_taken(db), "the first run never took its lock"
        os.link(db, tmp_path / "hard.sqlite")  # the same file under another name
        # The same config naming the link; written from the first's text, never by copying the
        # bots again: that would rewrite the running bots' files under the first run, which then
        # (rightly) finds a bot changed during the run, or starts a half-copied one.
        linked = tmp_path / "linked.yaml"
        linked.write_text(config.read_text().replace("t.sqlite", "hard.sqlite"))
        for attempt in (["--quiet"], ["--fresh"], ["--fresh", "linked"]):
            chosen = linked if "linked" in attempt else config
            second = arena("tournament", chosen, *[a for a in attempt if a != "linked"])
            assert second.returncode == 2
            # One error line (after, at most, the note on shared bot folders).
            errors = [x for x in second.stderr.splitlines() if not x.startswith("arena: note:")]
            (line,) = errors
            if chosen is linked:  # its own name, so its own WAL: it cannot read who holds it
                assert "hard.sqlite: another run is using this store (" in line
            else:
                assert f"another run is using this store (pid {first.pid} on " in line
            assert first.poll() is None, "the second run stopped the first"
        out, err = first.communicate(timeout=120)
        assert first.returncode == 0, out + err
    finally:
        if first.poll() is None:
            first.kill()
            first.communicate()
    names = ("instant", "random", "paced")
    owed = Counter((a, b, i) for a in names for b in names if a != b for i in range(4))
    assert stored(db) == owed  # every game once: the second run played none, wiped none
    assert not run_lock_taken(db)
    assert not list(tmp_path.glob("*.lock"))  # the lock is the file's: none was made beside it
    assert not wait_for_no_leftovers([str(tmp_path)])


@pytest.mark.parametrize("spelling", ["same", "wal"])
def test_export_over_a_running_tournaments_store_is_refused(tmp_path: Path, spelling: str) -> None:
    """The CLI names the file and changes nothing, whether the target is the store or its WAL."""
    config = three_bot_config(tmp_path)
    assert arena("tournament", config, "--quiet").returncode == 0
    db = tmp_path / "t.sqlite"
    before = db.read_bytes()
    target = db if spelling == "same" else tmp_path / "t.sqlite-wal"
    result = arena("export", db, "--format", "pgn", "--out", target)
    assert result.returncode == 2 and "refusing to write" in result.stderr
    assert db.read_bytes() == before


def test_all_versions_rates_and_exports_old_versions_apart(tmp_path: Path) -> None:
    config = three_bot_config(tmp_path)
    db = tmp_path / "t.sqlite"
    assert arena("tournament", config, "--quiet").returncode == 0
    with (tmp_path / "bots" / "instant.py").open("a") as f:
        f.write("# a new version of instant\n")
    assert arena("tournament", config, "--quiet").returncode == 0

    current = json.loads(arena("ratings", db, "--json").stdout)
    assert sorted(bot["name"] for bot in current["bots"]) == ["instant", "paced", "random"]
    everything = json.loads(arena("ratings", db, "--json", "--all-versions").stdout)
    games = {bot["name"]: bot["games"] for bot in everything["bots"]}
    instants = sorted(name for name in games if name.startswith("instant@"))
    assert len(instants) == 2 and all(len(name) == len("instant@") + 8 for name in instants)
    assert [games[name] for name in instants] == [8, 8]
    assert sum(games.values()) == 2 * 20  # 12 games, then 8 replayed: each has two bots
    table = arena("ratings", db, "--all-versions")
    assert table.returncode == 0 and all(name in table.stdout for name in instants)

    lines = arena("export", db, "--all-versions").stdout.splitlines()
    assert len(lines) == 20
    assert {json.loads(line)["order"] for line in lines} >= set(instants)
    pgn = arena("export", db, "--format", "pgn", "--all-versions").stdout
    assert all(f'"{name}"]' in pgn for name in instants)
