"""Bad input to the harness itself: a clear one-line error, a non-zero exit, and nothing damaged."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

from conftest import REPO_ROOT, run_arena
from factories import write_config

from arena.store.database import Store

ROOT = REPO_ROOT
INSTANT = ROOT / "tests" / "bots" / "instant.py"


def store_config(folder: Path, db: Path) -> Path:
    """A tournament file of two bots (``instant.py`` itself, not copied: no game is played)
    whose store is ``db``."""
    bots = [{"name": "a", "path": str(INSTANT)}, {"name": "b", "path": str(INSTANT)}]
    return write_config(folder, bots, games_per_pairing=1, db=str(db), workers=1)


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
    result = run_arena("tournament", str(store_config(tmp_path, db)), "--quiet", cwd=tmp_path)
    assert_clean_error(result, str(db), "newer")
    assert db.read_bytes() == before


def test_a_file_that_is_not_a_store_is_refused_and_left_untouched(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    db.write_bytes(b"definitely not sqlite\n" * 100)
    before = db.read_bytes()
    result = run_arena("tournament", str(store_config(tmp_path, db)), "--quiet", cwd=tmp_path)
    assert_clean_error(result, str(db))
    assert db.read_bytes() == before


def test_store_under_a_file_is_a_clean_error(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder")
    result = run_arena(
        "tournament", str(store_config(tmp_path, blocker / "t.sqlite")), "--quiet", cwd=tmp_path
    )
    assert_clean_error(result, "blocker")


def test_broken_yaml_is_a_clean_error(tmp_path: Path) -> None:
    config = tmp_path / "broken.yaml"
    config.write_text("bots: [a, b\nseed: 1\n")
    assert_clean_error(run_arena("tournament", str(config), cwd=tmp_path), "broken.yaml")


def test_missing_bot_in_config_is_a_clean_error(tmp_path: Path) -> None:
    config = tmp_path / "missing.yaml"
    config.write_text("bots:\n  - {name: a, path: nowhere.py}\n  - random\n")
    assert_clean_error(run_arena("tournament", str(config), cwd=tmp_path), "missing.yaml", "path")


def test_ratings_of_a_missing_store_is_a_clean_error(tmp_path: Path) -> None:
    result = run_arena("ratings", str(tmp_path / "none.sqlite"), cwd=tmp_path)
    assert_clean_error(result, "none.sqlite")
    assert not (tmp_path / "none.sqlite").exists()
