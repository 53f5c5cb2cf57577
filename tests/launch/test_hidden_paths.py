"""Under the sandbox, no bot sees the results store, its folder or the config, even when they lie
inside the bot's own folder; a bot whose folder *is* the store's folder is refused in one line.

The probe ``tests/bots/snoop.py`` reads every file under its folder and reports the first bytes.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import TEST_BOTS_DIR

from arena.botspec import BotSpec
from arena.errors import SandboxError
from arena.launch.sandbox import bwrap_path
from arena.referee.match import MatchSettings, play_match

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not usable here"),
]
SECRET = b"SECRET-CONTENT"


def snoop_in(folder: Path) -> tuple[BotSpec, BotSpec]:
    shutil.copy(TEST_BOTS_DIR / "snoop.py", folder / "snoop.py")
    shutil.copy(TEST_BOTS_DIR / "instant.py", folder / "instant.py")
    return BotSpec.from_path(folder / "snoop.py"), BotSpec.from_path(folder / "instant.py")


def test_the_store_and_the_config_are_covered(no_leftover_processes: Path) -> None:
    folder = no_leftover_processes  # the config's folder, holding a path: bot and results/
    config = folder / "t.yaml"
    store_dir = folder / "results"
    store_dir.mkdir()
    store = store_dir / "t.sqlite"
    for path in (config, store, Path(f"{store}-wal"), folder / "visible.txt"):
        path.write_bytes(SECRET)
    snoop, instant = snoop_in(folder)
    hidden = (str(store), str(store_dir), str(config))
    (record,) = play_match(snoop, instant, 1, MatchSettings(sandbox="bwrap", hidden=hidden))
    seen = record.stderr_order
    assert "visible.txt b'SECRET-CONTENT'" in seen, seen  # the probe does read its own files
    assert seen.count("SECRET-CONTENT") == 1, seen
    assert "results/" not in seen, seen


def test_a_bot_folder_that_is_the_store_folder_is_refused(no_leftover_processes: Path) -> None:
    folder = no_leftover_processes
    store = folder / "t.sqlite"
    store.write_bytes(SECRET)
    snoop, instant = snoop_in(folder)
    settings = MatchSettings(sandbox="bwrap", hidden=(str(store), str(folder)))
    with pytest.raises(SandboxError, match="keep bots in folders of their own"):
        play_match(snoop, instant, 1, settings)


def test_a_tournament_hides_the_store_its_files_and_the_config(no_leftover_processes: Path) -> None:
    """End to end: ``arena tournament`` with a snooping bot beside the config (its folder is the
    config's, holding the default ``results/``): while the store is live (its ``-wal``, ``-shm``
    and run lock exist), reading the store, each of its files, its folder or the config fails."""
    folder = no_leftover_processes
    snoop_in(folder)
    config = folder / "t.yaml"
    config.write_text(
        "bots:\n  - {name: snoop, path: snoop.py}\n  - {name: instant, path: instant.py}\n"
        "games_per_pairing: 1\nworkers: 1\nsandbox: bwrap\n"
        "time_control: {move_ms: 2000}\n"
    )
    store = folder / "results" / "t.sqlite"
    targets = [store, *(Path(f"{store}{s}") for s in ("-wal", "-shm", "-journal", ".lock"))]
    targets += [store.parent, config]
    (folder / "snoop-targets.txt").write_text("\n".join(map(str, targets)) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", str(config), "--quiet"],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    with sqlite3.connect(store) as db:
        seen = "".join(a + b for a, b in db.execute("SELECT stderr_order, stderr_chaos FROM games"))
    for target in targets[:-2]:  # the store's files: gone (its folder is covered)
        assert f"snoop: {target} b'<No such file or directory>'" in seen, (target, seen)
    assert f"snoop: {store.parent} b'listed '" in seen, seen  # an empty folder
    assert f"snoop: {config} b'<" in seen, seen  # an error (covered by /dev/null)
    assert "snoop: ./t.yaml b'<" in seen, seen  # nor found by a walk
    assert "SQLite" not in seen and "bots:" not in seen, seen


def run_in(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args, "--sandbox", "bwrap", "--move-ms", "2000"],
        cwd=folder, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_a_match_record_in_the_bots_folder_is_covered(no_leftover_processes: Path) -> None:
    """``arena match --record`` run from the bot's folder: the record (here an earlier one, which
    the match then overwrites) is covered before the bots start, so that no bot reads the games,
    and its opponent's stderr in them, as they are written."""
    folder = no_leftover_processes
    snoop_in(folder)
    record = folder / "games.jsonl"
    record.write_bytes(SECRET)
    done = run_in(
        folder, "match", "snoop.py", "instant.py", "--games", "2", "--record", record.name
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    seen = "".join(game["stderr_order"] + game["stderr_chaos"] for game in lines)
    assert "snoop: ./games.jsonl b'<" in seen, seen  # an error (covered by /dev/null)
    assert "SECRET" not in seen, seen


def test_an_sprt_store_in_the_bots_folder_is_covered_or_refused(
    no_leftover_processes: Path,
) -> None:
    """``arena sprt`` run from the bot's folder keeps its store in ``results/`` there: covered
    (a bot could read the games, or lock the store so that none is recorded). A store whose
    folder is the bot's own could not be covered: refused in one line, before any game."""
    folder = no_leftover_processes
    snoop_in(folder)
    store = folder / "results" / "sprt-snoop-vs-instant.sqlite"
    targets = [store, Path(f"{store}-wal"), store.parent]
    (folder / "snoop-targets.txt").write_text("\n".join(map(str, targets)) + "\n")
    done = run_in(folder, "sprt", "snoop.py", "instant.py", "--max-games", "2", "--quiet")
    assert done.returncode in (0, 1), done.stdout + done.stderr
    with sqlite3.connect(store) as db:
        seen = "".join(a + b for a, b in db.execute("SELECT stderr_order, stderr_chaos FROM games"))
    assert seen.count("snoop: ") >= 4, seen
    for target in targets[:-1]:
        assert f"snoop: {target} b'<No such file or directory>'" in seen, (target, seen)
    assert f"snoop: {store.parent} b'listed '" in seen, seen  # an empty folder
    assert "SQLite" not in seen, seen
    refused = run_in(folder, "sprt", "snoop.py", "instant.py", "--db", "here.sqlite")
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "holds the store here.sqlite" in refused.stderr and "--db" in refused.stderr
    assert not (folder / "here.sqlite").exists()


def test_bots_sharing_a_folder_see_none_of_each_others_files(no_leftover_processes: Path) -> None:
    """A tournament whose bots lie side by side (single files in one folder, and a folder bot
    inside it): each bot reads its own file, never the other bots' files or folders; a file no
    bot names stays visible (the folder is shared: docs/sandbox.md says so)."""
    folder = no_leftover_processes
    snoop_in(folder)
    (folder / "other").mkdir()
    shutil.copy(TEST_BOTS_DIR / "instant.py", folder / "other" / "main.py")
    (folder / "notes.txt").write_bytes(SECRET)
    config = folder / "t.yaml"
    config.write_text(
        "bots:\n  - {name: snoop, path: snoop.py}\n  - {name: instant, path: instant.py}\n"
        "  - {name: other, path: other}\n"
        "games_per_pairing: 1\nworkers: 1\nsandbox: bwrap\ntime_control: {move_ms: 2000}\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", str(config), "--quiet"],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    with sqlite3.connect(folder / "results" / "t.sqlite") as db:
        rows = db.execute(
            "SELECT stderr_order FROM games WHERE order_name = 'snoop' UNION ALL "
            "SELECT stderr_chaos FROM games WHERE chaos_name = 'snoop'"
        ).fetchall()
    seen = "".join(text for (text,) in rows)
    assert 'snoop: ./snoop.py b\'"""Fault fixture\'' in seen, seen  # its own file
    assert "snoop: ./notes.txt b'SECRET-CONTENT'" in seen, seen  # no bot's: shared
    assert "snoop: ./instant.py b'<" in seen, seen  # another bot's file: an error
    assert "The fastest" not in seen and "./other/" not in seen, seen
