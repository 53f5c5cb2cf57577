"""What a report shows, read from a store in one pass: the standings model plus the few per-game
facts the plots and the game viewer need.

Why one pass that keeps only compact facts: a 300-bot store holds about 90,000 games, and a full
``GameRecord`` per game (move times, stderr tails) would cost hundreds of megabytes just to draw
a histogram. The viewer does not embed every game either: beyond ``max_viewer_games`` it keeps an
even share of each bot's games in each role, so that any bot and role can still be looked at and
the page stays a few megabytes.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena.rules import FAULT_REASONS, WINDOWS, Move, Role

if TYPE_CHECKING:
    from arena.ratings.standings import Standings
    from arena.records import GameRecord


DEFAULT_MAX_VIEWER_GAMES = 3000
"""Games the viewer embeds at most (about 100 bytes each, and about 5 a move for its time and 6
more under a clock) unless told otherwise."""

MAX_FAULT_ROWS = 500
"""Faulted games listed one by one at most (the latest ones); the counts cover them all."""

MAX_BOT_FAULT_ROWS = 50
"""Faulted games a bot's own section lists at most (its latest): one bot's flood of faults
cannot push another's out of its section."""

STDERR_LINES = 12
"""Lines of a bot's stderr its section shows (the end of the latest game that left any)."""


@dataclass(frozen=True)
class GameFacts:
    """One stored game, reduced to what the report draws."""

    number: int
    """Its number in the store, as ``arena replay`` and ``arena faults`` show it."""
    order: str
    """The bot that played Order."""
    chaos: str
    """The bot that played Chaos."""
    order_won: bool
    """Whether Order won."""
    reason: str
    """How it ended (an ``arena.rules.Reason`` value)."""
    opening: int
    """How many of ``cells`` were the opening's, played before the bots' first turn."""
    moves: tuple[int, ...]
    """Every mark in the order written, opening first, as ``2 * cell + mark`` (mark 0 is X)."""
    detail: str
    """The referee's detail on a fault (bot-controlled text, escaped for the terminal only)."""
    measure: str
    """How ``times`` were measured (``wall`` or ``cpu``)."""
    times: array[float]
    """The time charged for each of the bots' moves in ms (an array: 8 bytes a move, not a float
    object's 32, for every game of a 90,000-game store)."""
    clock: tuple[int, int | None, array[float]] | None
    """Under a game clock: each bot's clock at the start, the increment (None when the moves do
    not tell it) and the mover's clock after each of the bots' moves, in ms; None without one."""

    @property
    def plies(self) -> int:
        """Marks on the board at the end."""
        return len(self.moves)


@dataclass(frozen=True)
class FaultGame:
    """One game lost by a bot's own fault, as the faults section lists it."""

    number: int
    """The game's number in the store."""
    bot: str
    """The bot at fault."""
    role: str
    """The role it played (``order``/``chaos``)."""
    opponent: str
    """The other bot."""
    reason: str
    """The fault (``timeout``, ``illegal``...)."""
    plies: int
    """Marks on the board when it happened."""
    detail: str
    """What the referee saw (bot-controlled text: the page escapes it)."""


@dataclass(frozen=True)
class GameRow:
    """One stored game as the games table lists it (and a bot's section links to it)."""

    number: int
    order: str
    chaos: str
    order_won: bool
    reason: str
    plies: int


@dataclass
class BotExtras:
    """What a bot's section shows beyond its standing: its latest faults and stderr."""

    faults: list[FaultGame]
    """Its latest faulted games (at most ``MAX_BOT_FAULT_ROWS``), oldest first."""
    stderr_game: int | None = None
    """The game whose stderr ``stderr`` ends: its latest faulted one that left any, else its
    latest game that left any."""
    stderr: tuple[str, ...] = ()
    """The last lines of that stderr (bot-controlled text: the page escapes it)."""
    stderr_of_fault: bool = False
    """Whether ``stderr_game`` is one the bot lost by a fault (later games do not replace it)."""


@dataclass(frozen=True)
class ReportData:
    """Everything the page renders."""

    title: str
    """The tournament's name (from the store), or the store's file name."""
    standings: Standings
    """The standings model, as ``arena ratings`` prints it."""
    plies: dict[str, list[int]]
    """Game lengths (marks on the board at the end) by how the game ended: ``five``, ``full``
    and ``fault``."""
    chaos_losses: dict[str, list[int]]
    """Per Chaos bot, the plies of each game it lost by a five (how long it held out)."""
    faults: list[FaultGame]
    """The latest faulted games (at most ``MAX_FAULT_ROWS``), oldest first."""
    fault_games: int
    """Faulted games in all (``faults`` may list fewer)."""
    viewer: list[GameFacts]
    """The games the viewer embeds, in store order."""
    viewer_share: int | None
    """None when the viewer holds every game; else the most games per bot and role it keeps."""
    rows: list[GameRow]
    """Every game, in store order."""
    bots: dict[str, BotExtras]
    """Per bot with games: its latest faults and the end of its stderr."""
    period: tuple[float, float] | None
    """When the first game started and the last ended (Unix time), None without games."""

    @property
    def games(self) -> int:
        """Games in the report."""
        return self.standings.games


def winning_cells(moves: Sequence[int]) -> list[int]:
    """The cells of every complete line of five (one mark) on the board after ``moves``, sorted:
    the winning five, or six when the line is six long. Empty when there is none."""
    bits = [0, 0]
    for code in moves:
        bits[code & 1] |= 1 << (code >> 1)
    found = 0
    for window in WINDOWS:
        if bits[0] & window == window or bits[1] & window == window:
            found |= window
    return [cell for cell in range(36) if found >> cell & 1]


def _codes(tokens: Iterable[str]) -> list[int]:
    codes = []
    for token in tokens:
        move = Move.parse(token)
        codes.append(2 * move.cell + int(move.mark))
    return codes


def clock_increment(record: GameRecord) -> int | None:
    """The increment of ``record``'s clock, read back from its moves (the store keeps the clock's
    start and what each move left, not the increment): each clock after a move is the clock
    before, less the move's time (not below 0), plus the increment, in whole ms. None without a
    clock, before any move, or when the moves disagree (a hand-made store)."""
    start, left, used = record.clock_start_ms, record.clock_ms, record.ms
    if start is None or not left or len(left) > len(used):
        return None
    clocks = [float(start)] * 2
    first = len(record.opening) & 1
    found = set()
    for i, after in enumerate(left):
        side = (first + i) & 1
        found.add(round(after - max(clocks[side] - used[i], 0.0)))
        clocks[side] = after
    return found.pop() if len(found) == 1 else None


def _facts(number: int, record: GameRecord) -> GameFacts:
    opening = _codes(record.opening)
    clock = None
    if record.clock_ms is not None and record.clock_start_ms is not None:
        clock = (record.clock_start_ms, clock_increment(record), array("d", record.clock_ms))
    return GameFacts(
        number=number,
        order=record.order,
        chaos=record.chaos,
        order_won=record.winner is Role.ORDER,
        reason=record.reason.value,
        opening=len(opening),
        moves=tuple(opening + _codes(record.moves)),
        detail=record.detail,
        measure=record.measure,
        times=array("d", record.ms),
        clock=clock,
    )


def select_for_viewer(games: Sequence[GameFacts], limit: int) -> tuple[list[GameFacts], int | None]:
    """All ``games`` when they are at most ``limit``; else, in store order, each game that one of
    its bots still needs in its role, up to an equal share per bot and role (at least one), so
    that every bot's play in both roles stays in the viewer. Returns the games and the share
    (None: all kept)."""
    if len(games) <= limit:
        return list(games), None
    names = {g.order for g in games} | {g.chaos for g in games}
    share = max(1, limit // (2 * max(1, len(names))))
    as_order: dict[str, int] = {}
    as_chaos: dict[str, int] = {}
    kept = []
    for g in games:
        if as_order.get(g.order, 0) < share or as_chaos.get(g.chaos, 0) < share:
            as_order[g.order] = as_order.get(g.order, 0) + 1
            as_chaos[g.chaos] = as_chaos.get(g.chaos, 0) + 1
            kept.append(g)
    return kept, share


def collect(
    records: Iterable[GameRecord] | Iterable[tuple[int, GameRecord]],
    *,
    title: str,
    max_viewer_games: int = DEFAULT_MAX_VIEWER_GAMES,
    names: Sequence[str] = (),
    standings: Standings | None = None,
) -> ReportData:
    """Read ``records`` once into a ``ReportData`` (with ``standings`` when the caller fitted
    them from the same games: the fit is the costly part).

    ``records`` are ``(number, record)`` pairs as ``Store.numbered_games`` gives them, so that a
    game's number in the page opens the same game in ``arena replay``; plain records are
    numbered from 1 in their order."""
    from arena.ratings import GameResult
    from arena.ratings.standings import compute_all

    results: list[GameResult] = []
    facts: list[GameFacts] = []
    plies: dict[str, list[int]] = {"five": [], "full": [], "fault": []}
    chaos_losses: dict[str, list[int]] = {}
    faults: list[FaultGame] = []
    fault_games = 0
    shown: dict[str, str] = {}  # each bot's display name in its latest game that gave one
    bots: dict[str, BotExtras] = {}
    start, end = float("inf"), float("-inf")
    for count, item in enumerate(records, 1):
        number, record = item if isinstance(item, tuple) else (count, item)
        results.append(GameResult.from_record(record))
        shown.update((n, d) for n, d in _displays(record) if d)
        start, end = min(start, record.started_at), max(end, record.finished_at)
        game = _facts(number, record)
        facts.append(game)
        fault = None
        if record.reason in FAULT_REASONS:
            plies["fault"].append(game.plies)
            fault_games += 1
            fault = _fault(game)
            faults.append(fault)
            if len(faults) > 2 * MAX_FAULT_ROWS:
                del faults[:-MAX_FAULT_ROWS]
        else:
            plies[game.reason].append(game.plies)
            if game.order_won:
                chaos_losses.setdefault(game.chaos, []).append(game.plies)
        _note_bots(bots, number, record, fault)
    viewer, share = select_for_viewer(facts, max_viewer_games)
    return ReportData(
        title=title,
        standings=standings or compute_all(results, names=names, display_names=shown),
        plies=plies,
        chaos_losses=chaos_losses,
        faults=faults[-MAX_FAULT_ROWS:],
        fault_games=fault_games,
        viewer=viewer,
        viewer_share=share,
        rows=[GameRow(g.number, g.order, g.chaos, g.order_won, g.reason, g.plies) for g in facts],
        bots=bots,
        period=(start, end) if facts else None,
    )


def _displays(record: GameRecord) -> tuple[tuple[str, str], tuple[str, str]]:
    """Each bot of ``record`` with the name it gave itself in that game (or "")."""
    return (record.order, record.order_display), (record.chaos, record.chaos_display)


def _note_bots(
    bots: dict[str, BotExtras], number: int, record: GameRecord, fault: FaultGame | None
) -> None:
    """Keep in each of ``record``'s bots' extras its fault and the end of its stderr: the latest
    faulted game's that left any, else the latest game's."""
    from arena.referee.verdicts import last_lines

    for name, stderr in ((record.order, record.stderr_order), (record.chaos, record.stderr_chaos)):
        extras = bots.setdefault(name, BotExtras([]))
        at_fault = fault is not None and fault.bot == name
        if at_fault and fault is not None:
            extras.faults.append(fault)
            if len(extras.faults) > 2 * MAX_BOT_FAULT_ROWS:
                del extras.faults[:-MAX_BOT_FAULT_ROWS]
        if stderr.strip() and (at_fault or not extras.stderr_of_fault):
            extras.stderr_game = number
            extras.stderr = tuple(last_lines(stderr, STDERR_LINES))
            extras.stderr_of_fault = at_fault


def _fault(game: GameFacts) -> FaultGame:
    from arena.referee.verdicts import DETAIL_WIDTH, shown_detail

    bot, opponent, role = (
        (game.chaos, game.order, "chaos") if game.order_won else (game.order, game.chaos, "order")
    )
    return FaultGame(
        number=game.number,
        bot=bot,
        role=role,
        opponent=opponent,
        reason=game.reason,
        plies=game.plies,
        detail=shown_detail(game.detail, DETAIL_WIDTH),
    )


def _compact(value: float, digits: int) -> float | int:
    """``value`` rounded to ``digits`` decimals, as an int when whole (``1`` is shorter than
    ``1.0`` in JSON, on every move of every game)."""
    rounded = round(value, digits)
    return int(rounded) if rounded == int(rounded) else rounded


def _clock_json(clock: tuple[int, int | None, array[float]] | None) -> list[Any]:
    """``[[start, increment, [clock after each move]]]`` in whole ms, or nothing at all."""
    if clock is None:
        return []
    start, increment, left = clock
    return [[start, increment, [round(x) for x in left]]]


def viewer_json(
    data: ReportData, text: Callable[[str], str] = lambda written: written
) -> dict[str, Any]:
    """The viewer's data: bot names once, then per game ``[number, order, chaos, winner,
    reason, opening, moves, win, detail, times, measure]`` and, only for a game under a clock,
    ``clock``. Bots are indices into ``names``, the winner ``0`` for Order and ``1`` for Chaos,
    ``moves`` are ``2 * cell + mark`` codes and ``win`` the cells of the winning five on the
    final board (empty unless it ended with one). ``times``: the time charged for each of the
    bots' own moves (after the opening), in ms to 0.1, as ``measure`` (``wall``/``cpu``) says.
    ``clock``: ``[start, increment, left]``, each bot's clock at the start, the increment (null
    when unknown) and the mover's clock after each of the bots' moves, in whole ms. ``text``
    gives a bot-written detail as the page shows it."""
    from arena.referee.verdicts import DETAIL_WIDTH, shown_detail

    names = data.standings.names
    index = {name: i for i, name in enumerate(names)}
    games = [
        [
            g.number,
            index[g.order],
            index[g.chaos],
            0 if g.order_won else 1,
            g.reason,
            g.opening,
            list(g.moves),
            winning_cells(g.moves) if g.reason == "five" else [],
            text(shown_detail(g.detail, DETAIL_WIDTH)) if g.reason in FAULT_REASONS else "",
            [_compact(t, 1) for t in g.times],
            g.measure,
            *_clock_json(g.clock),
        ]
        for g in data.viewer
    ]
    return {"names": names, "games": games, "share": data.viewer_share, "total": data.games}
