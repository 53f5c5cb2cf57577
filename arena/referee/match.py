"""The referee: plays games between two seats (``arena.referee.seat``: bot processes, or a
person and a bot) and decides every one of them.

A ``Match`` starts each bot once and reuses it for game after game. The harness validates every
move itself; any fault (``timeout``, ``illegal``, ``malformed``, ``crash``, ``startup``) loses the
game for the bot at fault, which is then killed with its whole process group and started afresh
for its next game, so that nothing it did (a late answer, a half-written line) can leak into the
next game. A fault's detail quotes what the bot wrote (escaped, cut short) or says that nothing
arrived, so that the bot's author can see what went wrong.

A line a bot wrote before reading its ``turn`` is not an answer to that turn, whether it was
already in the bot's stdout when the turn was about to be sent or arrives after it (its input
still holds the unread ``turn`` when the line arrives): it is a line when no reply was due. How
a move is asked and judged: ``arena.referee.seat``; how it is timed and whose fault a late one
is: ``arena.referee.clock`` and ``arena.referee.blame``; a game the machine spoiled is played
again as if nothing had happened (``Match.play``).
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from arena.botspec import BotSpec
from arena.launch.process import BotProcess, Channels, WaitStatus
from arena.launch.sandbox import plan_launch, resolve_mode
from arena.limits import KeepBots
from arena.protocol import FEATURES, end_line, game_lines, parse_ready, parse_want
from arena.records import GameRecord
from arena.referee import verdicts
from arena.referee.blame import MachineFault, too_loaded
from arena.referee.clock import MoveClock, StartClock
from arena.referee.keeper import BotKeeper, Kept
from arena.referee.seat import BotSeat, GameOver, PersonSeat, Seat
from arena.referee.settings import MatchSettings as MatchSettings
from arena.rules import CELLS, Board, Move, Reason, Role

MAX_REPLAYS = 3
"""Times one game is spoiled by the machine (``MachineFault``) before the referee gives up."""
REPLAYED = "replayed: "
"""How a game's detail says that it was replayed (the machine held a bot back)."""


@dataclass(eq=False)
class Game:
    """A game as it is played: its bots, opening and start, and its moves so far, from which
    its ``GameRecord`` is made at its end."""

    order: str
    chaos: str
    opening: list[str]
    started_at: float
    moves: list[str] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)
    """Each move's charged time in milliseconds."""
    clock_ms: list[float] | None = None
    """Under a game clock, the mover's clock left after each move (set at the game's end)."""


def alternating_order_seats(games: int) -> list[int]:
    """Seat of the Order bot for each game: 0, 1, 0, 1, ... (game 1 has bot A as Order)."""
    return [i & 1 for i in range(games)]


class Match:
    """Two seats (two bots, or a bot and a person), bots started once and reused across games;
    use as a context manager.

    >>> with Match(BotSpec.resolve("random"), BotSpec.resolve("greedy")) as match:
    ...     record = match.play(order_seat=0)
    """

    def __init__(
        self,
        bot_a: BotSpec,
        bot_b: BotSpec | PersonSeat,
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
        self.channels = Channels()
        line_bytes = self.settings.limits.line_bytes
        seat_a = BotSeat(bot_a, 0, self.channels, line_bytes, version=bot_a.version())
        if isinstance(bot_b, PersonSeat):
            seat_b: Seat = bot_b
        else:
            seat_b = BotSeat(bot_b, 1, self.channels, line_bytes, version=bot_b.version())
        self.seats: tuple[Seat, Seat] = (seat_a, seat_b)
        self.bots = tuple(seat for seat in self.seats if isinstance(seat, BotSeat))
        """The seats with a bot in them: both, or the one facing a person."""
        self.tap: Callable[[int, str, int, bytes], None] | None = None
        """Optional transcript hook, ``tap(seat, direction, time_ns, data)``: every write to a
        bot and every read from its stdout (see ``arena.launch.process.Tap``; ``arena validate
        --transcript``). Set it before the games; unset, it costs nothing in the game loop."""
        self.current: Game | None = None
        """The game being played (its ``moves`` grow as they are played), None between games:
        what a live view of the run shows, read from another thread of this process
        (``arena.tournament.live``)."""
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
            for seat in self.bots:
                self._give_back(seat)
        for seat in self.bots:  # both at once: they exit in parallel, not one after the other
            if seat.process is not None:
                seat.thaw()
                seat.process.send_quit()
        for seat in self.bots:
            seat.stop(graceful=True)

    def _key(self, seat: BotSeat) -> tuple[object, ...]:
        """Everything a seat's process was started with: a kept process serves only its like."""
        settings = (self.settings.limits, self.settings.hidden, self.settings.time_control)
        return (seat.spec, seat.version, self.sandbox, settings, self._cpu_seconds)

    def _give_back(self, seat: BotSeat) -> None:
        """Hand a seat's process to the keeper if it is ready and healthy: running, quiet,
        within its limits and well within its CPU limit (it runs on); else leave it to stop."""
        process = seat.process
        if process is None or self.keeper is None or not seat.ready:
            return
        if self.settings.keep_bots is KeepBots.AUTO and "match" not in seat.wants:
            return  # it could not be told of its next match: its games would change
        seat.thaw()
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

    def _process_seed(self, seat: BotSeat) -> int:
        """The seed of a seat's next process (``ARENA_SEED``): from the match's, and how many
        processes the seat has started in it (a restart after a fault plays on differently)."""
        return (self.seed * 1_000_003 + seat.index * 7_919 + seat.starts) % 2**31

    def reseed(self, seed: int) -> None:
        """From the next game on, play as a match of seed ``seed`` would in new processes: each
        bot that asked for ``match`` is told the seed of its first process in such a match (and
        resets there), the records carry ``seed``. A bot that did not ask plays on as it is.
        Lets one match play a tournament's consecutive chunks (``GameSlot.seed``)."""
        fresh = all(seat.process is None or "match" in seat.wants for seat in self.bots)
        self.seed = seed
        for seat in self.bots:
            seat.starts = 0
            seat.seed = self._process_seed(seat)
            seat.starts = int(seat.process is not None)
        if fresh:  # from here on, the games are those of new processes started at ``seed``
            self._fresh_seed, self._since_fresh = seed, []

    def resets_at_match(self) -> bool:
        """Whether both bots' processes asked for ``match``: they then play the games after a
        ``reseed`` exactly as new processes would, so the rest may be played elsewhere."""
        return all("match" in seat.wants for seat in self.bots)

    def _start(self, seat: BotSeat) -> str | None:
        """Start a seat's process; the reason it could not start, or None."""
        seed = self._process_seed(seat)
        seat.version = seat.spec.version()  # the code this process runs, even if edited later
        seat.starts += 1
        seat.seed = seed  # a kept process is told it (`match`): it resets as if started with it
        if self.keeper is not None and self.tap is None:
            kept = self.keeper.take(self._key(seat))
            if kept is not None:  # ready already: its `ready` was read when it started
                seat.adopt(kept.process, kept.display_name, kept.wants)
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
        tap = None if self.tap is None else functools.partial(self.tap, seat.index)
        return seat.launch(plan, self.settings.limits, tap)

    def _ensure_ready(self, seats: Iterable[Seat]) -> None:
        """Start whichever bots are not ready, both at once, and wait for their `ready`.

        Both seats are settled (ready, or stopped after a fault) before the first fault is
        raised, so that no half-started process is carried into the next game.
        """
        pending = [seat for seat in seats if isinstance(seat, BotSeat) and not seat.ready]
        failures: list[GameOver] = []
        for seat in pending:
            if seat.process is not None:
                continue
            if seat.failed_startups >= self.settings.startup_attempts:
                count = seat.failed_startups
                failures.append(
                    GameOver(seat, Reason.STARTUP, f"not restarted after {count} failed start-ups")
                )
                continue
            problem = self._start(seat)
            if problem is not None:
                failures.append(seat.start_failed(problem))
        began = time.perf_counter_ns()
        starting = [seat.process for seat in pending if seat.process is not None]
        for seat in pending:
            if seat.process is not None and not seat.ready:
                companions = [p for p in starting if p is not seat.process]
                self._await_ready(seat, began, failures, companions)
        if failures:
            raise failures[0]

    def _await_ready(
        self,
        seat: BotSeat,
        began: int,
        failures: list[GameOver],
        companions: Sequence[BotProcess] = (),
    ) -> None:
        """Wait for one seat's `ready`, started at ``began`` (``perf_counter_ns``) and timed by
        ``StartClock``; faults of either seat meanwhile go to ``failures``. ``companions``: the
        bots started beside it, whose CPU is not the machine's load."""
        process = seat.process
        assert process is not None
        clock = StartClock(self.settings.time_control, began)
        wants: set[str] = set()
        while True:
            status, line, culprit = self.channels.wait_line(process, clock.deadline_ns)
            if culprit is None:
                if status in _LINES and (feature := parse_want(line)) is not None:
                    wants.add(feature)  # an extension asked for before `ready`
                    continue
                break
            other = self._seat_of(culprit)
            if other.ready:  # a started bot wrote (or died) while another one was starting
                failures.append(other.fault_outside_turn(status))
                other.stop(graceful=False)
            else:
                failures.append(other.start_failed("exited during start-up"))
        # A line after `ready` (EXTRA) stays in its buffer: a line when no reply was due, which
        # `_begin` reports, as it does when that line comes a moment later.
        started = status is WaitStatus.LINE or status is WaitStatus.EXTRA
        late = clock.why_late(process) if started else None
        if late is not None:
            failures.append(seat.start_failed(late))
        elif started and (name := parse_ready(line)) is not None:
            seat.adopt(process, name, frozenset(wants & FEATURES))
        else:
            failures.append(seat.start_failed(clock.no_ready(process, status, line, companions)))

    def _seat_of(self, process: BotProcess | None) -> BotSeat:
        """The bot seat of ``process`` (else the last one)."""
        return next((seat for seat in self.bots if seat.process is process), self.bots[-1])

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
        start = opening_board(opening)
        spoiled: list[str] = []
        while True:
            try:
                if spoiled:
                    self._replay_since_fresh()
                record = self._play_game(order_seat, opening, start, spoiled)
                break
            except MachineFault as fault:
                spoiled.append(fault.detail)
                if len(spoiled) >= MAX_REPLAYS:
                    raise too_loaded(spoiled) from None
        self._since_fresh.append((order_seat, tuple(opening)))
        return record

    def _replay_since_fresh(self) -> None:
        """Restart both bots as they were last started afresh (the match's start, or a
        ``reseed`` both reset at) and play the games since then again, unrecorded."""
        for seat in self.bots:
            seat.stop(graceful=False)
            seat.starts = seat.failed_startups = 0
            seat.stderr_left = ""
        self.seed = self._fresh_seed
        for order_seat, opening in self._since_fresh:
            self._play_game(order_seat, opening, opening_board(opening))

    def _play_game(
        self, order_seat: int, opening: Sequence[str], start: Board, spoiled: Sequence[str] = ()
    ) -> GameRecord:
        """Play one game; its record. ``spoiled``: why the machine spoiled its earlier tries,
        which the record's detail tells."""
        order, chaos = self.seats[order_seat], self.seats[1 - order_seat]
        game = Game(order.spec.name, chaos.spec.name, list(opening), time.time())
        self.current = game
        try:
            winner, reason, detail = self._play_to_end(order, chaos, game, start)
        finally:
            self.current = None
        if spoiled:
            replayed = f"{REPLAYED}{'; '.join(spoiled)}"
            detail = f"{detail}; {replayed}" if detail else replayed
        return self._finish(order, chaos, game, winner, reason, detail)

    def _play_to_end(
        self, order: Seat, chaos: Seat, game: Game, start: Board
    ) -> tuple[Role, Reason, str]:
        """Play the game to its end: the winner, the reason and the detail of a fault."""
        try:
            self._ensure_ready((order, chaos))
            self._begin(order, chaos)
            winner, reason = self._play_plies(order, chaos, game, start)
            if (excess := _limit_fault(order, chaos)) is not None:
                raise excess
            return winner, reason, ""
        except GameOver as over:
            # Say so when a limit caused the fault (the memory bound also makes a bot late).
            over = _limit_fault(over.culprit, late=over.reason is Reason.TIMEOUT) or over
            over.culprit.stop(graceful=False)
            detail = over.detail
            if over.reason in (Reason.CRASH, Reason.STARTUP):
                clue = verdicts.stderr_clue(over.culprit.stderr_left)
                if clue:  # e.g. the exception, or why bwrap could not start it
                    detail += f"; {clue}"
            return Role.CHAOS if over.culprit is order else Role.ORDER, over.reason, detail

    def _begin(self, order: Seat, chaos: Seat) -> None:
        idle = self.channels.check_idle()
        if idle is not None:
            raise self._seat_of(idle[1]).fault_outside_turn(idle[0])
        for seat, role in ((order, Role.ORDER), (chaos, Role.CHAOS)):
            if not isinstance(seat, BotSeat):
                continue
            assert seat.process is not None
            if seat.process.outbuf:  # written after its `ready`, read with it
                raise seat.fault_outside_turn()
            self._tell_game(seat, role)

    def _tell_game(self, seat: BotSeat, role: Role) -> None:
        """Send a bot ``game <role>`` (and its extensions' lines)."""
        assert seat.process is not None
        if not seat.process.send(self._game_lines(seat, role)):
            raise GameOver(seat, Reason.CRASH, "exited (could not write `game` to it)")

    def _game_lines(self, seat: BotSeat, role: Role) -> bytes:
        """``game <role>`` and the lines of the extensions the bot asked for: ``match <seed>``
        before the first ``game`` of its process in this match, ``time ...`` after each."""
        lines = game_lines(role, seat.wants, self.settings.time_control, seat.seed)
        seat.seed = None
        return lines

    def _finish(
        self, order: Seat, chaos: Seat, game: Game, winner: Role, reason: Reason, detail: str
    ) -> GameRecord:
        """Tell both bots the result; the game's record."""
        self.channels.drain_all_stderr()
        for seat, role in ((order, Role.ORDER), (chaos, Role.CHAOS)):
            process = seat.process
            if process is not None:
                seat.thaw()
                process.send(end_line(winner is role, reason))
        tc = self.settings.time_control
        return GameRecord(
            order=game.order,
            chaos=game.chaos,
            winner=winner,
            reason=reason,
            moves=game.moves,
            ms=game.ms,
            detail=detail,
            stderr_order=order.tail(),
            stderr_chaos=chaos.tail(),
            seed=self.seed,
            started_at=game.started_at,
            finished_at=time.time(),
            order_version=order.version,
            chaos_version=chaos.version,
            opening=game.opening,
            order_display=order.display_name,
            chaos_display=chaos.display_name,
            measure=tc.measure.value,
            clock_ms=game.clock_ms,
            clock_start_ms=tc.clock_ms,
        )

    def _play_plies(
        self, order: Seat, chaos: Seat, game: Game, start: Board
    ) -> tuple[Role, Reason]:
        """The game loop: each seat in turn asked for its move (``Seat.ask``: a `turn` out, a
        line back, judged), the move played on the board, both seats told, five looked for."""
        seats = (order, chaos)
        person = len(self.bots) < 2
        # A person cannot be frozen, nor their moves played again.
        clock = MoveClock(self.settings.time_control, self.settings.freeze_idle and not person)
        board = start.copy()
        moves, charged = game.moves, game.ms
        listeners = tuple(seat.tell for seat in seats if seat.listens)
        try:
            for ply in range(board.ply, CELLS):
                seat, other = seats[ply & 1], seats[~ply & 1]
                if person and isinstance(seat, BotSeat):
                    move, used = self._ask_beside_person(seat, board, clock, other)
                else:
                    move, used = seat.ask(board, clock, other)
                role = _ROLES[ply & 1]
                five = board.play(move)  # judged legal by the seat
                ms = round(used / 1e6, 3)
                moves.append(move.token)
                charged.append(ms)
                for tell in listeners:
                    tell(move, role, ms)
                if five:
                    return Role.ORDER, Reason.FIVE
            return Role.CHAOS, Reason.FULL
        finally:
            if clock.clocked and not person:  # a person has no clock
                game.clock_ms = [round(t / 1e6, 3) for t in clock.left]

    def _ask_beside_person(
        self, seat: BotSeat, board: Board, clock: MoveClock, other: Seat
    ) -> tuple[Move, int]:
        """The bot's move in a person's game: a line it wrote while the person thought is its
        fault; when the machine held it back, the bot is restarted and asked again (a person's
        moves cannot be played again), at most ``MAX_REPLAYS`` times."""
        idle = self.channels.check_idle()
        if idle is not None:
            raise seat.fault_outside_turn(idle[0])
        spoiled: list[str] = []
        while True:
            try:
                return seat.ask(board, clock, other)
            except MachineFault as fault:
                spoiled.append(fault.detail)
                seat.stop(graceful=False)
                if len(spoiled) >= MAX_REPLAYS:
                    raise too_loaded(spoiled) from None
                self._ensure_ready((seat,))
                self._tell_game(seat, board.turn)


_ROLES = (Role.ORDER, Role.CHAOS)  # the role to move on even and odd plies
_LINES = (WaitStatus.LINE, WaitStatus.EXTRA)  # a line came (and maybe more after it)


def _others(spec: BotSpec, private: tuple[str, ...]) -> tuple[str, ...]:
    """``private`` without ``spec``'s own paths (a file two bots share is each one's own)."""
    own = {os.path.realpath(path) for path in (spec.dir, *spec.named_files())}
    return tuple(path for path in private if os.path.realpath(path) not in own)


def _limit_fault(*seats: Seat, late: bool = False) -> GameOver | None:
    """The fault of the first seat whose bot went past a limit (processes, memory, /tmp), or
    None. ``late``: its fault was a timeout (``BotProcess.over_limit``)."""
    for seat in seats:
        excess = seat.process.over_limit(late) if seat.process is not None else None
        if excess is not None:
            return GameOver(seat, Reason.CRASH, excess)
    return None


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
        for order_seat in seats:
            record = match.play(order_seat)
            records.append(record)
            if on_game is not None:
                on_game(record)
    return records


def opening_board(tokens: Sequence[str]) -> Board:
    """The position after ``tokens`` (``c4X``...), played from the empty board.

    Raises ValueError for a token that is not a move, a move on an occupied cell, or a move
    that makes five in a line: an opening is a position where the game is still open.
    """
    board = Board()
    for token in tokens:
        try:
            move = Move.parse(token)
        except ValueError:
            raise ValueError(f"opening: not a move: {token!r}") from None
        if not board.is_empty(move.cell):
            raise ValueError(f"opening: {move.token} is on an occupied cell")
        if board.push(move):
            raise ValueError(f"opening: {move.token} makes five in a line")
    return board


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
    seat = PersonSeat(bot.renamed(person), 1, ask, on_move)
    match = Match(bot, seat, settings, seed, expected_games=1)
    try:
        return match.play(order_seat=0 if bot_role is Role.ORDER else 1)
    finally:
        match.close()
