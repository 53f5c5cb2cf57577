"""A seat: one player of a game, a bot process or a person, behind one small interface.

``ask(board, clock, other)`` returns the seat's move in ``board`` and the nanoseconds it is
charged, or raises ``GameOver`` for its fault; ``tell`` shows it a move that stands; ``stop``
ends its process. The game loop (``Match``) knows nothing else of either kind.

A bot's ``ask`` is the harness's hot path. The common case (one poll event: the bot's stdout,
holding exactly one line) is read inline; everything else (stderr, partial lines, the other bot,
end of file, time-outs) goes through ``Channels.wait_line``, which gives the same answer, only
slower. Either way, one ``FIONREAD`` on the bot's stdout before its ``turn`` is written tells that
nothing unasked was waiting there, and one on its input after its line is read tells whether it
had read its ``turn`` (two system calls per move: the price of never taking a stale line for a
move, whoever the scheduler runs first). How the move is timed is ``arena.referee.clock``'s.
"""

from __future__ import annotations

import array
import fcntl
import termios
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from arena.botspec import BotSpec
from arena.launch.process import BotProcess, Channels, Tap, WaitStatus
from arena.launch.sandbox import LaunchPlan
from arena.limits import QUICK_MS, Limits
from arena.protocol import TURN_PREFIX, VERSION_LINE, parse_reply
from arena.referee import verdicts
from arena.referee.clock import MoveClock
from arena.rules import MOVE_BY_TOKEN, Board, Move, Reason, Role

_QUICK_NS = QUICK_MS * 1_000_000
# The hot path's calls, looked up once.
_ioctl, _FIONREAD, _now = fcntl.ioctl, termios.FIONREAD, time.perf_counter_ns


class GameOver(Exception):
    """Raised inside a game when a fault ends it."""

    def __init__(self, culprit: Seat, reason: Reason, detail: str) -> None:
        super().__init__(detail)
        self.culprit = culprit
        self.reason = reason
        self.detail = detail


@dataclass(eq=False)
class BotSeat:
    """One of the bots of a match and the state of its current process."""

    spec: BotSpec
    index: int
    channels: Channels
    line_bytes: int
    """The longest line the bot may write, its newline not counted."""
    process: BotProcess | None = None
    ready: bool = False
    failed_startups: int = 0
    starts: int = 0
    stderr_left: str = ""  # the stderr tail of a process already stopped in this game
    version: str = ""  # identity of the program as it was when the current process started
    display_name: str = ""  # what the bot called itself in its last `ready` ("" if nothing)
    wants: frozenset[str] = frozenset()  # the protocol extensions its process asked for
    seed: int | None = None  # the seed of this match for its process, until `match` told it
    _unread: array.array[int] = field(default_factory=lambda: array.array("i", [0]))

    def ask(self, board: Board, clock: MoveClock, other: Seat) -> tuple[Move, int]:
        """Send ``turn``, read one line back and judge it (in time, a move, on a free cell):
        the move and its charged time."""
        process = self.process
        assert process is not None  # a bot stopped during a game has ended it
        if process.frozen:
            process.thaw()
        wall_ns = clock.turn(len(board.history) & 1, process)
        message = TURN_PREFIX + board.cells + b" " + board.last_token + clock.suffix
        in_fd, out_fd, unread = process.stdin_fd, process.stdout_fd, self._unread
        # Anything in its stdout before its `turn` is sent is no answer to it, even if the bot
        # reads that `turn` before the referee reads the line (FIONREAD below).
        _ioctl(out_fd, _FIONREAD, unread)
        if unread[0] or process.outbuf:
            process.read_waiting()
            raise GameOver(self, Reason.MALFORMED, verdicts.unsolicited(process))
        write, read = process.io  # os.write and os.read, or through the transcript's tap
        started = _now()
        try:
            written = write(in_fd, message)
        except OSError:
            written = -1
        if written != len(message):
            raise GameOver(self, *verdicts.send_failure(process))
        line = None
        events = self.channels.poll(QUICK_MS)
        if len(events) == 1 and events[0][0] == out_fd and not process.outbuf:
            data = read(out_fd, 65536)
            # One read is the line only when it is one line within the limit, its newline
            # included; anything longer goes to wait_line, which says it is overlong.
            if 0 < len(data) <= self.line_bytes + 1 and data.find(b"\n") == len(data) - 1:
                line = data[:-1]
            else:
                process.outbuf += data
        if line is None:  # more than one line, stderr too, or nothing yet
            line = self._wait(started, wall_ns, clock, other)
        _ioctl(in_fd, _FIONREAD, unread)
        if unread[0]:  # its `turn` was still unread when this line came: not an answer
            raise GameOver(self, Reason.MALFORMED, verdicts.written_before_turn(line))
        used = clock.replied(_now() - started, process)
        if used > clock.allowed_ns:
            raise GameOver(self, Reason.TIMEOUT, clock.timeout_detail(used))
        move = MOVE_BY_TOKEN.get(line)
        if move is None:  # not a move's plain spelling: parse_reply says what it is
            reply = parse_reply(line)
            if reply.move is None:
                assert reply.fault is not None
                raise GameOver(self, reply.fault, reply.detail)
            move = reply.move
        if not board.is_empty(move.cell):
            raise GameOver(self, Reason.ILLEGAL, verdicts.occupied(move.token))
        clock.charge(used)
        return move, used

    def _wait(self, started: int, wall_ns: int, clock: MoveClock, other: Seat) -> bytes:
        """The reply's line by the slow path: up to ``QUICK_MS``, then (the clock told that the
        bot is thinking) up to its wall-clock deadline; a fault raised if none came."""
        process = self.process
        assert process is not None
        wait_line = self.channels.wait_line
        status, line, culprit = wait_line(process, started + min(_QUICK_NS, wall_ns))
        if status is WaitStatus.TIMEOUT:
            clock.thinking(started, process, other.process)
            status, line, culprit = wait_line(process, started + wall_ns)
        if status is not WaitStatus.LINE:
            self._wait_fault(status, line, culprit, started, wall_ns, clock, other)
        return line

    def _wait_fault(
        self,
        status: WaitStatus,
        line: bytes,
        culprit: BotProcess | None,
        started_ns: int,
        wall_ns: int,
        clock: MoveClock,
        other: Seat,
    ) -> None:
        """Raise the fault that a wait for the reply ended with (``MachineFault`` when the
        machine, not the bot, kept the reply from coming: ``arena.referee.blame``)."""
        process = self.process
        assert process is not None
        if status is WaitStatus.TIMEOUT:
            crashed = verdicts.silent_crash(process)
            if crashed is not None:
                raise GameOver(self, Reason.CRASH, crashed)
            elapsed = time.perf_counter_ns() - started_ns
            raise GameOver(self, Reason.TIMEOUT, clock.no_reply(process, elapsed))
        if status is WaitStatus.EOF:
            raise GameOver(self, Reason.CRASH, verdicts.exit_detail(process))
        if status is WaitStatus.OVERLONG:
            raise GameOver(
                self, Reason.MALFORMED, verdicts.overlong(self.line_bytes, process.outbuf)
            )
        if status is WaitStatus.EXTRA:
            raise GameOver(self, Reason.MALFORMED, verdicts.extra_lines(line, process))
        # The other bot is at fault, while this one is on move and owes a reply.
        at_fault = self if culprit is self.process else other
        assert isinstance(at_fault, BotSeat)
        over = at_fault.fault_outside_turn(status)
        at_fault.stop(graceful=False)
        self._drop_owed_reply(started_ns + wall_ns)
        raise over

    def _drop_owed_reply(self, deadline_ns: int) -> None:
        """Wait (until the turn's deadline) for a reply that the other bot's fault made moot, and
        drop it, so that it is never read in the next game; a bot that does not answer in time is
        restarted for its next game (it is not at fault: the game is decided)."""
        process = self.process
        if process is None:
            return
        process.expecting = True
        status, _line, _culprit = self.channels.wait_line(process, deadline_ns)
        process.expecting = False
        if status is not WaitStatus.LINE:
            self.stop(graceful=False)

    def fault_outside_turn(self, status: WaitStatus = WaitStatus.UNSOLICITED) -> GameOver:
        """The fault of a bot that wrote, or closed its stdout, when no reply was due."""
        if status is WaitStatus.OTHER_EOF:
            process = self.process
            pipe = "stdin" if process and process.running and process.input_closed() else "stdout"
            return GameOver(self, Reason.CRASH, f"exited (closed its {pipe}) while not on move")
        return GameOver(self, Reason.MALFORMED, verdicts.unsolicited(self.process))

    def launch(self, plan: LaunchPlan, limits: Limits, tap: Tap | None) -> str | None:
        """Start a process for the bot and send it ``arena 1``; why it could not, or None."""
        process = BotProcess(self.spec, plan, limits)
        process.tap = tap
        try:
            process.start()
        except OSError as exc:
            plan.cleanup()
            problem = verdicts.program_problem(self.spec.program)
            return f"could not start {' '.join(self.spec.argv)}: {exc.strerror or exc}{problem}"
        except BaseException:  # Ctrl-C, SIGTERM mid-start: the seat has no process to stop yet
            if process.proc is not None:
                process.stop(graceful=False)
            else:
                plan.cleanup()  # its scratch folder, cgroup, FIFOs
            raise
        self.process = process
        self.channels.add(process)
        process.expecting = True
        if not process.send(VERSION_LINE):
            problem = verdicts.program_problem(self.spec.program)
            return f"exited before reading `arena 1` ({verdicts.exit_detail(process)}){problem}"
        return None

    def adopt(self, process: BotProcess, display_name: str, wants: frozenset[str]) -> None:
        """``process`` said ``ready`` (here, or before it was kept): the bot is ready to play."""
        if process is not self.process:  # a kept process, new to this match's channels
            self.process = process
            self.channels.add(process)
        process.expecting = False
        self.display_name = display_name
        self.wants = wants
        self.ready = True
        self.failed_startups = 0

    def start_failed(self, detail: str) -> GameOver:
        """A failed start-up; a ``crash`` naming the limit when the bot went past one (killed by
        its memory bound, say), which is its fault whenever it happens."""
        self.failed_startups += 1
        excess = self.process.over_limit(late=True) if self.process is not None else None
        self.stop(graceful=False)
        if excess is not None:
            return GameOver(self, Reason.CRASH, excess)
        return GameOver(self, Reason.STARTUP, detail)

    listens: bool = field(default=False, init=False)
    """A bot learns the moves from its next ``turn``: ``tell`` has nothing to say to it."""

    def tell(self, move: Move, role: Role, ms: float) -> None:
        """Nothing: the next ``turn`` shows the bot the move."""

    def thaw(self) -> None:
        """Let the bot run again if the move clock froze it (``BotProcess.freeze``)."""
        if self.process is not None:
            self.process.thaw()

    def stop(self, graceful: bool) -> None:
        """Stop the bot's process; what it wrote to stderr is kept for the game's record."""
        if self.process is not None:
            self.channels.discard(self.process)
            self.process.thaw()
            self.process.stop(graceful)
            self.stderr_left += self.process.take_stderr()
            self.process = None
            self.ready = False
            self.wants = frozenset()

    def tail(self) -> str:
        """The stderr the bot wrote during this game (a process stopped in it included)."""
        text = self.stderr_left + (self.process.take_stderr() if self.process is not None else "")
        self.stderr_left = ""
        return text


@dataclass(eq=False)
class PersonSeat:
    """A person: ``choose(board)`` gives their move (legal: asking again is the caller's
    business), ``watch(move, role, ms)`` shows them every move that stands. No process, no
    clock: the time they take is recorded, never judged."""

    spec: BotSpec
    index: int
    choose: Callable[[Board], Move]
    watch: Callable[[Move, Role, float], None] | None = None
    process: None = None
    version: str = ""
    display_name: str = ""
    stderr_left: str = ""

    def ask(self, board: Board, clock: MoveClock, other: Seat) -> tuple[Move, int]:
        """The person's move in a copy of ``board`` (the caller may not change the game)."""
        started = time.perf_counter_ns()
        move = self.choose(board.copy())
        if not board.is_legal(move):
            raise ValueError(f"ask() returned an illegal move: {move}")
        return move, time.perf_counter_ns() - started

    @property
    def listens(self) -> bool:
        """Whether ``tell`` shows the person anything."""
        return self.watch is not None

    def tell(self, move: Move, role: Role, ms: float) -> None:
        if self.watch is not None:
            self.watch(move, role, ms)

    def thaw(self) -> None:
        """A person is never frozen."""

    def stop(self, graceful: bool) -> None:
        """A person has no process to stop."""

    def tail(self) -> str:
        return ""


Seat = BotSeat | PersonSeat
"""Either kind of player."""
