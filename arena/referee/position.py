"""The referee's position: the board as the protocol's bytes next to the bitboards, and everything
about a move found with one dictionary look-up.

Why a module of its own: the referee's hot loop must not build a ``Board`` per ply, yet an opening
(a position the game starts from) must be checked by the same rules; both use the tables here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from arena.protocol import NO_LAST_MOVE
from arena.rules import CELLS, MOVE_BY_TOKEN, WINDOWS_THROUGH, Move

__all__ = ["PlyMove", "PLY_MOVES", "Position", "canonical"]

_MARK_CHAR = (ord("X"), ord("O"))


class PlyMove(NamedTuple):
    """All the referee's hot loop needs about one move."""

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


def _ply_move(move: Move) -> PlyMove:
    token = move.token
    return PlyMove(
        bit=1 << move.cell,
        mark=int(move.mark),
        char=_MARK_CHAR[move.mark],
        cell=move.cell,
        token=token.encode(),
        text=token,
        windows=WINDOWS_THROUGH[move.cell],
    )


_CANONICAL = {move: _ply_move(move) for move in set(MOVE_BY_TOKEN.values())}
PLY_MOVES: dict[bytes, PlyMove] = {
    spelling: _CANONICAL[move] for spelling, move in MOVE_BY_TOKEN.items()
}
"""Every accepted spelling of a move (``c4X``, ``c4x``) -> the move, canonical."""


def canonical(move: Move) -> PlyMove:
    """The ``PlyMove`` of a parsed move."""
    return _CANONICAL[move]


@dataclass
class Position:
    """A position as the referee keeps it; ``from_opening`` checks an opening by the rules."""

    board: bytearray = field(default_factory=lambda: bytearray(b"." * CELLS))
    """The protocol's 36 board characters."""
    bits: list[int] = field(default_factory=lambda: [0, 0])
    """One bitboard per mark."""
    occupied: int = 0
    last: bytes = NO_LAST_MOVE
    """The last move's token (the ``<last>`` of the next turn)."""
    ply: int = 0
    """Moves on the board; the side to move is Order when even."""

    @classmethod
    def from_opening(cls, tokens: Sequence[str]) -> Position:
        """The position after ``tokens`` (``c4X``...), played from the empty board.

        Raises ValueError for a token that is not a move, a move on an occupied cell, or a move
        that makes five in a line: an opening is a position where the game is still open.
        """
        position = cls()
        for token in tokens:
            move = PLY_MOVES.get(token.encode("ascii", "replace"))
            if move is None:
                raise ValueError(f"opening: not a move: {token!r}")
            if position.occupied & move.bit:
                raise ValueError(f"opening: {move.text} is on an occupied cell")
            mine = position.play(move)
            if any(mine & window == window for window in move.windows):
                raise ValueError(f"opening: {move.text} makes five in a line")
        return position

    def play(self, move: PlyMove) -> int:
        """Play a move on a free cell; the mover's mark's bitboard after it."""
        self.occupied |= move.bit
        mine = self.bits[move.mark] | move.bit
        self.bits[move.mark] = mine
        self.board[move.cell] = move.char
        self.last = move.token
        self.ply += 1
        return mine
