"""Bots never run as root, and never get a terminal.

When arena runs as root without bubblewrap, each bot runs as an unprivileged uid of its own (with
bubblewrap, as ``nobody`` in its user namespace). The probe bot (``tests/bots/probe.sh``, in sh so
that an unprivileged user can run it whatever Python the harness uses) says what it could reach;
it lives in a folder open to others, which pytest's own temporary folders are not.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SANDBOX_MODES, TEST_BOTS_DIR, wait_for_no_leftovers

from arena.botspec import BotSpec
from arena.errors import SandboxError
from arena.launch.botuser import UID_BASE
from arena.limits import TimeControl
from arena.referee.match import MatchSettings, play_match

SLOW_OK = TimeControl(move_ms=2000)  # tests that expect no fault: none from load

AS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="arena does not run as root here")


@pytest.fixture
def open_folder(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder under /tmp that others may enter, with two probe bots; the default user rule."""
    monkeypatch.delenv("ARENA_BOTS_AS_ROOT", raising=False)
    folder = Path(tempfile.mkdtemp(prefix="botuser-", dir="/tmp"))
    folder.chmod(0o755)
    for name in ("probe.sh", "probe2.sh"):
        shutil.copy(TEST_BOTS_DIR / "probe.sh", folder / name)
        (folder / name).chmod(0o755)
    try:
        yield folder
        assert wait_for_no_leftovers([str(folder)]) == []
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def probe_report(stderr: str) -> dict[str, str]:
    match = re.search(r"probe: (.*)", stderr)
    assert match, stderr
    return dict(item.split("=", 1) for item in match.group(1).split())


@pytest.mark.parametrize("mode", SANDBOX_MODES)
def test_a_bot_is_not_root_and_has_no_terminal(mode: str, open_folder: Path) -> None:
    if mode == "none" and os.geteuid() != 0:
        pytest.skip("without bubblewrap, a bot runs as arena's own user (not root here)")
    a = BotSpec.from_path(open_folder / "probe.sh")
    b = BotSpec.from_path(open_folder / "probe2.sh")
    records = play_match(a, b, 1, MatchSettings(time_control=SLOW_OK, sandbox=mode))
    assert not records[0].reason.is_fault, records[0]
    reports = [probe_report(records[0].stderr_order), probe_report(records[0].stderr_chaos)]
    for report in reports:
        assert report["uid"] != "0"
        assert report["shadow"] == "denied"
        assert report["tty"] == "denied"
    if mode == "none":
        for report in reports:
            assert int(report["uid"]) >= UID_BASE
            assert report["parent_stderr"] == "denied"
        assert reports[0]["uid"] != reports[1]["uid"], "two bots must not share a user"
    else:
        assert [r["uid"] for r in reports] == ["65534", "65534"]


@AS_ROOT
def test_a_bot_its_user_cannot_reach_is_refused_in_one_line(
    open_folder: Path, tmp_path: Path
) -> None:
    hidden = tmp_path / "probe.sh"  # pytest's folders are private to root
    shutil.copy(TEST_BOTS_DIR / "probe.sh", hidden)
    hidden.chmod(0o755)
    spec = BotSpec.from_path(hidden)
    with pytest.raises(SandboxError, match="not open to others.*ARENA_BOTS_AS_ROOT=1"):
        play_match(
            spec, BotSpec.from_path(open_folder / "probe.sh"), 1, MatchSettings(sandbox="none")
        )
    env = {k: v for k, v in os.environ.items() if k != "ARENA_BOTS_AS_ROOT"}
    result = subprocess.run(
        [sys.executable, "-m", "arena", "match", str(hidden), str(open_folder / "probe.sh"),
         "--games", "1", "--sandbox", "none", "--quiet"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot reach the bot's folder" in lines[0], result.stderr


@AS_ROOT
def test_a_tournament_or_a_game_with_a_person_says_it_once_before_any_game(
    open_folder: Path, tmp_path: Path
) -> None:
    """Not a harness error per match, each replayed and then owed: one line naming the file, and
    no store written."""
    hidden = tmp_path / "probe.sh"
    shutil.copy(TEST_BOTS_DIR / "probe.sh", hidden)
    hidden.chmod(0o755)
    config = tmp_path / "t.yaml"
    config.write_text(
        f"name: t\nbots:\n  - {{name: a, path: {hidden}}}\n"
        f"  - {{name: b, path: {open_folder / 'probe.sh'}}}\ngames_per_pairing: 2\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "ARENA_BOTS_AS_ROOT"}
    result = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", str(config), "--sandbox", "none"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    assert result.returncode == 2, result.stdout + result.stderr
    assert "harness error" not in result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error: bot a: bots run as"), lines
    assert f"cannot reach the bot's folder {tmp_path}" in lines[0]
    assert not (tmp_path / "results").exists()
    played = subprocess.run(
        [sys.executable, "-m", "arena", "play", str(hidden), "--as", "order", "--sandbox", "none"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    assert played.returncode == 2 and played.stdout == "", played.stdout  # no board drawn
    assert played.stderr.count("\n") == 1 and "cannot reach the bot's folder" in played.stderr


@AS_ROOT
def test_without_a_cgroup_the_uid_of_its_own_bounds_a_bots_processes(
    open_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RLIMIT_NPROC counts per user: it binds a bot with a uid of its own (root ignores it)."""
    from arena.limits import Limits
    from arena.records import Reason

    monkeypatch.setenv("ARENA_CGROUPS", "0")
    shutil.copy(TEST_BOTS_DIR / "fork_many.sh", open_folder / "fork_many.sh")
    (open_folder / "fork_many.sh").chmod(0o755)
    bomb = BotSpec.from_path(open_folder / "fork_many.sh")
    probe = BotSpec.from_path(open_folder / "probe.sh")
    bounded = MatchSettings(sandbox="none", limits=Limits(processes=10), startup_attempts=1)
    (record,) = play_match(bomb, probe, 1, bounded)
    assert record.loser_name == "fork_many" and record.reason is Reason.STARTUP, record
    assert "fork" in record.detail.lower(), record.detail
    settings = MatchSettings(time_control=SLOW_OK, sandbox="none")
    (record,) = play_match(bomb, probe, 1, settings)  # 64 processes: room for 40
    assert not record.reason.is_fault, record
    assert "fork_many: started 40" in record.stderr_order
