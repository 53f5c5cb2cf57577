"""An independent referee for game records, written apart from ``arena.rules`` and the referee.

A brute-force 6x6 grid: every move legal, the outcome the one the rules give, the times sane. The
tests check every record a real match leaves against it, so that a bug shared by the rules engine
and the referee's fast position cannot pass unseen.
"""

from __future__ import annotations

import re

from arena.records import GameRecord
from arena.rules import Reason, Role

_TOKEN = re.compile(r"([a-f])([1-6])([XO])")


def _naive_five(grid: list[list[str | None]]) -> bool:
    """Whether five equal marks stand in a row, column or diagonal (brute force)."""
    for row in range(6):
        for col in range(6):
            mark = grid[row][col]
            if mark is None:
                continue
            for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(row + d_row * k, col + d_col * k) for k in range(5)]
                if all(0 <= r < 6 and 0 <= c < 6 and grid[r][c] == mark for r, c in cells):
                    return True
    return False


def assert_record_consistent(record: GameRecord, move_ms: int | None = None) -> None:
    """Replay ``record`` on a plain 6x6 grid: every move legal, the outcome the one the rules give.

    Moves alternate by position (Order plays the even-numbered plies, the opening's included), so
    a legal sequence and the right count are what "alternating" means for a record. ``five``: a
    five appears exactly at the last move, Order wins. ``full``: 36 moves without five, Chaos
    wins. A fault: no five and fewer than 36 moves (the game was not over by the rules).
    """
    grid: list[list[str | None]] = [[None] * 6 for _ in range(6)]
    five_at = None
    plies = [*record.opening, *record.moves]
    for ply, token in enumerate(plies):
        parsed = _TOKEN.fullmatch(token)
        assert parsed, f"move {ply + 1} is not a move token: {token!r}"
        assert five_at is None, f"move {ply + 1} ({token}) played after the game was won"
        col, row = "abcdef".index(parsed[1]), int(parsed[2]) - 1
        assert grid[row][col] is None, f"move {ply + 1} ({token}) is on an occupied cell"
        grid[row][col] = parsed[3]
        if _naive_five(grid):
            five_at = ply
    assert len(record.ms) == len(record.moves), "one time per move"
    count = len(plies)
    assert all(t >= 0 for t in record.ms)
    if move_ms is not None:
        assert all(t <= move_ms for t in record.ms), f"a move over {move_ms} ms: {record.ms}"
    assert record.started_at <= record.finished_at
    if record.reason is Reason.FIVE:
        assert record.winner is Role.ORDER
        assert five_at == count - 1, f"five at move {five_at}, game over at move {count}"
    elif record.reason is Reason.FULL:
        assert record.winner is Role.CHAOS
        assert count == 36 and five_at is None
    else:
        assert record.reason.is_fault
        assert five_at is None and count < 36, "a fault recorded after the game was over"
