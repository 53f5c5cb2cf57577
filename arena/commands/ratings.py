"""``arena ratings``: the standings of a stored tournament, as a table, JSON or CSV."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.commands.display.standings import load_standings, print_standings
from arena.errors import ArenaError

if TYPE_CHECKING:
    from arena.ratings.standings import Standings
    from arena.store.database import Store


def ratings_command(
    db: Path,
    *,
    json_output: bool,
    wide: bool,
    all_versions: bool = False,
    csv_output: bool = False,
    out: Path | None = None,
) -> None:
    """``arena ratings``: the standings of a stored tournament, as a table, JSON or CSV (to
    stdout, or written whole to ``out``, never over the store)."""
    import json

    from arena.store.database import Store

    if csv_output and json_output:
        raise ArenaError("--csv and --json: choose one")
    if out is not None and not csv_output:
        raise ArenaError("--out: writes the CSV of --csv; the table and --json go to stdout")
    with Store.open(db, readonly=True, all_versions=all_versions) as store:
        if csv_output:
            _write_csv(store, db, out)
            return
        if json_output:
            print(json.dumps(ratings_json(store), indent=2, allow_nan=False))
            return
        from rich.console import Console

        print_standings(Console(highlight=False, soft_wrap=True), store, wide=wide)


def ratings_json(store: Store, standings: Standings | None = None) -> dict[str, Any]:
    """What ``arena ratings DB --json`` prints: the standings (``standings``, when the caller
    has them from ``load_standings``) and the games still owed (the live page serves the same)."""
    from dataclasses import asdict

    from arena.tournament.owed import owed_games

    data = (standings or load_standings(store)).to_json()
    data["owed"] = [asdict(pairing) for pairing in owed_games(store)]
    return data


def _write_csv(store: Store, db: Path, out: Path | None) -> None:
    """The standings as CSV (``arena.export.standings``) on stdout or in ``out``."""
    import sys

    from arena.export.files import atomic_write, refuse_same_file
    from arena.export.standings import write_standings_csv
    from arena.store.database import protected_files

    standings = load_standings(store)
    if out is None:
        write_standings_csv(standings, sys.stdout)
        return
    refuse_same_file(out, protected_files(db), "the store being read or one of its files")
    with atomic_write(out) as stream:
        write_standings_csv(standings, stream)
