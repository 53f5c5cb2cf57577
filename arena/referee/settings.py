"""``MatchSettings``: how the games of a match are played (time, limits, sandbox, kept bots)."""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.limits import KeepBots, Limits, SandboxMode, TimeControl


@dataclass(frozen=True)
class MatchSettings:
    """How the games of a match are played."""

    time_control: TimeControl = field(default_factory=TimeControl)
    """Time per move and start-up allowance."""
    limits: Limits = field(default_factory=Limits)
    """Resource limits of each bot process."""
    sandbox: SandboxMode = SandboxMode.AUTO
    """How bots are isolated (``auto``: bubblewrap where it works)."""
    freeze_idle: bool = True
    """Freeze the bot that is not on move once the mover has thought for ``QUICK_MS``: no bot
    runs on its opponent's time, nor can it be the load that makes its opponent late. See
    ``BotProcess.freeze`` for what is frozen where; ``arena.referee.clock`` for the cost."""
    startup_attempts: int = 2
    """After this many failed start-ups in a row, a bot is not started again in this match: its
    remaining games are lost by ``startup`` at once instead of costing the allowance each."""
    hidden: tuple[str, ...] = ()
    """Host paths no bot may see under the sandbox: the results store, its folder, the config."""
    private: tuple[str, ...] = ()
    """Each bot's own files (its folder when it has one of its own, else the files in its folder
    that its command names): under the sandbox a bot sees none of the others', even in a folder
    it shares with them (``arena.config``'s ``TournamentConfig.settings`` fills it)."""
    keep_bots: KeepBots = KeepBots.AUTO
    """Which processes of the bots it started a worker keeps alive between its matches, frozen,
    for its next match with them (``arena.referee.keeper``): ``auto``, those that asked for the
    ``match`` extension; ``true``, all; ``false``, none. A ``Match`` keeps them only when it is
    given a ``BotKeeper``."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "keep_bots", KeepBots.of(self.keep_bots))
