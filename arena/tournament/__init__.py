"""Tournaments: which games are owed (``schedule``), where matches run (``executors``, with
``affinity`` and ``capacity`` for the local machine) and the run itself into a store (``run``).

The run's names load ``run`` (and with it the store) at their first use: ``arena match`` imports
``arena.tournament.affinity`` and must not pay for the store it never opens.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.lazy import lazy_getattr

if TYPE_CHECKING:
    from arena.tournament.run import (
        TournamentObserver,
        TournamentPlan,
        TournamentResult,
        run_tournament,
    )

__all__ = ["TournamentObserver", "TournamentPlan", "TournamentResult", "run_tournament"]

__getattr__ = lazy_getattr(__name__, dict.fromkeys(__all__, "arena.tournament.run"), globals())
