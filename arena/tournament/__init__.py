"""Tournaments: which games are owed (``schedule``), where matches run (``executors``, with
``affinity`` and ``capacity`` for the local machine) and the run itself into a store (``run``)."""

from arena.tournament.run import TournamentPlan, TournamentResult, run_tournament

__all__ = ["TournamentPlan", "TournamentResult", "run_tournament"]
