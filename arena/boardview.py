"""What a stored game looks like, ply by ply: positions, the last move, the winning five, as text.

Pure (no I/O), next to the rules: ``arena replay``, ``arena play`` and the HTML report's viewer
must show the same position with the same highlights, so they all take them from here rather
than each replaying the moves their own way.

A game is its ``opening`` (plies placed before the bots' first turn) followed by its ``moves``.
``frames`` turns it into one ``Frame`` per ply, frame 0 being the empty board. The last frame of
a game that ended by the rules carries the ``outcome``; the cells of every completed line of five
are in ``five`` (a line of six shows all six).

Text. ``render`` draws a position with coordinates (columns ``a``-``f`` left to right, rows
``1``-``6`` top to bottom, as the rules name cells), each cell three characters wide: ``[X]`` is
the last move and ``(X)`` a cell of the winning five, so that the highlights survive plain text
(a paste into a bug report, ``NO_COLOR``). ``render_rich`` is the same text with styles on top.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena.rules import CELLS, COLUMNS, SIZE, WINDOWS, Board, Move, Outcome, Role, cell_name

if TYPE_CHECKING:  # rich is imported only by render_rich: the plain path stays light
    from rich.text import Text


LAST_STYLE = "bold reverse"
"""How ``render_rich`` styles the last move (reverse video: visible with any palette)."""
FIVE_STYLE = "bold green"
"""How ``render_rich`` styles the cells of the winning five."""
OPENING_STYLE = "dim"
"""How ``render_rich`` styles the marks of the opening (not played by the bots)."""


@dataclass(frozen=True)
class Frame:
    """One position of a game, after ``ply`` plies."""

    ply: int
    """Plies on the board (0: the empty board before the first move)."""
    board: str
    """The position as the protocol's 36 characters (``.``/``X``/``O``, row 1 first)."""
    last: str | None
    """The token of the move that made this position (``c4X``), None at ply 0."""
    mover: Role | None
    """The role that played ``last`` (Order on odd plies), None at ply 0."""
    in_opening: bool
    """Whether ``last`` was a move of the opening, not one of the bots'."""
    five: tuple[int, ...]
    """Cell indices of every completed line of five, sorted (empty unless Order has just won)."""
    outcome: Outcome | None
    """The result under the rules when this position ends the game, else None."""
    opening_cells: frozenset[int] = frozenset()
    """Cells whose marks were placed by the opening."""

    @property
    def last_cell(self) -> int | None:
        """The cell index of ``last``."""
        return None if self.last is None else Move.parse(self.last).cell

    def to_json(self) -> dict[str, Any]:
        """The frame as JSON-ready data (for the report's viewer: cells as indices 0-35)."""
        return {
            "ply": self.ply,
            "board": self.board,
            "last": self.last,
            "last_cell": self.last_cell,
            "mover": None if self.mover is None else self.mover.value,
            "in_opening": self.in_opening,
            "five": list(self.five),
            "winner": None if self.outcome is None else self.outcome.winner.value,
            "reason": None if self.outcome is None else self.outcome.reason.value,
        }


def five_cells(board: Board) -> tuple[int, ...]:
    """The cells of every line of five standing on ``board``, sorted (empty if there is none)."""
    cells: set[int] = set()
    for bits in board.bits:
        for window in WINDOWS:
            if bits & window == window:
                cells.update(c for c in range(CELLS) if window >> c & 1)
    return tuple(sorted(cells))


def frames(moves: Sequence[str], opening: Sequence[str] = ()) -> list[Frame]:
    """Every position of a game: frame 0 is the empty board, frame ``i`` follows ``i`` plies.

    ``opening`` and ``moves`` are move tokens (``c4X``, any case), as a ``GameRecord`` keeps
    them. Raises ValueError naming the ply of a token that is not a move, a move on an occupied
    cell, or a move after the game was over (a damaged record).
    """
    board = Board()
    result = [Frame(0, board.board_string(), None, None, False, (), None)]
    opening_cells: set[int] = set()
    tokens = [(t, True) for t in opening] + [(t, False) for t in moves]
    for ply, (token, in_opening) in enumerate(tokens, start=1):
        try:
            move = Move.parse(token)
            board.push(move)
        except ValueError as exc:  # IllegalMoveError is a ValueError
            raise ValueError(f"ply {ply} ({token!r}): {exc}") from None
        if in_opening:
            opening_cells.add(move.cell)
        outcome = board.outcome
        five = five_cells(board) if outcome is not None and board.has_five() else ()
        result.append(
            Frame(
                ply=ply,
                board=board.board_string(),
                last=move.token,
                mover=Role.ORDER if ply & 1 else Role.CHAOS,
                in_opening=in_opening,
                five=five,
                outcome=outcome,
                opening_cells=frozenset(opening_cells),
            )
        )
    return result


def _cells(frame: Frame) -> list[tuple[str, str | None]]:
    """Each cell's three characters and its style (None: unstyled), row by row."""
    last = frame.last_cell
    five = set(frame.five)
    out: list[tuple[str, str | None]] = []
    for cell, char in enumerate(frame.board):
        if cell == last:
            out.append((f"[{char}]", LAST_STYLE))
        elif cell in five:
            out.append((f"({char})", FIVE_STYLE))
        elif cell in frame.opening_cells:
            out.append((f" {char} ", OPENING_STYLE))
        else:
            out.append((f" {char} ", None))
    return out


def _pieces(frame: Frame) -> list[tuple[str, str | None]]:
    """The whole board as (text, style) pieces: a header of column letters, then the rows."""
    cells = _cells(frame)
    pieces: list[tuple[str, str | None]] = [("    " + "  ".join(COLUMNS) + "\n", "dim")]
    for row in range(SIZE):
        pieces.append((f" {row + 1} ", "dim"))
        pieces.extend(cells[row * SIZE : (row + 1) * SIZE])
        pieces.append((f" {row + 1}\n" if row < SIZE - 1 else f" {row + 1}", "dim"))
    return pieces


def render(frame: Frame) -> str:
    """The position as plain text: coordinates around it, ``[X]`` the last move, ``(X)`` five.

    ::

            a  b  c  d  e  f
         1 (X) .  .  .  .  .  1
         2  . (X) O  .  .  .  2
         ...
    """
    return "".join(text for text, _style in _pieces(frame))


def render_rich(frame: Frame) -> Text:
    """``render``'s text with styles: the last move in reverse video, the five in green."""
    from rich.text import Text

    text = Text()
    for piece, style in _pieces(frame):
        text.append(piece, style=style or "")
    return text


def describe(frame: Frame, total: int, note: str = "") -> str:
    """One line under the board: the ply, who played what (then ``note``, e.g. how long it
    took), and the result when it is over."""
    if frame.ply == 0:
        head = f"ply 0/{total}: the empty board"
    else:
        assert frame.last is not None and frame.mover is not None
        who = "opening" if frame.in_opening else frame.mover.value.capitalize()
        head = f"ply {frame.ply}/{total}: {who} played {frame.last}"
    head += note
    if frame.outcome is not None:
        head += "; " + result_line(frame)
    return head


def result_line(frame: Frame) -> str:
    """How the game ended under the rules in this position: the five's cells, or a full board."""
    outcome = frame.outcome
    if outcome is None:
        return ""
    if outcome.winner is Role.ORDER:
        return "Order wins: five in a line " + " ".join(cell_name(c) for c in frame.five)
    return "Chaos wins: full board"


def typed_move(text: str, board: Board) -> Move:
    """The move a person typed (``c4X``, any case, spaces around ignored) if it is legal on
    ``board``; otherwise ValueError with one line saying what is wrong and what to type."""
    token = text.strip()
    example = "a column a-f, a row 1-6 and a mark X or O, e.g. c4X"
    if not token:
        raise ValueError(f"type a move: {example}")
    if len(token) != 3 or not token.isascii() or not token.isprintable():
        raise ValueError(f"{token!r} is not a move: {example}")
    column, row, mark = token[0].lower(), token[1], token[2].upper()
    if column not in COLUMNS:
        raise ValueError(f"{token!r}: no column {token[0]!r} (columns are a-f): {example}")
    if row not in "123456":
        raise ValueError(f"{token!r}: no row {row!r} (rows are 1-6): {example}")
    if mark not in "XO":
        raise ValueError(f"{token!r}: the mark must be X or O, not {token[2]!r}: {example}")
    move = Move.parse(column + row + mark)
    if board.is_game_over():
        raise ValueError("the game is over")
    taken = board.mark_at(move.cell)
    if taken is not None:
        raise ValueError(f"{column}{row} is taken (it holds {taken.char}): choose an empty cell")
    return move
