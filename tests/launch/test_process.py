"""``arena.launch.process.BotProcess`` on its own: real bot processes of ``tests/bots``, real pipes.

Why: the referee builds every verdict on these few moves (start a bot, write it a line, wait for
its line until a deadline, drain its stderr, stop it), so each is checked here apart from any
match: a line arrives as a line, a silent bot is a timeout at its deadline (not before, not much
after), a dead bot is an end of file at once, a flood of stderr never blocks the bot and is kept
as a capped tail, and stopping ends the bot whether it leaves when asked, must be terminated, or
ignores SIGTERM. Every bot is copied into the test's own folder, whose path is the marker by which
``no_leftover_processes`` checks that nothing of it is left.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SANDBOX_MODES, wait_until
from factories import copy_bot

from arena.botspec import BotSpec
from arena.launch import procfs
from arena.launch.process import (
    KILL_GRACE_S,
    QUIT_GRACE_S,
    BotProcess,
    Channels,
    WaitStatus,
)
from arena.launch.sandbox import plan_launch
from arena.limits import Limits

pytestmark = pytest.mark.usefixtures("no_leftover_processes")

WAIT_S = 20.0
"""Bound on a line a bot owes (generous: the machine may be loaded, and bwrap starts slowly)."""
LATE_S = 1.0
"""How much later than its deadline a timeout may be reported on a loaded machine."""


class Started:
    """Start bots of ``tests/bots`` (copied into the test's folder); stop them all afterwards."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.bots: list[BotProcess] = []

    def __call__(self, name: str, mode: str = "none", **limits: int) -> BotProcess:
        spec = BotSpec.from_path(copy_bot(self.folder / "bots", name))
        limit = Limits(**limits)
        bot = BotProcess(spec, plan_launch(spec, mode, limit, seed=1, cpu_seconds=60), limit)
        self.bots.append(bot)
        bot.start()
        return bot


@pytest.fixture
def started(no_leftover_processes: Path) -> Iterator[Started]:
    starter = Started(no_leftover_processes)
    yield starter
    for bot in starter.bots:
        bot.stop(graceful=False)


def read_line(bot: BotProcess, seconds: float = WAIT_S) -> tuple[WaitStatus, bytes]:
    """The bot's next line (or what came instead) within ``seconds``, with its stderr drained."""
    bot.expecting = True
    status, line, _culprit = Channels([bot]).wait_line(
        bot, time.perf_counter_ns() + int(seconds * 1e9)
    )
    return status, line


def handshake(bot: BotProcess) -> None:
    assert bot.send(b"arena 1\n")
    status, line = read_line(bot)
    assert status is WaitStatus.LINE, (status, bot.take_stderr())
    assert line.startswith(b"ready "), line


@pytest.mark.parametrize("mode", SANDBOX_MODES)
def test_a_started_bot_answers_a_line_with_a_line(started: Started, mode: str) -> None:
    bot = started("instant.py", mode)
    assert bot.running and bot.pid > 0
    assert bot.send(b"arena 1\n")
    assert read_line(bot) == (WaitStatus.LINE, b"ready instant")
    assert bot.send(b"turn " + b"." * 36 + b"\n")
    assert read_line(bot) == (WaitStatus.LINE, b"a1X")


@pytest.mark.parametrize("mode", SANDBOX_MODES)
def test_the_tap_sees_every_write_and_read_whatever_the_pipes(started: Started, mode: str) -> None:
    """The transcript tap gets each write to the bot and each read from its stdout, on plain
    pipes and on bubblewrap's FIFOs alike: the process's own reads (``wait_line``,
    ``read_waiting``) and the referee's (its ``io`` pair). Unset, it sees nothing more."""
    bot = started("instant.py", mode)
    seen: list[tuple[str, bytes]] = []
    bot.tap = lambda direction, _ns, data: seen.append((direction, data))
    handshake(bot)
    turn = b"turn " + b"." * 36 + b"\n"
    write, read = bot.io
    assert write(bot.stdin_fd, turn) == len(turn)
    assert wait_until(lambda: procfs.unread_bytes(bot.stdout_fd) > 0, WAIT_S)
    assert read(bot.stdout_fd, 4096) == b"a1X\n"
    assert bot.send(turn)
    assert wait_until(bot.read_waiting, WAIT_S), bot.take_stderr()
    bot.tap = None
    assert bot.send(b"quit\n")
    sent = b"".join(data for direction, data in seen if direction == ">")
    got = b"".join(data for direction, data in seen if direction == "<")
    assert sent == b"arena 1\n" + turn + turn
    assert got == b"ready instant\na1X\na1X\n"


@pytest.mark.parametrize("mode", SANDBOX_MODES)
def test_a_silent_bot_is_a_timeout_at_the_deadline(started: Started, mode: str) -> None:
    bot = started("never_ready.py", mode)
    assert bot.send(b"arena 1\n")
    began = time.monotonic()
    status, line = read_line(bot, 0.3)
    waited = time.monotonic() - began
    assert (status, line) == (WaitStatus.TIMEOUT, b"")
    assert 0.3 <= waited < 0.3 + LATE_S, f"timed out after {waited:.3f} s (deadline 0.3 s)"
    assert bot.running  # a timeout says nothing of the process: it is still there


@pytest.mark.parametrize("mode", SANDBOX_MODES)
def test_a_bot_that_exits_is_an_end_of_file_at_once(started: Started, mode: str) -> None:
    bot = started("crash_at_start.py", mode)
    began = time.monotonic()
    status, _line = read_line(bot)
    assert status is WaitStatus.EOF
    assert time.monotonic() - began < WAIT_S / 2  # seen when it happened, not at the deadline
    code = bot.stop(graceful=True)
    if mode == "none":  # under bwrap the exit status is bwrap's
        assert code == 3


def test_a_line_longer_than_the_limit_is_overlong(started: Started) -> None:
    bot = started("endless_line.py", line_bytes=4096)
    handshake(bot)
    assert bot.send(b"turn " + b"." * 36 + b"\n")
    assert read_line(bot) == (WaitStatus.OVERLONG, b"")
    assert len(bot.outbuf) <= 4096 + 65536  # bounded by the limit and one read


def test_send_fails_at_once_when_the_bot_no_longer_reads(started: Started) -> None:
    """``ignore_quit`` sleeps without reading after ``quit``: once its pipe is full, ``send``
    returns False at once instead of blocking the harness."""
    bot = started("ignore_quit.py")
    handshake(bot)
    assert bot.send(b"quit\n")
    began = time.monotonic()
    assert bot.send(b"x" * (1 << 20)) is False  # more than a pipe holds
    assert time.monotonic() - began < 1.0


def test_send_fails_once_the_bot_is_gone(started: Started) -> None:
    bot = started("crash_at_start.py")
    assert read_line(bot)[0] is WaitStatus.EOF
    assert bot.proc is not None and bot.proc.wait(timeout=WAIT_S) == 3
    assert bot.send(b"arena 1\n") is False


@pytest.mark.parametrize("mode", SANDBOX_MODES)
def test_stderr_is_drained_while_waiting_and_kept_as_a_capped_tail(
    started: Started, mode: str
) -> None:
    """``flood_stderr`` writes 1 MiB to stderr (16 times a 64 KiB pipe) before each move: it
    would block on the pipe unless the wait drains it. The tail kept is ``stderr_kb``, ending
    with the last line written, and the count of dropped bytes makes up the rest exactly."""
    bot = started("flood_stderr.py", mode, stderr_kb=16)
    handshake(bot)
    assert bot.send(b"turn " + b"." * 36 + b"\n")
    assert read_line(bot) == (WaitStatus.LINE, b"a1X")
    bot.drain_stderr()  # the rest of the flood, written before the move, is in the pipe now
    text = bot.take_stderr()
    header, _, tail = text.partition("\n")
    written = 64 * 16384 + len("flood_stderr: end of turn 1\n")
    assert header.startswith("[") and header.endswith(" earlier bytes dropped]"), header
    dropped = int(header[1:].split()[0])
    assert len(tail.encode()) == 16 * 1024
    assert dropped + len(tail.encode()) == written
    assert tail.endswith("flood_stderr: end of turn 1\n")
    assert bot.take_stderr() == ""  # a new tail starts after each take


def test_a_graceful_stop_lets_the_bot_leave_by_itself(started: Started) -> None:
    bot = started("instant.py")
    handshake(bot)
    assert bot.stop(graceful=True) == 0  # it read `quit` and exited: no signal was needed
    assert not bot.running and bot.proc is None
    assert bot.stop(graceful=True) is None  # stopping a stopped bot does nothing


def test_a_stop_after_a_fault_terminates_the_bot_at_once(started: Started) -> None:
    bot = started("instant.py")
    handshake(bot)
    began = time.monotonic()
    code = bot.stop(graceful=False)
    assert code == -15  # SIGTERM, without asking it to quit first
    assert time.monotonic() - began < QUIT_GRACE_S + LATE_S


@pytest.mark.parametrize("graceful", [True, False], ids=["graceful", "after-a-fault"])
def test_a_bot_that_ignores_quit_and_sigterm_is_killed(started: Started, graceful: bool) -> None:
    """``ignore_quit`` ignores ``quit``, end of input and SIGTERM: it is SIGKILLed after the
    grace periods (``QUIT_GRACE_S`` only when asked to quit, then ``KILL_GRACE_S``)."""
    bot = started("ignore_quit.py")
    handshake(bot)  # its handlers are set once it has said `ready`
    began = time.monotonic()
    assert bot.stop(graceful=graceful) == -9
    took = time.monotonic() - began
    grace = (QUIT_GRACE_S if graceful else 0) + KILL_GRACE_S
    assert grace <= took < grace + LATE_S, f"stopped after {took:.3f} s (grace {grace} s)"


@pytest.mark.parametrize("mode", SANDBOX_MODES)
def test_stop_takes_the_whole_process_group(started: Started, mode: str) -> None:
    """``fork_and_exit`` leaves a child holding its pipes on its 3rd turn, and exits: stopping
    the bot ends the child too (``no_leftover_processes`` then finds nothing of the test's)."""
    bot = started("fork_and_exit.py", mode)
    handshake(bot)
    board = bytearray(b"." * 36)
    for turn in range(3):
        assert bot.send(b"turn " + bytes(board) + b"\n")
        status, line = read_line(bot, WAIT_S if turn < 2 else 0.5)
        if turn < 2:
            assert status is WaitStatus.LINE, status
            board[board.index(b".")] = ord("X")

    def child_spoke() -> bool:
        bot.drain_stderr()
        return b"keeps the pipes" in bot.errbuf

    assert wait_until(child_spoke, WAIT_S), "the child never said it was there"
    bot.stop(graceful=False)
    assert not bot.running
