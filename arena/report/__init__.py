"""``arena report``: a stored tournament as one self-contained HTML page.

The page holds the tournament's settings, the standings with their intervals, ratings charts
(overall and per role), the cross-table and likelihood-of-superiority heat maps, faults per bot
and reason, a section per bot, game lengths and Chaos survival, a game viewer that steps through
stored games in the browser (with each move's time and, under a game clock, both clocks after
each ply) and the table of games. It needs no network: styles, charts (matplotlib, inlined as
SVG), data and script are all in the file. A public page (``audience``) shows no path of the
machine and no stderr.

Layering: above the store and the ratings, which it only reads, and below nothing but the CLI.
``data`` reads a store into what the page shows, ``settings`` the run's description, ``plots``
draws the charts, ``page`` and ``perbot`` write the markup. Importing this package is cheap;
matplotlib loads when a report is written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

__all__ = ["ReportSummary", "write_report"]


def require_matplotlib() -> None:
    """Raise an ``ArenaError`` saying how to install the charts' library when it is missing
    (a plain install leaves it out), before any work."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        from arena.errors import ArenaError

        raise ArenaError(
            "the report draws its charts with matplotlib, which is not installed: install the"
            " report extra (pip install -e '.[report]' in arena's checkout)"
        ) from None


@dataclass(frozen=True)
class ReportSummary:
    """What ``write_report`` wrote."""

    path: Path
    """The HTML file."""
    bots: int
    """Bots in the report."""
    games: int
    """Games in the report."""
    viewer_games: int
    """Games the viewer holds (all of them, or an even share per bot and role)."""
    size: int
    """The file's size in bytes."""


def write_report(
    db: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    all_versions: bool = False,
    max_viewer_games: int | None = None,
    public: bool = False,
    names: str | None = None,
) -> ReportSummary:
    """Write the report of the store at ``db`` to ``out`` (whole or not at all, never over the
    store or one of its files); ``all_versions`` as for ``arena ratings``.

    ``public``: a page to publish, with no path of this machine (paths relative to the config's
    folder, or the store's when the store does not name one) and no stderr. ``names``: ``entry``
    (the config's names only) or ``both`` (with the names bots gave themselves beside); by
    default ``entry`` on a public page and ``both`` otherwise."""
    from arena.export.files import atomic_write, refuse_same_file
    from arena.report.audience import Audience
    from arena.report.data import DEFAULT_MAX_VIEWER_GAMES, collect
    from arena.report.page import render
    from arena.report.settings import read_settings
    from arena.store.database import Store, protected_files

    require_matplotlib()
    refuse_same_file(out, protected_files(db), "the store being reported on or one of its files")
    with Store.open(db, readonly=True, all_versions=all_versions) as store:
        title = store.get_meta("name") or Path(db).stem
        settings = read_settings(store)
        data = collect(
            store.numbered_games(),
            title=title,
            max_viewer_games=DEFAULT_MAX_VIEWER_GAMES
            if max_viewer_games is None
            else max_viewer_games,
        )
    folder = settings.folder if settings is not None and settings.folder else None
    audience = Audience(
        public=public,
        names=names or ("entry" if public else "both"),
        folder=PurePosixPath(folder or Path(db).resolve().parent),
    )
    text = render(data, audience, settings)
    with atomic_write(out, newline="\n") as stream:
        stream.write(text)
    return ReportSummary(
        path=Path(out),
        bots=len(data.standings.bots),
        games=data.games,
        viewer_games=len(data.viewer),
        size=len(text.encode("utf-8")),
    )
