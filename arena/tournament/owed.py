"""The games a stored tournament still owes, pairing by pairing, and why: what the standings say
beside the table, so that a run that ended short (harness errors, a stop, games discarded) is
never read as complete.

Read from the store alone: the tournament the last run described (its bots, format and games per
pairing), the games that count per pairing (current versions, owed slots), and the harness errors
recorded against each pairing's matches (``a~b#0``: the job keys of ``arena.tournament.schedule``).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from arena.tournament.schedule import FORMATS, pairings

if TYPE_CHECKING:
    from arena.store.database import Store


NOT_PLAYED = "not played yet: the run stopped, is still going, or games were discarded"
"""Why a pairing owes games when no harness error names it."""


@dataclass(frozen=True)
class OwedPairing:
    """The games one pairing still owes."""

    pairing: str
    """``a~b``: the two bots, as the tournament pairs them."""
    games: int
    """Games owed, in both role assignments together."""
    why: str
    """The last harness error recorded against its matches (its last line), or ``NOT_PLAYED``."""
    harness_errors: int
    """How many harness errors name its matches."""


def owed_games(store: Store) -> list[OwedPairing]:
    """Each pairing of the store's tournament that still owes games, in the tournament's order
    (none for a store no tournament described, such as ``arena play``'s)."""
    plan = _described(store.get_meta("config"))
    if plan is None:
        return []
    names, format, per_pairing = plan
    active = {bot.name for bot in store.active_bots()}
    if not set(names) <= active:  # another run's bots since: this description is not theirs
        return []
    counted = store.counted_by_pairing()
    errors = Counter[str]()
    last: dict[str, str] = {}
    for error in store.harness_errors():
        pairing = error.description.split("#", 1)[0]
        errors[pairing] += 1
        last[pairing] = (error.error.strip().splitlines() or [""])[-1]
    owed = []
    for a, b in pairings(names, format):
        missing = max(0, 2 * per_pairing - counted.get((a, b), 0) - counted.get((b, a), 0))
        if missing:
            key = f"{a}~{b}"
            owed.append(OwedPairing(key, missing, last.get(key, NOT_PLAYED), errors[key]))
    return owed


def _described(text: str | None) -> tuple[list[str], str, int] | None:
    """(bots, format, games per pairing) of a run's description (``TournamentPlan.describe``),
    or None when there is none or it is not one arena wrote."""
    try:
        data = json.loads(text) if text else None
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    names, format, per_pairing = data.get("bots"), data.get("format"), data.get("games_per_pairing")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return None
    if format not in FORMATS or type(per_pairing) is not int or per_pairing < 0:
        return None
    return names, str(format), per_pairing
