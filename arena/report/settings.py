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
    rounds: int | None = None
    """A course's Swiss rounds (None: its default, or not a course)."""
    budget: int | None = None
    """The most games the run may play (``budget:``), if it has one."""

    @property
    def pairing(self) -> str:
        """How the run meets its pairings, as the report's header says it: a course in rounds
        (each meeting a game per role), else a number of games per ordered pairing."""
        from arena.tournament.course import COURSE_FORMATS, CoursePlan

        if self.format not in COURSE_FORMATS:
            games = self.games_per_pairing
            return f"{games} game{'s' * (games != 1)} per ordered pairing"
        rounds = CoursePlan(self.format, self.rounds, None, None).swiss_rounds(self.bots)
        played = f"{rounds} Swiss round{'s' * (rounds != 1)}"
        return played if self.format == "swiss" else f"{played}, then rounds for the top"

    @property
    def owed(self) -> int:
        """Games the tournament owes at most: a course's rounds or its budget; else both roles
        of each pairing, ``games_per_pairing`` times each, within its budget."""
        from arena.tournament.course import COURSE_FORMATS, CoursePlan
        from arena.tournament.courserun import course_games
        from arena.tournament.schedule import pairing_count
        from arena.tournament.stoprule import Budget

        budget = None if self.budget is None else Budget(self.budget)
        if self.format in COURSE_FORMATS:
            return course_games(CoursePlan(self.format, self.rounds, None, budget), self.bots)
        full = 2 * self.games_per_pairing * pairing_count(self.bots, self.format)
        return full if self.budget is None else min(full, self.budget)


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
    rounds, budget = described.get("rounds"), described.get("budget")
    return TournamentSettings(
        format=str(described["format"]),
        time_control=str(described["time_control"]),
        games_per_pairing=int(described["games_per_pairing"]),
        seed=int(described["seed"]),
        bots=len(described["bots"]),
        opening_plies=int(described.get("opening_plies") or 0),
        folder=None if not folder else Path(str(folder)),
        rounds=None if rounds is None else int(rounds),
        budget=None if not budget else int(budget["games"]),
    )


def utc_minute(when: float) -> str:
    """``when`` (Unix time) as ``2026-12-06 18:44 UTC``."""
    return datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%d %H:%M UTC")
