"""A bot's processes and its private /tmp are bounded, and going past either is its fault.

Real fault bots: ``fork_bomb.py`` forks up to 300 children at start-up, ``fill_tmp.py`` writes up
to 300 MB to its temporary folder; both then play correctly. Each must lose every game by
``crash`` with a detail naming the limit, while its opponent and the host are unharmed.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import TEST_BOTS_DIR

from arena.botspec import BotSpec
from arena.launch import cgroups
from arena.launch.sandbox import bwrap_path
from arena.limits import Limits, TimeControl
from arena.records import Reason
from arena.referee.match import MatchSettings, play_match

SLOW_OK = TimeControl(move_ms=2000)  # tests that expect no fault: none from load

BWRAP = pytest.param(
    "bwrap",
    id="bwrap",
    marks=[
        pytest.mark.sandbox,
        pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not usable here"),
    ],
)
NONE_AS_ROOT = pytest.param(
    "none",
    id="none",
    marks=pytest.mark.skipif(os.geteuid() != 0, reason="a sized /tmp needs root without bwrap"),
)
NEEDS_CGROUP = pytest.mark.skipif(cgroups.pids_root() is None, reason="no usable pids cgroup")


def bots(folder: Path, name: str) -> tuple[BotSpec, BotSpec]:
    for script in (name, "instant.py"):
        shutil.copy(TEST_BOTS_DIR / script, folder / script)
    return BotSpec.from_path(folder / name), BotSpec.from_path(folder / "instant.py")


@NEEDS_CGROUP
@pytest.mark.parametrize("mode", ["none", BWRAP])
def test_a_fork_bomb_is_bounded_and_loses(mode: str, no_leftover_processes: Path) -> None:
    bomb, instant = bots(no_leftover_processes, "fork_bomb.py")
    settings = MatchSettings(sandbox=mode, limits=Limits(processes=32))
    records = play_match(bomb, instant, 2, settings)
    for record in records:
        assert record.loser_name == "fork_bomb", record
        assert record.reason is Reason.CRASH
        assert "exceeded limits.processes (32" in record.detail
    stderr = records[0].stderr_order
    assert "refused" in stderr and " 0 refused" not in stderr, stderr


@pytest.mark.parametrize("mode", [NONE_AS_ROOT, BWRAP])
def test_filling_tmp_is_bounded_and_loses(mode: str, no_leftover_processes: Path) -> None:
    filler, instant = bots(no_leftover_processes, "fill_tmp.py")
    settings = MatchSettings(sandbox=mode, limits=Limits(tmp_mb=8))
    records = play_match(filler, instant, 2, settings)
    for record in records:
        assert record.loser_name == "fill_tmp", record
        assert record.reason is Reason.CRASH
        assert "filled its /tmp (limits.tmp_mb: 8 MB)" in record.detail
    assert "wrote 8 MB" in records[0].stderr_order or "wrote 7 MB" in records[0].stderr_order


@pytest.mark.parametrize("mode", [NONE_AS_ROOT, BWRAP])
def test_bots_within_their_limits_are_not_charged(mode: str, no_leftover_processes: Path) -> None:
    instant, other = bots(no_leftover_processes, "instant.py")
    records = play_match(instant, other, 2, MatchSettings(time_control=SLOW_OK, sandbox=mode))
    assert [r.reason.is_fault for r in records] == [False, False]


def test_shared_memory_under_bwrap_counts_against_its_tmp(no_leftover_processes: Path) -> None:
    """``/dev/shm`` is the bot's bounded ``/tmp``: filling it loses, host memory is spared."""
    if bwrap_path() is None:
        pytest.skip("bubblewrap is not usable here")
    filler, instant = bots(no_leftover_processes, "fill_shm.py")
    settings = MatchSettings(sandbox="bwrap", limits=Limits(tmp_mb=8))
    (record,) = play_match(filler, instant, 1, settings)
    written = int(record.stderr_order.split("fill_shm: wrote ")[1].split()[0])
    assert written <= 8, record.stderr_order
    assert record.loser_name == "fill_shm" and record.reason is Reason.CRASH, record
    assert "filled its /tmp (limits.tmp_mb: 8 MB)" in record.detail
