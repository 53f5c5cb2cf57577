"""The report's charts, drawn by matplotlib and returned as SVG text to inline in the page.

Text stays text (``svg.fonttype = none``: bot names searchable, the file small); matrices are
``imshow`` images, one small raster whatever the number of bots (a 300 x 300 cross-table costs
kilobytes, not 90,000 shapes); each figure gets its own id salt, so ids never clash in one page.
Beyond a few dozen bots the charts drop per-bot labels (the tables name the bots). Bot names are
user text: ``$`` is escaped (matplotlib would read ``$...$`` as mathematics), long names are cut,
and the SVG escapes XML characters itself.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from arena.ratings.standings import Rating, Standings


LABELLED_BOTS = 40
"""Up to this many bots, charts name every bot; beyond, they show ranks only."""

ANNOTATED_BOTS = 12
"""Up to this many bots, heat-map cells carry their numbers."""

LABEL_CHARS = 24


def label(name: str) -> str:
    """A bot name as a chart shows it: cut to ``LABEL_CHARS``, ``$`` not read as mathematics."""
    if len(name) > LABEL_CHARS:
        name = name[: LABEL_CHARS - 1] + "…"
    return name.replace("$", r"\$")


def _figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _svg(fig: Figure, salt: str) -> str:
    """The figure as an SVG element (no XML prologue), ids salted with ``salt``."""
    import matplotlib

    out = io.StringIO()
    with matplotlib.rc_context(
        {"svg.fonttype": "none", "svg.hashsalt": salt, "svg.image_inline": True}
    ):
        fig.savefig(out, format="svg", metadata={"Date": None})
    text = out.getvalue()
    return text[text.index("<svg") :]


def _rating_points(ratings: Sequence[Rating]) -> tuple[list[float], list[float], list[str]]:
    values = [r.value if r.value is not None else math.nan for r in ratings]
    errors = [r.ci95 if r.ci95 is not None else 0.0 for r in ratings]
    bounds: list[str] = [r.bound for r in ratings]
    return values, errors, bounds


def ratings_chart(standings: Standings) -> str:
    """Fitted ratings with their 95% intervals: overall, as Order, as Chaos (per-role scale).

    A bound (a bot that won or lost every game) is drawn as a triangle pointing the way the
    data leave it open, without an interval.
    """
    bots = [b for b in standings.bots if b.tally.games]
    panels = (
        ("overall", [b.rating for b in bots], "tab:blue"),
        ("as Order", [b.order for b in bots], "tab:red"),
        ("as Chaos", [b.chaos for b in bots], "tab:green"),
    )
    labelled = len(bots) <= LABELLED_BOTS
    if labelled:
        height = 1.2 + 0.28 * max(1, len(bots))
        fig = _figure(10, height)
        axes = fig.subplots(1, 3, sharey=True)
        positions = list(range(len(bots)))
        for ax, (title, ratings, colour) in zip(axes, panels, strict=True):
            values, errors, bounds = _rating_points(ratings)
            _draw_ratings(ax, positions, values, errors, bounds, colour, horizontal=True)
            ax.set_title(title)
            ax.set_xlabel("Elo")
            ax.grid(axis="x", alpha=0.3)
        axes[0].set_yticks(positions, [label(b.name) for b in bots])
        axes[0].invert_yaxis()
    else:
        fig = _figure(10, 7.5)
        axes = fig.subplots(3, 1, sharex=True)
        positions = [b.rank for b in bots]
        for ax, (title, ratings, colour) in zip(axes, panels, strict=True):
            values, errors, bounds = _rating_points(ratings)
            _draw_ratings(ax, positions, values, errors, bounds, colour, horizontal=False)
            ax.set_ylabel(f"Elo {title}")
            ax.grid(axis="y", alpha=0.3)
        axes[-1].set_xlabel("rank (overall)")
    fig.suptitle("Fitted ratings with 95% intervals")
    return _svg(fig, "ratings")


def _draw_ratings(
    ax: Axes,
    positions: Sequence[float],
    values: Sequence[float],
    errors: Sequence[float],
    bounds: Sequence[str],
    colour: str,
    *,
    horizontal: bool,
) -> None:
    plain = [i for i, b in enumerate(bounds) if not b and not math.isnan(values[i])]
    pos = [positions[i] for i in plain]
    val = [values[i] for i in plain]
    err = [errors[i] for i in plain]
    if horizontal:
        ax.errorbar(val, pos, xerr=err, fmt="o", color=colour, ms=4, capsize=2, lw=1)
    else:
        ax.errorbar(pos, val, yerr=err, fmt="o", color=colour, ms=2, capsize=0, lw=0.6)
    for kind, marker in ((">", ">" if horizontal else "^"), ("<", "<" if horizontal else "v")):
        which = [i for i, b in enumerate(bounds) if b == kind]
        if not which:
            continue
        xs = [values[i] for i in which]
        ys = [positions[i] for i in which]
        if not horizontal:
            xs, ys = ys, xs
        ax.plot(xs, ys, linestyle="none", marker=marker, color=colour, ms=6, mfc="none")


def heatmap(
    values: Sequence[Sequence[float | None]],
    rows: Sequence[str],
    columns: Sequence[str],
    *,
    title: str,
    row_label: str,
    column_label: str,
    colour_label: str,
    cmap: str = "RdYlGn",
    vmin: float = 0.0,
    vmax: float = 1.0,
    cells: Sequence[Sequence[str]] | None = None,
    salt: str,
) -> str:
    """A matrix as an image (missing cells grey), bots named up to ``LABELLED_BOTS``, each cell
    written (``cells``) up to ``ANNOTATED_BOTS``."""
    import numpy as np

    n_rows, n_columns = len(rows), len(columns)
    data = np.array(
        [[math.nan if v is None else v for v in row] for row in values], dtype=float
    ).reshape(n_rows, n_columns)
    labelled = max(n_rows, n_columns) <= LABELLED_BOTS
    side = 2.6 + (0.3 * max(n_rows, n_columns) if labelled else 6.0)
    fig = _figure(side + 1.5, side)
    ax = fig.add_subplot()
    from matplotlib import colormaps

    colours = colormaps[cmap].with_extremes(bad="#dddddd")
    image = ax.imshow(
        np.ma.masked_invalid(data),
        cmap=colours,
        vmin=vmin,
        vmax=vmax,
        interpolation="none" if not labelled else "nearest",
        aspect="auto",
    )
    fig.colorbar(image, ax=ax, label=colour_label, shrink=0.8)
    if labelled:
        ax.set_xticks(range(n_columns), [label(c) for c in columns], rotation=60, ha="right")
        ax.set_yticks(range(n_rows), [label(r) for r in rows])
    if cells is not None and max(n_rows, n_columns) <= ANNOTATED_BOTS:
        for i in range(n_rows):
            for j in range(n_columns):
                if cells[i][j]:
                    ax.text(j, i, cells[i][j], ha="center", va="center", fontsize=8)
    ax.set_xlabel(column_label)
    ax.set_ylabel(row_label)
    ax.set_title(title)
    return _svg(fig, salt)


def lengths_chart(plies: dict[str, list[int]]) -> str:
    """How long games last: a histogram of the marks on the board at the end, by how they ended."""
    fig = _figure(8, 3.6)
    ax = fig.add_subplot()
    bins = [x - 0.5 for x in range(0, 38)]
    series = [
        ("Order made five", plies.get("five", []), "tab:red"),
        ("board full (Chaos won)", plies.get("full", []), "tab:green"),
        ("a bot's fault", plies.get("fault", []), "tab:gray"),
    ]
    shown = [s for s in series if s[1]]
    if shown:
        ax.hist(
            [s[1] for s in shown],
            bins=bins,
            stacked=True,
            label=[f"{s[0]} ({len(s[1])})" for s in shown],
            color=[s[2] for s in shown],
        )
        ax.legend(loc="upper left")
    ax.set_xlim(-0.5, 36.5)
    ax.set_xlabel("marks on the board at the end (plies)")
    ax.set_ylabel("games")
    ax.set_title("Game lengths")
    return _svg(fig, "lengths")


def survival_chart(chaos_losses: dict[str, list[int]], order: Sequence[str]) -> str | None:
    """Per Chaos bot (in ``order``), how long it held out in the games it lost to a five: a box
    per bot, up to ``LABELLED_BOTS`` bots (None beyond, or without such games)."""
    names = [n for n in order if chaos_losses.get(n)]
    if not names or len(names) > LABELLED_BOTS:
        return None
    fig = _figure(8, 1.2 + 0.3 * len(names))
    ax = fig.add_subplot()
    ax.boxplot(
        [chaos_losses[n] for n in names],
        orientation="horizontal",
        tick_labels=[label(n) for n in names],
        widths=0.6,
    )
    ax.invert_yaxis()
    ax.set_xlim(0, 36.5)
    ax.set_xlabel("plies before losing (marks on the board when Order made five)")
    ax.set_title("Chaos survival: how long each Chaos bot held out in its losses")
    ax.grid(axis="x", alpha=0.3)
    return _svg(fig, "survival")
