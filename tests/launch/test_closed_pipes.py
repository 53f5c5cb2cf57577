"""A bot that closes its stdout or its stdin while running loses at once, in both modes.

Under bubblewrap, the pipes the harness gives ``bwrap`` are held open by bwrap itself (and by the
init of the PID namespace) for as long as the sandbox runs, so end of file never came: such a bot
was seen only at its deadline. The verdict must be the same as without the sandbox: a ``crash``
well before the move time (3 s here) runs out.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from conftest import SANDBOX_MODES, TEST_BOTS_DIR

from arena.botspec import BotSpec
from arena.limits import TimeControl
from arena.records import Reason
from arena.referee.match import MatchSettings, play_match

MOVE_MS = 3000


@pytest.mark.parametrize("mode", SANDBOX_MODES)
@pytest.mark.parametrize(
    ("script", "detail"),
    [("closes_stdout.py", "closed its stdout"), ("closes_stdin.py", "closed its stdin")],
)
def test_closing_a_pipe_is_a_crash_at_once(
    mode: str, script: str, detail: str, no_leftover_processes: Path
) -> None:
    for name in (script, "instant.py"):
        shutil.copy(TEST_BOTS_DIR / name, no_leftover_processes / name)
    bot = BotSpec.from_path(no_leftover_processes / script)
    instant = BotSpec.from_path(no_leftover_processes / "instant.py")
    settings = MatchSettings(time_control=TimeControl(move_ms=MOVE_MS), sandbox=mode)
    started = time.monotonic()
    (record,) = play_match(bot, instant, 1, settings)
    elapsed = time.monotonic() - started
    assert record.loser_name == script.removesuffix(".py"), record
    assert record.reason is Reason.CRASH, record
    # on move, or while the other bot was (it closed its stdin just after a reply)
    assert record.detail.startswith(detail) or f"({detail}) while not on move" in record.detail, (
        record.detail
    )
    assert elapsed < MOVE_MS / 1000 / 2, f"seen after {elapsed:.2f} s"
