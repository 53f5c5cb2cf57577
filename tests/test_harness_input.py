"""Bad input to the harness itself: a clear one-line error, a non-zero exit, and nothing damaged."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from arena.botspec import BotSpec
from arena.referee import MatchSettings, play_match
from arena.store import Store

ROOT = Path(__file__).resolve().parent.parent
INSTANT = ROOT / "tests" / "bots" / "instant.py"


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def write_config(folder: Path, db: Path, extra: str = "") -> Path:
    config = folder / "t.yaml"
    config.write_text(
        f"bots:\n  - {{name: a, path: {INSTANT}}}\n  - {{name: b, path: {INSTANT}}}\n"
        f"games_per_pairing: 1\ndb: {db}\nworkers: 1\n{extra}"
    )
    return config


def assert_clean_error(result: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr + result.stdout
    message = result.stderr.strip()
    assert message.startswith("arena: error:"), message
    for needle in needles:
        assert needle in message, (needle, message)


def test_store_from_a_newer_arena_is_refused_and_left_untouched(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    with Store.open(db):
        pass
    connection = sqlite3.connect(db)
    connection.execute("PRAGMA user_version = 99")
    connection.commit()
    connection.close()
    before = db.read_bytes()
    result = arena("tournament", str(write_config(tmp_path, db)), "--quiet", cwd=tmp_path)
    assert_clean_error(result, str(db), "newer")
    assert db.read_bytes() == before


def test_a_file_that_is_not_a_store_is_refused_and_left_untouched(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    db.write_bytes(b"definitely not sqlite\n" * 100)
    before = db.read_bytes()
    result = arena("tournament", str(write_config(tmp_path, db)), "--quiet", cwd=tmp_path)
    assert_clean_error(result, str(db))
    assert db.read_bytes() == before


def test_store_under_a_file_is_a_clean_error(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder")
    result = arena(
        "tournament", str(write_config(tmp_path, blocker / "t.sqlite")), "--quiet", cwd=tmp_path
    )
    assert_clean_error(result, "blocker")


def test_broken_yaml_is_a_clean_error(tmp_path: Path) -> None:
    config = tmp_path / "broken.yaml"
    config.write_text("bots: [a, b\nseed: 1\n")
    assert_clean_error(arena("tournament", str(config), cwd=tmp_path), "broken.yaml")


def test_missing_bot_in_config_is_a_clean_error(tmp_path: Path) -> None:
    config = tmp_path / "missing.yaml"
    config.write_text("bots:\n  - {name: a, path: nowhere.py}\n  - random\n")
    assert_clean_error(arena("tournament", str(config), cwd=tmp_path), "missing.yaml", "path")


def test_ratings_of_a_missing_store_is_a_clean_error(tmp_path: Path) -> None:
    result = arena("ratings", str(tmp_path / "none.sqlite"), cwd=tmp_path)
    assert_clean_error(result, "none.sqlite")
    assert not (tmp_path / "none.sqlite").exists()


def test_freeze_idle_records_cpu_time_for_every_move() -> None:
    bot = BotSpec.from_path(INSTANT)
    settings = MatchSettings(sandbox="none", freeze_idle=True)
    records = play_match(bot, bot.renamed("other"), 2, settings)
    for record in records:
        assert record.cpu_ms is not None
        assert len(record.cpu_ms) == len(record.moves) > 0
        assert all(0 <= t <= ms + 50 for t, ms in zip(record.cpu_ms, record.ms, strict=True))


def _states_of(marker: str) -> list[str]:
    """The scheduler states (R, S, T, ...) of the processes whose command line has ``marker``."""
    states = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if marker.encode() not in f.read():
                    continue
            with open(f"/proc/{entry}/stat") as f:
                states.append(f.read().rsplit(")", 1)[1].split()[0])
        except OSError:
            continue
    return states


def _sample(marker: str, samples: list[str], done: threading.Event) -> None:
    while not done.wait(0.003):
        samples.extend(_states_of(marker))


@pytest.mark.parametrize("sandbox", ["none", "bwrap"])
def test_freeze_idle_stops_the_bot_not_on_move(sandbox: str, tmp_path: Path) -> None:
    """With freeze_idle the idle bot is seen stopped (T) while its opponent thinks; else never."""
    import shutil

    from arena.sandbox import bwrap_path

    if sandbox == "bwrap" and bwrap_path() is None:
        pytest.skip("bubblewrap is not installed")
    ponder_file = tmp_path / "ponder.py"  # a path of its own, to find its processes by
    shutil.copy(ROOT / "tests" / "bots" / "ponder.py", ponder_file)
    ponder = BotSpec.from_path(ponder_file)
    paced = ROOT / "tests" / "bots" / "paced.py"
    thinker = BotSpec.from_command([sys.executable, str(paced), "40"], "thinker")
    stopped = {}
    for freeze in (False, True):
        samples: list[str] = []
        done = threading.Event()
        sampler = threading.Thread(target=_sample, args=(str(ponder_file), samples, done))
        sampler.start()
        try:
            settings = MatchSettings(sandbox=sandbox, freeze_idle=freeze)
            records = play_match(ponder, thinker, [0, 1], settings)
        finally:
            done.set()
            sampler.join(timeout=10)
        assert all(not r.reason.is_fault for r in records), [r.detail for r in records]
        assert samples, "the sampler saw no ponder process"
        stopped[freeze] = samples.count("T") / len(samples)
    assert stopped[False] == 0, stopped
    assert stopped[True] > 0.2, stopped
