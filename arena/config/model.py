"""A validated tournament file, and the plan of a run that it makes.

``TournamentConfig`` is what a file says, checked and with its paths resolved; its bots are
``BotSpec``s already (built through ``arena.botspec``, the one place bots are looked up).
``plan()`` turns it into the library's ``TournamentPlan``, which is all ``run_tournament`` needs.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from arena.botspec import BotSpec
from arena.limits import AffinityMode, KeepBots, Limits, SandboxMode, TimeControl
from arena.referee.settings import MatchSettings
from arena.tournament.executors import DEFAULT_EXECUTOR
from arena.tournament.run import TournamentPlan
from arena.tournament.stoprule import Budget, StopRule


def in_store_folder(spec: BotSpec, db: Path) -> bool:
    """Whether the bot's folder (which is shown to it) is the results store's folder, where
    SQLite makes files during a run: no sandbox could cover them there."""
    from arena.store.database import store_in_bot_folder

    return store_in_bot_folder(spec.dir, db)


def store_folder_problem(spec: BotSpec, db: Path) -> str:
    """What is wrong with a bot in the store's folder, and the way out, in one line."""
    return (
        f"the bot's folder {spec.dir} holds the results store {db}, which no sandbox could then"
        " hide from it: give the bot a folder of its own, or the store another (db:)"
    )


@dataclass(frozen=True)
class TournamentConfig:
    """A validated tournament file."""

    name: str
    """The tournament's name (default: the file's stem)."""
    path: Path | None
    """The config file, resolved (None for :func:`arena.config.config_from_dict`)."""
    bots: tuple[BotSpec, ...]
    """At least two bots, in the file's order (a gauntlet's first bot is its challenger)."""
    format: str = "round-robin"
    """One of :data:`arena.tournament.schedule.FORMATS` or a course's
    (:data:`arena.tournament.course.COURSE_FORMATS`)."""
    games_per_pairing: int = 10
    """Games per *ordered* pair: A as Order against B as Chaos (and as many the other way round)."""
    time_control: TimeControl = dataclasses.field(default_factory=TimeControl)
    """Per-move and startup time."""
    limits: Limits = dataclasses.field(default_factory=Limits)
    """Resource limits of each bot process."""
    workers: int = 1
    """Matches played at once (the file's default: the number of usable cores)."""
    seed: int = 1
    """Seed of everything random in the tournament (0 to 2**63 - 1)."""
    db: Path = Path("results/tournament.sqlite")
    """The results store, absolute (default: ``results/<name>.sqlite`` beside the file)."""
    sandbox: SandboxMode = SandboxMode.AUTO
    """How bots are isolated (resolved where the bots run: ``auto`` is shipped as is)."""
    affinity: AffinityMode = AffinityMode.AUTO
    """Whether each match is pinned to one core."""
    freeze_idle: bool = True
    """Stop the bot that is not on move once its opponent has thought a moment (all its
    processes); false lets bots think on their opponent's time."""
    executor: str = DEFAULT_EXECUTOR
    """Where matches run: a name of :data:`arena.tournament.executors.EXECUTORS`."""
    force_workers: bool = False
    """Use ``workers`` even beyond what the machine runs fairly (``--force-workers``)."""
    notices: tuple[str, ...] = ()
    """What the user should know about the file that is not an error (printed once a run)."""
    opening_plies: int = 0
    """``openings: {random_plies: N}``: each pair of games (both role assignments) starts from
    the same seeded random position of N plies (0: the empty board)."""
    cluster: str | None = None
    """``cluster:``: the Dask cluster of the ``cluster`` executor (``tcp://HOST:PORT`` or
    ``local:N``)."""
    trusted_bots: bool = False
    """``trusted_bots:`` (or ``--trusted-bots``): on a cluster the bots may run without
    bubblewrap, where they could reach its scheduler (``arena.tournament.executors.cluster``)."""
    keep_bots: KeepBots = KeepBots.AUTO
    """``keep_bots:``: which processes of the bots it started each worker keeps alive (frozen)
    between its matches, for its next match with them (``arena.referee.keeper``). ``auto`` (the
    default): those of bots that asked for the ``match`` extension, which reset at its line, so
    that their games are the same; ``true``: every bot's (one that does not ask carries its
    random state into its next match, so a randomised bot's games differ); ``false``: none."""
    rounds: int | None = None
    """``rounds:``: a course's Swiss rounds (None: ``arena.tournament.course.default_rounds``)."""
    until: StopRule | None = None
    """``until: {top: K, los: P}``: a course's stopping rule, and the contested format's top."""
    budget: Budget | None = None
    """``budget: {games: G}``: the most games a course plays."""

    def settings(self) -> MatchSettings:
        """How each match is played: the match settings of the file, and what the bots may
        not see."""
        return MatchSettings(
            time_control=self.time_control,
            limits=self.limits,
            sandbox=self.sandbox,
            freeze_idle=self.freeze_idle,
            hidden=self.hidden_from_bots(),
            private=self.bots_own_files(),
            keep_bots=self.keep_bots,
        )

    def bots_own_files(self) -> tuple[str, ...]:
        """Each bot's own files, which the others may not see: its folder when it has one of
        its own, else the files in its folder its command names (not an interpreter elsewhere,
        which every bot may run)."""
        paths: list[str] = []
        for spec in self.bots:
            if spec.own_dir:
                paths.append(str(spec.dir))
            else:
                folder = spec.dir.resolve()
                paths += (str(f) for f in spec.named_files() if folder in f.resolve().parents)
        return tuple(dict.fromkeys(paths))

    def hidden_from_bots(self) -> tuple[str, ...]:
        """What no bot's sandbox may show: the store, its companions and its folder
        (``arena.store.hidden_from_bots``), and the config."""
        from arena.store.database import hidden_from_bots

        config = () if self.path is None else (str(self.path),)
        return (*hidden_from_bots(self.db), *config)

    def plan(self) -> TournamentPlan:
        """The run this file describes, in the library's terms."""
        return TournamentPlan(
            name=self.name,
            bots=self.bots,
            format=self.format,
            games_per_pairing=self.games_per_pairing,
            seed=self.seed,
            workers=self.workers,
            settings=self.settings(),
            db=self.db,
            affinity=self.affinity,
            executor=self.executor,
            force_workers=self.force_workers,
            opening_plies=self.opening_plies,
            cluster=self.cluster,
            trusted_bots=self.trusted_bots,
            folder=None if self.path is None else self.path.parent,
            rounds=self.rounds,
            until=self.until,
            budget=self.budget,
        )
