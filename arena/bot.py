"""Write an "arena 1" bot in Python as one function: ``run`` does the protocol, you choose moves.

Why this module exists: every bot needs the same plumbing (the handshake, reading each ``turn``,
answering at once and flushing, ignoring ``game``/``end``, exiting on ``quit`` or end of input),
and each mistake in it costs whole games by ``timeout`` or ``malformed``. ``run`` does it once,
correctly and cheaply (a few microseconds per move on top of ``choose``), and hands ``choose`` a
ready-made :class:`BotState`. It imports only ``arena.rules`` and the standard library, so a bot
built on it starts fast and runs in the sandbox.

Example, a complete bot (``python my_bot.py``)::

    from arena.bot import BotState, run
    from arena.rules import Move

    def choose(state: BotState) -> Move:
        # Any legal move, drawn with the RNG seeded from ARENA_SEED (reproducible games).
        return state.rng.choice(state.board.legal_moves())

    if __name__ == "__main__":
        run(choose, name="my random bot")

What ``run`` guarantees:

- it answers ``arena 1`` with ``ready <name>`` (or plain ``ready``), and every ``turn`` with
  exactly one line, flushed immediately;
- while it runs, ``print()`` and other writes to ``sys.stdout`` go to stderr (the harness keeps
  the tail of stderr for debugging), so a stray debug print cannot become a protocol fault;
- when ``choose`` raises, or returns something that is not a legal move, the traceback or the
  complaint goes to stderr and a random legal move is played instead (``fallback=False`` lets the
  error through, which is handy in tests);
- it returns on ``quit``, at end of input, or when the harness closes the pipe.
"""

from __future__ import annotations

import os
import random
import sys
import time
import traceback
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
    """One generator for the whole process, seeded from ``ARENA_SEED`` when it is set."""
    game: int
    """How many ``game`` lines this process has received (1 in the first game)."""

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


def _check(board: Board, result: object) -> bytes | None:
    """The reply bytes for ``result`` when it is a legal move here, else None."""
    if isinstance(result, Move):
        move: Move | None = result
    elif isinstance(result, str):
        move = MOVE_BY_TOKEN.get(result.strip().encode("ascii", "replace"))
    else:
        move = None
    if move is None or not board.is_legal(move):
        return None
    return move.token.encode("ascii") + b"\n"


def _reply(choose: Chooser, state: BotState, fallback: bool) -> bytes:
    """The line to send for this turn: ``choose``'s move, or a random one if it failed."""
    result: object = None
    if fallback:
        try:
            result = choose(state)
        except Exception:
            _log("choose raised; playing a random move instead\n" + traceback.format_exc().rstrip())
    else:
        result = choose(state)
    reply = _check(state.board, result)
    if reply is not None:
        return reply
    moves = state.board.legal_moves()
    if fallback and moves:
        if result is not None:
            _log(f"choose returned {result!r}, not a legal move here; playing a random move")
        return state.rng.choice(moves).token.encode("ascii") + b"\n"
    # Send it as is: the referee will say what is wrong with it.
    text = result.token if isinstance(result, Move) else str(result)
    return text.strip().encode("ascii", "replace") + b"\n"


def run(
    choose: Chooser,
    name: str | None = None,
    *,
    on_game: Callable[[Role], None] | None = None,
    on_end: Callable[[bool, str], None] | None = None,
    rng: random.Random | None = None,
    fallback: bool = True,
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
        rng: the generator handed to ``choose``; default ``make_rng()`` (``ARENA_SEED``).
        fallback: on an exception or an illegal result from ``choose``, log it to stderr and play
            a random legal move (True), or let the exception propagate / send the result as is.
        stdin, stdout: binary streams to use instead of the process's (for tests).
    """
    source = sys.stdin.buffer if stdin is None else stdin
    sink = sys.stdout.buffer if stdout is None else stdout
    rng = make_rng() if rng is None else rng
    shown = " ".join((name or "").split()).encode("ascii", "replace")
    hello = b"ready " + shown + b"\n" if shown else b"ready\n"
    role: Role | None = None
    games = 0
    readline = source.readline
    monotonic = time.monotonic

    def send(data: bytes) -> None:
        sink.write(data)
        sink.flush()

    with redirect_stdout(sys.stderr):
        try:
            while True:
                raw = readline()
                if not raw:
                    return  # end of input: the harness is gone or done with us
                now = monotonic()
                parts = raw.split()
                if not parts:
                    continue
                command = parts[0]
                if command == b"turn":
                    try:
                        board = Board.from_string(parts[1].decode("ascii", "replace"))
                        ms = int(parts[3])
                    except (IndexError, ValueError):
                        _log(f"cannot read turn line {raw!r}")
                        continue
                    state = BotState(
                        board=board,
                        role=board.turn if role is None else role,
                        last=MOVE_BY_TOKEN.get(parts[2]),
                        ms=ms,
                        deadline=now + ms / 1000.0,
                        rng=rng,
                        game=games,
                    )
                    send(_reply(choose, state, fallback))
                elif command == b"game":
                    games += 1
                    try:
                        role = Role(parts[1].decode("ascii", "replace"))
                    except (IndexError, ValueError):
                        _log(f"cannot read game line {raw!r}")
                        role = None
                    if on_game is not None and role is not None:
                        on_game(role)
                elif command == b"end":
                    if on_end is not None:
                        won = len(parts) > 1 and parts[1] == b"win"
                        reason = parts[2].decode("ascii", "replace") if len(parts) > 2 else ""
                        on_end(won, reason)
                elif command == b"arena":
                    if parts[1:] != [b"1"]:
                        _log(f"this helper speaks arena 1; harness said {raw!r}")
                    send(hello)
                elif command == b"quit":
                    return
                else:
                    _log(f"ignoring unknown line {raw!r}")
        except BrokenPipeError:
            # The harness closed our stdout: nothing more can be said. Point fd 1 at /dev/null so
            # that the interpreter's final flush does not complain on stderr.
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sink.fileno())
            except (OSError, ValueError, AttributeError):
                pass
            return
