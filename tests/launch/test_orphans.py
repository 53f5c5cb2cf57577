"""Without a sandbox, a bot's daemon that left its process group is still killed with the bot."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import wait_for_no_leftovers

from arena.botspec import BotSpec
from arena.referee.match import MatchSettings, play_match


def test_a_double_forked_daemon_is_killed_with_its_bot(
    test_bots_dir: Path, no_leftover_processes: Path
) -> None:
    bot = no_leftover_processes / "double_fork.py"
    shutil.copy(test_bots_dir / "double_fork.py", bot)
    instant = no_leftover_processes / "instant.py"
    shutil.copy(test_bots_dir / "instant.py", instant)
    records = play_match(
        BotSpec.from_path(bot), BotSpec.from_path(instant), 2, MatchSettings(sandbox="none")
    )
    assert [r.reason.is_fault for r in records] == [False, False]
    assert wait_for_no_leftovers([str(bot)]) == []
