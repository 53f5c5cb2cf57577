"""The referee: plays games between two bot processes and decides every one of them.

A ``Match`` starts each bot once and reuses it for game after game. The harness validates every
move itself; any fault (``timeout``, ``illegal``, ``malformed``, ``crash``, ``startup``) loses the
game for the bot at fault, which is then killed with its whole process group and started afresh
for its next game, so that nothing it did (a late answer, a half-written line) can leak into the
next game. A fault's detail quotes what the bot wrote (escaped, cut short) or says that nothing
arrived, so that the bot's author can see what went wrong.

A line a bot wrote before reading its ``turn`` is not an answer to that turn, whether it was
already in the bot's stdout when the turn was about to be sent or arrives after it (its input
still holds the unread ``turn`` when the line arrives): it is a line when no reply was due. How
a move is timed and whose fault a late one is: ``arena.referee.clock`` and
``arena.referee.blame``; a game the machine spoiled is played again as if nothing had happened
(``Match.play``).

The per-ply loop is the harness's hot path: it is written out in ``_play_plies`` with the board kept
as a ``bytearray`` of protocol characters and the rules engine's bitboards
(``arena.referee.position``), so that the cost of refereeing stays close to the cost of the pipe
round trip itself.
"""

from __future__ import annotations

import array
import fcntl
import functools
import os
import termios
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from arena.botspec import BotSpec
from arena.launch import procfs
from arena.launch.process import BotProcess, Channels, WaitStatus, tapped_io
from arena.launch.sandbox import plan_launch, resolve_mode
from arena.limits import QUICK_MS, KeepBots, Limits, Measure, SandboxMode, TimeControl
from arena.protocol import (
    FEATURES,
    NO_LAST_MOVE,
    TURN_PREFIX,
    VERSION_LINE,
    end_line,
    game_lines,
    parse_ready,
    parse_reply,
    parse_want,
)
from arena.records import GameRecord
from arena.referee import verdicts as faults
from arena.referee.blame import LoadReading, MachineFault, judge_cap, too_loaded
from arena.referee.clock import MoveClock
from arena.referee.keeper import BotKeeper, Kept
from arena.referee.position import PLY_MOVES, Position, canonical
from arena.rules import CELLS, Board, Move, Reason, Role

__all__ = [
    "MatchSettings",
    "Match",
    "play_match",
    "play_person",
    "alternating_order_seats",
    "MAX_REPLAYS",
    "REPLAYED",
]

MAX_REPLAYS = 3
"""Times one game is spoiled by the machine (``MachineFault``) before the referee gives up."""
REPLAYED = "replayed: "
"""How a game's detail says that it was replayed (the machine held a bot back)."""


@dataclass(frozen=True)
class MatchSettings:
    """How the games of a match are played."""

    time_control: TimeControl = field(default_factory=TimeControl)
    """Time per move and start-up allowance."""
    limits: Limits = field(default_factory=Limits)
    """Resource limits of each bot process."""
    sandbox: SandboxMode = SandboxMode.AUTO
    """How bots are isolated (``auto``: bubblewrap where it works)."""
    freeze_idle: bool = True
    """Freeze the bot that is not on move once the mover has thought for ``QUICK_MS``: no bot
    runs on its opponent's time, nor can it be the load that makes its opponent late. See
    ``BotProcess.freeze`` for what is frozen where; ``arena.referee.clock`` for the cost."""
    startup_attempts: int = 2
    """After this many failed start-ups in a row, a bot is not started again in this match: its
    remaining games are lost by ``startup`` at once instead of costing the allowance each."""
    hidden: tuple[str, ...] = ()
    """Host paths no bot may see under the sandbox: the results store, its folder, the config."""
    private: tuple[str, ...] = ()
    """Each bot's own files (its folder when it has one of its own, else the files in its folder
    that its command names): under the sandbox a bot sees none of the others', even in a folder
    it shares with them (``arena.config``'s ``TournamentConfig.settings`` fills it)."""
    keep_bots: KeepBots = KeepBots.AUTO
    """Which processes of the bots it started a worker keeps alive between its matches, frozen,
    for its next match with them (``arena.referee.keeper``): ``auto``, those that asked for the
    ``match`` extension; ``true``, all; ``false``, none. A ``Match`` keeps them only when it is
    given a ``BotKeeper``."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "keep_bots", KeepBots.of(self.keep_bots))


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
    display_name: str = ""  # what the bot called itself in its last `ready` ("" if nothing)
    wants: frozenset[str] = frozenset()  # the protocol extensions its process asked for
    seed: int | None = None  # the seed of this match for its process, until `match` told it
    person: bool = False  # a person's seat: no process, its moves come from ``ask``


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
        keeper: BotKeeper | None = None,
    ) -> None:
        self.settings = settings or MatchSettings()
        self.seed = seed
        self._fresh_seed = seed
        self._since_fresh: list[tuple[int, tuple[str, ...]]] = []
        """The games played since both bots were last as new processes started at
        ``_fresh_seed``: what a replay plays again first (``play``)."""
        self.keeper = keeper
        """Where this match takes its bots' processes from and gives them back to, ready, at its
        end (None: each is started here and quit at the end)."""
        self.sandbox = resolve_mode(self.settings.sandbox)
        self.seats = (
            _Seat(bot_a, 0, version=bot_a.version()),
            _Seat(bot_b, 1, version=bot_b.version()),
        )
        self.channels = Channels()
        self.tap: Callable[[int, str, int, bytes], None] | None = None
        """Optional transcript hook, ``tap(seat, direction, time_ns, data)``: every write to a
        bot and every read from its stdout (see ``arena.launch.process.Tap``; ``arena validate
        --transcript``). Set it before the games; unset, it costs nothing in the game loop."""
        self.current: GameRecord | None = None
        """The game being played (its ``moves`` grow as they are played; ``finished_at`` is set
        when it ends), or the last one: what a live view of the run shows, read from another
        thread of this process (``arena.tournament.live``)."""
        tc = self.settings.time_control
        # RLIMIT_CPU only stops a runaway: allow every move its full time on every core.
        worst_case = expected_games * tc.bot_game_ms() / 1000 * (os.cpu_count() or 1)
        self._cpu_seconds = self.settings.limits.cpu_seconds or int(
            60 + tc.startup_ms / 1000 * 4 + worst_case
        )

    # --- life cycle ----------------------------------------------------------------------------
    def __enter__(self) -> Match:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        self.close(keep=kind is None)

    def close(self, keep: bool = True) -> None:
        """Send ``quit`` to both bots and make sure nothing of theirs is left running; with a
        keeper (and ``keep``: the match ended normally), give it the ready, healthy ones
        instead."""
        if keep and self.keeper is not None and self.tap is None:
            for seat in self.seats:
                self._give_back(seat)
        for seat in self.seats:  # both at once: they exit in parallel, not one after the other
            if seat.process is not None:
                self._continue(seat)
                seat.process.send_quit()
        for seat in self.seats:
            self._stop(seat, graceful=True)

    def _key(self, seat: _Seat) -> tuple[object, ...]:
        """Everything a seat's process was started with: a kept process serves only its like."""
        settings = (self.settings.limits, self.settings.hidden, self.settings.time_control)
        return (seat.spec, seat.version, self.sandbox, settings, self._cpu_seconds)

    def _give_back(self, seat: _Seat) -> None:
        """Hand a seat's process to the keeper if it is ready and healthy: running, quiet,
        within its limits and well within its CPU limit (it runs on); else leave it to stop."""
        process = seat.process
        if process is None or self.keeper is None or seat.person or not seat.ready:
            return
        if self.settings.keep_bots is KeepBots.AUTO and "match" not in seat.wants:
            return  # it could not be told of its next match: its games would change
        self._continue(seat)
        if (
            not process.running
            or process.quit_sent
            or process.outbuf
            or process.read_waiting()
            or process.input_closed()
            or process.over_limit() is not None
            or process.cpu_ns() * 2 > self._cpu_seconds * 1_000_000_000
        ):
            return
        self.channels.discard(process)
        process.set_aside()
        seat.process = None
        seat.ready = False
        self.keeper.give(self._key(seat), Kept(process, seat.display_name, seat.wants))
        seat.wants = frozenset()

    def _stop(self, seat: _Seat, graceful: bool) -> None:
        """Stop a seat's process; what it wrote to stderr is kept for the game's record."""
        if seat.process is not None:
            self.channels.discard(seat.process)
            self._continue(seat)
            seat.process.stop(graceful)
            seat.stderr_left += seat.process.take_stderr()
            seat.process = None
            seat.ready = False
            seat.wants = frozenset()

    def _process_seed(self, seat: _Seat) -> int:
        """The seed of a seat's next process (``ARENA_SEED``): from the match's, and how many
        processes the seat has started in it (a restart after a fault plays on differently)."""
        return (self.seed * 1_000_003 + seat.index * 7_919 + seat.starts) % 2**31

    def reseed(self, seed: int) -> None:
        """From the next game on, play as a match of seed ``seed`` would in new processes: each
        bot that asked for ``match`` is told the seed of its first process in such a match (and
        resets there), the records carry ``seed``. A bot that did not ask plays on as it is.
        Lets one match play a tournament's consecutive chunks (``GameSlot.seed``)."""
        fresh = all(seat.process is None or "match" in seat.wants for seat in self.seats)
        self.seed = seed
        for seat in self.seats:
            seat.starts = 0
            seat.seed = self._process_seed(seat)
            seat.starts = int(seat.process is not None)
        if fresh:  # from here on, the games are those of new processes started at ``seed``
            self._fresh_seed, self._since_fresh = seed, []

    def resets_at_match(self) -> bool:
        """Whether both bots' processes asked for ``match``: they then play the games after a
        ``reseed`` exactly as new processes would, so the rest may be played elsewhere."""
        return all("match" in seat.wants for seat in self.seats)

    def _start(self, seat: _Seat) -> str | None:
        """Start a seat's process; the reason it could not start, or None."""
        seed = self._process_seed(seat)
        seat.version = seat.spec.version()  # the code this process runs, even if edited later
        seat.starts += 1
        seat.seed = seed  # a kept process is told it (`match`): it resets as if started with it
        if self.keeper is not None and self.tap is None:
            kept = self.keeper.take(self._key(seat))
            if kept is not None:  # ready already: its `ready` was read when it started
                seat.process = kept.process
                self.channels.add(kept.process)
                seat.display_name = kept.display_name
                seat.wants = kept.wants
                seat.ready = True
                seat.failed_startups = 0
                return None
        plan = plan_launch(
            seat.spec,
            self.sandbox,
            self.settings.limits,
            seed=seed,
            cpu_seconds=self._cpu_seconds,
            hidden=self.settings.hidden,
            private=_others(seat.spec, self.settings.private),
        )
        process = BotProcess(seat.spec, plan, self.settings.limits)
        if self.tap is not None:
            process.tap = functools.partial(self.tap, seat.index)
        try:
            process.start()
        except OSError as exc:
            plan.cleanup()
            problem = faults.program_problem(seat.spec.program)
            return f"could not start {' '.join(seat.spec.argv)}: {exc.strerror or exc}{problem}"
        except BaseException:  # Ctrl-C, SIGTERM mid-start: the seat has no process to stop yet
            if process.proc is not None:
                process.stop(graceful=False)
            else:
                plan.cleanup()  # its scratch folder, cgroup, FIFOs
            raise
        seat.process = process
        self.channels.add(process)
        process.expecting = True
        if not process.send(VERSION_LINE):
            problem = faults.program_problem(seat.spec.program)
            return f"exited before reading `arena 1` ({faults.exit_detail(process)}){problem}"
        return None

    def _ensure_ready(self, seats: Iterable[_Seat]) -> None:
        """Start whichever bots are not ready, both at once, and wait for their `ready`.

        Both seats are settled (ready, or stopped after a fault) before the first fault is
        raised, so that no half-started process is carried into the next game.
        """
        pending = [seat for seat in seats if not seat.ready and not seat.person]
        failures: list[_GameOver] = []
        for seat in pending:
            if seat.process is not None:
                continue
            if seat.failed_startups >= self.settings.startup_attempts:
                count = seat.failed_startups
                failures.append(
                    _GameOver(seat, Reason.STARTUP, f"not restarted after {count} failed start-ups")
                )
                continue
            problem = self._start(seat)
            if problem is not None:
                failures.append(self._startup_failed(seat, problem))
        began = time.perf_counter_ns()
        starting = [seat.process for seat in pending if seat.process is not None]
        for seat in pending:
            if seat.process is not None and not seat.ready:
                companions = [p for p in starting if p is not seat.process]
                self._await_ready(seat, began, failures, companions)
        if failures:
            raise failures[0]

    def _startup_failed(self, seat: _Seat, detail: str) -> _GameOver:
        """A failed start-up; a ``crash`` naming the limit when the bot went past one (killed by
        its memory bound, say), which is its fault whenever it happens."""
        seat.failed_startups += 1
        excess = seat.process.over_limit(late=True) if seat.process is not None else None
        self._stop(seat, graceful=False)
        if excess is not None:
            return _GameOver(seat, Reason.CRASH, excess)
        return _GameOver(seat, Reason.STARTUP, detail)

    def _await_ready(
        self,
        seat: _Seat,
        began: int,
        failures: list[_GameOver],
        companions: Sequence[BotProcess] = (),
    ) -> None:
        """Wait for one seat's `ready`, started at ``began`` (``perf_counter_ns``) and timed as a
        move is (``arena.referee.blame``); faults of either seat meanwhile go to ``failures``.
        ``companions``: the bots started beside it, whose CPU is not the machine's load."""
        process = seat.process
        assert process is not None
        allowance = self.settings.time_control.startup_ms
        on_cpu = self.settings.time_control.measure is Measure.CPU
        allowed_ns = allowance * 1_000_000
        deadline = began + self.settings.time_control.startup_wall_ms() * 1_000_000
        wants: set[str] = set()
        while True:
            status, line, culprit = self.channels.wait_line(process, deadline)
            if culprit is None:
                if status in _LINES and (feature := parse_want(line)) is not None:
                    wants.add(feature)  # an extension asked for before `ready`
                    continue
                break
            other = self._seat_of(culprit)
            if other.ready:  # a started bot wrote (or died) while another one was starting
                failures.append(self._fault_outside_turn(other, status))
                self._stop(other, graceful=False)
            else:
                failures.append(self._startup_failed(other, "exited during start-up"))
        # A line after `ready` (EXTRA) stays in its buffer: a line when no reply was due, which
        # `_begin` reports, as it does when that line comes a moment later.
        started = status is WaitStatus.LINE or status is WaitStatus.EXTRA
        used = process.cpu_ns() if on_cpu and started else 0
        if used > allowed_ns:
            detail = f"used {used / 1e6:.0f} ms of CPU to start (limit {allowance} ms)"
            failures.append(self._startup_failed(seat, detail))
            return
        if started and (name := parse_ready(line)) is not None:
            seat.display_name = name
            process.expecting = False
            seat.wants = frozenset(wants & FEATURES)
            seat.ready = True
            seat.failed_startups = 0
            return
        waited_ms = (deadline - began) // 1_000_000
        problem = faults.startup_problem(status, line, process, waited_ms)
        if status is WaitStatus.TIMEOUT and on_cpu:
            if (used := process.cpu_ns()) > allowed_ns:
                problem += f"; it used {used / 1e6:.0f} ms of CPU"
            else:
                beside = sum(companion.cpu_ns() for companion in companions)
                start = LoadReading(0, 0, began)  # its processes are new: all of it is the start's
                problem += judge_cap(process, start, "its start-up", beside)
        failures.append(self._startup_failed(seat, problem))

    def _fault_outside_turn(
        self, seat: _Seat, status: WaitStatus = WaitStatus.UNSOLICITED
    ) -> _GameOver:
        """The fault of a bot that wrote, or closed its stdout, when no reply was due."""
        if status is WaitStatus.OTHER_EOF:
            process = seat.process
            pipe = "stdin" if process and process.running and process.input_closed() else "stdout"
            return _GameOver(seat, Reason.CRASH, f"exited (closed its {pipe}) while not on move")
        return _GameOver(seat, Reason.MALFORMED, faults.unsolicited(seat.process))

    def _seat_of(self, process: BotProcess | None) -> _Seat:
        return self.seats[0] if self.seats[0].process is process else self.seats[1]

    def _continue(self, seat: _Seat) -> None:
        """Thaw a seat's bot if the move clock froze it (``BotProcess.freeze``)."""
        if seat.process is not None:
            seat.process.thaw()

    # --- a game ---------------------------------------------------------------------------------
    def play(self, order_seat: int = 0, opening: Sequence[str] = ()) -> GameRecord:
        """Play one game with seat ``order_seat`` (0: bot A) as Order; return its record.

        ``opening``: move tokens (``c4X``) played onto the board before the first ``turn`` (the
        bots see the position, and the opening's last move as ``<last>``); after an odd number of
        plies Chaos moves first. The record keeps them in ``opening``, apart from the bots' own
        ``moves``. Raises ValueError for an opening that breaks the rules or makes five.

        A game the machine spoiled (``MachineFault``) is played again as a run without the
        trouble would have played it: both bots restarted afresh, and the games since they last
        were fresh played again unrecorded, so that they are where they were. At most
        ``MAX_REPLAYS`` times, then ``HarnessError``; the record's detail says it was replayed.
        """
        start = Position.from_opening(opening) if opening else _EMPTY_BOARD
        spoiled: list[str] = []
        while True:
            try:
                if spoiled:
                    self._replay_since_fresh()
                record = self._play_game(order_seat, opening, start)
                break
            except MachineFault as fault:
                spoiled.append(fault.detail)
                if len(spoiled) >= MAX_REPLAYS:
                    raise too_loaded(spoiled) from None
        self._since_fresh.append((order_seat, tuple(opening)))
        if spoiled:
            replayed = f"{REPLAYED}{'; '.join(spoiled)}"
            record.detail = f"{record.detail}; {replayed}" if record.detail else replayed
        return record

    def _replay_since_fresh(self) -> None:
        """Restart both bots as they were last started afresh (the match's start, or a
        ``reseed`` both reset at) and play the games since then again, unrecorded."""
        for seat in self.seats:
            self._stop(seat, graceful=False)
            seat.starts = seat.failed_startups = 0
            seat.stderr_left = ""
        self.seed = self._fresh_seed
        for order_seat, opening in self._since_fresh:
            start = Position.from_opening(opening) if opening else _EMPTY_BOARD
            self._play_game(order_seat, opening, start)

    def _play_game(self, order_seat: int, opening: Sequence[str], start: Position) -> GameRecord:
        order, chaos = self.seats[order_seat], self.seats[1 - order_seat]
        record = GameRecord(
            order=order.spec.name,
            chaos=chaos.spec.name,
            winner=Role.CHAOS,
            reason=Reason.FULL,
            seed=self.seed,
            started_at=time.time(),
            opening=list(opening),
            measure=self.settings.time_control.measure.value,
            clock_start_ms=self.settings.time_control.clock_ms,
        )
        self.current = record
        try:
            self._ensure_ready((order, chaos))
            self._begin(order, chaos)
            winner, reason = self._play_plies(order, chaos, record, start)
            record.winner, record.reason = winner, reason
            if (excess := _limit_fault(order, chaos)) is not None:
                raise excess
        except _GameOver as over:
            # Say so when a limit caused the fault (the memory bound also makes a bot late).
            over = _limit_fault(over.culprit, late=over.reason is Reason.TIMEOUT) or over
            record.winner = Role.CHAOS if over.culprit is order else Role.ORDER
            record.reason = over.reason
            record.detail = over.detail
            self._stop(over.culprit, graceful=False)
            if over.reason in (Reason.CRASH, Reason.STARTUP):
                clue = faults.stderr_clue(over.culprit.stderr_left)
                if clue:  # e.g. the exception, or why bwrap could not start it
                    record.detail += f"; {clue}"
        self._finish(order, chaos, record)
        return record

    def _begin(self, order: _Seat, chaos: _Seat) -> None:
        idle = self.channels.check_idle()
        if idle is not None:
            raise self._fault_outside_turn(self._seat_of(idle[1]), idle[0])
        for seat, role in ((order, Role.ORDER), (chaos, Role.CHAOS)):
            if seat.person:
                continue
            assert seat.process is not None
            if seat.process.outbuf:  # written after its `ready`, read with it
                raise self._fault_outside_turn(seat)
            if not seat.process.send(self._game_lines(seat, role)):
                raise _GameOver(seat, Reason.CRASH, "exited (could not write `game` to it)")

    def _game_lines(self, seat: _Seat, role: Role) -> bytes:
        """``game <role>`` and the lines of the extensions the bot asked for: ``match <seed>``
        before the first ``game`` of its process in this match, ``time ...`` after each."""
        lines = game_lines(role, seat.wants, self.settings.time_control, seat.seed)
        seat.seed = None
        return lines

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
        record.order_display = order.display_name
        record.chaos_display = chaos.display_name
        record.finished_at = time.time()

    def _play_plies(
        self, order: _Seat, chaos: _Seat, record: GameRecord, start: Position
    ) -> tuple[Role, Reason]:
        """The game loop: a `turn` out, a line back, validate, apply, check for five.

        The common case (one poll event: the mover's stdout, holding exactly one line) is read
        inline; everything else (stderr, partial lines, other bots, end of file, time-outs)
        goes through ``Channels.wait_line``, which gives the same answer, only slower. Either
        way, one ``FIONREAD`` on the mover's stdout before its ``turn`` is written tells that
        nothing unasked was waiting there, and one on its input after its line is read tells
        whether it had read its ``turn`` (two system calls per ply: the price of never taking a
        stale line for a move, whoever the scheduler runs first).

        A reply within ``QUICK_MS`` costs nothing more. For a move still thinking then, the move
        clock (``arena.referee.clock``) freezes the idle bot and reads the mover's clocks, so
        that the rest of the move is charged its CPU time.
        """
        seats = (order, chaos)
        timer = MoveClock(self.settings.time_control, self.settings.freeze_idle)
        prefix = TURN_PREFIX
        board = bytearray(start.board)
        bits = list(start.bits)
        occupied = start.occupied
        last = start.last
        moves = record.moves
        charged: list[int] = []
        # The fast path takes one read as the line only when it is one line within the limit
        # (its newline included); anything longer goes to wait_line, which says it is overlong.
        line_cap = self.settings.limits.line_bytes + 1
        quick_ms, quick_ns = QUICK_MS, QUICK_MS * 1_000_000
        wait_line = self.channels.wait_line
        poll = self.channels.poll
        perf_ns = time.perf_counter_ns
        write: Callable[[int, bytes], int] = os.write
        read: Callable[[int, int], bytes] = os.read
        if self.tap is not None:
            write, read = tapped_io(seat.process for seat in seats)
        # procfs.unread_bytes, inlined: one system call per ply, no allocation.
        ioctl, fionread, unread = fcntl.ioctl, termios.FIONREAD, array.array("i", [0])
        try:
            for ply in range(start.ply, CELLS):
                side = ply & 1
                seat = seats[side]
                process = seat.process
                assert process is not None  # a bot stopped during a game has ended it
                if process.frozen:
                    process.thaw()
                wall_ns = timer.turn(side, process)
                message = prefix + board + b" " + last + timer.suffix
                in_fd, out_fd = process.stdin_fd, process.stdout_fd
                # Anything in its stdout before its `turn` is sent is no answer to it, even if the
                # bot reads that `turn` before the referee reads the line (FIONREAD below).
                ioctl(out_fd, fionread, unread)
                if unread[0] or process.outbuf:
                    raise _GameOver(seat, Reason.MALFORMED, _written_unasked(process))
                started = perf_ns()
                try:
                    written = write(in_fd, message)
                except OSError:
                    written = -1
                if written != len(message):
                    raise _GameOver(seat, *faults.send_failure(process))
                line = None
                events = poll(quick_ms)
                if len(events) == 1 and events[0][0] == out_fd and not process.outbuf:
                    data = read(out_fd, 65536)
                    if 0 < len(data) <= line_cap and data.find(b"\n") == len(data) - 1:
                        line = data[:-1]
                    else:
                        process.outbuf += data
                if line is None:  # more than one line, stderr too, or nothing yet
                    status, line, culprit = wait_line(process, started + min(quick_ns, wall_ns))
                    if status is WaitStatus.TIMEOUT:
                        timer.thinking(started, process, seats[1 - side].process)
                        status, line, culprit = wait_line(process, started + wall_ns)
                    if status is not WaitStatus.LINE:
                        self._wait_fault(seat, status, line, culprit, started, wall_ns, timer)
                ioctl(in_fd, fionread, unread)
                if unread[0]:  # its `turn` was still unread when this line came: not an answer
                    raise _GameOver(seat, Reason.MALFORMED, faults.written_before_turn(line))
                used = timer.replied(perf_ns() - started, process)
                if used > timer.allowed_ns:
                    raise _GameOver(seat, Reason.TIMEOUT, timer.late(used))
                move = PLY_MOVES.get(line)
                if move is None:
                    reply = parse_reply(line)
                    if reply.move is None:
                        assert reply.fault is not None
                        raise _GameOver(seat, reply.fault, reply.detail)
                    move = canonical(reply.move)
                bit = move.bit
                if occupied & bit:
                    raise _GameOver(seat, Reason.ILLEGAL, faults.occupied(move.text))
                occupied |= bit
                mark = move.mark
                mine = bits[mark] | bit
                bits[mark] = mine
                board[move.cell] = move.char
                last = move.token
                moves.append(move.text)
                charged.append(used)
                timer.charge(used)
                for window in move.windows:
                    if mine & window == window:
                        return Role.ORDER, Reason.FIVE
            return Role.CHAOS, Reason.FULL
        finally:
            record.ms = [round(t / 1e6, 3) for t in charged]
            if timer.clocked:
                record.clock_ms = [round(t / 1e6, 3) for t in timer.left]

    def _wait_fault(
        self,
        seat: _Seat,
        status: WaitStatus,
        line: bytes,
        culprit: BotProcess | None,
        started_ns: int,
        wall_ns: int,
        timer: MoveClock,
    ) -> None:
        """Raise the fault that a wait for ``seat``'s reply ended with (``MachineFault`` when the
        machine, not the bot, kept the reply from coming: ``arena.referee.blame``)."""
        process = seat.process
        assert process is not None
        if status is WaitStatus.TIMEOUT:
            crashed = faults.silent_crash(process)
            if crashed is not None:
                raise _GameOver(seat, Reason.CRASH, crashed)
            elapsed = time.perf_counter_ns() - started_ns
            raise _GameOver(seat, Reason.TIMEOUT, timer.no_reply(process, elapsed))
        if status is WaitStatus.EOF:
            raise _GameOver(seat, Reason.CRASH, faults.exit_detail(process))
        if status is WaitStatus.OVERLONG:
            limit = self.settings.limits.line_bytes
            raise _GameOver(seat, Reason.MALFORMED, faults.overlong(limit, process.outbuf))
        if status is WaitStatus.EXTRA:
            raise _GameOver(seat, Reason.MALFORMED, faults.extra_lines(line, process))
        # The other bot is at fault, while ``seat`` is on move and owes a reply.
        over = self._fault_outside_turn(self._seat_of(culprit), status)
        self._stop(over.culprit, graceful=False)
        self._drop_owed_reply(seat, started_ns + wall_ns)
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


_LINES = (WaitStatus.LINE, WaitStatus.EXTRA)  # a line came (and maybe more after it)


def _others(spec: BotSpec, private: tuple[str, ...]) -> tuple[str, ...]:
    """``private`` without ``spec``'s own paths (a file two bots share is each one's own)."""
    own = {os.path.realpath(path) for path in (spec.dir, *spec.named_files())}
    return tuple(path for path in private if os.path.realpath(path) not in own)


_EMPTY_BOARD = Position()  # read, never changed, by _play_plies


def _limit_fault(*seats: _Seat, late: bool = False) -> _GameOver | None:
    """The fault of the first seat whose bot went past a limit (processes, memory, /tmp), or
    None. ``late``: its fault was a timeout (``BotProcess.over_limit``)."""
    for seat in seats:
        excess = seat.process.over_limit(late) if seat.process is not None else None
        if excess is not None:
            return _GameOver(seat, Reason.CRASH, excess)
    return None


def _written_unasked(process: BotProcess) -> str:
    """The fault detail of a bot whose stdout held something before its ``turn`` was sent."""
    process.read_waiting()
    return faults.unsolicited(process)


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


def play_person(
    bot: BotSpec,
    bot_role: Role,
    ask: Callable[[Board], Move],
    *,
    settings: MatchSettings | None = None,
    seed: int = 1,
    person: str = "human",
    on_move: Callable[[Move, Role, float], None] | None = None,
) -> GameRecord:
    """Play one game between ``bot`` (as ``bot_role``) and a person; return its record.

    ``ask(board)`` returns the person's move in the position ``board`` (a copy: the caller may
    not change the game); it must be legal there, since checking what a person types and asking
    again is the caller's business. An exception from ``ask`` (``KeyboardInterrupt``,
    ``EOFError``) abandons the game: the bot is stopped and the exception passes on.
    ``on_move(move, role, ms)`` is told every move, the bot's and the person's.

    The bot is started, timed, judged and stopped exactly as in a tournament (the same sandbox,
    limits, time per move and faults: this is ``Match`` with a person in the other seat); the
    person has no clock. The record names the person ``person``, with an empty version.
    """
    match = _PersonMatch(bot, settings, seed, person, ask, on_move)
    try:
        return match.play(order_seat=0 if bot_role is Role.ORDER else 1)
    finally:
        match.close()


class _PersonMatch(Match):
    """A ``Match`` whose seat 0 is a bot and whose seat 1 is a person: the same game (start,
    faults, end) as between two bots, with a ply loop that asks the person for their moves."""

    def __init__(
        self,
        bot: BotSpec,
        settings: MatchSettings | None,
        seed: int,
        person: str,
        ask: Callable[[Board], Move],
        on_move: Callable[[Move, Role, float], None] | None,
    ) -> None:
        super().__init__(bot, bot, settings, seed, expected_games=1)
        self.seats = (self.seats[0], _Seat(bot.renamed(person), 1, person=True))
        self.ask = ask
        self.on_move = on_move
        self.used_ns = 0
        """The time charged for the bot's last move (CPU or wall, as measured)."""

    def _play_plies(
        self, order: _Seat, chaos: _Seat, record: GameRecord, start: Position
    ) -> tuple[Role, Reason]:
        """The person's game loop: the bot's moves judged as in a tournament (``_ask_bot``), the
        person's asked for; both timed, both told to ``on_move``."""
        bot, bot_role = (order, Role.ORDER) if not order.person else (chaos, Role.CHAOS)
        timer = MoveClock(self.settings.time_control, freeze=False)
        board = Board()
        while (outcome := board.outcome) is None:
            started = time.perf_counter_ns()
            if board.turn is bot_role:
                move = self._ask_bot_again(bot, bot_role, board, timer)
                ms = round(self.used_ns / 1e6, 3)
            else:
                move = self.ask(board.copy())
                if not board.is_legal(move):
                    raise ValueError(f"ask() returned an illegal move: {move}")
                ms = round((time.perf_counter_ns() - started) / 1e6, 3)
            role = board.turn
            board.push(move)
            record.moves.append(move.token)
            record.ms.append(ms)
            if self.on_move is not None:
                self.on_move(move, role, ms)
        return outcome.winner, outcome.reason

    def _ask_bot_again(self, seat: _Seat, role: Role, board: Board, timer: MoveClock) -> Move:
        """The bot's move, asked again of the bot restarted when the machine held it back (a
        person's moves cannot be played again)."""
        spoiled: list[str] = []
        while True:
            try:
                return self._ask_bot(seat, board, timer)
            except MachineFault as fault:
                spoiled.append(fault.detail)
                self._stop(seat, graceful=False)
                if len(spoiled) >= MAX_REPLAYS:
                    raise too_loaded(spoiled) from None
                self._restart(seat, role)

    def _restart(self, seat: _Seat, role: Role) -> None:
        """Start the bot again mid-game and tell it its role."""
        self._ensure_ready((seat,))
        assert seat.process is not None
        if not seat.process.send(self._game_lines(seat, role)):
            raise _GameOver(seat, Reason.CRASH, "exited (could not write `game` to it)")

    def _ask_bot(self, seat: _Seat, board: Board, timer: MoveClock) -> Move:
        idle = self.channels.check_idle()  # a line written while the person was thinking
        if idle is not None:
            raise self._fault_outside_turn(seat, idle[0])
        process = seat.process
        assert process is not None
        wall_ns = timer.turn(0, process)
        last = board.history[-1].token.encode() if board.history else NO_LAST_MOVE
        message = TURN_PREFIX + board.board_string().encode() + b" " + last + timer.suffix
        started = time.perf_counter_ns()
        if not process.send(message):
            raise _GameOver(seat, *faults.send_failure(process))
        timer.thinking(started, process, None)  # no hot path here: every move read
        status, line, culprit = self.channels.wait_line(process, started + wall_ns)
        if status is not WaitStatus.LINE:
            self._wait_fault(seat, status, line, culprit, started, wall_ns, timer)
        if procfs.unread_bytes(process.stdin_fd):
            raise _GameOver(seat, Reason.MALFORMED, faults.written_before_turn(line))
        used = timer.replied(time.perf_counter_ns() - started, process)
        if used > timer.allowed_ns:
            raise _GameOver(seat, Reason.TIMEOUT, timer.late(used))
        reply = parse_reply(line)
        if reply.move is None:
            assert reply.fault is not None
            raise _GameOver(seat, reply.fault, reply.detail)
        if not board.is_empty(reply.move.cell):
            raise _GameOver(seat, Reason.ILLEGAL, faults.occupied(reply.move.token))
        timer.charge(used)
        self.used_ns = used
        return reply.move
