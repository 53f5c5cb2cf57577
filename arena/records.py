"""What a played game leaves behind: the ``GameRecord`` (why a game ends is ``rules.Reason``).

A record is plain data, the same whether it comes from ``arena match --record``, the SQLite store
or an export, so that any of them can be re-checked by an independent referee.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, fields
from typing import Any

from arena.rules import Reason, Role

__all__ = ["Reason", "GameRecord", "TimeUse"]


@dataclass
class GameRecord:
    """One finished game.

    The field names are the JSON keys of ``--record`` files and JSONL exports.
    """

    order: str
    """Name of the bot that played Order."""
    chaos: str
    """Name of the bot that played Chaos."""
    winner: Role
    """The winning role."""
    reason: Reason
    """How the game ended; for a fault, the loser is the bot at fault."""
    moves: list[str] = field(default_factory=list)
    """The bots' move tokens (``c4X``) in the order played, after the ``opening``; a faulty reply
    is not included."""
    ms: list[float] = field(default_factory=list)
    """Time charged for each move in milliseconds, as ``measure`` says: wall time from sending
    `turn` to the reply, or the CPU time of the mover's process tree."""
    detail: str = ""
    """Human-readable precision on the reason, e.g. what a malformed line was."""
    stderr_order: str = ""
    """The tail of what the Order bot wrote to stderr during this game (capped)."""
    stderr_chaos: str = ""
    """The tail of what the Chaos bot wrote to stderr during this game (capped)."""
    seed: int = 0
    """The seed given to the bots' processes (environment variable ``ARENA_SEED``)."""
    started_at: float = 0.0
    """Unix time when the game started."""
    finished_at: float = 0.0
    """Unix time when the game ended."""
    order_version: str = ""
    """Identity hash of the Order bot's program and command (empty when unknown)."""
    chaos_version: str = ""
    """Identity hash of the Chaos bot's program and command (empty when unknown)."""
    opening: list[str] = field(default_factory=list)
    """Move tokens played onto the board before the bots' first turn (the same for both games of
    a pair); not included in ``moves`` and ``ms``, which are the bots' own."""
    order_display: str = ""
    """The display name the Order bot gave with ``ready <name>`` (printable ASCII, at most 64
    characters; empty when it sent a plain ``ready`` or did not start). Chosen by the bot, so
    shown beside its tournament name, never instead of it."""
    chaos_display: str = ""
    """The display name the Chaos bot gave with ``ready <name>`` (as ``order_display``)."""
    measure: str = "wall"
    """How ``ms`` was measured: ``wall`` or ``cpu`` (``arena.limits.Measure``)."""
    clock_ms: list[float] | None = None
    """Under a game clock, the mover's clock left after each move (its increment added), in
    milliseconds, beside ``ms``; None without a clock."""
    clock_start_ms: int | None = None
    """Under a game clock, each bot's clock at the start of the game (None without one)."""

    @property
    def winner_name(self) -> str:
        return self.order if self.winner is Role.ORDER else self.chaos

    @property
    def loser_name(self) -> str:
        return self.chaos if self.winner is Role.ORDER else self.order

    @property
    def faulty_role(self) -> Role | None:
        """The role whose bot lost by a fault, if any."""
        return self.winner.other if self.reason.is_fault else None

    def clocks_after(self, move: int) -> tuple[float, float] | None:
        """Order's and Chaos's clocks left after the bots' move ``move`` (0-based, in ``moves``;
        -1: at the start); None without a clock."""
        if self.clock_ms is None or self.clock_start_ms is None:
            return None
        clocks = [float(self.clock_start_ms)] * 2
        first = len(self.opening) & 1  # 0: Order moved first
        for i, left in enumerate(self.clock_ms[: move + 1]):
            clocks[(first + i) & 1] = left
        return clocks[0], clocks[1]

    def to_json(self) -> dict[str, Any]:
        """The record as JSON-ready data (lists shared, not copied: this runs once per game)."""
        data = {name: getattr(self, name) for name in _FIELD_NAMES}
        data["winner"] = self.winner.value
        data["reason"] = self.reason.value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameRecord:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["winner"] = Role(known["winner"])
        known["reason"] = Reason(known["reason"])
        return cls(**known)


_FIELD_NAMES = tuple(f.name for f in fields(GameRecord))


_BIN = math.log(1.005)  # time bins 0.5% wide: a median within 0.5%, in bounded memory


class TimeUse:
    """Each bot's time per move (median, max) and, under a clock, its clock left at the end of
    each game, gathered from records as they come, in memory that does not grow with the games
    (the medians come from bins 0.5% wide), so that an author sees how close to its limit a bot
    plays."""

    def __init__(self) -> None:
        self.moves: dict[str, Counter[int]] = {}
        self.max_ms: dict[str, float] = {}
        self.clock_end: dict[str, Counter[int]] = {}
        self.least_clock: dict[str, float] = {}
        self.measure = "wall"

    def add(self, record: GameRecord) -> None:
        self.measure = record.measure
        first = len(record.opening) & 1  # 0: Order moved first
        names = (record.order, record.chaos)
        # Each bot's moves are every other one: binned a slice at a time (this runs once per game
        # of a match's thousands; a Counter per move cost more than the rest of the summary).
        for parity in (0, 1):
            times = record.ms[parity::2]
            if times:
                name = names[(first + parity) & 1]
                bins = self.moves.get(name)
                if bins is None:
                    bins = self.moves[name] = Counter()
                bins.update(map(_bin, times))
                self.max_ms[name] = max(self.max_ms.get(name, 0.0), max(times))
        if record.clock_ms:
            for i in (len(record.clock_ms) - 1, len(record.clock_ms) - 2):
                if i >= 0:
                    name = names[(first + i) & 1]
                    left = record.clock_ms[i]
                    self.clock_end.setdefault(name, Counter())[_bin(left)] += 1
                    self.least_clock[name] = min(self.least_clock.get(name, math.inf), left)

    def stats(self, name: str) -> dict[str, float | None]:
        """``median_ms``, ``max_ms``, ``clock_end_median_ms``, ``clock_end_least_ms`` (None
        where there is nothing to tell)."""
        clock = self.clock_end.get(name)
        return {
            "median_ms": _median(self.moves.get(name)),
            "max_ms": self.max_ms.get(name),
            "clock_end_median_ms": _median(clock),
            "clock_end_least_ms": self.least_clock.get(name) if clock else None,
        }

    def line(self, name: str) -> str:
        """``greedy: 12.3 ms a move (median), max 45.6 ms (wall); clock left at the end: ...``."""
        s = self.stats(name)
        if s["median_ms"] is None or s["max_ms"] is None:
            return f"{name}: no moves"
        text = (
            f"{name}: {s['median_ms']:.1f} ms a move (median), max {s['max_ms']:.1f} ms"
            f" ({self.measure})"
        )
        if s["clock_end_median_ms"] is not None and s["clock_end_least_ms"] is not None:
            text += (
                f"; clock left at the end {s['clock_end_median_ms']:.0f} ms (median),"
                f" least {s['clock_end_least_ms']:.0f} ms"
            )
        return text


def _bin(ms: float) -> int:
    return -(10**9) if ms <= 0 else math.floor(math.log(ms) / _BIN)


def _median(bins: Counter[int] | None) -> float | None:
    """The median of binned values (the geometric middle of its bin; 0 for the zero bin)."""
    if not bins:
        return None
    total = sum(bins.values())
    seen = 0
    for key in sorted(bins):
        seen += bins[key]
        if 2 * seen >= total:
            return 0.0 if key == -(10**9) else math.exp((key + 0.5) * _BIN)
    return None  # not reached
