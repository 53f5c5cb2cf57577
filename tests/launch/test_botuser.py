"""Bots never run as root, and never get a terminal.

When arena runs as root without bubblewrap, each bot runs as an unprivileged uid of its own (with
bubblewrap, as ``nobody`` in its user namespace). The probe bot (``tests/bots/probe.sh``, in sh so
that an unprivileged user can run it whatever Python the harness uses) says what it could reach;
it lives in a folder open to others, which pytest's own temporary folders are not.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SANDBOX_MODES, TEST_BOTS_DIR, open_bot_folder

from arena.botspec import BotSpec
from arena.errors import SandboxError
from arena.launch import procfs
from arena.launch.botuser import UID_BASE, bot_user
from arena.launch.process import BotProcess
from arena.launch.sandbox import bwrap_path, plan_launch
from arena.limits import Limits, TimeControl
from arena.referee import MatchSettings, play_match
from arena.rules import Reason

SLOW_OK = TimeControl(move_ms=2000)  # tests that expect no fault: none from load

AS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="arena does not run as root here")


@pytest.fixture
def open_folder(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder under /tmp that others may enter, with two probe bots; the default user rule."""
    monkeypatch.delenv("ARENA_BOTS_AS_ROOT", raising=False)
    with open_bot_folder("botuser-", {"probe.sh": "probe.sh", "probe2.sh": "probe.sh"}) as folder:
        yield folder


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
        assert report["etc"] == "open", "a runtime must read /etc/ssl and /etc/alternatives"
    if mode == "none" or os.geteuid() == 0:  # as root, under bwrap too: a uid of its own
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
    assert len(lines) == 1 and "cannot reach its folder" in lines[0], result.stderr


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
    assert f"cannot reach its folder {tmp_path}" in lines[0]
    assert not (tmp_path / "results").exists()
    played = subprocess.run(
        [sys.executable, "-m", "arena", "play", str(hidden), "--as", "order", "--sandbox", "none"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    assert played.returncode == 2 and played.stdout == "", played.stdout  # no board drawn
    assert played.stderr.count("\n") == 1 and "cannot reach its folder" in played.stderr


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


def copy_bots(folder: Path, *names: str) -> list[BotSpec]:
    for name in names:
        shutil.copy(TEST_BOTS_DIR / name, folder / name)
        (folder / name).chmod(0o755)
    return [BotSpec.from_path(folder / name) for name in names]


@AS_ROOT
@pytest.mark.parametrize("as_root", [False, True], ids=["own-uid", "ARENA_BOTS_AS_ROOT"])
def test_under_bwrap_as_root_a_bot_cannot_write_the_hosts_kernel_settings(
    as_root: bool, open_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kernel checks a sysctl write against the global uid: a bot must not be global root, and
    ``/proc/sys`` is read-only in the sandbox whoever the bot is. So are the sandbox's own ``/``
    and ``/dev``, tmpfs without a size bound that the bot's uid (bwrap's) owned."""
    if bwrap_path() is None:
        pytest.skip("bubblewrap is not usable here")
    if as_root:
        monkeypatch.setenv("ARENA_BOTS_AS_ROOT", "1")
    (probe,) = copy_bots(open_folder, "sysctl_probe.sh")
    other = BotSpec.from_path(open_folder / "probe.sh")
    (record,) = play_match(probe, other, 1, MatchSettings(time_control=SLOW_OK, sandbox="bwrap"))
    assert not record.reason.is_fault, record
    report = "sysctl_probe: core_pattern=denied printk_ratelimit=denied unbounded=denied"
    assert report in record.stderr_order


@AS_ROOT
def test_under_bwrap_as_root_a_bot_runs_as_a_uid_of_its_own_outside_its_namespace(
    open_folder: Path,
) -> None:
    """Every process of the bot has an unprivileged uid on the host (bwrap alone stays root, to
    mount its folders: the bot cannot signal or trace it)."""
    if bwrap_path() is None:
        pytest.skip("bubblewrap is not usable here")
    spec = BotSpec.from_path(open_folder / "probe.sh")
    plan = plan_launch(spec, "bwrap", Limits(), seed=1, cpu_seconds=10)
    bot = BotProcess(spec, plan, Limits())
    try:
        bot.start()
        assert bot.send(b"arena 1\n")
        deadline = time.monotonic() + 10
        while b"ready" not in bytes(bot.outbuf) and time.monotonic() < deadline:
            with contextlib.suppress(BlockingIOError, OSError):
                bot.outbuf += os.read(bot.stdout_fd, 4096)
            time.sleep(0.01)
        assert b"ready" in bytes(bot.outbuf)
        tree = [pid for pid in procfs.descendants(bot.pid) if process_name(pid) != "bwrap"]
        uids = {process_uid(pid) for pid in tree}
        assert tree and all(uid is not None and uid >= UID_BASE for uid in uids), uids
    finally:
        bot.stop(graceful=False)


def process_name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def process_uid(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    return int(status.split("Uid:")[1].split()[1])  # the effective uid


@AS_ROOT
def test_no_two_live_bots_share_a_uid_however_often_one_restarts(open_folder: Path) -> None:
    """A bot that kills every process of its uid and crashes, game after game, never gets the uid
    of its running opponent (a counter modulo 16 gave it at the 16th start)."""
    (killer,) = copy_bots(open_folder, "kill_own_uid.sh")
    victim = BotSpec.from_path(open_folder / "probe.sh")
    settings = MatchSettings(time_control=SLOW_OK, sandbox="none")
    records = play_match(killer, victim, 20, settings)
    for number, record in enumerate(records, 1):
        assert record.loser_name == "kill_own_uid", (number, record)
        assert record.reason is Reason.CRASH, (number, record)


@AS_ROOT
def test_a_uid_held_by_another_harness_or_a_live_process_is_not_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Uids are unique among live bots of every harness on the machine: one held by another
    process's bot, or still used by a live process (a harness killed with its bot running), is
    skipped."""
    monkeypatch.delenv("ARENA_BOTS_AS_ROOT", raising=False)
    other = subprocess.Popen(
        [sys.executable, "-c",
         "import sys; from arena.launch.botuser import bot_user; u = bot_user(); "
         "print(u.uid, flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "ARENA_BOTS_AS_ROOT": "0"},
    )  # fmt: skip
    assert other.stdout is not None
    held = int(other.stdout.readline())
    stray_user = bot_user()
    assert stray_user is not None
    stray = subprocess.Popen(
        ["sleep", "60"], user=stray_user.uid, group=stray_user.gid, extra_groups=[]
    )
    stray_user.release()  # as if its harness had died: the lock is gone, the process is not
    try:
        given = []
        for _ in range(20):
            user = bot_user()
            assert user is not None
            given.append(user.uid)
            user.release()
        assert held not in given and stray_user.uid not in given, (held, stray_user.uid, given)
    finally:
        stray.kill()
        stray.wait(timeout=10)
        assert other.stdin is not None
        other.stdin.close()
        other.wait(timeout=30)


@AS_ROOT
def test_what_a_bots_uid_left_in_the_shared_temporary_folders_is_removed(
    open_folder: Path,
) -> None:
    """Without bubblewrap, a bot can write to the host's /tmp, /var/tmp and /dev/shm and make
    System V IPC objects: what its uid left goes when it stops, so that no state survives to its
    next game."""
    (leaver,) = copy_bots(open_folder, "leave_files.sh")
    other = BotSpec.from_path(open_folder / "probe.sh")
    (record,) = play_match(leaver, other, 1, MatchSettings(time_control=SLOW_OK, sandbox="none"))
    assert not record.reason.is_fault, record
    report = re.search(r"leave_files: token=(\w+) shm=(\w+) wrote=(.*)", record.stderr_order)
    assert report, record.stderr_order
    token, shm, wrote = report.group(1), report.group(2), report.group(3).split()
    assert "/tmp" in wrote and "/var/tmp" in wrote, wrote
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        for name in (f"leftover-{token}", f"leftover-{token}.d"):
            assert not os.path.lexists(os.path.join(folder, name)), (folder, name)
    if shm != "none":  # ipcmk is there: the segment (host memory) is gone too
        table = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
        segments = [line.split()[1] for line in table]
        assert shm not in segments


@AS_ROOT
def test_under_bwrap_a_bot_of_its_own_uid_runs_in_an_open_folder_below_a_private_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bwrap, still root, mounts the bot's folder and the harness's Python (under ``/root``, say)
    wherever they are: only the folder itself must be open to others. A Python bot runs too."""
    if bwrap_path() is None:
        pytest.skip("bubblewrap is not usable here")
    monkeypatch.delenv("ARENA_BOTS_AS_ROOT", raising=False)
    assert tmp_path.stat().st_mode & 0o777 == 0o700  # pytest's own: private to root
    folder = tmp_path / "open"
    folder.mkdir(mode=0o755)
    instant, probe = copy_bots(folder, "instant.py", "probe.sh")
    settings = MatchSettings(time_control=SLOW_OK, sandbox="bwrap")
    (record,) = play_match(instant, probe, 1, settings)
    assert not record.reason.is_fault, record
    assert int(probe_report(record.stderr_chaos)["uid"]) >= UID_BASE
    hidden = tmp_path / "hidden"
    hidden.mkdir(mode=0o700)
    (private,) = copy_bots(hidden, "probe.sh")
    with pytest.raises(SandboxError, match="cannot reach its folder.*ARENA_BOTS_AS_ROOT=1"):
        play_match(private, probe, 1, settings)
