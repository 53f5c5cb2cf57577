"""Time controls and resource limits: plain settings shared by the bot runner and the config."""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any

__all__ = ["TimeControl", "Measure", "Limits", "SandboxMode", "AffinityMode", "KeepBots"]

_BOT_MOVES = 18
"""The most moves one bot makes in a game (half of the 36 cells)."""
CPU_WALL_FACTOR = 3
"""Under ``measure: cpu``, a move may take at most this many times its CPU budget in wall time
(plus ``CPU_WALL_MARGIN_MS``): a bot that sleeps or blocks is still bounded."""
CPU_WALL_MARGIN_MS = 500
"""The margin of the wall-clock cap of a move under ``measure: cpu``."""


def wall_cap_ms(allowed_ms: float) -> float:
    """The wall-clock cap of a move (or a start-up) whose CPU allowance is ``allowed_ms``,
    under ``measure: cpu``."""
    return CPU_WALL_FACTOR * allowed_ms + CPU_WALL_MARGIN_MS


QUICK_MS = 2
"""A move answered within this many ms is quick: the idle bot is frozen only once the mover has
thought longer (a bot that answers at once pays nothing for the freeze), and under ``measure:
cpu`` a quick move is charged its wall time instead of a read of the CPU clock. It bounds what
a bot can do on its opponent's time: this much a move."""


def _setting(
    default: object, help: str, *, minimum: int = 1, why: str = "", shown: str = ""
) -> Any:
    """A field of a section of the tournament file: its default, one line of help (the
    reference's), and the least value that is not a mistake whoever the bot (``why`` says why)."""
    metadata = {"help": help, "minimum": minimum, "why": why, "shown": shown}
    return dataclasses.field(default=default, metadata=metadata)


def minimum_of(field: dataclasses.Field[Any]) -> tuple[int, str]:
    """The least sane value of a setting and why (1 and no reason when none is recorded)."""
    return int(field.metadata.get("minimum", 1)), str(field.metadata.get("why", ""))


class Measure(enum.StrEnum):
    """What a move is charged: the ``cpu`` time of the bot's whole process tree (its own work,
    whatever the machine's load: the default), or ``wall`` time from `turn` to the reply (the
    machine's load then counts against the bot: for a machine kept for the run)."""

    WALL = "wall"
    CPU = "cpu"


@dataclass(frozen=True)
class TimeControl:
    """How long a bot may take: a fixed time per move, or a game clock with an increment."""

    move_ms: int = _setting(100, "time for each move, without a clock")
    """Time for each move (not used under a clock): under ``measure: cpu``, the CPU time the
    bot spends from its `turn` to its reply (from its previous reply with ``freeze_idle: false``,
    so that what it thinks on the opponent's time counts); under ``measure: wall``, the wall
    time from sending `turn` to the reply."""
    startup_ms: int = _setting(
        5000,
        "time from the process's start to its `ready`",
        minimum=100,
        why="no bot process starts in less",
    )
    """Time from starting the process to its `ready` line, measured as a move is."""
    clock_ms: int | None = _setting(None, "a game clock per bot instead of a time per move")
    """A game clock per bot (None: a fixed ``move_ms`` per move). Each move's time is taken off
    the mover's clock; a move that takes more than is left loses by ``timeout``."""
    increment_ms: int = _setting(
        0, "added to the mover's clock after each of its moves (Fischer)", minimum=0
    )
    """Added to the mover's clock after each of its moves (Fischer increment; clock only)."""
    measure: Measure = _setting(Measure.CPU, "`cpu` (the bot's process tree's CPU time) or `wall`")
    """What a move is charged: the CPU time of the bot's process tree, or wall time."""
    margin_ms: int = _setting(
        0, "lateness within it is forgiven (cutechess-cli's `timemargin`)", minimum=0
    )
    """Lateness within this many ms is not a loss (cutechess-cli's ``timemargin``)."""

    @property
    def budget_ms(self) -> int:
        """The time of a move when the bot has no clock, or the clock at the start."""
        return self.move_ms if self.clock_ms is None else self.clock_ms

    def bot_game_ms(self) -> int:
        """The most time one bot may be charged in one game (its moves' times, or its clock and
        every increment it can earn), without the margin."""
        if self.clock_ms is None:
            return _BOT_MOVES * self.move_ms
        return self.clock_ms + _BOT_MOVES * self.increment_ms

    def longest_moves_ms(self) -> int:
        """The longest the moves of one game can take in wall time when no bot is at fault and
        the harness is well (a watchdog adds start-ups and its own margin): in wall mode both
        bots' whole allowances; under ``measure: cpu`` every move up to its wall-clock cap."""
        margin = 2 * _BOT_MOVES * self.margin_ms
        if self.measure is Measure.WALL:
            return 2 * self.bot_game_ms() + margin
        most = self.move_ms if self.clock_ms is None else self.bot_game_ms()  # one move's CPU
        per_move = wall_cap_ms(most + self.margin_ms)
        return round(2 * _BOT_MOVES * per_move)

    def startup_wall_ms(self) -> int:
        """The longest a start-up may take in wall time: ``startup_ms``, or its wall-clock cap
        under ``measure: cpu`` (where ``startup_ms`` bounds its CPU time)."""
        if self.measure is Measure.WALL:
            return self.startup_ms
        return round(wall_cap_ms(self.startup_ms))

    def definition(self) -> dict[str, object]:
        """What a store keeps of it: every field."""
        data: dict[str, object] = dataclasses.asdict(self)
        data["measure"] = self.measure.value
        return data

    def describe(self) -> str:
        """One line: ``100 ms/move (wall)``, ``clock 60000+500 ms (cpu)``."""
        if self.clock_ms is None:
            what = f"{self.move_ms} ms/move"
        else:
            what = f"clock {self.clock_ms}+{self.increment_ms} ms"
        margin = f", margin {self.margin_ms} ms" if self.margin_ms else ""
        return f"{what} ({self.measure.value}{margin})"


def parse_clock(text: str) -> tuple[int, int]:
    """``60+0.5`` (seconds, cutechess style) -> ``(60000, 500)`` ms; ValueError if it is not one.

    A clock without ``+`` has no increment.
    """
    base, plus, inc = text.strip().partition("+")
    try:
        clock_s, inc_s = float(base), float(inc) if plus else 0.0
    except ValueError:
        expected = "expected SECONDS or SECONDS+INCREMENT (e.g. 60+0.5)"
        raise ValueError(f"{expected}, got {text!r}") from None
    if not (0 < clock_s < 10**7) or not (0 <= inc_s < 10**7):
        raise ValueError(f"expected a clock > 0 and an increment >= 0 seconds, got {text!r}")
    return round(clock_s * 1000), round(inc_s * 1000)


@dataclass(frozen=True)
class Limits:
    """Resource limits for each bot process (rlimits and harness-side caps)."""

    memory_mb: int = _setting(
        1024,
        "resident memory with a cgroup, else each process's address space",
        minimum=64,
        why="a Python bot cannot start with less",
    )
    """Memory in MiB: the bot's resident memory, all its processes together, where arena has a
    memory cgroup for it (going past it is its ``crash``); else each process's address space
    (RLIMIT_AS), which a JVM or Go runtime needs far more of than it uses (docs/sandbox.md)."""
    cpu_seconds: int | None = _setting(
        None, "the process's CPU-time rlimit", shown="from the match"
    )
    """RLIMIT_CPU for the whole process; None derives a generous one from the match's length."""
    file_size_mb: int = _setting(16, "the largest file the bot may write")
    """Largest file the bot may write (RLIMIT_FSIZE), in its private tmp."""
    open_files: int = _setting(
        64, "open files", minimum=16, why="a Python bot cannot start with fewer"
    )
    """RLIMIT_NOFILE."""
    processes: int | None = _setting(
        64,
        "processes and threads of the bot, all together",
        minimum=8,
        why="an interpreter starts threads of its own",
    )
    """Processes and threads of one bot, all its descendants included (None: unbounded).
    Exceeding it is the bot's fault (a ``crash``) where a cgroup records it (docs/sandbox.md)."""
    tmp_mb: int = _setting(
        64, "the bot's private `/tmp`", why="a bot's private /tmp needs some room"
    )
    """Size of the bot's private ``/tmp`` (a tmpfs); filling it is the bot's fault (``crash``)."""
    stderr_kb: int = _setting(16, "how much of the bot's stderr is kept with each game (its end)")
    """How much of a bot's stderr is kept with each game (the tail); the rest is dropped."""
    line_bytes: int = _setting(
        1024,
        "the longest line accepted from the bot",
        minimum=64,
        why="a 'ready <name>' line may be that long",
    )
    """Longest line accepted from a bot; a longer one is `malformed`."""


def least(settings: type[TimeControl | Limits], name: str) -> int:
    """The least sane value of field ``name`` of ``settings`` (for command-line options)."""
    field = next(f for f in dataclasses.fields(settings) if f.name == name)
    return minimum_of(field)[0]


class SandboxMode(enum.StrEnum):
    """``auto`` uses bubblewrap when it is installed; ``none`` runs bots with rlimits only."""

    AUTO = "auto"
    BWRAP = "bwrap"
    NONE = "none"


class AffinityMode(enum.StrEnum):
    """Pin each match (worker and both bots) to one core: ``auto`` when cores >= workers."""

    AUTO = "auto"
    ON = "on"
    OFF = "off"


class KeepBots(enum.StrEnum):
    """Which bot processes a worker keeps between its matches (``keep_bots``).

    ``auto`` keeps those that asked for the ``match`` extension (they reset at ``match <seed>``
    as if started afresh: their games are the same either way); ``true`` keeps every bot (a bot
    that does not ask carries its random state into its next match); ``false`` keeps none.
    """

    AUTO = "auto"
    ALL = "true"
    OFF = "false"

    @classmethod
    def of(cls, value: object) -> KeepBots:
        """The mode ``value`` names: a member, its word, or YAML's ``true`` or ``false``;
        ``ValueError`` for anything else."""
        if isinstance(value, bool):
            return cls.ALL if value else cls.OFF
        if isinstance(value, str):
            return cls(value)
        raise ValueError(f"{value!r} is not a valid {cls.__name__}")
