"""The referee: plays games between two bot processes and decides every one of them.

A ``Match`` starts each bot once and reuses it for game after game. The harness validates every
move itself; any fault (``timeout``, ``illegal``, ``malformed``, ``crash``, ``startup``) loses the
game for the bot at fault, which is then killed with its whole process group and started afresh
for its next game, so that nothing it did (a late answer, a half-written line) can leak into the
next game.

The per-ply loop is the harness's hot path: it is written out in ``_play_plies`` with the board
kept as a ``bytearray`` of protocol characters and the rules engine's bitboards, so that the cost
of refereeing stays close to the cost of the pipe round trip itself.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from arena import procfs
from arena.botspec import BotSpec
from arena.limits import Limits, SandboxMode, TimeControl
from arena.process import BotProcess, Channels, WaitStatus
from arena.protocol import (
    NO_LAST_MOVE,
    VERSION_LINE,
    end_line,
    escape,
    game_line,
    parse_ready,
    parse_reply,
    quote,
    turn_suffix,
)
from arena.records import GameRecord
from arena.rules import CELLS, MOVE_BY_TOKEN, WINDOWS_THROUGH, Mark, Move, Reason, Role
from arena.sandbox import plan_launch, resolve_mode

__all__ = ["MatchSettings", "Match", "play_match", "alternating_order_seats"]

_MARK_CHAR = (ord("X"), ord("O"))


@dataclass(frozen=True)
class MatchSettings:
    """How the games of a match are played."""

    time_control: TimeControl = field(default_factory=TimeControl)
    """Time per move and start-up allowance."""
    limits: Limits = field(default_factory=Limits)
    """Resource limits of each bot process."""
    sandbox: SandboxMode = SandboxMode.AUTO
    """How bots are isolated (``auto``: bubblewrap where it works)."""
    freeze_idle: bool = False
    """SIGSTOP the bot that is not on move (it cannot think on its opponent's time), and record
    the CPU time of each move."""
    startup_attempts: int = 2
    """After this many failed start-ups in a row, a bot is not started again in this match: its
    remaining games are lost by ``startup`` at once instead of costing the allowance each."""


@dataclass
class _Seat:
    """One of the two bots of a match and the state of its current process."""

    spec: BotSpec
    index: int
    process: BotProcess | None = None
    ready: bool = False
    failed_startups: int = 0
    starts: int = 0
    stderr_left: str = ""  # the stderr tail of a process already stopped in this game
    version: str = ""  # identity of the program as it was when the current process started
    cpu_pid: int = -1  # the process whose CPU time is the bot's (inside bwrap: the innermost)


def alternating_order_seats(games: int) -> list[int]:
    """Seat of the Order bot for each game: 0, 1, 0, 1, ... (game 1 has bot A as Order)."""
    return [i & 1 for i in range(games)]


class _GameOver(Exception):
    """Raised inside a game when a fault ends it."""

    def __init__(self, culprit: _Seat, reason: Reason, detail: str) -> None:
        super().__init__(detail)
        self.culprit = culprit
        self.reason = reason
        self.detail = detail


class Match:
    """Two bots, started once and reused across games; use as a context manager.

    >>> with Match(BotSpec.resolve("random"), BotSpec.resolve("greedy")) as match:
    ...     record = match.play(order_seat=0)
    """

    def __init__(
        self,
        bot_a: BotSpec,
        bot_b: BotSpec,
        settings: MatchSettings | None = None,
        seed: int = 1,
        expected_games: int = 2,
    ) -> None:
        self.settings = settings or MatchSettings()
        self.seed = seed
        self.sandbox = resolve_mode(self.settings.sandbox)
        self.seats = (
            _Seat(bot_a, 0, version=bot_a.version()),
            _Seat(bot_b, 1, version=bot_b.version()),
        )
        self.channels = Channels()
        tc = self.settings.time_control
        # RLIMIT_CPU only stops a runaway: allow every move its full time on every core.
        worst_case = expected_games * (CELLS // 2 + 1) * tc.move_ms / 1000 * (os.cpu_count() or 1)
        self._cpu_seconds = self.settings.limits.cpu_seconds or int(
            60 + tc.startup_ms / 1000 * 4 + worst_case
        )

    # --- life cycle ----------------------------------------------------------------------------
    def __enter__(self) -> Match:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Send ``quit`` to both bots and make sure nothing of theirs is left running."""
        for seat in self.seats:  # both at once: they exit in parallel, not one after the other
            if seat.process is not None:
                self._continue(seat)
                seat.process.send_quit()
        for seat in self.seats:
            self._stop(seat, graceful=True)

    def _stop(self, seat: _Seat, graceful: bool) -> None:
        """Stop a seat's process; what it wrote to stderr is kept for the game's record."""
        if seat.process is not None:
            self.channels.discard(seat.process)
            self._continue(seat)
            seat.process.stop(graceful)
            seat.stderr_left += seat.process.take_stderr()
            seat.process = None
            seat.ready = False

    def _start(self, seat: _Seat) -> str | None:
        """Start a seat's process; the reason it could not start, or None."""
        seed = (self.seed * 1_000_003 + seat.index * 7_919 + seat.starts) % 2**31
        seat.version = seat.spec.version()  # the code this process runs, even if edited later
        seat.starts += 1
        plan = plan_launch(seat.spec, self.sandbox, self.settings.limits, seed, self._cpu_seconds)
        process = BotProcess(seat.spec, plan, self.settings.limits)
        try:
            process.start()
        except OSError as exc:
            plan.cleanup()
            return f"could not start {' '.join(seat.spec.argv)}: {exc.strerror or exc}"
        seat.process = process
        seat.cpu_pid = process.pid
        self.channels.add(process)
        process.expecting = True
        if not process.send(VERSION_LINE):
            return f"exited before reading `arena 1` ({_exit_detail(process)})"
        return None

    def _ensure_ready(self, seats: Iterable[_Seat]) -> None:
        """Start whichever bots are not ready, both at once, and wait for their `ready`.

        Both seats are settled (ready, or stopped after a fault) before the first fault is
        raised, so that no half-started process is carried into the next game.
        """
        pending = [seat for seat in seats if not seat.ready]
        faults: list[_GameOver] = []
        for seat in pending:
            if seat.process is not None:
                continue
            if seat.failed_startups >= self.settings.startup_attempts:
                count = seat.failed_startups
                faults.append(
                    _GameOver(seat, Reason.STARTUP, f"not restarted after {count} failed start-ups")
                )
                continue
            problem = self._start(seat)
            if problem is not None:
                faults.append(self._startup_failed(seat, problem))
        deadline = time.perf_counter_ns() + self.settings.time_control.startup_ms * 1_000_000
        for seat in pending:
            if seat.process is not None and not seat.ready:
                self._await_ready(seat, deadline, faults)
        if faults:
            raise faults[0]
        if self.settings.freeze_idle:
            for seat in pending:
                seat.cpu_pid = procfs.innermost(seat.process.pid) if seat.process else -1

    def _startup_failed(self, seat: _Seat, detail: str) -> _GameOver:
        seat.failed_startups += 1
        self._stop(seat, graceful=False)
        return _GameOver(seat, Reason.STARTUP, detail)

    def _await_ready(self, seat: _Seat, deadline: int, faults: list[_GameOver]) -> None:
        """Wait for one seat's `ready`; faults of either seat meanwhile go to ``faults``."""
        process = seat.process
        assert process is not None
        allowance = self.settings.time_control.startup_ms
        while True:
            status, line, culprit = self.channels.wait_line(process, deadline)
            if culprit is None:
                break
            other = self._seat_of(culprit)
            if other.ready:  # a started bot wrote (or died) while another one was starting
                faults.append(self._fault_outside_turn(other))
                self._stop(other, graceful=False)
            else:
                faults.append(self._startup_failed(other, "exited during start-up"))
        if status is WaitStatus.LINE and (name := parse_ready(line)) is not None:
            process.display_name = name
            process.expecting = False
            seat.ready = True
            seat.failed_startups = 0
            return
        problems = {
            WaitStatus.LINE: f"expected `ready`, got {quote(line)}",
            WaitStatus.TIMEOUT: f"no `ready` within {allowance} ms",
            WaitStatus.EOF: "exited during start-up",
            WaitStatus.EXTRA: "wrote more than one line at start-up",
            WaitStatus.OVERLONG: "start-up line too long",
        }
        problem = problems[status]
        if status is WaitStatus.EOF:
            problem += f" ({_exit_detail(process)})"
        faults.append(self._startup_failed(seat, problem))

    def _fault_outside_turn(
        self, seat: _Seat, status: WaitStatus = WaitStatus.UNSOLICITED
    ) -> _GameOver:
        """The fault of a bot that wrote, or closed its stdout, when no reply was due."""
        if status is WaitStatus.OTHER_EOF:
            return _GameOver(seat, Reason.CRASH, "exited (closed its stdout) while not on move")
        return _GameOver(seat, Reason.MALFORMED, "wrote a line when no reply was due")

    def _seat_of(self, process: BotProcess | None) -> _Seat:
        return self.seats[0] if self.seats[0].process is process else self.seats[1]

    # --- freezing the idle bot ------------------------------------------------------------------
    def _freeze(self, seat: _Seat) -> None:
        if seat.process is not None:
            with contextlib.suppress(OSError):
                os.killpg(seat.process.pid, signal.SIGSTOP)

    def _continue(self, seat: _Seat) -> None:
        if self.settings.freeze_idle and seat.process is not None:
            with contextlib.suppress(OSError):
                os.killpg(seat.process.pid, signal.SIGCONT)

    # --- a game ---------------------------------------------------------------------------------
    def play(self, order_seat: int = 0) -> GameRecord:
        """Play one game with seat ``order_seat`` (0: bot A) as Order; return its record."""
        order, chaos = self.seats[order_seat], self.seats[1 - order_seat]
        record = GameRecord(
            order=order.spec.name,
            chaos=chaos.spec.name,
            winner=Role.CHAOS,
            reason=Reason.FULL,
            seed=self.seed,
            started_at=time.time(),
        )
        if self.settings.freeze_idle:
            record.cpu_ms = []
        try:
            self._ensure_ready((order, chaos))
            self._begin(order, chaos)
            winner, reason = self._play_plies(order, chaos, record)
            record.winner, record.reason = winner, reason
        except _GameOver as over:
            record.winner = Role.CHAOS if over.culprit is order else Role.ORDER
            record.reason = over.reason
            record.detail = over.detail
            self._stop(over.culprit, graceful=False)
            if over.reason in (Reason.CRASH, Reason.STARTUP):
                last_words = _last_line(over.culprit.stderr_left)
                if last_words:  # e.g. the exception, or why bwrap could not start it
                    record.detail += f"; last on stderr: {last_words}"
        self._finish(order, chaos, record)
        return record

    def _begin(self, order: _Seat, chaos: _Seat) -> None:
        idle = self.channels.check_idle()
        if idle is not None:
            raise self._fault_outside_turn(self._seat_of(idle[1]), idle[0])
        for seat, role in ((order, Role.ORDER), (chaos, Role.CHAOS)):
            assert seat.process is not None
            if not seat.process.send(game_line(role)):
                raise _GameOver(seat, Reason.CRASH, "exited (could not write `game` to it)")
        if self.settings.freeze_idle:
            self._freeze(chaos)

    def _finish(self, order: _Seat, chaos: _Seat, record: GameRecord) -> None:
        self.channels.drain_all_stderr()
        for seat, role in ((order, Role.ORDER), (chaos, Role.CHAOS)):
            process = seat.process
            if process is not None:
                self._continue(seat)
                process.send(end_line(record.winner is role, record.reason))
        record.stderr_order = _tail(order)
        record.stderr_chaos = _tail(chaos)
        record.order_version = order.version
        record.chaos_version = chaos.version
        record.finished_at = time.time()

    def _play_plies(self, order: _Seat, chaos: _Seat, record: GameRecord) -> tuple[Role, Reason]:
        """The game loop: a `turn` out, a line back, validate, apply, check for five.

        The common case (one poll event: the mover's stdout, holding exactly one line) is read
        inline; everything else (stderr, partial lines, other bots, end of file, time-outs)
        goes through ``Channels.wait_line``, which gives the same answer, only slower.
        """
        seats = (order, chaos)
        move_ms = self.settings.time_control.move_ms
        budget_ns = move_ms * 1_000_000
        suffix = turn_suffix(move_ms)
        board = bytearray(b"." * CELLS)
        bits = [0, 0]
        occupied = 0
        last = NO_LAST_MOVE
        moves = record.moves
        elapsed_ns: list[int] = []
        cpu: list[float] = []  # record.cpu_ms when freeze_idle
        freeze = self.settings.freeze_idle
        wait_line = self.channels.wait_line
        poll = self.channels.poll
        perf_ns = time.perf_counter_ns
        write, read = os.write, os.read
        try:
            for ply in range(CELLS):
                seat = seats[ply & 1]
                process = seat.process
                assert process is not None  # a bot stopped during a game has ended it
                if freeze:
                    self._continue(seat)
                    cpu_before = procfs.process_cpu_ns(seat.cpu_pid)
                message = b"turn " + board + b" " + last + suffix
                out_fd = process.stdout_fd
                started = perf_ns()
                try:
                    written = write(process.stdin_fd, message)
                except OSError:
                    written = -1
                if written != len(message):
                    raise _GameOver(seat, *_send_failure(process))
                line = None
                events = poll(move_ms)
                if len(events) == 1 and events[0][0] == out_fd and not process.outbuf:
                    data = read(out_fd, 65536)
                    if data and data.find(b"\n") == len(data) - 1:
                        line = data[:-1]
                    else:
                        process.outbuf += data
                if line is None:
                    status, line, culprit = wait_line(process, started + budget_ns)
                    if status is not WaitStatus.LINE:
                        self._wait_fault(seat, status, culprit, started + budget_ns, move_ms)
                elapsed = perf_ns() - started
                if elapsed > budget_ns:
                    limit = f"(limit {move_ms} ms)"
                    raise _GameOver(
                        seat, Reason.TIMEOUT, f"answered after {elapsed / 1e6:.1f} ms {limit}"
                    )
                move = _PLY_MOVES.get(line)
                if move is None:
                    reply = parse_reply(line)
                    if reply.move is None:
                        assert reply.fault is not None
                        raise _GameOver(seat, reply.fault, reply.detail)
                    move = _PLY_MOVES[_TOKENS[reply.move.cell][reply.move.mark]]
                bit = move.bit
                if occupied & bit:
                    text = move.text
                    raise _GameOver(seat, Reason.ILLEGAL, f"{text}: {text[:2]} is occupied")
                occupied |= bit
                mark = move.mark
                mine = bits[mark] | bit
                bits[mark] = mine
                board[move.cell] = move.char
                last = move.token
                moves.append(move.text)
                elapsed_ns.append(elapsed)
                if freeze:
                    cpu_ns = procfs.process_cpu_ns(seat.cpu_pid) - cpu_before
                    cpu.append(round(cpu_ns / 1e6, 3))
                    self._freeze(seat)
                for window in move.windows:
                    if mine & window == window:
                        return Role.ORDER, Reason.FIVE
            return Role.CHAOS, Reason.FULL
        finally:
            record.ms = [round(t / 1e6, 3) for t in elapsed_ns]
            if freeze:
                record.cpu_ms = cpu

    def _wait_fault(
        self,
        seat: _Seat,
        status: WaitStatus,
        culprit: BotProcess | None,
        deadline_ns: int,
        move_ms: int,
    ) -> None:
        if status is WaitStatus.TIMEOUT:
            crashed = _silent_crash(seat.process)
            if crashed is not None:
                raise _GameOver(seat, Reason.CRASH, crashed)
            raise _GameOver(seat, Reason.TIMEOUT, f"no move within {move_ms} ms")
        if status is WaitStatus.EOF:
            raise _GameOver(seat, Reason.CRASH, _exit_detail(seat.process))
        if status is WaitStatus.OVERLONG:
            limit = self.settings.limits.line_bytes
            raise _GameOver(seat, Reason.MALFORMED, f"line longer than {limit} bytes")
        if status is WaitStatus.EXTRA:
            raise _GameOver(seat, Reason.MALFORMED, "wrote more than one line for one turn")
        # The other bot is at fault, while ``seat`` is on move and owes a reply.
        over = self._fault_outside_turn(self._seat_of(culprit), status)
        self._stop(over.culprit, graceful=False)
        self._drop_owed_reply(seat, deadline_ns)
        raise over

    def _drop_owed_reply(self, seat: _Seat, deadline_ns: int) -> None:
        """Wait (until the turn's deadline) for a reply that the other bot's fault made moot, and
        drop it, so that it is never read in the next game; a bot that does not answer in time is
        restarted for its next game (it is not at fault: the game is decided)."""
        process = seat.process
        if process is None:
            return
        process.expecting = True
        status, _line, _culprit = self.channels.wait_line(process, deadline_ns)
        process.expecting = False
        if status is not WaitStatus.LINE:
            self._stop(seat, graceful=False)


class _PlyMove(NamedTuple):
    """All the referee's hot loop needs about one move, found with one dictionary look-up."""

    bit: int
    """The cell's bit in the bitboards."""
    mark: int
    """Index of the mark's bitboard (``Mark``)."""
    char: int
    """The mark's character on the protocol's board (``X``/``O``)."""
    cell: int
    """The cell's index, which is also its place on the protocol's board."""
    token: bytes
    """The canonical token, the ``<last>`` of the next turn."""
    text: str
    """The same token as text, as records keep it."""
    windows: tuple[int, ...]
    """The five-cell windows through the cell: the only ones this move can complete."""


_TOKEN_TEXT = tuple(tuple(Move(cell, mark).token for mark in Mark) for cell in range(CELLS))
_TOKENS = tuple(tuple(token.encode() for token in pair) for pair in _TOKEN_TEXT)
_PLY_MOVES = {  # every accepted spelling of a move (c4X, c4x)
    spelling: _PlyMove(
        bit=1 << move.cell,
        mark=int(move.mark),
        char=_MARK_CHAR[move.mark],
        cell=move.cell,
        token=_TOKENS[move.cell][move.mark],
        text=_TOKEN_TEXT[move.cell][move.mark],
        windows=WINDOWS_THROUGH[move.cell],
    )
    for spelling, move in MOVE_BY_TOKEN.items()
}


def _send_failure(process: BotProcess) -> tuple[Reason, str]:
    if process.running:
        return Reason.TIMEOUT, "does not read its input (its input pipe is full)"
    return Reason.CRASH, _exit_detail(process)


def _exit_detail(process: BotProcess | None) -> str:
    code = None
    if process is not None and process.proc is not None:
        try:
            code = process.proc.wait(timeout=0.2)
        except Exception:  # still running: it closed its stdout without exiting
            return "closed its stdout"
    if code is None:
        return "exited"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with code {code}"


def _silent_crash(process: BotProcess | None) -> str | None:
    """Why a bot that let its move time run out had in fact crashed (None: it had not).

    End of file cannot show a crash while another process holds the bot's stdout open: a child it
    forked before exiting, or bubblewrap, which keeps the pipe for as long as the bot runs.
    """
    if process is None or process.proc is None:
        return None
    if process.proc.poll() is not None:
        return _exit_detail(process) + " (a child kept its stdout open)"
    # The process that runs the bot's command: bwrap runs it as the child of its own init.
    pid = procfs.first_descendant(process.pid, 2 if process.plan.sandboxed else 0)
    if pid is not None and procfs.holds_pipe(pid, 1, process.stdout_fd) is False:
        return "closed its stdout"
    return None


def _last_line(text: str, limit: int = 200) -> str:
    """The last non-blank line of ``text``, escaped and cut to ``limit`` characters."""
    for line in reversed(text.splitlines()):
        if line.strip():
            return escape(line.strip(), limit)
    return ""


def _tail(seat: _Seat) -> str:
    """The stderr a seat's bot wrote during this game (including a process stopped in it)."""
    text = seat.stderr_left + (seat.process.take_stderr() if seat.process is not None else "")
    seat.stderr_left = ""
    return text


def play_match(
    bot_a: BotSpec,
    bot_b: BotSpec,
    games: int | Iterable[int] = 2,
    settings: MatchSettings | None = None,
    seed: int = 1,
    on_game: Callable[[GameRecord], None] | None = None,
) -> list[GameRecord]:
    """Play a match and return its records.

    ``games`` is a number (roles alternate, bot A is Order in game 1) or the seat of the Order
    bot for each game. ``on_game`` is called after each game, e.g. to store it at once.
    """
    seats = alternating_order_seats(games) if isinstance(games, int) else list(games)
    records = []
    with Match(bot_a, bot_b, settings, seed, expected_games=len(seats)) as match:
        for record in _iterate(match, seats):
            records.append(record)
            if on_game is not None:
                on_game(record)
    return records


def _iterate(match: Match, seats: list[int]) -> Iterator[GameRecord]:
    for order_seat in seats:
        yield match.play(order_seat)
