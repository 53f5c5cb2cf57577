"""Which games a tournament owes: pairings, role assignments and the matches that play them.

Every pairing is played in both role assignments, ``games_per_pairing`` times each. A game is
identified by its *slot*: (Order bot, Chaos bot, index), which is also its key in the store, so
that a resumed tournament plays exactly the slots that are missing. The games of a pairing are
grouped into matches (the unit of parallel work: a worker starts the two bots once and reuses them)
in which roles alternate, so that a tournament stopped at any point is balanced.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from arena.botspec import BotSpec
from arena.rules import Board

__all__ = [
    "GameSlot",
    "MatchJob",
    "pairings",
    "pairing_count",
    "plan_matches",
    "random_opening",
    "FORMATS",
    "MAX_OPENING_PLIES",
]

FORMATS = ("round-robin", "gauntlet")
"""Every pair of bots, or the first bot against each of the others."""

MAX_OPENING_PLIES = 24
"""The longest random opening: two thirds of the board, leaving the bots a game to play."""

MAX_GAMES = 10_000_000
"""The most games a tournament may owe: its plan lists them all (about 100 bytes each)."""


@dataclass(frozen=True)
class GameSlot:
    """One game a tournament owes."""

    order_seat: int
    """0 if the match's first bot plays Order, 1 if the second does."""
    index: int
    """The game's index among the games of its ordered pairing (0 .. games_per_pairing-1)."""
    opening: tuple[str, ...] = ()
    """Moves (``c4X``) played onto the board before the bots' first ``turn``: the same for both
    role assignments of an index, so that each side of a pairing plays each position once."""


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
        return dataclasses.replace(self, slots=left)


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


def random_opening(seed: int, plies: int) -> tuple[str, ...]:
    """A seeded random sequence of ``plies`` legal moves after which no five stands.

    Each move is drawn among the legal moves that make no five; were there none (it cannot
    happen this early on a 6x6 board, but the rule is cheap), the draw starts over.
    """
    if not 0 <= plies <= MAX_OPENING_PLIES:
        raise ValueError(f"an opening has 0 to {MAX_OPENING_PLIES} plies, not {plies}")
    rng = random.Random(seed)
    while True:
        board = Board()
        for _ in range(plies):
            moves = board.legal_moves()
            rng.shuffle(moves)
            for move in moves:
                if not board.push(move):
                    break
                board.pop()
            else:
                break  # every move makes a five: draw again
        else:
            return tuple(move.token for move in board.history)


def opening_for(seed: int, index: int, plies: int) -> tuple[str, ...]:
    """The opening of every pairing's games of index ``index`` (the same position for all)."""
    if plies == 0:
        return ()
    return random_opening(_derived_seed(seed, "opening", str(index)), plies)


def plan_matches(
    bots: Sequence[BotSpec],
    games_per_pairing: int,
    *,
    format: str = "round-robin",
    seed: int = 1,
    workers: int = 1,
    done: Collection[tuple[str, str, int]] = (),
    min_chunk: int = 10,
    opening_plies: int = 0,
) -> list[MatchJob]:
    """The matches that play every missing game.

    Each pairing's 2 x ``games_per_pairing`` games alternate roles (A as Order, then B as Order,
    index by index). A pairing is split into chunks when that gives idle workers something to
    do, but never into chunks of fewer than ``min_chunk`` games: each chunk starts its bots anew.
    With ``opening_plies``, the games of index i start from ``opening_for(seed, i, plies)``.
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
    openings = [opening_for(seed, index, opening_plies) for index in range(games_per_pairing)]
    for a, b in pairs:
        slots = [
            GameSlot(seat, index, openings[index])
            for index in range(games_per_pairing)
            for seat in (0, 1)
        ]
        for number in range(count):
            key = f"{a.name}~{b.name}#{number}"
            job = MatchJob(key, a, b, tuple(slots[bounds[number] : bounds[number + 1]]), 0)
            job = MatchJob(key, a, b, job.without(done).slots, _derived_seed(seed, key))
            if job.slots:
                jobs.append(job)
    return jobs
