"""The floor: a minimal referee written apart from arena, the yardstick of its per-ply cost.

Two persistent bot processes, ``game``/``turn``/``end`` lines, each reply awaited under a deadline
with ``select.poll``, looked up, checked for legality and for five in a row with bitboards (the 32
five-cell windows), whole games: the cost of refereeing with nothing else, in Python. The rules
are written out here independently of ``arena.rules``, so that a bug there cannot flatter arena.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import time
from collections.abc import Iterator, Sequence

SIZE = 6
CELLS = 36


@contextlib.contextmanager
def pinned(core: int) -> Iterator[None]:
    """Pin this process (and the children it starts meanwhile) to one core, then restore."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {core})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def five_windows() -> list[int]:
    """The 32 five-cell windows of the 6x6 board as bitmasks (cell index = 6 * row + col)."""
    windows = []
    for row in range(SIZE):
        for col in range(SIZE):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                if 0 <= row + 4 * dr < SIZE and 0 <= col + 4 * dc < SIZE:
                    windows.append(
                        sum(1 << (SIZE * (row + i * dr) + col + i * dc) for i in range(5))
                    )
    return windows


WINDOWS = five_windows()
assert len(WINDOWS) == 32
THROUGH = [tuple(w for w in WINDOWS if w >> cell & 1) for cell in range(CELLS)]
MOVES = {
    f"{'abcdef'[cell % SIZE]}{cell // SIZE + 1}{mark}".encode(): (cell, "XOxo".index(mark) & 1)
    for cell in range(CELLS)
    for mark in "XOxo"
}


def pattern_mark(cell: int) -> int:
    """The instant bots' mark for a cell: 0 (X) where row + col // 2 is even, else 1 (O)."""
    return (cell // SIZE + cell % SIZE // 2) % 2


def check_pattern() -> None:
    """The instant bots' full board has no five: every game they play lasts 36 plies."""
    bits = [0, 0]
    for cell in range(CELLS):
        bits[pattern_mark(cell)] |= 1 << cell
    fives = [w for w in WINDOWS for b in bits if b & w == w]
    assert not fives, "the instant bots' pattern makes five in a row"


class FloorBot:
    """A bot process and its pipes, for the floor referee."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.fd_in = self.proc.stdin.fileno()
        self.fd_out = self.proc.stdout.fileno()
        self.poller = select.poll()
        self.poller.register(self.fd_out, select.POLLIN)
        self.buf = b""

    def send(self, data: bytes) -> None:
        os.write(self.fd_in, data)

    def line(self, deadline_ns: int) -> bytes:
        """The next line from the bot, waiting at most until ``deadline_ns``."""
        while True:
            newline = self.buf.find(b"\n")
            if newline >= 0:
                line = self.buf[:newline]
                self.buf = self.buf[newline + 1 :]
                return line
            remaining = deadline_ns - time.perf_counter_ns()
            if remaining <= 0:
                raise TimeoutError("the bot did not answer in time")
            if self.poller.poll(remaining // 1_000_000 + 1):
                data = os.read(self.fd_out, 4096)
                if not data:
                    raise EOFError("the bot exited")
                self.buf += data

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.send(b"quit\n")
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()


def floor_game(order: FloorBot, chaos: FloorBot, move_ms: int) -> int:
    """One whole game between two bots; returns the plies played."""
    order.send(b"game order\n")
    chaos.send(b"game chaos\n")
    seats = (order, chaos)
    budget = move_ms * 1_000_000
    suffix = b" %d\n" % move_ms
    board = bytearray(b"." * CELLS)
    bits = [0, 0]
    occupied = 0
    last = b"-"
    winner = b"chaos", b"full"
    plies = 0
    clock = time.perf_counter_ns
    for ply in range(CELLS):
        bot = seats[ply & 1]
        started = clock()
        bot.send(b"turn " + board + b" " + last + suffix)
        line = bot.line(started + budget)
        move = MOVES.get(line)
        if move is None:
            raise ValueError(f"not a move: {line!r}")
        cell, mark = move
        bit = 1 << cell
        if occupied & bit:
            raise ValueError(f"illegal move: {line!r}")
        occupied |= bit
        mine = bits[mark] | bit
        bits[mark] = mine
        board[cell] = b"XO"[mark]
        last = line
        plies += 1
        for window in THROUGH[cell]:
            if mine & window == window:
                winner = b"order", b"five"
        if winner[1] == b"five":
            break
    order.send(b"end %s %s\n" % (b"win" if winner[0] == b"order" else b"loss", winner[1]))
    chaos.send(b"end %s %s\n" % (b"win" if winner[0] == b"chaos" else b"loss", winner[1]))
    return plies


def measure_floor(argv: Sequence[str], games: int, core: int, move_ms: int = 100) -> float:
    """The floor's us per ply over ``games`` whole games, pinned to ``core``."""
    with pinned(core):
        bots = [FloorBot(argv), FloorBot(argv)]
        try:
            for bot in bots:
                bot.send(b"arena 1\n")
                if not bot.line(time.perf_counter_ns() + 5_000_000_000).startswith(b"ready"):
                    raise RuntimeError("no `ready` from the floor's bot")
            plies = 0
            started = time.perf_counter_ns()
            for game in range(games):
                order = game & 1
                plies += floor_game(bots[order], bots[1 - order], move_ms)
            elapsed = time.perf_counter_ns() - started
        finally:
            for bot in bots:
                bot.close()
    return elapsed / 1000 / plies
