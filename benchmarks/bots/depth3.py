"""depth3: a fixed-depth (3 plies) alpha-beta bot, a reference written apart from ``arena.botlib``.

Why: the ladder is measured against an outside program, alpha-beta at depth 3. This bot is
an independent stand-in for it (it uses only ``arena.rules`` and the kit, none of the bundled
bots' code), to check that the best Order bot below ``perfect`` beats such a Chaos at least 95% of
the time: ``arena match bots/alphabeta/main.py benchmarks/bots/depth3.py --move-ms 200``.

Search: plain minimax with alpha-beta over every legal move (both marks in every empty cell), to
3 plies, a five scored as a win at once (sooner is better), a full board as a loss for Order.
Evaluation (Order's point of view): each of the 32 windows holding only one kind of mark scores
``4 ** marks``. Moves are ordered by their one-ply effect on that score so that alpha-beta cuts
early. It ignores the move time (depth 3 takes ~0.1-1 s in Python): give it a long ``--move-ms``
or run it in-process. Ties go to the first move in cell order (deterministic; ``ARENA_SEED``
unused).
"""

from __future__ import annotations

from arena.bot import BotState, run
from arena.rules import WINDOWS, WINDOWS_THROUGH, Board, Mark, Move, Role

DEPTH = 3
WIN = 10**9


def score(board: Board) -> int:
    x, o = board.bits
    total = 0
    for w in WINDOWS:
        a, b = (x & w).bit_count(), (o & w).bit_count()
        if a and b:
            continue
        total += 4 ** (a or b)
    return total


def delta(board: Board, move: Move) -> int:
    """The change of ``score`` made by ``move`` (windows through its cell only)."""
    x, o = board.bits
    mine, theirs = (x, o) if move.mark is Mark.X else (o, x)
    change = 0
    for w in WINDOWS_THROUGH[move.cell]:
        a, b = (mine & w).bit_count(), (theirs & w).bit_count()
        if a and b:
            continue
        if b:
            change -= 4**b
        else:
            change += 4 ** (a + 1) - 4**a
    return change


def search(board: Board, depth: int, alpha: int, beta: int, value: int) -> int:
    order = board.turn is Role.ORDER
    moves = board.legal_moves()
    if not moves:
        return -WIN
    scored = sorted(((delta(board, m), m) for m in moves), key=lambda s: -s[0] if order else s[0])
    best = -WIN * 2 if order else WIN * 2
    for change, move in scored:
        if board.push(move):
            result = WIN - board.ply
        elif board.is_full():
            result = -WIN
        elif depth <= 1:
            result = value + change
        else:
            result = search(board, depth - 1, alpha, beta, value + change)
        board.pop()
        if order:
            best = max(best, result)
            alpha = max(alpha, result)
        else:
            best = min(best, result)
            beta = min(beta, result)
        if alpha >= beta:
            break
    return best


def choose(state: BotState) -> Move:
    board = state.board
    order = board.turn is Role.ORDER
    base = score(board)
    best_move = board.legal_moves()[0]
    best = -WIN * 2 if order else WIN * 2
    alpha, beta = -WIN * 2, WIN * 2
    for move in board.legal_moves():
        change = delta(board, move)
        if board.push(move):
            result = WIN - board.ply
        elif board.is_full():
            result = -WIN
        else:
            result = search(board, DEPTH - 1, alpha, beta, base + change)
        board.pop()
        if (order and result > best) or (not order and result < best):
            best, best_move = result, move
        if order:
            alpha = max(alpha, result)
        else:
            beta = min(beta, result)
    return best_move


if __name__ == "__main__":
    run(choose, name="depth3")
