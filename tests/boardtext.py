"""Reading a board that ``arena replay`` or ``arena play`` drew back into cells, and checking it
against the position the rules engine reaches with the moves (not against ``arena.boardview``,
the code under test)."""

from __future__ import annotations

from arena.rules import CELLS, COLUMNS, WINDOWS, Board, Move

__all__ = ["drawn", "position", "fives", "assert_frame", "cell_name"]


def cell_name(cell: int) -> str:
    """``a1`` for cell 0, as the rules name cells (columns a-f, rows 1-6 from the top)."""
    return COLUMNS[cell % 6] + str(cell // 6 + 1)


def drawn(screen: str) -> dict[str, str]:
    """The cells of the last board in ``screen``: ``{"a1": " X ", "b4": "[O]", ...}`` (each cell
    three characters, as drawn), after checking the coordinates around it."""
    lines = screen.splitlines()
    top = max(i for i, line in enumerate(lines) if line.rstrip() == "    a  b  c  d  e  f")
    cells = {}
    for row in range(1, 7):
        line = lines[top + row]
        assert line.startswith(f" {row} ") and line.rstrip().endswith(f" {row}"), line
        body = line[3 : 3 + 18]
        for col, letter in enumerate(COLUMNS):
            cells[f"{letter}{row}"] = body[3 * col : 3 * col + 3]
    return cells


def position(moves: list[str]) -> Board:
    board = Board()
    for token in moves:
        board.push(Move.parse(token))
    return board


def fives(board: Board) -> set[str]:
    """The cells of every line of five on ``board``, by the rules' windows."""
    names = {cell: cell_name(cell) for cell in range(CELLS)}
    found: set[str] = set()
    for bits in board.bits:
        for window in WINDOWS:
            if bits & window == window:
                found |= {names[c] for c in range(CELLS) if window >> c & 1}
    return found


def assert_frame(cells: dict[str, str], moves: list[str], final: bool) -> None:
    """The drawing shows the position after ``moves``: every mark, ``[m]`` on the last move only,
    ``(m)`` on the winning five (when ``final``) and nowhere else."""
    board = position(moves)
    text = board.board_string()
    last = moves[-1][:2].lower() if moves else None
    five = fives(board) if final else set()
    for cell in range(CELLS):
        name = cell_name(cell)
        mark = text[cell]
        if name == last:
            want = f"[{mark}]"
        elif name in five:
            want = f"({mark})"
        else:
            want = f" {mark} "
        assert cells[name] == want, (name, cells[name], want, moves)
