"""The standings as CSV, for a gradebook: one row per bot, ranks shared by ties, every rating
with its interval or its bound, cells escaped as the games' CSV export escapes them."""

from __future__ import annotations

import csv
from typing import TYPE_CHECKING, Any, TextIO

from arena.export.formats import csv_cell

if TYPE_CHECKING:
    from arena.ratings.standings import BotStanding, Rating, Standings


STANDINGS_FIELDS = (
    "rank", "tied", "bot", "display_name", "games", "wins", "score_percent",
    "elo", "elo_ci95", "elo_bound", "elo_order", "elo_order_bound", "elo_chaos",
    "elo_chaos_bound", "faults",
)  # fmt: skip
"""The columns: ``rank`` is shared by tied bots (``tied`` true); a rating is a whole number of
Elo points, empty without games, and its ``_bound`` says ``lower bound`` (won every game) or
``upper bound`` (lost every game), when the data give no value."""

_BOUNDS = {">": "lower bound", "<": "upper bound", "": ""}


def write_standings_csv(standings: Standings, out: TextIO) -> int:
    """A header and a row per bot, best first; the number of rows."""
    writer = csv.writer(out)
    writer.writerow(STANDINGS_FIELDS)
    for bot in standings.bots:
        writer.writerow([csv_cell(value) for value in _row(bot)])
    return len(standings.bots)


def _row(bot: BotStanding) -> list[Any]:
    return [
        bot.shared_rank or bot.rank,
        "true" if bot.tied else "false",
        bot.name,
        bot.display_name,
        bot.tally.games,
        bot.tally.wins,
        "" if bot.score is None else round(100 * bot.score, 1),
        *_rating(bot.rating, interval=True),
        *_rating(bot.order),
        *_rating(bot.chaos),
        bot.fault_total,
    ]


def _rating(rating: Rating, interval: bool = False) -> list[Any]:
    """Its value (a whole number, empty: none), its interval's half-width when asked, its bound."""
    value = "" if rating.value is None else round(rating.value)
    ci95 = [""] if rating.ci95 is None else [round(rating.ci95)]
    return [value, *(ci95 if interval else []), _BOUNDS[rating.bound]]
