"""``arena report``: a stored tournament's HTML page, for its organiser or to publish."""

from __future__ import annotations

from pathlib import Path


def report_command(
    db: Path,
    out: Path,
    *,
    viewer_games: int,
    all_versions: bool,
    public: bool,
    names: str | None,
) -> None:
    """Write the page and say in one line what it holds."""
    from arena.report import write_report

    summary = write_report(
        db,
        out,
        all_versions=all_versions,
        max_viewer_games=viewer_games,
        public=public,
        names=names,
    )
    kept = (
        "every game"
        if summary.viewer_games == summary.games
        else f"{summary.viewer_games} of the games"
    )
    public_note = "; public: no host paths, no stderr" if public else ""
    print(
        f"wrote {summary.path} ({summary.size / 1e6:.2f} MB): {summary.bots} bots,"
        f" {summary.games} games; the viewer holds {kept}{public_note}"
    )
