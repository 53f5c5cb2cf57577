"""The standings in the terminal (``arena ratings``, ``tournament``, ``submit``): a rendering of
``arena.ratings.Standings``, nothing computed here.

The default table is compact: it fits 80 columns with bot names of up to about 25 characters,
and stays one line per bot with 40 bots. What does not fit goes below it in a few lines (faults
by reason, Chaos survival), or to ``--wide`` and ``--json``. Matrices (the cross-table, the
likelihood of superiority) are printed only in a form that fits the width, and otherwise say
where to find them. Every rating column is explained in a footer.

Text is plain (no table borders), so that it reads the same in a terminal, a pipe and a log;
only the title and column headers are bold, and not even that under ``NO_COLOR``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from rich.console import Console

    from arena.ratings.standings import BotStanding, Standings
    from arena.store.database import Store
    from arena.tournament.owed import OwedPairing


DEFAULT_WIDTH = 80
"""The width the default output fits when it is not written to a terminal."""

Align = Literal["<", ">"]


def output_width(console: Console) -> int:
    """The width to fit: the terminal's; written elsewhere (a pipe, a file), ``COLUMNS`` when it
    is set to a number, else ``DEFAULT_WIDTH``."""
    if console.is_terminal:
        return console.width
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and 0 < int(columns) <= 10_000:
        return int(columns)
    return DEFAULT_WIDTH


def no_color() -> bool:
    """Whether the user asked for no colour or other text attributes (https://no-color.org)."""
    return bool(os.environ.get("NO_COLOR"))


@dataclass(frozen=True)
class Column:
    """One column of a plain table."""

    header: str
    """Its header."""
    align: Align
    """``<`` left, ``>`` right."""
    cell: Callable[[BotStanding], str]
    """Its text for one bot."""


@dataclass(frozen=True)
class Line:
    """One line of output and whether it is a heading (bold unless ``NO_COLOR``)."""

    text: str
    """The text, already safe to print (bot names are the user's own config)."""
    heading: bool = False
    """Shown bold on a terminal that allows it."""


def load_standings(store: Store, *, for_terminal: bool = False) -> Standings:
    """The standings of the games ``store`` counts (every version's, each rated apart, when it
    was opened with ``all_versions``). ``for_terminal``: every name as ``protocol.shown`` makes
    it safe to print (a store is a file someone may send you; JSON escapes names itself)."""
    from arena.protocol import shown as safe
    from arena.ratings import GameResult
    from arena.ratings.standings import compute_all
    from arena.tournament.course import COURSE_FORMATS

    shown: dict[str, str] = {}  # each bot's display name in its latest game that gave one
    results = []
    from_texts = GameResult.from_texts
    for game in store.results():
        if game.order_display:
            shown[game.order] = game.order_display
        if game.chaos_display:
            shown[game.chaos] = game.chaos_display
        results.append(from_texts(*game[:7]))
    if for_terminal:
        # Once per name, not per game; the games' keys (digests of what was stored) are unchanged.
        safe_name = {name: safe(name) for result in results for name in result[:2]}
        if any(name != printed for name, printed in safe_name.items()):
            results = [
                r._replace(order=safe_name[r.order], chaos=safe_name[r.chaos]) for r in results
            ]
        shown = {safe_name.get(name, safe(name)): safe(text) for name, text in shown.items()}
    described = _described(store)
    settled = described.get("format") in COURSE_FORMATS or bool(described.get("until"))
    standings = compute_all(
        results, display_names=shown, rank_level=RANK_LEVEL if settled else None
    )
    if described.get("format") != "swiss":
        return standings
    from arena.tournament.course import swiss_tally
    from arena.tournament.courserun import course_pool, stored_rounds

    pool = course_pool(store) or standings.names  # a late entry has no Swiss score
    scores = swiss_tally(pool, stored_rounds(store)).scores
    bots = [dataclasses.replace(b, swiss_score=scores.get(b.name)) for b in standings.bots]
    return dataclasses.replace(standings, bots=bots)


RANK_LEVEL = 0.95
"""The level of the rank intervals a course's standings show."""


def _described(store: Store) -> dict[str, object]:
    """The store's run as it described itself (``TournamentPlan.describe``; empty if none): a
    course's standings, and those of a run with a stopping rule, show rank intervals."""
    try:
        described = json.loads(store.get_meta("config") or "{}")
    except ValueError:
        return {}
    return described if isinstance(described, dict) else {}


DISPLAY_LIMIT = 20
"""Characters of a bot's display name shown in the compact table (all of them in ``--wide``)."""


def bot_label(name: str, display_name: str, limit: int | None = DISPLAY_LIMIT) -> str:
    """``name``, and the name the bot gave itself beside it when that differs:
    ``g1 (GreedyBot 2.1)``. The display name is cut to ``limit`` characters (None: whole)."""
    if not display_name or display_name == name:
        return name
    if not display_name.isprintable():  # the protocol allows printable ASCII; a store may not
        from arena.protocol import escape

        display_name = escape(display_name, None)
    if limit is not None and len(display_name) > limit:
        display_name = display_name[: limit - 3].rstrip() + "..."
    return f"{name} ({display_name})"


def _table(columns: Sequence[Column], bots: Sequence[BotStanding]) -> list[Line]:
    rows = [[c.cell(b) for c in columns] for b in bots]
    widths = [max(len(c.header), *(len(r[i]) for r in rows)) for i, c in enumerate(columns)]

    def join(cells: Sequence[str]) -> str:
        parts = [f"{text:{c.align}{w}}" for text, c, w in zip(cells, columns, widths, strict=True)]
        return "  ".join(parts).rstrip()

    return [Line(join([c.header for c in columns]), heading=True), *(Line(join(r)) for r in rows)]


def _width(lines: Sequence[Line]) -> int:
    return max((len(line.text) for line in lines), default=0)


def _wins(wins: int, games: int) -> str:
    return f"{wins}/{games}" if games else "-"


def _seq(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def _plies(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _score(b: BotStanding) -> str:
    """``31/40  78%``: games won of games played, and the share of the points."""
    if b.score is None:
        return "-"
    return f"{b.tally.wins}/{b.tally.games} {_percent(b.score):>4}"


def _survival(b: BotStanding) -> str:
    return "-" if b.survival is None else _plies(b.survival.mean_plies_lost)


def _columns(wide: bool) -> list[Column]:
    """The compact columns, or all of them (``wide``)."""
    from arena.ratings.standings import FAULT_NAMES

    rank = Column("#", ">", lambda b: b.place)
    limit = None if wide else DISPLAY_LIMIT
    name = Column("bot", "<", lambda b: bot_label(b.name, b.display_name, limit))
    score = Column("score", ">", _score)
    elo = Column("Elo ±95%", ">", lambda b: b.rating.text())
    if not wide:
        return [
            rank,
            name,
            score,
            elo,
            Column("Order", ">", lambda b: b.order.text(interval=False)),
            Column("Chaos", ">", lambda b: b.chaos.text(interval=False)),
            Column("seq", ">", lambda b: _seq(b.sequential)),
            Column("surv", ">", _survival),
            Column("faults", ">", lambda b: str(b.fault_total)),
        ]
    columns = [
        rank,
        name,
        score,
        Column("won Order", ">", lambda b: _wins(b.tally.wins_order, b.tally.games_order)),
        Column("won Chaos", ">", lambda b: _wins(b.tally.wins_chaos, b.tally.games_chaos)),
        elo,
        Column("Order ±95%", ">", lambda b: b.order.text()),
        Column("Chaos ±95%", ">", lambda b: b.chaos.text()),
        Column("seq", ">", lambda b: _seq(b.sequential)),
        Column("seq O", ">", lambda b: _seq(b.sequential_order)),
        Column("seq C", ">", lambda b: _seq(b.sequential_chaos)),
        Column("survival", ">", _survival),
    ]
    return columns + [Column(reason, ">", _fault_count(reason)) for reason in FAULT_NAMES]


def _fault_count(reason: str) -> Callable[[BotStanding], str]:
    return lambda b: str(b.faults[reason])


def _ranks(b: BotStanding) -> str:
    """``2-5``: the ranks its place may be at (``3``: settled)."""
    if b.rank_interval is None:
        return "-"
    low, high = b.rank_interval
    return str(low) if low == high else f"{low}-{high}"


def _course_columns(standings: Standings, columns: list[Column]) -> list[Column]:
    """``columns`` with, when the standings have them, the rank intervals after the place and
    the Swiss score after the games' score."""
    added: list[Column] = []
    if any(b.rank_interval is not None for b in standings.bots):
        added.append(Column("ranks", ">", _ranks))
    if any(b.swiss_score is not None for b in standings.bots):
        added.append(Column("Swiss", ">", lambda b: f"{b.swiss_score or 0:g}"))
    if not added:
        return columns
    at = [c.header for c in columns].index("score") + 1
    return [*columns[:at], *added, *columns[at:]]


def _main_table(standings: Standings, width: int, wide: bool) -> tuple[list[Line], list[str]]:
    """The table's lines, and the headers of the columns left out to fit ``width``."""
    columns = _course_columns(standings, _columns(wide))
    lines = _table(columns, standings.bots)
    dropped: list[str] = []
    if not wide:
        # Over-long names: drop what is repeated or summarised elsewhere, never the names.
        # Last, the score keeps its share alone (``78%``), its wins/games said left out.
        for header in ("seq", "surv", "faults", SCORE_COUNTS):
            if _width(lines) <= width:
                break
            columns = [
                _SHARE_ONLY if c.header == "score" and header == SCORE_COUNTS else c
                for c in columns
                if c.header != header
            ]
            dropped.append(header)
            lines = _table(columns, standings.bots)
    return lines, dropped


SCORE_COUNTS = "score's wins/games"
"""What the narrowest table leaves out of the score: its share stays."""

_SHARE_ONLY = Column("score", ">", lambda b: _percent(b.score))


def _listed(words: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join(filter(None, [", ".join(words[:-1]), words[-1]]))


def _wrapped(text: str, width: int) -> list[Line]:
    return [Line(t) for t in textwrap.wrap(text, width, break_on_hyphens=False)]


def _fault_lines(standings: Standings, width: int, db: str, owed: bool) -> list[Line]:
    faulty = [b for b in standings.bots if b.fault_total]
    if not faulty and owed:  # never alone: the games owed could hold faults
        return [Line("No faults in the games stored (games are still owed: above).")]
    if not faulty:
        return [Line("No faults.")]
    parts = []
    for b in faulty:
        reasons = ", ".join(f"{n} {r}" for r, n in b.faults.items() if n)
        parts.append(f"{b.name} {b.fault_total} ({reasons})")
    text = (
        f"Faults ({standings.fault_total} games lost by the bot's own fault): "
        + "; ".join(parts)
        + "."
    )
    return [*_wrapped(text, width), Line(f"Details: arena faults {db}")]


def _matrix(
    title: str,
    names: Sequence[str],
    cell: Callable[[str, str], str],
    width: int | None,
) -> list[Line] | None:
    """A bot-by-bot matrix with numbered columns (the row numbers), or None if it does not fit
    ``width`` (None: any width)."""
    rows = [[("" if col == row else cell(row, col)) for col in names] for row in names]
    labels = [f"{i} {name}" for i, name in enumerate(names, 1)]
    label_width = max(len(label) for label in labels)
    cell_width = max(len(str(len(names))), *(len(c) for r in rows for c in r))
    header = " " * label_width + "".join(f"  {i:>{cell_width}}" for i in range(1, len(names) + 1))
    lines = [Line(header.rstrip(), heading=True)]
    for label, row in zip(labels, rows, strict=True):
        text = f"{label:<{label_width}}" + "".join(f"  {c:>{cell_width}}" for c in row)
        lines.append(Line(text.rstrip()))
    if width is not None and _width(lines) > width:
        return None
    wrapped = textwrap.wrap(title, width or DEFAULT_WIDTH, break_on_hyphens=False)
    return [Line(t, heading=True) for t in wrapped] + lines


def _cross_lines(standings: Standings, width: int, wide: bool) -> list[Line]:
    names = standings.names
    if len(names) < 2:
        return []
    cross = standings.cross

    def by_role(row: str, col: str) -> str:
        c = cross[row].get(col)
        if c is None:
            return "-"
        return f"{_wins(c.order_wins, c.order_games)} {_wins(c.chaos_wins, c.chaos_games)}"

    def overall(row: str, col: str) -> str:
        c = cross[row].get(col)
        games = 0 if c is None else c.order_games + c.chaos_games
        if c is None or not games:
            return "-"
        return f"{100 * (c.order_wins + c.chaos_wins) / games:.0f}"

    limit = None if wide else width
    found = _matrix(
        "Cross-table: row bot's wins/games vs column bot, as Order and as Chaos",
        names,
        by_role,
        limit,
    ) or _matrix(
        "Cross-table: row bot's % of games won vs column bot (by role: --wide, --json)",
        names,
        overall,
        limit,
    )
    if found is not None:
        return found
    return _wrapped(
        f"Cross-table: {len(names)} bots do not fit {width} columns; see --wide, or --json "
        "(cross_table: every pairing by role).",
        width,
    )


def _los_lines(standings: Standings, width: int, wide: bool) -> list[Line]:
    if len(standings.names) < 2:
        return []
    found = _matrix(
        "Likelihood of superiority (%): row bot stronger than column bot",
        standings.names,
        lambda row, col: f"{100 * standings.los[row][col]:.0f}",
        None if wide else width,
    )
    return found or _wrapped(
        f"Likelihood of superiority: {len(standings.names)} bots do not fit {width} columns; see"
        " --wide, or --json (los).",
        width,
    )


def _legend(standings: Standings, share_only: bool) -> str:
    """What the table's symbols mean, each said only when the table shows it, with a bound it
    shows as the example (``>2469``); ``share_only``: the score shows its share alone."""
    ratings = [r for b in standings.bots for r in (b.rating, b.order, b.chaos)]
    above = next((r.text() for r in ratings if r.bound == ">"), None)
    below = next((r.text() for r in ratings if r.bound == "<"), None)
    parts = [
        "score: the share of the points won"
        if share_only
        else "score: games won of games played, and the share of the points"
    ]
    if any(b.rating.ci95 is not None and not b.rating.bound for b in standings.bots):
        parts.append("±: the 95% interval")
    if above is not None:
        parts.append(f"{above}: won every game (in that role), so only a lower bound is known")
    if below is not None:
        parts.append(f"{below}: lost every game (in that role), an upper bound")
    if any(r.value is None for r in ratings):
        parts.append("-: no games (in that role)")
    if any(b.tied for b in standings.bots):
        parts.append("=: a rank shared by an exact tie")
    if any(b.rank_interval is not None for b in standings.bots):
        parts.append(f"ranks: the places its rank may hold ({RANK_LEVEL:.0%} rank interval)")
    if any(b.swiss_score is not None for b in standings.bots):
        from arena.tournament.course import BYE_POINTS

        parts.append(f"Swiss: games won, and {BYE_POINTS:g} a bye (the Swiss pairing's score)")
    return "Legend: " + "; ".join(parts) + "."


def _tie_lines(standings: Standings, width: int) -> list[Line]:
    """``Tied: 3= alpha and beta (the same results and rating).``: each exact tie in words."""
    ties: dict[str, list[str]] = {}
    for b in standings.bots:
        if b.tied:
            ties.setdefault(b.place, []).append(b.name)
    if not ties:
        return []
    said = "; ".join(f"{place} {_listed(names)}" for place, names in ties.items())
    return _wrapped(
        f"Tied: {said} (the same games, wins per role and rating: listed by name).", width
    )


OWED_LISTED = 6
"""Pairings named one by one in the owed games' lines; the rest are counted."""


def _owed_lines(owed: Sequence[OwedPairing], width: int) -> list[Line]:
    """``INCOMPLETE: 4 games are still owed ...``: how many, which pairings, why."""
    if not owed:
        return []
    from arena.protocol import escape

    total = sum(p.games for p in owed)
    parts = []
    for p in owed[:OWED_LISTED]:
        errors = f"{p.harness_errors} harness error{'s' if p.harness_errors != 1 else ''}"
        why = f"{errors}, the last: {escape(p.why, 120)}" if p.harness_errors else p.why
        parts.append(f"{p.pairing} {p.games} ({why})")
    if len(owed) > OWED_LISTED:
        parts.append(f"and {len(owed) - OWED_LISTED} more pairings")
    pairings = f"{len(owed)} pairing{'s' if len(owed) != 1 else ''}"
    return _wrapped(
        f"INCOMPLETE: {total} game{'s are' if total != 1 else ' is'} still owed, in {pairings}:"
        f" {'; '.join(parts)}. The standings leave them out; the same arena tournament command"
        " plays them.",
        width,
    )


def _footer(standings: Standings, width: int, dropped: Sequence[str] = ()) -> list[Line]:
    """What each rating column means (not the ``dropped`` ones: the table does not show them)."""
    from arena.ratings.standings import SURVIVAL_DEFINITION

    e, f = standings.elo, standings.fit
    seq = (
        f"seq: sequential Elo, K={e.k:g}, start {e.initial:.0f}, games in a fixed interleaving "
        "of rounds (the same games give the same numbers). "
    )
    surv = (
        f" surv: Chaos survival, the mean of {SURVIVAL_DEFINITION} (-: no such loss; per Order"
        " opponent in --json)."
    )
    text = (
        "Elo ±95%: maximum-likelihood (Bradley-Terry) fit of all games at once, with Order's "
        "advantage fitted, prior sd "
        f"{f.prior_sd:.0f}, average bot {f.offset:.0f}; it does not depend on game order. "
        "Order, Chaos: the same fit with a strength per role (compare an Order rating with a "
        "Chaos rating; intervals in --wide). "
        + ("" if "seq" in dropped else seq)
        + "A bound's R (>R, <R) is where the prior stops the rating: the data give no value."
        + ("" if "surv" in dropped else surv)
    )
    return _wrapped(text, width)


def render_standings(
    standings: Standings,
    *,
    width: int = DEFAULT_WIDTH,
    wide: bool = False,
    db: str = "DB",
    owed: Sequence[OwedPairing] = (),
) -> list[Line]:
    """Every line of the standings: table, summary, faults, survival, matrices, footer; with
    ``owed`` (``arena.tournament.owed``), the games still owed right under the table."""
    if not standings.bots:
        return [Line("No games stored yet."), *_owed_lines(owed, width)]
    distinct = standings.distinct_games
    title = f"Standings: {standings.games} games"
    if distinct is not None:
        title += f" ({distinct} distinct)"
    lines = [Line(title, heading=True)]
    table, dropped = _main_table(standings, width, wide)
    lines += table
    lines += _wrapped(_legend(standings, SCORE_COUNTS in dropped), width)
    lines += _tie_lines(standings, width)
    lines += _owed_lines(owed, width)
    if dropped:
        lines += _wrapped(
            f"({_listed(dropped)}: left out to fit {width} columns; see --wide or --json)",
            width,
        )
    lines.append(Line(""))
    lines += _fit_lines(standings, width)
    lines += _fault_lines(standings, width, db, bool(owed))
    for section in (_cross_lines(standings, width, wide), _los_lines(standings, width, wide)):
        if section:
            lines.append(Line(""))
            lines += section
    lines.append(Line(""))
    lines += _footer(standings, width, dropped)
    return lines


def _fit_lines(standings: Standings, width: int) -> list[Line]:
    """Order's advantage, and what to doubt in the fit: no convergence, bots that never met."""
    h = standings.role_advantage
    rate = standings.order_win_rate
    lines = _wrapped(
        f"Order won {_percent(rate)} of the games; Order's advantage h = {h.text()} Elo "
        "(overall fit).",
        width,
    )
    if not standings.fit.converged:
        lines += _wrapped(
            "WARNING: the rating fit did not converge; the fitted ratings are not reliable.",
            width,
        )
    if len(standings.groups) > 1:
        described = "; ".join(f"{i}: {', '.join(g)}" for i, g in enumerate(standings.groups, 1))
        lines += _wrapped(
            f"WARNING: the bots form {len(standings.groups)} groups that never met ({described}). "
            "Ratings compare only within a group; across groups only the prior relates them.",
            width,
        )
    if len(standings.groups) == 1 and len(standings.role_groups) > 1:
        described = "; ".join(
            f"{i}: {', '.join(g)}" for i, g in enumerate(standings.role_groups, 1)
        )
        lines += _wrapped(
            f"Note: the per-role ratings form {len(standings.role_groups)} groups that never "
            f"met ({described}); Order and Chaos ratings compare only within a group.",
            width,
        )
    return lines


def compact_standings(
    standings: Standings, *, width: int = DEFAULT_WIDTH, top: int = 0
) -> list[Line]:
    """The standings' title and table alone (the first ``top`` bots when ``top``), for a view
    that shows them again and again while a run goes on."""
    if not standings.bots:
        return [Line("No games stored yet.")]
    title = f"Standings: {standings.games} games"
    shown = standings.bots[:top] if top else standings.bots
    table, _dropped = _main_table(dataclasses.replace(standings, bots=shown), width, False)
    more = len(standings.bots) - len(shown)
    return [Line(title, heading=True), *table, *([Line(f"({more} more)")] if more else [])]


def print_standings(console: Console, store: Store, *, wide: bool = False) -> None:
    """Print the standings of ``store``'s games, and its harness errors, on ``console``."""
    from rich.text import Text

    from arena.tournament.owed import owed_games

    standings = load_standings(store, for_terminal=True)
    width = output_width(console)
    bold = "" if no_color() else "bold"
    db = str(store.path)
    owed = owed_games(store)
    for line in render_standings(standings, width=width, wide=wide, db=db, owed=owed):
        console.print(Text(line.text, style=bold if line.heading else ""), soft_wrap=True)
    errors = store.harness_errors()
    if errors:
        from arena.protocol import escape

        last = errors[-1].error.strip().splitlines() or [""]
        console.print(
            Text(
                f"{len(errors)} harness errors (not counted against any bot; their games were "
                f"replayed{', or are owed' if owed else ''}). The last: {escape(last[-1], 200)}"
            ),
            soft_wrap=True,
        )
