"""The live page's markup: the report's sections in a shell that ``live.js`` keeps up to date,
and a page per bot (its games, its faults, the end of its stderr).

Every string a bot or a config controls is escaped here or in ``arena.report.page`` (the same
``e``); the games in progress reach the page as JSON that ``live.js`` puts in ``textContent``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING
from urllib.parse import quote

from arena.report.anchors import e
from arena.report.page import resource

if TYPE_CHECKING:
    from arena.records import GameRecord


BOT_GAMES = 200
"""A bot's latest games listed on its page."""

SECTIONS = (
    ("standings", "Standings"),
    ("ratings", "Ratings"),
    ("cross", "Cross-table and likelihood of superiority"),
    ("faults", "Faults"),
)

_PENDING = '<p class="note">Being computed: it shows here by itself.</p>'

_LIVE_CSS = """
.live-games { display: flex; flex-wrap: wrap; gap: 1.5em; }
.live-game h3 { font-size: 1em; margin: 0.4em 0; }
.live-game .stuck { color: #8a3a00; }
#progress { font-variant-numeric: tabular-nums; }
pre.stderr { background: #fff; border: 1px solid #d7dbe2; padding: 0.5em; overflow: auto;
  max-height: 24em; white-space: pre-wrap; }
"""


def _head(title: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(title)}</title>"
        f"<style>{resource('report.css')}{_LIVE_CSS}</style></head><body>"
    )


def live_page(title: str, games: int, sections: Mapping[str, str]) -> str:
    """The page at ``/`` as the state is (``sections``: section id -> its HTML, escaped);
    ``live.js`` follows the updates from there."""
    nav = "".join(
        f'<a href="#{key}">{e(title)}</a>'
        for key, title in (("live", "Games in progress"), *SECTIONS)
    )
    body = "".join(
        f'<section id="{key}"><h2>{e(title)}</h2>'
        f'<div data-section="{key}">{sections.get(key, _PENDING)}</div></section>'
        for key, title in SECTIONS
    )
    return (
        _head(f"{title}: arena live") + f'<header><h1 id="title">{e(title)}</h1>'
        f'<p class="summary"><span id="games">{games}</span> games'
        f' · <span id="progress"></span></p><nav>{nav}</nav></header>'
        '<section id="live"><h2>Games in progress</h2><div id="live-games" class="live-games">'
        '</div><p class="note" id="live-note">None now.</p></section>'
        f"{body}"
        '<section><p class="note">Live: the page follows the run by itself (server-sent'
        ' events); <a href="/standings.json">standings.json</a>.</p></section>'
        '<script src="/live.js"></script></body></html>\n'
    )


def bot_href(name: str) -> str:
    """The address of a bot's page."""
    return "/bot/" + quote(name, safe="")


def _result(record: GameRecord, name: str) -> str:
    won = (record.winner.value == "order") == (record.order == name)
    return "won" if won else "lost"


def bot_page(name: str, games: Iterable[tuple[int, GameRecord]], standing: str) -> str:
    """A bot's page: ``standing`` (its standings line, escaped), its latest games and faults,
    and the end of what it last wrote to stderr."""
    rows: list[str] = []
    faults: list[str] = []
    stderr = ""
    count = 0
    for number, record in games:
        if name not in (record.order, record.chaos):
            continue
        count += 1
        role = "Order" if record.order == name else "Chaos"
        opponent = record.chaos if role == "Order" else record.order
        result = _result(record, name)
        plies = len(record.opening) + len(record.moves)
        rows.append(
            f'<tr><td>{number}</td><td class="name">{role}</td><td class="name">{e(opponent)}'
            f'</td><td class="name">{result}</td><td class="name">{e(record.reason.value)}</td>'
            f"<td>{plies}</td></tr>"
        )
        own_fault = record.reason.is_fault and result == "lost"
        if own_fault:
            faults.append(
                f'<tr><td>{number}</td><td class="name">{e(record.reason.value)}</td>'
                f'<td class="detail">{e(record.detail or "-")}</td></tr>'
            )
        tail = record.stderr_order if role == "Order" else record.stderr_chaos
        stderr = tail or stderr
    latest = "".join(reversed(rows[-BOT_GAMES:]))
    fault_rows = "".join(reversed(faults[-BOT_GAMES:]))
    return (
        _head(f"{name}: arena live")
        + f'<header><h1 id="bot-name">{e(name)}</h1><p class="summary">{standing}</p>'
        '<nav><a href="/">standings</a></nav></header>'
        f"<section><h2>Games ({count}; the latest {min(count, BOT_GAMES)})</h2>"
        '<div class="scroll"><table id="bot-games"><thead><tr><th>game</th>'
        '<th class="name">as</th><th class="name">against</th><th class="name">result</th>'
        '<th class="name">how</th><th>plies</th></tr></thead>'
        f"<tbody>{latest}</tbody></table></div></section>"
        f"<section><h2>Faults ({len(faults)})</h2>"
        + (
            '<div class="scroll"><table id="bot-faults"><thead><tr><th>game</th>'
            '<th class="name">fault</th><th class="name">detail</th></tr></thead>'
            f"<tbody>{fault_rows}</tbody></table></div>"
            if faults
            else '<p class="note">None.</p>'
        )
        + "</section><section><h2>The end of its stderr</h2>"
        + (
            f'<pre class="stderr" id="bot-stderr">{e(stderr)}</pre>'
            if stderr
            else '<p class="note">Nothing written.</p>'
        )
        + "</section></body></html>\n"
    )
