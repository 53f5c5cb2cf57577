"""The tournament's settings as the report's header states them, read from the store.

A run keeps its plan's description in the store's meta (``config``: format, games per pairing,
time control, seed, bots, the config's folder); a store written otherwise (``arena sprt``, the
library, a hand-made file) has none, and the header then says what the games alone tell.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.store.database import Store

__all__ = ["TournamentSettings", "read_settings", "utc_minute"]


@dataclass(frozen=True)
class TournamentSettings:
    """What the store says of the tournament its games belong to."""

    format: str
    time_control: str
    """As ``TimeControl.describe`` words it: ``1000 ms/move (wall)``."""
    games_per_pairing: int
    seed: int
    bots: int
    opening_plies: int = 0
    folder: Path | None = None
    """The config's folder (None when the run was not started from a file)."""

    @property
    def owed(self) -> int:
        """Games the tournament owes in all: both roles of each pairing, ``games_per_pairing``
        times each."""
        from arena.tournament.schedule import pairing_count

        return 2 * self.games_per_pairing * pairing_count(self.bots, self.format)


def read_settings(store: Store) -> TournamentSettings | None:
    """The settings of the store's last run, or None when no run described itself there (or
    its description is not one: a damaged entry costs the header, not the report)."""
    text = store.get_meta("config")
    if text is None:
        return None
    try:
        return _settings(json.loads(text))
    except (ValueError, TypeError, KeyError):
        return None


def _settings(described: dict[str, Any]) -> TournamentSettings:
    folder = described.get("folder")
    return TournamentSettings(
        format=str(described["format"]),
        time_control=str(described["time_control"]),
        games_per_pairing=int(described["games_per_pairing"]),
        seed=int(described["seed"]),
        bots=len(described["bots"]),
        opening_plies=int(described.get("opening_plies") or 0),
        folder=None if not folder else Path(str(folder)),
    )


def utc_minute(when: float) -> str:
    """``when`` (Unix time) as ``2026-12-06 18:44 UTC``."""
    return datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%d %H:%M UTC")
