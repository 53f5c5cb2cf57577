"""Write an "arena 1" bot in Python as one function: ``run`` does the protocol, you choose moves.

Why: every bot needs the same plumbing, and each mistake in it costs whole games by ``timeout`` or
``malformed``. ``run(choose)`` answers the handshake and every ``turn`` with one flushed line,
sends ``print()`` to stderr, and hides no bug of ``choose`` (an exception ends the bot, a move that
is not legal is sent as it is), so the harness records it and its author finds out. It imports
only ``arena.rules`` and the standard library: a bot starts fast and runs in the sandbox. An
example and what ``run`` guarantees: ``docs/protocol.md`` ("Writing a bot in Python").
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Callable
from contextlib import redirect_stdout
from dataclasses import dataclass
from typing import BinaryIO

from arena.rules import MOVE_BY_TOKEN, Board, Move, Role

__all__ = ["BotState", "Chooser", "run", "seed_from_env", "make_rng"]


@dataclass(slots=True)
class BotState:
    """Everything a bot needs to choose one move, rebuilt from each ``turn`` line.

    The harness sends the whole position on every turn, so a bot may be stateless; a bot that
    wants memory across turns keeps it itself (e.g. in a closure or module variable, reset by the
    ``on_game`` hook).
    """

    board: Board
    """The position, rebuilt with ``Board.from_string`` (its history is in cell order, not in
    the order the moves were played; ``board.turn`` is the role to move)."""
    role: Role
    """The role this bot plays in the current game (from ``game order``/``game chaos``)."""
    last: Move | None
    """The opponent's previous move, or None on Order's first move."""
    ms: int
    """Milliseconds allowed for this move, measured by the harness from sending ``turn`` to the
    arrival of the reply line."""
    deadline: float
    """``time.monotonic()`` value when the allowance runs out, counted from when ``run`` read the
    ``turn`` line (slightly later than the harness's clock: keep a margin)."""
    rng: random.Random
    """One generator for the whole process, seeded from ``ARENA_SEED`` when it is set, and
    reseeded from each ``match <seed>`` line (as in a process started afresh for that match)."""
    game: int
    """How many ``game`` lines this process has received since its start or its last ``match``
    line (1 in the first game)."""

    def remaining(self) -> float:
        """Seconds left before ``deadline`` (negative once it has passed)."""
        return self.deadline - time.monotonic()


Chooser = Callable[[BotState], Move | str]
"""The bot's move function: a ``Move`` or a move token such as ``"c4X"``."""


def seed_from_env(environ: dict[str, str] | None = None) -> int | None:
    """The integer in ``ARENA_SEED``, or None when it is unset or not an integer."""
    value = (os.environ if environ is None else environ).get("ARENA_SEED", "").strip()
    try:
        return int(value)
    except ValueError:
        return None


def make_rng(environ: dict[str, str] | None = None) -> random.Random:
    """A ``random.Random`` seeded from ``ARENA_SEED``; unseeded (OS entropy) without one."""
    seed = seed_from_env(environ)
    return random.Random() if seed is None else random.Random(seed)


def _log(message: str) -> None:
    """One diagnostic line on stderr (kept by the harness), never on the protocol channel."""
    try:
        sys.stderr.write(f"arena.bot: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _reply(state: BotState, result: object) -> bytes:
    """The line to send for ``choose``'s ``result``: its move, or what it returned, as it is."""
    if isinstance(result, Move):
        move: Move | None = result
    elif isinstance(result, str):
        move = MOVE_BY_TOKEN.get(result.strip().encode("ascii", "replace"))
    else:
        move = None
    if move is not None and state.board.is_legal(move):
        return move.token.encode("ascii") + b"\n"
    # The author's bug: send it anyway, so that the harness records the fault and says why.
    _log(f"choose returned {result!r}, which is not a legal move here")
    text = result.token if isinstance(result, Move) else str(result)
    return " ".join(text.split()).encode("ascii", "replace") + b"\n"


def run(
    choose: Chooser,
    name: str | None = None,
    *,
    on_game: Callable[[Role], None] | None = None,
    on_end: Callable[[bool, str], None] | None = None,
    on_match: Callable[[int], None] | None = None,
    reuse: bool = True,
    rng: random.Random | None = None,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
) -> None:
    """Play the "arena 1" protocol on stdin/stdout until ``quit`` or end of input.

    Args:
        choose: called once per ``turn``; returns the move to play.
        name: display name sent with ``ready`` (one line; None sends plain ``ready``).
        on_game: called with the role at each ``game`` line (reset per-game state here).
        on_end: called at each ``end`` line with ``won`` and the reason (``five``, ``full``,
            ``timeout``, ``illegal``, ``malformed``, ``crash``, ``startup``).
        on_match: called with the seed at each ``match <seed>`` line, after ``run`` has reset
            its own state (generator, ``ARENA_SEED``, game count): reset there whatever else a
            fresh start would not have (caches kept across games, another generator).
        reuse: ask for the ``match`` extension (``want match``), so that a tournament may keep
            this process between its matches (``keep_bots: auto``): ``run`` promises the harness
            that the bot then plays as if started afresh for each match. It is asked for unless
            ``reuse`` is False, or ``rng`` is given without ``on_match`` (``run`` cannot know
            how that generator was seeded: reseed it in ``on_match``).
        rng: the generator handed to ``choose``; default ``make_rng()`` (``ARENA_SEED``).
        stdin, stdout: binary streams to use instead of the process's (for tests).

    Raises:
        Whatever ``choose`` raises, after a line on stderr saying so: a bug in the bot ends it,
        visibly, as a ``crash`` whose detail is the exception's last line.
    """
    session = _Session(
        choose,
        sys.stdout.buffer if stdout is None else stdout,
        make_rng() if rng is None else rng,
        own_rng=rng is None,
        hooks=(on_game, on_end, on_match),
    )
    shown = " ".join((name or "").split()).encode("ascii", "replace")
    session.hello = b"ready " + shown + b"\n" if shown else b"ready\n"
    if reuse and (rng is None or on_match is not None):
        session.hello = b"want match\n" + session.hello
    readline = (sys.stdin.buffer if stdin is None else stdin).readline
    with redirect_stdout(sys.stderr):
        try:
            while (raw := readline()) and session.handle(raw):
                pass
        except BrokenPipeError:
            # The harness closed our stdout: nothing more can be said. Point fd 1 at /dev/null so
            # that the interpreter's final flush does not complain on stderr.
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, session.sink.fileno())
            except (OSError, ValueError, AttributeError):
                pass


class _Session:
    """What ``run`` keeps from line to line: the role of the game on, the games of the match, the
    generator, and what to say and whom to tell. One method per line the harness writes."""

    def __init__(
        self,
        choose: Chooser,
        sink: BinaryIO,
        rng: random.Random,
        own_rng: bool,
        hooks: tuple[
            Callable[[Role], None] | None,
            Callable[[bool, str], None] | None,
            Callable[[int], None] | None,
        ],
    ) -> None:
        self.choose = choose
        self.sink = sink
        self.rng = rng
        self.own_rng = own_rng  # ``run`` made it, so it reseeds it at ``match``
        self.on_game, self.on_end, self.on_match = hooks
        self.hello = b"ready\n"
        self.role: Role | None = None
        self.games = 0

    def send(self, data: bytes) -> None:
        self.sink.write(data)
        self.sink.flush()

    def handle(self, raw: bytes) -> bool:
        """Act on one line; False once the harness said ``quit``."""
        now = time.monotonic()  # a turn's deadline counts from the moment its line was read
        parts = raw.split()
        if not parts:
            return True
        command = parts[0]
        if command == b"turn":
            self.turn(raw, parts, now)
        elif command == b"game":
            self.game(raw, parts)
        elif command == b"end":
            if self.on_end is not None:
                won = len(parts) > 1 and parts[1] == b"win"
                self.on_end(won, parts[2].decode("ascii", "replace") if len(parts) > 2 else "")
        elif command == b"match":
            self.match(raw, parts)
        elif command == b"arena":
            if parts[1:] != [b"1"]:
                _log(f"this helper speaks arena 1; harness said {raw!r}")
            self.send(self.hello)
        elif command == b"quit":
            return False
        else:
            _log(f"ignoring unknown line {raw!r}")
        return True

    def turn(self, raw: bytes, parts: list[bytes], now: float) -> None:
        try:
            board = Board.from_string(parts[1].decode("ascii", "replace"))
            ms = int(parts[3])
        except (IndexError, ValueError):
            _log(f"cannot read turn line {raw!r}")
            return
        state = BotState(
            board=board,
            role=board.turn if self.role is None else self.role,
            last=MOVE_BY_TOKEN.get(parts[2]),
            ms=ms,
            deadline=now + ms / 1000.0,
            rng=self.rng,
            game=self.games,
        )
        try:
            result = self.choose(state)
        except Exception:
            # Say where, then let it go: the traceback ends stderr, naming it.
            _log(f"choose raised on a turn of game {self.games}; exiting")
            raise
        self.send(_reply(state, result))

    def game(self, raw: bytes, parts: list[bytes]) -> None:
        self.games += 1
        try:
            self.role = Role(parts[1].decode("ascii", "replace"))
        except (IndexError, ValueError):
            _log(f"cannot read game line {raw!r}")
            self.role = None
        if self.on_game is not None and self.role is not None:
            self.on_game(self.role)

    def match(self, raw: bytes, parts: list[bytes]) -> None:
        """As a process started afresh for this match: its seed, its first game next."""
        try:
            seed = int(parts[1])
        except (IndexError, ValueError):
            _log(f"cannot read match line {raw!r}")
            return
        os.environ["ARENA_SEED"] = str(seed)
        if self.own_rng:
            self.rng.seed(seed)
        self.games, self.role = 0, None
        if self.on_match is not None:
            self.on_match(seed)
