"""The rules of Order and Chaos (Sniderman, 1981): a pure game model with no I/O.

Cells are named by a column ``a``-``f`` and a row ``1``-``6`` (``a1`` top left, ``f6`` bottom
right) and indexed row by row (``index = 6 * row + column``, 0-35), the order of the protocol's
36-character board. Order moves first; each move writes X or O in an empty cell; Order wins on five
identical marks in a line, Chaos on a full board without one (no draws). The position is two 36-bit
bitboards; a move can only complete one of the 32 five-cell windows through its cell, so the win
check looks at those (at most 7) instead of scanning the board.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

__all__ = [
    "RULES_VERSION",
    "SIZE",
    "CELLS",
    "WINDOWS",
    "WINDOWS_THROUGH",
    "Role",
    "Mark",
    "Move",
    "Outcome",
    "Reason",
    "Board",
    "IllegalMoveError",
    "cell_name",
    "parse_cell",
]

RULES_VERSION = 1
"""The version of these rules, recorded in every store's definition: a store refuses a run under
other rules, so that games played under different rules are never rated together. Bump it with
any change to what a legal move or a win is."""

SIZE = 6
CELLS = SIZE * SIZE
FULL_MASK = (1 << CELLS) - 1
LINE = 5
COLUMNS = "abcdef"


class IllegalMoveError(ValueError):
    """A move that the rules do not allow in this position (occupied cell, game over)."""


class Role(enum.StrEnum):
    """The two sides. Order moves first."""

    ORDER = "order"
    CHAOS = "chaos"

    @property
    def other(self) -> Role:
        return Role.CHAOS if self is Role.ORDER else Role.ORDER


class Mark(enum.IntEnum):
    """The two marks. Either side may write either mark on any move."""

    X = 0
    O = 1  # noqa: E741 - the game's own name for the mark

    @property
    def char(self) -> str:
        return "XO"[self]


def cell_name(cell: int) -> str:
    """``0 -> 'a1'``, ``35 -> 'f6'``."""
    if not 0 <= cell < CELLS:
        raise ValueError(f"cell index out of range: {cell}")
    row, column = divmod(cell, SIZE)
    return f"{COLUMNS[column]}{row + 1}"


def parse_cell(name: str) -> int:
    """``'a1' -> 0``, ``'F6' -> 35``; raises ValueError for anything that is not a cell."""
    if len(name) != 2:
        raise ValueError(f"not a cell: {name!r}")
    column = COLUMNS.find(name[0].lower())
    row = ord(name[1]) - ord("1")
    if column < 0 or not 0 <= row < SIZE:
        raise ValueError(f"not a cell: {name!r}")
    return row * SIZE + column


def cells_of(mask: int) -> list[int]:
    """The cell indices of a mask (any bitboard, the centre's 16 cells too), lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class Move(NamedTuple):
    """One move: the cell index (0-35) and the mark written there."""

    cell: int
    mark: Mark

    @property
    def token(self) -> str:
        """The protocol's spelling: cell then mark, e.g. ``c4X``."""
        try:
            return _TOKEN_OF[self]  # the referee's loop spells every move it records
        except KeyError:  # no such move: cell_name says why
            return cell_name(self.cell) + Mark(self.mark).char

    def __str__(self) -> str:
        return self.token

    @classmethod
    def parse(cls, token: str) -> Move:
        """Parse ``c4X`` / ``c4x``; raises ValueError for anything else."""
        move = MOVE_BY_TOKEN.get(token.encode("ascii", "replace"))
        if move is None:
            raise ValueError(f"not a move: {token!r}")
        return move


def _windows() -> tuple[int, ...]:
    """All 32 five-cell windows as bitmasks: 12 in rows, 12 in columns, 8 on diagonals."""
    windows: list[int] = []
    directions = ((0, 1), (1, 0), (1, 1), (1, -1))
    for row in range(SIZE):
        for column in range(SIZE):
            for d_row, d_column in directions:
                end_row = row + d_row * (LINE - 1)
                end_column = column + d_column * (LINE - 1)
                if not (0 <= end_row < SIZE and 0 <= end_column < SIZE):
                    continue
                mask = 0
                for step in range(LINE):
                    mask |= 1 << ((row + d_row * step) * SIZE + column + d_column * step)
                windows.append(mask)
    return tuple(windows)


WINDOWS: tuple[int, ...] = _windows()
WINDOWS_THROUGH: tuple[tuple[int, ...], ...] = tuple(
    tuple(w for w in WINDOWS if w >> cell & 1) for cell in range(CELLS)
)
ALL_MOVES: tuple[Move, ...] = tuple(Move(c, m) for c in range(CELLS) for m in Mark)
_TOKEN_OF = {move: cell_name(move.cell) + move.mark.char for move in ALL_MOVES}
# Every accepted spelling of every move (mark in either case), as bytes, for the referee's parser.
MOVE_BY_TOKEN: dict[bytes, Move] = {
    spelling.encode(): move
    for move in ALL_MOVES
    for spelling in {move.token, move.token[:2] + move.token[2].lower()}
}

assert len(WINDOWS) == 32

_EMPTY = ord(".")
_EMPTY_CELLS = bytes([_EMPTY]) * CELLS
_MARK_BYTES = (ord("X"), ord("O"))
_TOKEN_BYTES = {move: token.encode() for move, token in _TOKEN_OF.items()}
_NO_MOVE = b"-"


class Reason(enum.StrEnum):
    """Why a game ended: ``five`` and ``full`` are the rules; the others are a bot's fault.

    The one word for how a game ends, used by the board (``Outcome``), the protocol's ``end``
    line, records, the store and the ratings alike.
    """

    FIVE = "five"  # Order made five in a line
    FULL = "full"  # the board filled without one
    TIMEOUT = "timeout"  # no move within the time for the move, measured from sending `turn`
    ILLEGAL = "illegal"  # a move to an occupied or non-existent cell
    MALFORMED = "malformed"  # not a move, not text, over-long, or a line when no reply was due
    CRASH = "crash"  # the process exited or closed its stdout
    STARTUP = "startup"  # no `ready` within the start-up allowance

    @property
    def is_fault(self) -> bool:
        return self not in (Reason.FIVE, Reason.FULL)


FAULT_REASONS = frozenset(r for r in Reason if r.is_fault)


@dataclass(frozen=True)
class Outcome:
    """How a game ended under the rules: the winning role and ``Reason.FIVE`` or ``Reason.FULL``."""

    winner: Role
    reason: Reason


class Board:
    """A position: two bitboards plus the move history (so that moves can be taken back).

    ``push`` plays a move and keeps track of whether it completed a line of five; ``pop`` undoes
    the last move. The board never holds a move after the game is over. ``cells`` is the same
    position as the protocol's 36 characters, kept with every move so that a referee sends it
    without building it.
    """

    __slots__ = ("bits", "history", "_five", "cells", "last_token")

    def __init__(self) -> None:
        self.bits = [0, 0]  # bits[Mark.X], bits[Mark.O]
        self.history: list[Move] = []
        self._five = False
        self.cells = bytearray(_EMPTY_CELLS)
        self.last_token = _NO_MOVE
        """The last move's token as bytes (``c4X``), ``-`` before the first: a turn's
        ``<last>``."""

    # --- queries -------------------------------------------------------------------------------
    @property
    def occupied(self) -> int:
        return self.bits[0] | self.bits[1]

    @property
    def turn(self) -> Role:
        """The role to move (Order on even plies)."""
        return Role.CHAOS if len(self.history) & 1 else Role.ORDER

    @property
    def ply(self) -> int:
        return len(self.history)

    def mark_at(self, cell: int) -> Mark | None:
        if self.bits[0] >> cell & 1:
            return Mark.X
        if self.bits[1] >> cell & 1:
            return Mark.O
        return None

    def is_empty(self, cell: int) -> bool:
        return not ((self.bits[0] | self.bits[1]) >> cell & 1)

    def is_full(self) -> bool:
        return self.occupied == FULL_MASK

    def has_five(self) -> bool:
        """Whether some line of five stands on the board (a full scan; ``outcome`` is cheaper)."""
        return any(bits & w == w for bits in self.bits for w in WINDOWS)

    @property
    def outcome(self) -> Outcome | None:
        """The result if the game is over, else None."""
        if self._five:
            return Outcome(Role.ORDER, Reason.FIVE)
        if self.occupied == FULL_MASK:
            return Outcome(Role.CHAOS, Reason.FULL)
        return None

    def is_game_over(self) -> bool:
        return self._five or self.occupied == FULL_MASK

    def empty_cells(self) -> Iterator[int]:
        free = FULL_MASK & ~self.occupied
        while free:
            low = free & -free
            yield low.bit_length() - 1
            free ^= low

    def legal_moves(self) -> list[Move]:
        """Every legal move (both marks in every empty cell); empty once the game is over."""
        if self.is_game_over():
            return []
        return [Move(c, m) for c in self.empty_cells() for m in (Mark.X, Mark.O)]

    def is_legal(self, move: Move) -> bool:
        return (
            0 <= move.cell < CELLS
            and move.mark in (0, 1)
            and self.is_empty(move.cell)
            and not self.is_game_over()
        )

    # --- changes ---------------------------------------------------------------------------------
    def push(self, move: Move) -> bool:
        """Play ``move``; return True when it makes five in a line (Order has won).

        Raises IllegalMoveError for an occupied or non-existent cell, or when the game is over.
        """
        cell, mark = move
        if not 0 <= cell < CELLS:
            raise IllegalMoveError(f"no such cell: {cell}")
        if mark not in (0, 1):
            raise IllegalMoveError(f"no such mark: {mark}")
        bit = 1 << cell
        if (self.bits[0] | self.bits[1]) & bit:
            raise IllegalMoveError(f"{cell_name(cell)} is occupied")
        if self._five:
            raise IllegalMoveError("the game is over")
        return self.play(move)

    def play(self, move: Move) -> bool:
        """``push`` without its checks, for a move already known legal (a free cell, the game
        open): a referee checks each move once, as it judges it."""
        cell, mark = move
        mine = self.bits[mark] | 1 << cell
        self.bits[mark] = mine
        self.history.append(move)
        self.cells[cell] = _MARK_BYTES[mark]
        self.last_token = _TOKEN_BYTES[move]
        for window in WINDOWS_THROUGH[cell]:
            if mine & window == window:
                self._five = True
                return True
        return False

    def pop(self) -> Move:
        """Take back the last move."""
        move = self.history.pop()
        self.bits[move.mark] &= ~(1 << move.cell)
        self.cells[move.cell] = _EMPTY
        self.last_token = self.history[-1].token.encode() if self.history else _NO_MOVE
        if self._five:  # in play the position before a five had none; from_string may differ
            self._five = self.has_five()
        return move

    def copy(self) -> Board:
        board = Board()
        board.bits = list(self.bits)
        board.history = list(self.history)
        board._five = self._five
        board.cells[:] = self.cells
        board.last_token = self.last_token
        return board

    # --- text ------------------------------------------------------------------------------------
    def board_string(self) -> str:
        """The protocol's 36 characters ``.``/``X``/``O``, row 1 first, a to f within a row."""
        return self.cells.decode()

    @classmethod
    def from_moves(cls, moves: list[Move] | list[str]) -> Board:
        board = cls()
        for move in moves:
            board.push(Move.parse(move) if isinstance(move, str) else move)
        return board

    @classmethod
    def from_string(cls, text: str) -> Board:
        """A position from a 36-character board string (history unknown: moves in cell order).

        Raises ValueError when the text is not a board string.
        """
        if len(text) != CELLS or any(ch not in ".XOxo" for ch in text):
            raise ValueError(f"not a board string: {text!r}")
        board = cls()
        x = o = 0
        for cell, ch in enumerate(text.upper()):
            if ch == "X":
                x |= 1 << cell
            elif ch == "O":
                o |= 1 << cell
        board.bits = [x, o]
        board.history = [
            Move(c, Mark.X if x >> c & 1 else Mark.O) for c in range(CELLS) if (x | o) >> c & 1
        ]
        board._five = board.has_five()
        board.cells[:] = text.upper().encode()
        if board.history:
            board.last_token = board.history[-1].token.encode()
        return board

    def __str__(self) -> str:
        rows = [self.board_string()[r * SIZE : (r + 1) * SIZE] for r in range(SIZE)]
        lines = ["  " + " ".join(COLUMNS)]
        lines += [f"{r + 1} " + " ".join(row) for r, row in enumerate(rows)]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Board({self.board_string()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self.bits == other.bits

    def __hash__(self) -> int:
        return hash((self.bits[0], self.bits[1]))
