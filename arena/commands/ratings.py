"""``arena ratings``: the standings of a stored tournament, as a table or as JSON."""

from __future__ import annotations

from pathlib import Path

from arena.commands.display.standings import load_standings, print_standings

__all__ = ["ratings_command"]


def ratings_command(db: Path, *, json_output: bool, wide: bool, all_versions: bool = False) -> None:
    """``arena ratings``: the standings of a stored tournament, as a table or as JSON."""
    import json

    from arena.store.database import Store

    with Store.open(db, readonly=True, all_versions=all_versions) as store:
        if json_output:
            data = load_standings(store).to_json()
            print(json.dumps(data, indent=2, allow_nan=False))
            return
        from rich.console import Console

        print_standings(Console(highlight=False, soft_wrap=True), store, wide=wide)
