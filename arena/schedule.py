"""Which games a tournament owes: pairings, role assignments and the matches that play them.

Every pairing is played in both role assignments, ``games_per_pairing`` times each. A game is
identified by its *slot*: (Order bot, Chaos bot, index), which is also its key in the store, so
that a resumed tournament plays exactly the slots that are missing. The games of a pairing are
grouped into matches (the unit of parallel work: a worker starts the two bots once and reuses them)
in which roles alternate, so that a tournament stopped at any point is balanced.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from arena.botspec import BotSpec

__all__ = ["GameSlot", "MatchJob", "pairings", "pairing_count", "plan_matches", "FORMATS"]

FORMATS = ("round-robin", "gauntlet")
"""Every pair of bots, or the first bot against each of the others."""

MAX_GAMES = 10_000_000
"""The most games a tournament may owe: its plan lists them all (about 100 bytes each)."""


@dataclass(frozen=True)
class GameSlot:
    """One game a tournament owes."""

    order_seat: int
    """0 if the match's first bot plays Order, 1 if the second does."""
    index: int
    """The game's index among the games of its ordered pairing (0 .. games_per_pairing-1)."""


@dataclass(frozen=True)
class MatchJob:
    """A match to play: two bots and the slots of their games, in playing order."""

    key: str
    """Stable name of the job, e.g. ``greedy~random#0`` (pairing and chunk)."""
    bot_a: BotSpec
    bot_b: BotSpec
    slots: tuple[GameSlot, ...]
    seed: int
    """Seed of the match's bot processes, derived from the tournament seed and the pairing."""

    def slot_key(self, slot: GameSlot) -> tuple[str, str, int]:
        """(Order name, Chaos name, index): the store's key of a slot."""
        order, chaos = (
            (self.bot_a, self.bot_b) if slot.order_seat == 0 else (self.bot_b, self.bot_a)
        )
        return order.name, chaos.name, slot.index

    def without(self, done: Collection[tuple[str, str, int]]) -> MatchJob:
        """The same job minus the slots already played."""
        left = tuple(s for s in self.slots if self.slot_key(s) not in done)
        return MatchJob(self.key, self.bot_a, self.bot_b, left, self.seed)


def pairings(bots: Sequence[BotSpec], format: str = "round-robin") -> list[tuple[BotSpec, BotSpec]]:
    """Unordered pairs to play: all pairs (round-robin) or the first bot against each other."""
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r}; expected one of {', '.join(FORMATS)}")
    if format == "gauntlet":
        return [(bots[0], other) for other in bots[1:]]
    return [(a, b) for i, a in enumerate(bots) for b in bots[i + 1 :]]


def pairing_count(bots: int, format: str = "round-robin") -> int:
    """How many pairs ``pairings`` makes of ``bots`` bots."""
    if format == "gauntlet":
        return max(0, bots - 1)
    return bots * (bots - 1) // 2


def _derived_seed(seed: int, *names: str) -> int:
    digest = hashlib.sha256(repr((seed, names)).encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def plan_matches(
    bots: Sequence[BotSpec],
    games_per_pairing: int,
    *,
    format: str = "round-robin",
    seed: int = 1,
    workers: int = 1,
    done: Collection[tuple[str, str, int]] = (),
    min_chunk: int = 10,
) -> list[MatchJob]:
    """The matches that play every missing game.

    Each pairing's 2 x ``games_per_pairing`` games alternate roles (A as Order, then B as Order,
    index by index). A pairing is split into chunks when that gives idle workers something to
    do, but never into chunks of fewer than ``min_chunk`` games: each chunk starts its bots anew.
    """
    pairs = pairings(bots, format)
    total = 2 * games_per_pairing * len(pairs)
    wanted_jobs = max(1, 2 * workers)
    chunk = max(min_chunk, -(-total // wanted_jobs)) if len(pairs) < wanted_jobs else total
    chunk += chunk & 1  # even: each chunk plays both role assignments equally
    # As many chunks as fit whole, of near-equal sizes (a short remainder would restart the bots
    # for a handful of games); each a whole number of index pairs, so both roles equally.
    count = max(1, games_per_pairing // max(1, chunk // 2))
    bounds = [2 * (games_per_pairing * i // count) for i in range(count + 1)]
    jobs = []
    for a, b in pairs:
        slots = [GameSlot(seat, index) for index in range(games_per_pairing) for seat in (0, 1)]
        for number in range(count):
            key = f"{a.name}~{b.name}#{number}"
            job = MatchJob(key, a, b, tuple(slots[bounds[number] : bounds[number + 1]]), 0)
            job = MatchJob(key, a, b, job.without(done).slots, _derived_seed(seed, key))
            if job.slots:
                jobs.append(job)
    return jobs
