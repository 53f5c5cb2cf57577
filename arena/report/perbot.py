"""A section per bot (its games by opponent and role, its faults, the end of its stderr) and
the table of every game: what a bot's author is sent a link to.

Each bot's section has the anchor ``#bot-NAME`` and each game's row ``#game-N``
(``arena.report.anchors``); the standings and the faults link to them. Beyond
``MAX_LISTED_GAMES`` games only the latest are listed and linked (a bot's totals cover them
all), so that a large tournament's page stays a few megabytes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from arena.report.anchors import bot_anchor, bot_link, e, game_anchor, game_link

if TYPE_CHECKING:
    from arena.ratings.standings import BotStanding
    from arena.report.audience import Audience
    from arena.report.data import FaultGame, GameRow, ReportData


MAX_LISTED_GAMES = 5_000
"""Games the games table lists and the bots' sections link at most (the latest)."""

REASONS = {"five": "five in a row", "full": "full board", "illegal": "illegal move"}
"""How a game ended, in words, where the reason's own name is not plain enough."""

# opponent -> role -> [(game number, won)]
_Meetings = dict[str, dict[str, list[tuple[int, bool]]]]


def _meetings(rows: Sequence[GameRow]) -> dict[str, _Meetings]:
    """Per bot, per opponent and role, its listed games and whether it won each."""
    met: dict[str, _Meetings] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for row in rows[-MAX_LISTED_GAMES:]:
        met[row.order][row.chaos]["order"].append((row.number, row.order_won))
        met[row.chaos][row.order]["chaos"].append((row.number, not row.order_won))
    return met


def _games_cell(games: list[tuple[int, bool]]) -> str:
    """``2/3: 4 9 17``, the won games' numbers in bold, each a link to its row."""
    if not games:
        return "-"
    won = sum(w for _, w in games)
    links = " ".join(game_link(n, "won" if w else "") for n, w in games)
    return f"{won}/{len(games)}: {links}"


def fault_rows(faults: Sequence[FaultGame], audience: Audience, *, bot: bool = True) -> str:
    """The rows of a faulted games table: game, (bot at fault,) role, opponent, fault, plies,
    detail."""
    return "".join(
        f"<tr><td>{game_link(f.number)}</td>"
        + (f'<td class="name">{bot_link(f.bot)}</td>' if bot else "")
        + f'<td class="name">{e(f.role)}</td><td class="name">{bot_link(f.opponent)}</td>'
        f'<td class="name">{e(f.reason)}</td><td>{f.plies}</td>'
        f'<td class="detail">{e(audience.text(f.detail) or "-")}</td></tr>'
        for f in faults
    )


def _bot_faults(data: ReportData, bot: BotStanding, audience: Audience) -> str:
    from arena.ratings.standings import FAULT_NAMES

    extras = data.bots.get(bot.name)
    if not bot.fault_total or extras is None:
        return '<p class="note">No game lost by its own fault.</p>'
    counts = ", ".join(f"{bot.faults[r]} {r}" for r in FAULT_NAMES if bot.faults[r])
    shown = len(extras.faults)
    latest = f" (the latest {shown})" if shown < bot.fault_total else ""
    return (
        f"<p>{bot.fault_total} game{'s' * (bot.fault_total != 1)} lost by its own fault: "
        f"{e(counts)}{latest}.</p>"
        '<table class="bot-faults"><thead><tr><th>game</th><th class="name">as</th>'
        '<th class="name">against</th><th class="name">fault</th><th>plies</th>'
        '<th class="name">detail</th></tr></thead>'
        f"<tbody>{fault_rows(extras.faults[-shown:], audience, bot=False)}</tbody></table>"
    )


def _bot_stderr(data: ReportData, name: str, audience: Audience) -> str:
    extras = data.bots.get(name)
    if audience.public or extras is None:
        return ""
    if not extras.stderr:
        return '<p class="note">It wrote nothing on stderr.</p>'
    which = "the latest game it lost by a fault" if extras.stderr_of_fault else "its latest game"
    lines = "\n".join(e(line) for line in extras.stderr)
    return (
        f"<p>The end of its stderr in {which} ({game_link(extras.stderr_game or 0)}):</p>"
        f'<pre class="stderr">{lines}</pre>'
    )


def _bot_article(data: ReportData, bot: BotStanding, met: _Meetings, audience: Audience) -> str:
    t = bot.tally
    rows = "".join(
        f"<tr><td>{bot_link(opponent)}</td><td>{_games_cell(roles.get('order', []))}</td>"
        f"<td>{_games_cell(roles.get('chaos', []))}</td></tr>"
        for opponent, roles in met.items()
    )
    games = (
        '<table class="bot-games"><thead><tr><th class="name">against</th>'
        '<th class="name">as Order: won/played, games</th>'
        '<th class="name">as Chaos: won/played, games</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
        if rows
        else '<p class="note">No games yet.</p>'
    )
    return (
        f'<article class="bot" id="{bot_anchor(bot.name)}">'
        f"<h3>{bot.rank}. {e(audience.label(bot.name, bot.display_name))}"
        f' <a class="self" href="#{bot_anchor(bot.name)}" title="this section\'s link">#</a></h3>'
        f"<p>{t.games} games; won {t.wins_order}/{t.games_order} as Order and"
        f" {t.wins_chaos}/{t.games_chaos} as Chaos; Elo {e(bot.rating.text())}."
        ' <a href="#standings">standings</a></p>'
        f"{games}{_bot_faults(data, bot, audience)}{_bot_stderr(data, bot.name, audience)}"
        "</article>"
    )


def bots_section(data: ReportData, audience: Audience) -> str:
    """Every bot's section, in standings order."""
    met = _meetings(data.rows)
    listed = len(data.rows[-MAX_LISTED_GAMES:])
    among = "" if listed == len(data.rows) else f" (among the latest {listed} games)"
    note = (
        f'<p class="note">Each bot\'s games{among} by opponent and role, game numbers in bold'
        " where it won (each links to the game's row), its faults"
        + ("" if audience.public else " and the end of its stderr")
        + ". A bot's heading is an anchor: its link can be sent to its author.</p>"
    )
    return note + "".join(
        _bot_article(data, bot, met.get(bot.name, {}), audience) for bot in data.standings.bots
    )


def _game_row(row: GameRow, viewed: bool) -> str:
    winner = "Order" if row.order_won else "Chaos"
    watch = f'<a href="#viewer" data-view="{row.number}">watch</a>' if viewed else ""
    return (  # left-aligned cells but the numbers (report.css), no class on each cell
        f'<tr id="{game_anchor(row.number)}"><td>{row.number}</td><td>{bot_link(row.order)}</td>'
        f"<td>{bot_link(row.chaos)}</td><td>{winner}</td>"
        f"<td>{e(REASONS.get(row.reason, row.reason))}</td><td>{row.plies}</td>"
        f"<td>{watch}</td></tr>"
    )


def games_section(data: ReportData) -> str:
    """The table of games, a row (and an anchor) each; those the viewer holds can be watched."""
    rows = data.rows[-MAX_LISTED_GAMES:]
    viewed = {g.number for g in data.viewer}
    shown = f"the latest {len(rows)} of {len(data.rows)}" if len(rows) < len(data.rows) else "all"
    return (
        f'<p class="note">{shown.capitalize()} games, by number (the number'
        " <code>arena replay DB GAME</code> shows).</p>"
        '<table id="games-table"><thead><tr><th>game</th><th class="name">Order</th>'
        '<th class="name">Chaos</th><th class="name">winner</th><th class="name">how</th>'
        '<th>plies</th><th class="name">viewer</th></tr></thead>'
        f"<tbody>{''.join(_game_row(r, r.number in viewed) for r in rows)}</tbody></table>"
    )
