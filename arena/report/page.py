"""The report as one HTML page: tables, inlined SVG charts, the viewer's data and script.

Why one file with nothing outside it: a report is mailed, attached to an issue or opened from a
laptop without network; no stylesheet, font, script or image is fetched. Every string a bot or a
config controls (bot names, fault details, the tournament's name) is HTML-escaped here, at the
one place it becomes markup; the viewer's data is JSON inside a ``<script type="application/json">``
with ``<``, ``>`` and ``&`` written as ``\\u`` escapes, so no name can close the script.

The standings show every row, on screen and in print (a person reads them whole); the longer
tables sit in scrolling boxes on screen and print whole (``report.css``). Large tournaments:
matrices are images, and past a few dozen bots the per-bot charts and cell labels give way to
rank-only views (see ``plots``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any

from arena.ratings.standings import SURVIVAL_DEFINITION
from arena.report import plots
from arena.report.anchors import bot_anchor, e
from arena.report.audience import Audience
from arena.report.data import ReportData, viewer_json
from arena.report.perbot import bots_section, fault_rows, games_section

if TYPE_CHECKING:
    from arena.ratings.standings import BotStanding, Standings
    from arena.report.settings import TournamentSettings


def script_json(data: Any) -> str:
    """JSON that can sit inside a ``<script>`` element whatever the strings in it say."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def resource(name: str) -> str:
    """A file of the package (its style sheet, its scripts)."""
    return resources.files("arena.report").joinpath(name).read_text(encoding="utf-8")


def _rate(wins: int, games: int) -> str:
    return f"{wins}/{games}" if games else "-"


def _num(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


Cell = tuple[str, Callable[["BotStanding"], str], str]  # header, text, css class


def _standings_table(standings: Standings, audience: Audience) -> str:
    """Every row on the page, none in a box that scrolls down: a printed or captured page shows
    them all (only a narrow window scrolls it sideways)."""
    from arena.ratings.standings import FAULT_NAMES

    columns: list[Cell] = [
        ("#", lambda b: str(b.rank), ""),
        ("bot", lambda b: audience.label(b.name, b.display_name), "name"),
        ("games", lambda b: str(b.tally.games), ""),
        ("Elo ±95%", lambda b: b.rating.text(), ""),
        ("as Order ±95%", lambda b: b.order.text(), ""),
        ("as Chaos ±95%", lambda b: b.chaos.text(), ""),
        ("seq", lambda b: _num(b.sequential), ""),
        ("won as Order", lambda b: _rate(b.tally.wins_order, b.tally.games_order), ""),
        ("won as Chaos", lambda b: _rate(b.tally.wins_chaos, b.tally.games_chaos), ""),
        (
            "survival",
            lambda b: "-" if b.survival is None else _num(b.survival.mean_plies_lost, 1),
            "",
        ),
        ("faults", lambda b: str(b.fault_total), ""),
    ]
    head = "".join(f'<th class="{c}">{e(h)}</th>' for h, _, c in columns)
    rows = []
    for b in standings.bots:
        faults = ", ".join(f"{b.faults[r]} {r}" for r in FAULT_NAMES if b.faults[r])
        cells = []
        for header, text, css in columns:
            title = f' title="{e(faults)}"' if header == "faults" and faults else ""
            shown = e(text(b))
            if header == "bot":
                shown = f'<a href="#{bot_anchor(b.name)}">{shown}</a>'
            cells.append(f'<td class="{css}"{title}>{shown}</td>')
        rows.append(f'<tr data-bot="{e(b.name)}">{"".join(cells)}</tr>')
    return (
        f'<div class="wide"><table id="standings-table"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _standings_notes(standings: Standings) -> str:
    notes = [
        "Elo: a maximum-likelihood fit of all games at once (Bradley-Terry with Order's advantage;"
        " order-independent), with 95% intervals. As Order / as Chaos: the per-role fit (one"
        " scale for both roles). A value like &gt;1850 or &lt;1200 is a bound: the bot won or lost"
        " every game it played, and only the prior sets the number. seq: sequential Elo"
        f" (K={standings.elo.k:g}, start {standings.elo.initial:g}) over the games in a fixed"
        f" order. survival: the mean of {e(SURVIVAL_DEFINITION)}."
    ]
    if len(standings.groups) > 1:
        notes.append(
            f'<span class="warn">The games split the bots into {len(standings.groups)} groups'
            " that never met: ratings of bots in different groups are not comparable.</span>"
        )
    if not standings.fit.converged:
        notes.append(
            '<span class="warn">The fit did not converge: do not trust the numbers.</span>'
        )
    return "".join(f'<p class="note">{n}</p>' for n in notes)


def _matrix(
    standings: Standings, value: Callable[[str, str], float | None], text: Callable[[str, str], str]
) -> tuple[list[list[float | None]], list[list[str]]]:
    names = [b.name for b in standings.bots if b.tally.games]
    values = [[None if r == c else value(r, c) for c in names] for r in names]
    texts = [["" if r == c else text(r, c) for c in names] for r in names]
    return values, texts


def _cross_charts(standings: Standings) -> str:
    names = [b.name for b in standings.bots if b.tally.games]
    if len(names) < 2:
        return '<p class="note">A cross-table needs two bots with games.</p>'
    parts = [
        _role_heatmap(standings, names, "order", "Order"),
        _role_heatmap(standings, names, "chaos", "Chaos"),
        _los_heatmap(standings, names),
    ]
    charts = "".join(f'<div class="chart">{p}</div>' for p in parts)
    return (
        f'<div class="charts">{charts}</div>'
        '<p class="note">Grey: the two bots did not meet in that role. Bots in standings order.'
        + (
            f" Beyond {plots.LABELLED_BOTS} bots the axes are ranks in the standings table."
            if len(names) > plots.LABELLED_BOTS
            else ""
        )
        + "</p>"
    )


def _role_heatmap(standings: Standings, names: list[str], role: str, shown: str) -> str:
    """The share of games each bot won against each opponent in one role, with ``wins/games``."""
    cross = standings.cross

    def wins_of(r: str, c: str) -> tuple[int, int]:
        x = cross[r].get(c)
        if x is None:
            return 0, 0
        return (x.order_wins, x.order_games) if role == "order" else (x.chaos_wins, x.chaos_games)

    def value(r: str, c: str) -> float | None:
        wins, games = wins_of(r, c)
        return wins / games if games else None

    def text(r: str, c: str) -> str:
        wins, games = wins_of(r, c)
        return f"{wins}/{games}" if games else ""

    values, texts = _matrix(standings, value, text)
    return plots.heatmap(
        values,
        names,
        names,
        title=f"As {shown}: share of games won\n(row bot against column bot)",
        row_label=f"bot as {shown}",
        column_label="opponent",
        colour_label="games won",
        cells=texts,
        salt=f"cross-{role}",
    )


def _los_heatmap(standings: Standings, names: list[str]) -> str:
    """The likelihood that each bot is stronger than each other, in percent."""
    los = standings.los
    values, texts = _matrix(
        standings, lambda r, c: los[r][c], lambda r, c: f"{100 * los[r][c]:.0f}"
    )
    return plots.heatmap(
        values,
        names,
        names,
        title="Likelihood of superiority\nP(row bot stronger than column bot)",
        row_label="bot",
        column_label="opponent",
        colour_label="likelihood of superiority",
        cmap="RdBu",
        cells=texts,
        salt="los",
    )


def _faults_section(data: ReportData, audience: Audience) -> str:
    from arena.ratings.standings import FAULT_NAMES

    standings = data.standings
    faulty = [b for b in standings.bots if b.fault_total]
    if not faulty:
        return '<p id="no-faults">No game was lost by a bot\'s own fault.</p>'
    head = "".join(f"<th>{e(r)}</th>" for r in FAULT_NAMES)
    rows = "".join(
        f'<tr><td class="name"><a href="#{bot_anchor(b.name)}">{e(b.name)}</a></td>'
        f"<td>{b.fault_total}</td>"
        + "".join(f"<td>{b.faults[r] or ''}</td>" for r in FAULT_NAMES)
        + "</tr>"
        for b in faulty
    )
    table = (
        '<div class="scroll"><table id="faults-table"><thead><tr><th class="name">bot</th>'
        f"<th>all</th>{head}</tr></thead><tbody>{rows}</tbody></table></div>"
    )
    listed = fault_rows(data.faults, audience)
    shown = (
        f"the latest {len(data.faults)} of {data.fault_games}"
        if len(data.faults) < data.fault_games
        else f"all {data.fault_games}"
    )
    games = (
        f"<h3>Faulted games ({shown})</h3>"
        '<div class="scroll"><table id="fault-games"><thead><tr><th>game</th>'
        '<th class="name">bot at fault</th><th class="name">as</th>'
        '<th class="name">against</th><th class="name">fault</th><th>plies</th>'
        f'<th class="name">detail</th></tr></thead><tbody>{listed}</tbody></table></div>'
    )
    stderr = "" if audience.public else " and the end of its stderr"
    return (
        f"<p>{standings.fault_total} game{'s' * (standings.fault_total != 1)} lost by a bot's own"
        f" fault, per bot and reason (each bot's section lists its faults{stderr}).</p>"
        + table
        + games
    )


def _survival_section(data: ReportData) -> str:
    standings = data.standings
    chaos = [b for b in standings.bots if b.survival is not None]
    orders = [b.name for b in standings.bots if b.tally.games_order]
    parts = [f'<div class="chart">{plots.lengths_chart(data.plies)}</div>']
    box = plots.survival_chart(data.chaos_losses, [b.name for b in chaos])
    if box is not None:
        parts.append(f'<div class="chart">{box}</div>')
    if chaos and orders:

        def mean(c: str, o: str) -> float | None:
            survival = standings.bot(c).survival
            cell = None if survival is None else survival.by_order.get(o)
            return None if cell is None else cell.mean_plies_lost

        values = [[mean(c.name, o) for o in orders] for c in chaos]
        texts = [["" if v is None else f"{v:.1f}" for v in row] for row in values]
        parts.append(
            '<div class="chart">'
            + plots.heatmap(
                values,
                [c.name for c in chaos],
                orders,
                title="Chaos survival: mean plies before\nlosing, per Order opponent",
                row_label="bot as Chaos",
                column_label="opponent as Order",
                colour_label="mean plies before losing",
                cmap="viridis",
                vmin=9.0,
                vmax=36.0,
                cells=texts,
                salt="survival-matrix",
            )
            + "</div>"
        )
    rows = "".join(
        f'<tr><td class="name">{e(b.name)}</td><td>{b.survival.games}</td>'
        f"<td>{_pct(b.survival.win_rate)}</td><td>{_num(b.survival.mean_plies_lost, 1)}</td>"
        f"<td>{_num(b.survival.shortest_loss)}</td><td>{_num(b.survival.longest_loss)}</td></tr>"
        for b in chaos
        if b.survival is not None
    )
    table = (
        '<div class="scroll"><table id="survival-table"><thead><tr><th class="name">bot as'
        " Chaos</th><th>games</th><th>won</th><th>mean plies lost</th><th>shortest loss</th>"
        f"<th>longest loss</th></tr></thead><tbody>{rows}</tbody></table></div>"
    )
    note = (
        f'<p class="note">Chaos survival: {e(SURVIVAL_DEFINITION)}. Grey in the matrix: it'
        " never lost to that Order bot by a five, or never met it.</p>"
    )
    return f'<div class="charts">{"".join(parts)}</div>{note}{table}'


def _viewer_section(data: ReportData, audience: Audience) -> str:
    if data.viewer_share is None:
        note = f"All {data.games} games."
    else:
        note = (
            f"{len(data.viewer)} of the {data.games} games: the first {data.viewer_share} of each"
            " bot in each role, in store order (any game: <code>arena replay DB GAME</code>)."
        )
    return (
        f'<p class="note" id="v-note">{note} Keys: ← → step, Home/End: start and end.</p>'
        '<div class="controls">'
        '<label>Bot <select id="v-bot"><option value="">any bot</option></select></label>'
        '<label>as <select id="v-role"><option value="">either role</option>'
        '<option value="order">Order</option><option value="chaos">Chaos</option></select></label>'
        '<span id="v-count" class="note"></span></div>'
        '<div class="controls"><label>Game <select id="v-game"></select></label></div>'
        '<p id="v-head"></p>'
        '<div class="viewer"><div id="v-board" class="board"></div><div>'
        '<div class="steps"><button id="v-first" title="start (Home)">|&lt;</button> '
        '<button id="v-prev" title="back (←)">&lt;</button> '
        '<button id="v-next" title="forward (→)">&gt;</button> '
        '<button id="v-last" title="end (End)">&gt;|</button> <span id="v-ply"></span></div>'
        '<p id="v-status"></p>'
        '<p id="v-time"></p>'
        '<p class="note">Outlined: the last move. Grey marks: the opening. Yellow: the winning'
        " five. Under each position: the time its last move used and, under a game clock, both"
        " bots' clocks after it.</p></div></div>"
        '<script type="application/json" id="viewer-data">'
        f"{script_json(viewer_json(data, audience.text))}</script>"
        f"<script>{resource('viewer.js')}</script>"
    )


def live_sections(data: ReportData, audience: Audience | None = None) -> dict[str, str]:
    """The live page's tables, as the report renders them: section id -> HTML."""
    audience = audience or Audience()
    return {
        "standings": _standings_table(data.standings, audience) + _standings_notes(data.standings),
        "faults": _faults_section(data, audience),
    }


def live_charts(data: ReportData) -> dict[str, str]:
    """The live page's charts, as the report draws them (matplotlib): section id -> HTML."""
    played = any(b.tally.games for b in data.standings.bots)
    return {
        "ratings": f'<div class="chart">{plots.ratings_chart(data.standings)}</div>'
        if played
        else '<p class="note">No games yet.</p>',
        "cross": _cross_charts(data.standings),
    }


def _settings_line(data: ReportData, settings: TournamentSettings | None) -> list[str]:
    """The tournament's settings as the store keeps them, and how far its games got."""
    if settings is None:
        return [f"{len(data.standings.bots)} bots", f"{data.games} games"]
    parts = [
        settings.format,
        f"{settings.bots} bots",
        settings.pairing,
        settings.time_control,
        f"seed {settings.seed}",
    ]
    if settings.opening_plies:
        parts.append(f"random openings of {settings.opening_plies} plies")
    if settings.budget is not None:
        parts.append(f"a budget of {settings.budget} games")
    parts.append(f"{data.games} of {settings.owed} games played")
    return parts


def _dates(data: ReportData, written: float) -> str:
    from arena.report.settings import utc_minute

    played = ""
    if data.period is not None and data.period[0] > 0:  # 0: a store that kept no times
        first, last = (utc_minute(t) for t in data.period)
        played = f"played {first}" if first == last else f"played {first} to {last}"
        played += "; "
    return f"{played}report written {utc_minute(written)}"


def _header(data: ReportData, settings: TournamentSettings | None, written: float, nav: str) -> str:
    standings = data.standings
    summary = _settings_line(data, settings)
    if standings.distinct_games is not None and standings.distinct_games != data.games:
        summary.append(f"{standings.distinct_games} distinct")
    results = [f"Order won {_pct(standings.order_win_rate)}"]
    if standings.role_advantage.value is not None:
        results.append(f"Order's advantage {standings.role_advantage.text()} Elo")
    return (
        f"<header><h1>{e(data.title)}</h1>"
        f'<p class="summary" id="settings">{e(" · ".join(summary))}</p>'
        f'<p class="summary">{e(" · ".join(results))}</p>'
        f'<p class="summary" id="dates">{e(_dates(data, written))}</p><nav>{nav}</nav></header>'
    )


def render(
    data: ReportData,
    audience: Audience | None = None,
    settings: TournamentSettings | None = None,
    written: float | None = None,
) -> str:
    """The whole page, for ``audience`` (default: the organiser's, every name); ``settings``
    from the store, ``written`` the Unix time the page says it was written (default: now)."""
    import time

    from arena import __version__

    audience = audience or Audience()
    standings = data.standings
    played = [b for b in standings.bots if b.tally.games]
    sections: Sequence[tuple[str, str, str]] = (
        (
            "standings",
            "Standings",
            _standings_table(standings, audience) + _standings_notes(standings),
        ),
        (
            "ratings",
            "Ratings",
            f'<div class="chart">{plots.ratings_chart(standings)}</div>'
            if played
            else '<p class="note">No games yet.</p>',
        ),
        ("cross", "Cross-table and likelihood of superiority", _cross_charts(standings)),
        ("faults", "Faults", _faults_section(data, audience)),
        ("bots", "Bots", bots_section(data, audience)),
        ("lengths", "Game lengths and Chaos survival", _survival_section(data)),
        ("viewer", "Game viewer", _viewer_section(data, audience)),
        ("games", "Games", games_section(data)),
    )
    nav = "".join(f'<a href="#{key}">{e(title)}</a>' for key, title, _ in sections)
    body = "".join(
        f'<section id="{key}"><h2>{e(title)}</h2>{content}</section>'
        for key, title, content in sections
    )
    header = _header(data, settings, time.time() if written is None else written, nav)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(data.title)}: arena report</title>"
        f"<style>{resource('report.css')}</style></head><body>"
        f"{header}{body}"
        f'<section><p class="note">Written by arena {e(__version__)}.</p></section>'
        "</body></html>\n"
    )
