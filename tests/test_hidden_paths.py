"""Under the sandbox, no bot sees the results store, its folder or the config, even when they lie
inside the bot's own folder; a bot whose folder *is* the store's folder is refused in one line.

The probe ``tests/bots/snoop.py`` reads every file under its folder and reports the first bytes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import TEST_BOTS_DIR

from arena.botspec import BotSpec
from arena.errors import SandboxError
from arena.referee import MatchSettings, play_match
from arena.sandbox import bwrap_path

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
