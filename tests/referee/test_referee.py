"""End-to-end tests of the referee: real bot processes, every kind of fault, with and without bwrap.

Each fault fixture of ``tests/bots`` plays a short match through ``arena.referee.match.play_match``
against a correct, deterministic opponent, so that the test knows the exact turn on which the
fault must happen and can check the loser, the reason, the detail and the number of moves of
every game. Every record is also replayed on a naive board written here (no code shared with
``arena.rules``). After every test, no bot process may be left (see ``conftest.py``): the bots
are copied into the test's own temporary folder, whose path is the marker looked for in ``/proc``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import TEST_BOTS_DIR, bundled_program, wait_until
from factories import copy_bot
from hypothesis import HealthCheck, example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from independent_referee import assert_record_consistent

from arena.botspec import BotSpec
from arena.launch import cgroups, procfs
from arena.launch.process import KILL_GRACE_S, QUIT_GRACE_S
from arena.launch.sandbox import bwrap_path
from arena.limits import Limits, Measure, SandboxMode, TimeControl
from arena.protocol import parse_reply
from arena.records import GameRecord, Reason
from arena.referee.match import Match, MatchSettings, play_match
from arena.rules import Role

pytestmark = pytest.mark.usefixtures("no_leftover_processes")

MOVE_MS = 200
STARTUP_MS = 2000
BWRAP_MISSING = "bubblewrap (bwrap) is not installed or cannot create namespaces here"
needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason=BWRAP_MISSING)
MODES = [
    pytest.param(SandboxMode.NONE, id="none"),
    pytest.param(SandboxMode.BWRAP, id="bwrap", marks=[needs_bwrap, pytest.mark.sandbox]),
]

# A correct opponent with a fixed, long enough game: O in the *last* empty cell. Against the
# fixtures (X in the *first* empty cell) neither side blocks the other, so Order always makes
# five on the 9th move: Order gets 5 turns and Chaos 4, enough to reach every fixture's fault.
LAST_EMPTY = '''"""Test opponent: plays O in the last empty cell."""
import os
import sys

for line in iter(sys.stdin.buffer.readline, b""):
    if line.startswith(b"turn"):
        cell = line.split()[1].rindex(b".")
        os.write(1, f"{'abcdef'[cell % 6]}{cell // 6 + 1}O\\n".encode())
    elif line.startswith(b"arena"):
        os.write(1, b"ready last_empty\\n")
    elif line.startswith(b"quit"):
        break
'''


def test_naive_referee_is_able_to_fail() -> None:
    """The checker rejects wrong records (so that its passing means something)."""
    five = ["a1X", "a2O", "b1X", "b2O", "c1X", "c2O", "d1X", "d2O", "e1X"]
    good = GameRecord("a", "b", Role.ORDER, Reason.FIVE, moves=five, ms=[1.0] * 9)
    assert_record_consistent(good)
    bad = [
        GameRecord("a", "b", Role.CHAOS, Reason.FIVE, moves=five, ms=[1.0] * 9),  # wrong winner
        GameRecord("a", "b", Role.ORDER, Reason.FIVE, moves=five[:8], ms=[1.0] * 8),  # no five
        GameRecord("a", "b", Role.ORDER, Reason.FIVE, moves=[*five, "f6O"], ms=[1.0] * 10),
        GameRecord("a", "b", Role.CHAOS, Reason.FULL, moves=five[:8], ms=[1.0] * 8),  # not full
        GameRecord("a", "b", Role.ORDER, Reason.TIMEOUT, moves=["a1X", "a1O"], ms=[1.0] * 2),
        GameRecord("a", "b", Role.ORDER, Reason.CRASH, moves=five, ms=[1.0] * 9),  # after five
    ]
    for record in bad:
        with pytest.raises(AssertionError):
            assert_record_consistent(record)


# --- helpers -------------------------------------------------------------------------------------
def write_bot(folder: Path, name: str, source: str) -> BotSpec:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    target.write_text(source)
    return BotSpec.from_path(target)


def settings(
    mode: SandboxMode,
    move_ms: int = MOVE_MS,
    startup_ms: int = STARTUP_MS,
    measure: Measure = Measure.CPU,
    **limits,
):
    return MatchSettings(
        time_control=TimeControl(move_ms=move_ms, startup_ms=startup_ms, measure=measure),
        limits=Limits(**limits),
        sandbox=mode,
    )


@dataclass(frozen=True)
class Fault:
    """What a fixture must do in every game of its match."""

    bot: str
    reason: Reason
    detail: str
    """A regular expression the record's detail must match."""
    turns: tuple[float, ...] | None
    """On which of its own turns (1-based) the game may end; None: before any move (start-up)."""
    opponent: str = "last_empty"
    games: int = 2
    move_ms: int = MOVE_MS
    startup_ms: int = STARTUP_MS
    measure: Measure = Measure.CPU
    freeze: bool = True


MOVE = "[a-f][1-6]X"
MEASURED = r"; over \d+ ms it used \d+ ms of CPU and waited \d+ ms for one"
SILENT = r"nothing arrived on stdout \(slow, or not flushing it\?\)"
CAP_MS = 3 * MOVE_MS + 500  # the wall cap of a move under measure: cpu
NO_MOVE = (
    rf"no move within {CAP_MS} ms of wall time \(the cap under measure: cpu\): {SILENT}{MEASURED}"
)
NO_READY = (
    r"no `ready` within 2000 ms: nothing arrived on stdout \(flush after each line\?\)" + MEASURED
)
FAULTS = [
    # A second line written right after the first: read with it (more than one line for one
    # turn, 1st turn), arriving while the opponent is on move (a line when no reply was due,
    # after its 1st move), or, rarely (the opponent, sleepy, takes 20 ms per move), after the
    # bot's next `turn` was sent but before the bot read it (on its 2nd turn).
    Fault(
        "ahead_of_turn.py",
        Reason.MALFORMED,
        rf'^wrote more than one line for one turn: "{MOVE}", then "{MOVE}"$'
        rf'|^wrote a line when no reply was due: "{MOVE}"( \(before reading its `turn`\))?$',
        (1, 1.5, 2),
        opponent="sleepy.py",
    ),
    # A line written 50 ms into its opponent's move, which it thinks through (no freeze_idle:
    # frozen, the bot would write it only as its next turn is sent, too late to tell).
    Fault(
        "extra_line_later.py",
        Reason.MALFORMED,
        rf'^wrote a line when no reply was due: "{MOVE}"$',
        (1.5,),
        opponent="late.py",
        move_ms=800,
        freeze=False,
    ),
    # The same as ahead_of_turn, with the line arriving after the next turn was sent (in order).
    Fault(
        "reply_before_reading.py",
        Reason.MALFORMED,
        rf'^wrote a line when no reply was due: "{MOVE}" \(before reading its `turn`\)$',
        (2,),
    ),
    Fault(
        "debug_on_stdout.py",
        Reason.MALFORMED,
        rf'^wrote more than one line for one turn: "debug: thinking\.\.\.", then "{MOVE}"$',
        (1,),
    ),
    Fault("bad_cell.py", Reason.ILLEGAL, r"^no such cell: z9X$", (1,)),
    Fault("illegal.py", Reason.ILLEGAL, r"^a1X: a1 is occupied$", (2,)),
    Fault("not_a_move.py", Reason.MALFORMED, r'^not a move: "hello"$', (1,)),
    Fault("garbage.py", Reason.MALFORMED, r'^not ASCII text: "\\xff\\xfe', (1,)),
    Fault(
        "endless_line.py",
        Reason.MALFORMED,
        r'^line longer than 1024 bytes: "(a1X)+a1\.\.\."$',
        (1,),
    ),
    # It sleeps 300 ms: late in wall time, within the wall cap under measure: cpu.
    Fault(
        "late.py",
        Reason.TIMEOUT,
        rf"^no move within {MOVE_MS} ms: {SILENT}$",
        (1,),
        measure=Measure.WALL,
    ),
    Fault("hang_midgame.py", Reason.TIMEOUT, rf"^{NO_MOVE}$", (4,)),
    Fault(
        "crash_midgame.py",
        Reason.CRASH,
        r"^exited with code 1; last on stderr: crash_midgame: exiting on my 3rd turn$",
        (3,),
    ),
    Fault(  # the panic line, not the last of its stack (main.go:103 +0x40f)
        "go_panic.py",
        Reason.CRASH,
        r"^exited with code 2; on stderr: panic: runtime error: index out of range \[36\]"
        r" with length 36$",
        (2,),
    ),
    Fault(  # the traceback's exception, not the line its exit handler logged after it
        "traceback_then_log.py",
        Reason.CRASH,
        r"^exited with code 1; on stderr: ValueError: no idea what to play on [XO.]{6}$",
        (2,),
    ),
    Fault(
        "closes_stdout.py",
        Reason.CRASH,
        # it writes to stderr just after closing stdout: the harness may be quicker
        r"^closed its stdout(; last on stderr: closes_stdout: stdout closed, still running)?$",
        (3,),
    ),
    Fault(
        "fork_and_exit.py",
        Reason.CRASH,
        r"^exited with code 1( \(a child kept .*\))?"
        # under bwrap the child may be killed with the sandbox before it says anything
        r"(; last on stderr: fork_and_exit: child \d+ keeps the pipes)?$",
        (3,),
    ),
    Fault(
        "crash_at_start.py",
        Reason.STARTUP,
        r"^exited (during start-up|before reading `arena 1`) \(exited with code 3\)"
        r"(; last on stderr: .*)?$|"
        r"^not restarted after 2 failed start-ups$",
        None,
        games=3,
    ),
    Fault(
        "never_ready.py",
        Reason.STARTUP,
        rf"^{NO_READY}$|^not restarted after 2 failed start-ups$",
        None,
        games=3,
        startup_ms=500,
    ),
    Fault(
        "unflushed.py",
        Reason.STARTUP,
        rf"^{NO_READY}$|^not restarted after 2 failed start-ups$",
        None,
        games=3,
        startup_ms=500,
    ),
]


def _plies(turns: tuple[float, ...] | None, role: Role) -> set[int]:
    """Moves recorded when a fault ends a game on the bot's ``turn`` (x.5: just after it)."""
    if turns is None:
        return {0}
    first = 0 if role is Role.ORDER else 1
    return {first + int(2 * (turn - 1)) for turn in turns}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f.bot.removesuffix(".py"))
def test_fault_loses_every_game(fault: Fault, mode: SandboxMode, tmp_path: Path) -> None:
    """The fixture loses every game, by the right reason on the right turn; the opponent never.

    Roles alternate, and every game after the first is played by a fresh process of the fixture
    (a fixture that counts its turns per process faults on the same turn again, a late answer
    or an extra line of the previous game is not read as a move), so each game must look alike.
    """
    bot = BotSpec.from_path(copy_bot(tmp_path, fault.bot))
    if fault.opponent == "last_empty":
        opponent = write_bot(tmp_path, "last_empty.py", LAST_EMPTY)
    else:
        opponent = BotSpec.from_path(copy_bot(tmp_path, fault.opponent))
    config = settings(mode, fault.move_ms, fault.startup_ms, fault.measure)
    config = dataclasses.replace(config, freeze_idle=fault.freeze)
    records = play_match(bot, opponent, fault.games, config, seed=7)

    assert len(records) == fault.games
    for number, record in enumerate(records, 1):
        role = Role.ORDER if number % 2 else Role.CHAOS
        where = f"game {number} ({role} {bot.name}): {record.to_json()}"
        assert (record.order if role is Role.ORDER else record.chaos) == bot.name, where
        assert record.winner is role.other, where
        assert record.loser_name == bot.name, where
        assert record.reason is fault.reason, where
        assert re.search(fault.detail, record.detail), where
        assert len(record.moves) in _plies(fault.turns, role), where
        assert_record_consistent(record, fault.move_ms)
        # Moves alternate: the fixture's (X, first empty cell) and the opponent's (O, last).
        if fault.opponent == "last_empty":
            theirs = record.moves[1 if role is Role.ORDER else 0 :: 2]
            assert all(token.endswith("O") for token in theirs), where
            mine = record.moves[0 if role is Role.ORDER else 1 :: 2]
            assert all(token.endswith("X") for token in mine), where


@pytest.mark.parametrize("mode", MODES)
def test_owed_reply_does_not_leak_into_next_game(mode: SandboxMode, tmp_path: Path) -> None:
    """When a game ends by the idle bot's fault, the reply the mover still owes is not read later.

    ``extra_line_later`` writes an unasked line while ``late`` (300 ms per move) is thinking; the
    game is lost by ``extra_line_later`` at once, and ``late``'s answer to that turn arrives after
    the game. In the next game ``late`` is Order: its first move must be its real answer to the
    empty board (about 300 ms), not the stale one (which would arrive instantly), and it must not
    be charged with a line when no reply was due.
    """
    culprit = BotSpec.from_path(copy_bot(tmp_path, "extra_line_later.py"))
    slow = BotSpec.from_path(copy_bot(tmp_path, "late.py"))
    wall = settings(mode, move_ms=800, measure=Measure.WALL)  # late's 300 ms show as such
    records = play_match(culprit, slow, 2, wall, seed=3)
    assert [r.loser_name for r in records] == ["extra_line_later", "extra_line_later"]
    game2 = records[1]
    assert game2.order == "late"
    assert game2.moves[0] == "a1X", game2.to_json()
    assert game2.ms[0] >= 250, f"late's first move came too soon to be its own: {game2.ms}"


HANG_WITH_HELPER = '''"""Test bot: starts a helper process (own pipes), plays once, then hangs."""
import os
import subprocess
import sys
import time

helper = subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(60)", __file__],
    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
)
moves = 0
for line in iter(sys.stdin.buffer.readline, b""):
    if line.startswith(b"arena"):
        os.write(1, b"ready helper\\n")
    elif line.startswith(b"turn"):
        moves += 1
        if moves == 2:
            time.sleep(60)
        cell = line.split()[1].index(b".")
        os.write(1, ("abcdef"[cell % 6] + str(cell // 6 + 1) + "X\\n").encode())
    elif line.startswith(b"quit"):
        break
'''


@pytest.mark.parametrize("mode", MODES)
def test_timeout_of_bot_with_helper_process_is_not_a_crash(mode: SandboxMode, tmp_path: Path):
    """A bot whose child process has other pipes and that hangs: ``timeout``, not ``crash`` (the
    check that tells a silent crash from a timeout looks at the bot's own process), and the
    helper goes with it."""
    bot = write_bot(tmp_path, "helper.py", HANG_WITH_HELPER)
    opponent = write_bot(tmp_path, "last_empty.py", LAST_EMPTY)
    records = play_match(bot, opponent, 2, settings(mode), seed=1)
    for record in records:
        assert record.loser_name == "helper", record.to_json()
        assert record.reason is Reason.TIMEOUT
        assert re.fullmatch(NO_MOVE, record.detail), record.detail
        assert len(record.moves) == (2 if record.order == "helper" else 3)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "name", ["instant.py", "crlf.py", "sleepy.py", "slow_start.py", "flood_stderr.py"]
)
def test_correct_bot_plays_normally(name: str, mode: SandboxMode, tmp_path: Path) -> None:
    """Correct (if odd) bots: CRLF and lower-case marks, a slow start, a flood of stderr."""
    bot = BotSpec.from_path(copy_bot(tmp_path, name))
    opponent = write_bot(tmp_path, "last_empty.py", LAST_EMPTY)
    records = play_match(bot, opponent, 2, settings(mode), seed=5)
    for number, record in enumerate(records, 1):
        where = f"game {number}: {record.to_json()}"
        assert record.reason is Reason.FIVE and record.winner is Role.ORDER, where
        assert len(record.moves) == 9, where
        assert_record_consistent(record, MOVE_MS)
        if name == "sleepy.py":  # 20 ms of sleep per move: charged little of it, as CPU
            mine = record.ms[0 if record.order == bot.name else 1 :: 2]
            assert all(t < 20 for t in mine), where
    assert records[0].order == bot.name and records[1].chaos == bot.name


@pytest.mark.parametrize("mode", MODES)
def test_flooded_stderr_is_drained_capped_and_kept(mode: SandboxMode, tmp_path: Path) -> None:
    """About 1 MiB of stderr per move: the game is normal and its record keeps a capped tail."""
    bot = BotSpec.from_path(copy_bot(tmp_path, "flood_stderr.py"))
    opponent = write_bot(tmp_path, "last_empty.py", LAST_EMPTY)
    records = play_match(bot, opponent, 2, settings(mode, stderr_kb=8), seed=5)
    turns = 0
    tails = (records[0].stderr_order, records[1].stderr_chaos)
    for record, tail in zip(records, tails, strict=True):
        assert record.reason is Reason.FIVE
        turns += 5 if record.order == bot.name else 4
        assert len(tail.encode()) <= 8 * 1024 + 64, f"stderr tail not capped: {len(tail)} bytes"
        assert re.match(r"\[\d+ earlier bytes dropped\]\n", tail), tail[:80]
        # The tail is the end of what the bot wrote in that game (the turn count is per process).
        assert tail.endswith(f"flood_stderr: end of turn {turns}\n"), tail[-80:]
    assert records[0].stderr_chaos == records[1].stderr_order == ""


@pytest.mark.parametrize("mode", MODES)
def test_bot_ignoring_quit_is_killed(mode: SandboxMode, tmp_path: Path) -> None:
    """``ignore_quit`` plays normally, then ignores quit, end of input and SIGTERM: it is killed.

    The fixture checks that nothing of it is left; the time shows the harness did not wait on it.
    """
    bot = BotSpec.from_path(copy_bot(tmp_path, "ignore_quit.py"))
    opponent = write_bot(tmp_path, "last_empty.py", LAST_EMPTY)
    started = time.monotonic()
    records = play_match(bot, opponent, 2, settings(mode), seed=5)
    took = time.monotonic() - started
    assert [r.reason for r in records] == [Reason.FIVE, Reason.FIVE]
    assert took < 2 + QUIT_GRACE_S + KILL_GRACE_S, f"closing the match took {took:.1f} s"


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_bundled_bots_play_consistent_games(mode: SandboxMode, tmp_path: Path) -> None:
    """random vs greedy: real games (five and full boards), every record legal, no fault."""
    random_bot, greedy_bot = (
        BotSpec.from_path(shutil.copyfile(bundled_program(name), tmp_path / f"{name}_bot.py"))
        for name in ("random", "greedy")
    )
    records = play_match(random_bot, greedy_bot, 4, settings(mode, move_ms=500), seed=11)
    assert len(records) == 4
    for number, record in enumerate(records):
        assert not record.reason.is_fault, record.to_json()
        assert (record.order, record.chaos) == (
            ("random_bot", "greedy_bot") if number % 2 == 0 else ("greedy_bot", "random_bot")
        )
        assert_record_consistent(record, 500)
        assert record.seed == 11


# --- resources and isolation ---------------------------------------------------------------------
MEMORY_HOG = '''"""Test bot: answers ready, then allocates 2 GiB on its first turn."""
import sys

for line in iter(sys.stdin.buffer.readline, b""):
    if line.startswith(b"arena"):
        sys.stdout.write("ready hog\\n")
        sys.stdout.flush()
    elif line.startswith(b"turn"):
        hog = bytearray(2 * 1024**3)
        sys.stdout.write("a1X\\n")
        sys.stdout.flush()
    elif line.startswith(b"quit"):
        break
'''


@pytest.mark.parametrize("mode", MODES)
def test_memory_over_the_limit_is_a_crash(mode: SandboxMode, tmp_path: Path) -> None:
    """2 GiB with a 256 MiB limit: the bot crashes (every game: a fresh process), the match goes
    on. With a memory cgroup the kernel kills it and the detail names the limit (the move's time
    lets it reach the bound); without, RLIMIT_AS refuses the allocation and its stderr (the
    MemoryError) is kept with the game."""
    hog = write_bot(tmp_path, "hog.py", MEMORY_HOG)
    opponent = write_bot(tmp_path, "last_empty.py", LAST_EMPTY)
    records = play_match(hog, opponent, 2, settings(mode, 3000, memory_mb=256), seed=2)
    tails = (records[0].stderr_order, records[1].stderr_chaos)
    cgroup = cgroups.controller_root("memory") is not None and cgroups.pids_root() is not None
    for record, tail in zip(records, tails, strict=True):
        assert record.loser_name == "hog" and record.reason is Reason.CRASH, record.to_json()
        if cgroup:
            assert "exceeded limits.memory_mb (256 MB" in record.detail, record.detail
        else:
            assert re.fullmatch(
                r"(exited with code \d+|killed by SIG\w+)(; last on stderr: .+)?", record.detail
            )
            assert "MemoryError" in tail
        assert_record_consistent(record)


PROBE = '''"""Test bot: tries to reach outside its sandbox at start-up; reports on stderr."""
import json
import os
import signal
import socket
import sys
from pathlib import Path

CONFIG = json.loads(Path(__file__).with_name("probe.json").read_text())


def report(what, action):
    try:
        result = action()
    except Exception as exc:
        result = "denied (" + type(exc).__name__ + ")"
    sys.stderr.write("probe " + what + ": " + result + "\\n")
    sys.stderr.flush()


def read(path):
    with open(path) as f:
        return "read " + f.read(200)


def connect():
    with socket.create_connection(("127.0.0.1", CONFIG["port"]), timeout=1):
        return "connected"


def kill(pid, sig):
    os.kill(pid, sig)
    return "sent to " + str(pid)


for path in CONFIG["files"]:
    report("file " + path, lambda path=path: read(path))
report("env", lambda: "found " + os.environ["ARENA_TEST_SECRET"])
sys.stderr.write("probe sees variables: " + repr(dict(os.environ)) + "\\n")
report("connect", connect)
if CONFIG["kill"]:
    report("kill parent", lambda: kill(os.getppid(), signal.SIGKILL))
    report("signal harness", lambda: kill(CONFIG["harness"], signal.SIGUSR1))
sys.stderr.flush()

for line in iter(sys.stdin.buffer.readline, b""):
    if line.startswith(b"arena"):
        os.write(1, b"ready probe\\n")
    elif line.startswith(b"turn"):
        cell = line.split()[1].index(b".")
        os.write(1, ("abcdef"[cell % 6] + str(cell // 6 + 1) + "X\\n").encode())
    elif line.startswith(b"quit"):
        break
'''


def _run_probe(tmp_path: Path, tmp_path_factory, mode: SandboxMode, kill: bool):
    """Play the probe (Order in game 1) against a correct bot; its records, and what leaked."""
    secret = f"secret-{os.getpid()}-{time.monotonic_ns()}"
    secret_dir = tmp_path_factory.mktemp("elsewhere")
    (secret_dir / "secret.txt").write_text(secret)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    signals: list[int] = []
    previous = signal.signal(signal.SIGUSR1, lambda signum, frame: signals.append(signum))
    os.environ["ARENA_TEST_SECRET"] = secret
    try:
        files = [str(secret_dir / "secret.txt"), str(Path(__file__).resolve()), "/etc/shadow"]
        port = listener.getsockname()[1]
        config = {"files": files, "port": port, "kill": kill, "harness": os.getpid()}
        probe = write_bot(tmp_path / "probe", "probe.py", PROBE)
        (tmp_path / "probe" / "probe.json").write_text(json.dumps(config))
        opponent = write_bot(tmp_path, "last_empty.py", LAST_EMPTY)
        records = play_match(probe, opponent, 2, settings(mode), seed=4)
        try:
            connection, _ = listener.accept()
            connection.close()
            accepted = True
        except BlockingIOError:
            accepted = False
    finally:
        os.environ.pop("ARENA_TEST_SECRET", None)
        signal.signal(signal.SIGUSR1, previous)
        listener.close()
    stderr = records[0].stderr_order + records[1].stderr_chaos
    return records, stderr, secret, accepted, signals


@needs_bwrap
@pytest.mark.sandbox
def test_bwrap_isolates_files_environment_network_and_processes(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Inside bwrap a bot cannot read files outside its folder, see the harness's environment,
    connect to a loopback port, or signal the harness; killing its parent does not hurt the match.
    """
    records, stderr, secret, accepted, signals = _run_probe(
        tmp_path, tmp_path_factory, SandboxMode.BWRAP, kill=True
    )
    assert "probe connect:" in stderr, stderr  # the probe ran and reported
    assert secret not in stderr, stderr
    assert "ARENA_TEST_SECRET" not in stderr
    for line in stderr.splitlines():
        if line.startswith(("probe file", "probe env", "probe connect", "probe signal")):
            assert ": denied (" in line, line
    assert not accepted, "a sandboxed bot connected to the harness's loopback port"
    assert not signals, "a sandboxed bot signalled the harness"
    assert len(records) == 2  # the harness survived and played on
    for record in records:
        assert record.reason is Reason.FIVE or (
            record.loser_name == "probe" and record.reason is Reason.CRASH
        ), record.to_json()


def test_probe_sees_leaks_without_sandbox(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Control for the test above: without bwrap the same probe reads the secret file and
    connects (so its reports can show a leak), while the environment is still scrubbed."""
    records, stderr, secret, accepted, _ = _run_probe(
        tmp_path, tmp_path_factory, SandboxMode.NONE, kill=False
    )
    assert f"read {secret}" in stderr
    assert accepted
    assert "ARENA_TEST_SECRET" not in stderr
    assert "probe env: denied (KeyError)" in stderr
    assert [r.reason for r in records] == [Reason.FIVE, Reason.FIVE]


# --- openings ------------------------------------------------------------------------------------
TURN_LOGGER = '''"""Test bot: X in the first empty cell; logs every turn line it gets on stderr."""
import os
import sys

for line in iter(sys.stdin.buffer.readline, b""):
    if line.startswith(b"turn"):
        os.write(2, line)
        cell = line.split()[1].index(b".")
        os.write(1, f"{'abcdef'[cell % 6]}{cell // 6 + 1}X\\n".encode())
    elif line.startswith(b"arena"):
        os.write(1, b"ready logger\\n")
    elif line.startswith(b"quit"):
        break
'''


def board_with(tokens: list[str]) -> str:
    """The protocol's board string with these move tokens on it."""
    cells = ["."] * 36
    for token in tokens:
        cells[(int(token[1]) - 1) * 6 + "abcdef".index(token[0])] = token[2]
    return "".join(cells)


@pytest.mark.parametrize("mode", MODES)
def test_an_opening_is_on_the_board_of_the_first_turn(mode: SandboxMode, tmp_path: Path) -> None:
    """Two plies: Order moves first, sees the position and the opening's last move; the record
    keeps the opening apart from the bots' own moves."""
    logger = write_bot(tmp_path, "logger.py", TURN_LOGGER)
    opponent = write_bot(tmp_path, "last_empty.py", LAST_EMPTY)
    opening = ["c3X", "d4O"]
    with Match(logger, opponent, settings(mode)) as match:
        record = match.play(0, opening=opening)
        again = match.play(1, opening=("a1O", "b2O"))
    assert record.opening == opening
    assert record.moves[:2] == ["a1X", "f6O"], record.to_json()
    assert not record.reason.is_fault and len(record.ms) == len(record.moves)
    assert record.stderr_order.splitlines()[0] == f"turn {board_with(opening)} d4O {MOVE_MS}"
    assert_record_consistent(record, MOVE_MS)
    assert again.opening == ["a1O", "b2O"] and again.moves[0] == "f6O"  # last_empty is Order
    first_turn = again.stderr_chaos.splitlines()[0]
    assert first_turn == f"turn {board_with(['a1O', 'b2O', 'f6O'])} f6O {MOVE_MS}"
    assert_record_consistent(again, MOVE_MS)


@pytest.mark.parametrize("mode", MODES)
def test_an_opening_of_odd_length_makes_chaos_move_first(mode: SandboxMode, tmp_path: Path) -> None:
    logger = write_bot(tmp_path, "logger.py", TURN_LOGGER)
    opponent = write_bot(tmp_path, "last_empty.py", LAST_EMPTY)
    with Match(opponent, logger, settings(mode)) as match:
        record = match.play(0, opening=["c3X"])  # last_empty is Order, the logger Chaos
    assert record.order == "last_empty" and record.chaos == "logger"
    assert record.moves[0] == "a1X", record.to_json()  # Chaos (the logger) moved first
    assert record.stderr_chaos.splitlines()[0] == f"turn {board_with(['c3X'])} c3X {MOVE_MS}"
    assert record.moves[1] == "f6O"
    assert_record_consistent(record, MOVE_MS)


def test_an_opening_that_breaks_the_rules_is_refused(tmp_path: Path) -> None:
    opponent = write_bot(tmp_path, "last_empty.py", LAST_EMPTY)
    five = ["a1X", "a2O", "b1X", "b2O", "c1X", "c2O", "d1X", "d2O", "e1X"]
    with Match(opponent, opponent.renamed("other"), settings(SandboxMode.NONE)) as match:
        for opening in (["a1X", "a1O"], ["z9X"], five):
            with pytest.raises(ValueError):
                match.play(0, opening=opening)
        assert not match.play(0).reason.is_fault  # the match goes on


# --- the referee's own trouble is not the bot's -------------------------------------------------
STALL_DRIVER = """
import json, sys
from arena.botspec import BotSpec
from arena.limits import SandboxMode, TimeControl
from arena.referee.match import MatchSettings, play_match

bot = BotSpec.from_command([sys.executable, sys.argv[1], sys.argv[2]], "stops_referee")
other = BotSpec.from_path(sys.argv[3])
settings = MatchSettings(TimeControl(move_ms=400), sandbox=SandboxMode.NONE)
for record in play_match(bot, other, 2, settings, seed=4):
    print(json.dumps(record.to_json()))
"""


def test_a_reply_read_late_because_the_referee_was_stopped_is_not_a_timeout(tmp_path: Path) -> None:
    """The bot stops the referee (SIGSTOP, 1 s) and answers at once: the reply is read 1 s after
    its turn, with 400 ms per move. The bot is charged the CPU time it used, not the referee's
    absence: the move stands, and nothing is replayed."""
    bot = BotSpec.from_path(copy_bot(tmp_path, "stops_referee.py"))
    opponent = write_bot(tmp_path, "last_empty.py", LAST_EMPTY)
    marker = tmp_path / "stalled"
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-c", STALL_DRIVER, str(bot.program), str(marker), str(opponent.program)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    assert marker.exists() and time.monotonic() - started >= 1.0, "the referee was not stopped"
    records = [GameRecord.from_json(json.loads(line)) for line in result.stdout.splitlines()]
    assert len(records) == 2
    for record in records:
        assert not record.reason.is_fault, record.to_json()
        assert_record_consistent(record, 400)
    assert "replayed" not in records[0].detail, records[0]
    assert max(records[0].ms) < 400, records[0]


# --- what a bot wrote is shown escaped -----------------------------------------------------------
HOSTILE = '''"""Test bot: replies with escape codes, or (given an argument) dies with them."""
import os
import sys

for line in iter(sys.stdin.buffer.readline, b""):
    if line.startswith(b"arena"):
        os.write(1, b"ready hostile\\n")
    elif line.startswith(b"turn"):
        if len(sys.argv) > 1:
            os.write(2, b"\\x1b[2J\\x1b]0;pwned\\x07\\r\\n")
            sys.exit(1)
        os.write(1, b"\\x1b[31mred\\x9b\\n")
'''


@pytest.mark.parametrize("crash", [False, True], ids=["reply", "stderr"])
def test_what_a_bot_wrote_is_escaped_in_the_detail(crash: bool, tmp_path: Path) -> None:
    """Escape codes in a reply or in the last stderr line cannot reach the user's terminal."""
    source = write_bot(tmp_path, "hostile.py", HOSTILE)
    bot = BotSpec.from_command([*source.argv, *(["crash"] if crash else [])], "hostile")
    opponent = write_bot(tmp_path, "last_empty.py", LAST_EMPTY)
    (record,) = play_match(bot, opponent, 1, settings(SandboxMode.NONE))
    assert record.loser_name == "hostile", record.to_json()
    assert record.detail.isprintable(), record.detail
    if crash:
        assert record.detail.endswith(r"last on stderr: \x1b[2J\x1b]0;pwned\x07"), record.detail
    else:
        assert record.detail == r'not ASCII text: "\x1b[31mred\x9b"', record.detail


# --- any bytes on stdout: a move or a fault, said in printable text -----------------------------
ECHO_BYTES = '''"""Test bot: on its first turn, writes the bytes given in hex, then sleeps."""
import os
import sys
import time

for line in iter(sys.stdin.buffer.readline, b""):
    if line.startswith(b"arena"):
        os.write(1, b"ready echo\\n")
    elif line.startswith(b"turn"):
        os.write(1, bytes.fromhex(sys.argv[1]))
        time.sleep(5)
'''


@hypothesis_settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(min_size=1, max_size=300))
@example(data=b"c4x \r\n")
@example(data=b"\x1b[2J\r\n")
@example(data=b"a1X\nb1X\n")
@example(data=b"a1")
def test_any_bytes_a_bot_writes_are_a_move_or_a_fault_said_in_printable_text(
    data: bytes, tmp_path: Path
) -> None:
    """The bot writes ``data`` on its first turn, then sleeps: it loses, on that turn or (when the
    bytes were a move) on the next, and the detail is printable whatever it wrote."""
    source = write_bot(tmp_path, "echo.py", ECHO_BYTES)
    bot = BotSpec.from_command([*source.argv, data.hex()], "echo")
    opponent = write_bot(tmp_path, "last_empty.py", LAST_EMPTY)
    (record,) = play_match(bot, opponent, 1, settings(SandboxMode.NONE, move_ms=300))
    assert record.loser_name == "echo" and record.reason.is_fault, record.to_json()
    assert record.detail and record.detail.isprintable(), record.detail
    reply = parse_reply(data.split(b"\n", 1)[0]) if data.count(b"\n") == 1 else None
    if reply is not None and reply.move is not None and data.endswith(b"\n"):
        assert record.moves[0] == reply.move.token and record.reason is Reason.TIMEOUT
    else:
        assert record.moves == [], record.to_json()


# --- a line written before its turn was even sent ------------------------------------------------
PREMOVE = '''"""Test bot: after its first move, once a file `go` appears in its folder (bounded
wait), writes a move for its next turn, before that turn was sent."""
import os
import sys
import time


def empty(board, nth):
    cell = [i for i, ch in enumerate(board) if ch == ord(".")][nth]
    return f"{'abcdef'[cell % 6]}{cell // 6 + 1}X".encode()


moves = 0
for line in iter(sys.stdin.buffer.readline, b""):
    if line.startswith(b"arena"):
        os.write(1, b"ready premove\\n")
    elif line.startswith(b"turn"):
        moves += 1
        os.write(1, empty(line.split()[1], 0) + b"\\n")
        if moves == 1:
            give_up = time.monotonic() + 10
            while not os.path.exists("go") and time.monotonic() < give_up:
                time.sleep(0.002)
            os.write(1, empty(line.split()[1], 1) + b"\\n")  # the fault: no reply was due
    elif line.startswith(b"quit"):
        break
'''


@pytest.mark.parametrize("mode", MODES)
def test_a_line_written_before_the_turn_was_sent_is_not_its_answer(
    mode: SandboxMode, tmp_path: Path
) -> None:
    """The ahead-of-turn race made deterministic by a tap that holds the referee: the bot's extra
    line arrives while the referee reads the opponent's reply (so no poll of the referee sees it
    on the opponent's turn). The line is still no answer to the bot's next ``turn``: the check of
    the bot's stdout before that ``turn`` is written finds it, the bot loses by ``malformed`` on
    its 2nd turn, and the stale line is never played as its move.

    The tap holds the referee on the opponent's reply, lets the bot write its line (a file
    ``go`` in its folder) and waits until the line is in the bot's stdout (``FIONREAD``, as the
    referee's own check reads it): conditions, not fixed sleeps. (A line that arrives once the
    ``turn`` was written cannot be told from a fast answer, so nothing stages that.)"""
    premove = write_bot(tmp_path, "premove.py", PREMOVE)
    opponent = write_bot(tmp_path, "last_empty.py", LAST_EMPTY)
    turns_sent = [0]
    opponent_replies = [0]
    missed: list[str] = []

    def extra_line_arrived() -> bool:
        bot = match.seats[0].process
        return bot is not None and procfs.unread_bytes(bot.stdout_fd) > 0

    def hold(seat: int, direction: str, _time_ns: int, data: bytes) -> None:
        if seat == 1 and direction == "<" and not data.startswith(b"ready"):
            opponent_replies[0] += 1
            if opponent_replies[0] == 1:
                (tmp_path / "go").touch()  # now the bot writes its extra line
                if not wait_until(extra_line_arrived, 10):
                    missed.append("the bot's extra line never arrived")
        elif seat == 0 and direction == ">" and data.startswith(b"turn"):
            turns_sent[0] += 1

    # The bot must be able to write while the referee is held (not frozen as the idle bot).
    unfrozen = dataclasses.replace(settings(mode, move_ms=2000), freeze_idle=False)
    with Match(premove, opponent, unfrozen) as match:
        match.tap = hold
        record = match.play(0)
    assert not missed, missed
    assert record.winner is Role.CHAOS and record.reason is Reason.MALFORMED, record.to_json()
    assert re.fullmatch(r'wrote a line when no reply was due: "[a-f][1-6]X"', record.detail), (
        record.detail
    )
    assert len(record.moves) == 2, record.moves  # its 1st move and the opponent's reply only
    assert opponent_replies[0] == 1  # the referee was held while the line came
    assert turns_sent[0] == 1  # the line is seen before its 2nd turn is sent


PADDED_REPLY = '''"""Test bot: X in the first empty cell, padded with spaces to {length} bytes."""
import os
import sys

for line in iter(sys.stdin.buffer.readline, b""):
    if line.startswith(b"turn"):
        cell = line.split()[1].index(b".")
        move = f"{{'abcdef'[cell % 6]}}{{cell // 6 + 1}}X".encode()
        end = {end!r}
        os.write(1, move + b" " * ({length} - len(move) - len(end) + 1) + end)
    elif line.startswith(b"arena"):
        os.write(1, b"ready padded\\n")
    elif line.startswith(b"quit"):
        break
'''


@pytest.mark.parametrize(
    ("length", "end"),
    [(1024, b"\n"), (1024, b"\r\n"), (1025, b"\n"), (1025, b"\r\n"), (5000, b"\n"), (60000, b"\n")],
)
def test_a_reply_over_the_line_limit_is_malformed(length: int, end: bytes, tmp_path: Path) -> None:
    """A line of more than ``line_bytes`` (1024) bytes before its ``\\n`` is ``malformed`` even
    when its newline arrives with it (in one read: the referee's fast path) and however long it
    is; a line of exactly 1024 bytes (a ``\\r`` included) is a move (spaces around it are
    tolerated)."""
    bot = write_bot(tmp_path, "padded.py", PADDED_REPLY.format(length=length, end=end))
    opponent = write_bot(tmp_path, "last_empty.py", LAST_EMPTY)
    records = play_match(bot, opponent, 2, settings(SandboxMode.NONE), seed=1)
    for record in records:
        if length <= 1024:
            assert not record.reason.is_fault, record.to_json()
            continue
        assert record.loser_name == "padded", record.to_json()
        assert record.reason is Reason.MALFORMED, record.to_json()
        assert re.fullmatch(r'line longer than 1024 bytes: "[a-f][1-6]X +\.\.\."', record.detail)
        assert len(record.moves) == (0 if record.order == "padded" else 1)


@pytest.mark.parametrize("mode", MODES)
def test_a_bot_that_exits_after_ready_crashed(mode: SandboxMode, tmp_path: Path) -> None:
    """A bot that exits right after ``ready`` loses every game by ``crash``: the end of its
    stdout, seen while the referee waits for the other bot's ``ready``, is not a line written
    when no reply was due (it was called ``malformed ""``)."""
    script = tmp_path / "exit1.sh"
    script.write_text("#!/bin/sh\nread -r l; echo ready; exit 3\n")
    script.chmod(0o755)
    bot = BotSpec.from_path(script)
    opponent = write_bot(tmp_path, "last_empty.py", LAST_EMPTY)
    records = play_match(bot, opponent, 4, settings(mode), seed=1)
    for record in records:
        assert record.loser_name == "exit1", record.to_json()
        assert record.reason is Reason.CRASH, record.to_json()
        assert "no reply was due" not in record.detail, record.to_json()


def test_a_line_read_with_ready_is_a_line_when_none_was_due(tmp_path: Path) -> None:
    """``ready`` and ``hello`` in one write: the bot started (no ``startup`` fault, which depended
    on whether both came in one read) and loses by a line when no reply was due, before a move."""
    bot = BotSpec.from_path(copy_bot(tmp_path, "ready_then_hello.py", name="chatty.py"))
    opponent = write_bot(tmp_path, "last_empty.py", LAST_EMPTY)
    for record in play_match(bot, opponent, 2, settings(SandboxMode.NONE), seed=1):
        assert record.loser_name == "chatty", record.to_json()
        assert record.reason is Reason.MALFORMED, record.to_json()
        assert record.detail == 'wrote a line when no reply was due: "hello"', record.detail
        assert record.moves == []


def test_a_crlf_script_fails_to_start_with_the_reason_and_the_fix(tmp_path: Path) -> None:
    """A ``#!`` line ending in ``\\r``: the start-up fault says so and how to fix it."""
    script = tmp_path / "crlf.sh"
    script.write_bytes(b"#!/bin/sh\r\nread -r l\r\necho ready\r\n")
    script.chmod(0o755)
    opponent = write_bot(tmp_path, "last_empty.py", LAST_EMPTY)
    for mode in [SandboxMode.NONE] + ([SandboxMode.BWRAP] if bwrap_path() else []):
        for record in play_match(BotSpec.from_path(script), opponent, 2, settings(mode), seed=1):
            assert record.reason is Reason.STARTUP, record.to_json()
            assert re.search(
                r"its #! line ends in \\r \(Windows line ends\), so its interpreter is not found:"
                r" save it with \\n line ends \(dos2unix .*crlf\.sh\)",
                record.detail,
            ), record.detail


def test_a_persons_game_is_refereed_and_recorded_as_a_bots_game() -> None:
    """``play_person`` runs the one game of ``Match`` (start, faults, end, record): the bot's
    display name and version are stored as in a tournament, the person's are empty."""
    from arena.referee import play_person
    from arena.rules import Board, Move

    def first_empty(board: Board) -> Move:
        return next(move for move in board.legal_moves())

    told: list[tuple[str, Role]] = []
    record = play_person(
        BotSpec.from_path(TEST_BOTS_DIR / "instant.py"),
        Role.CHAOS,
        first_empty,
        settings=MatchSettings(sandbox=SandboxMode.NONE),
        person="alice",
        on_move=lambda move, role, _ms: told.append((move.token, role)),
    )
    assert (record.order, record.chaos) == ("alice", "instant")
    assert record.chaos_display == "instant" and record.order_display == ""
    assert record.chaos_version and not record.order_version
    assert [token for token, _role in told] == record.moves
    assert not record.reason.is_fault, record.detail


def test_a_line_the_bot_writes_while_the_person_thinks_loses_it_the_game() -> None:
    """The bot's seat beside a person is judged as beside a bot: a line it writes while the
    person is on move (``extra_line_later``, 50 ms into the person's 300 ms) loses it the game
    by ``malformed``, once the person's move stands."""
    from arena.referee import play_person
    from arena.rules import Board, Move

    def slow_first_empty(board: Board) -> Move:
        time.sleep(0.3)  # the person thinks: the bot's extra line comes meanwhile
        return board.legal_moves()[0]

    record = play_person(
        BotSpec.from_path(TEST_BOTS_DIR / "extra_line_later.py"),
        Role.ORDER,
        slow_first_empty,
        settings=MatchSettings(sandbox=SandboxMode.NONE),
    )
    assert (record.reason, record.winner) == (Reason.MALFORMED, Role.CHAOS), record.detail
    assert re.fullmatch(rf'wrote a line when no reply was due: "{MOVE}"', record.detail)
    assert len(record.moves) == 2


def test_a_persons_game_on_a_clock_times_the_bot_and_keeps_no_clock_column() -> None:
    """The person has no clock, so the record keeps none; the bot's moves are timed all the
    same (a bot slower than its clock loses by ``timeout``)."""
    from arena.referee import play_person
    from arena.rules import Board, Move

    def first_empty(board: Board) -> Move:
        return board.legal_moves()[0]

    clock = TimeControl(clock_ms=200, measure=Measure.WALL)
    settings = MatchSettings(time_control=clock, sandbox=SandboxMode.NONE)
    fast = play_person(
        BotSpec.from_path(TEST_BOTS_DIR / "instant.py"), Role.CHAOS, first_empty, settings=settings
    )
    assert not fast.reason.is_fault and fast.clock_ms is None, fast.detail
    slow = play_person(
        BotSpec.from_path(TEST_BOTS_DIR / "late.py"), Role.CHAOS, first_empty, settings=settings
    )
    assert slow.reason is Reason.TIMEOUT and slow.clock_ms is None, slow.detail
    assert len(slow.moves) == 1
