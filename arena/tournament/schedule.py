"""Which games a tournament owes: pairings, role assignments and the chunks that play them.

Every pairing is played in both role assignments, ``games_per_pairing`` times each. A game's
*slot*, (Order bot, Chaos bot, index), is its key in the store: a resumed tournament plays the
slots missing. A pairing's games are cut into chunks of ``CHUNK`` games, roles alternating, each
with its own seed: the chunk (``MatchJob``) is the unit of work, replay and resume. A chunk
``follows`` the one whose bot processes it continues: a chain of chunks is a *match*. The plan
depends on the config alone, never on the workers, so the games are the same however many play.

A round robin is played in rounds (Berger tables): in each, every bot meets one opponent, and no
chunk of a round is handed out while a match of an earlier round waits (``MatchJob.round``), so
the games per bot differ by at most a meeting's plus those in flight. The order changes which
games come first, never which games.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TypeVar

from arena.botspec import BotSpec
from arena.rules import Board

FORMATS = ("round-robin", "gauntlet")
"""Every pair of bots, or the first bot against each of the others."""

MAX_OPENING_PLIES = 24
"""The longest random opening: two thirds of the board, leaving the bots a game to play."""

CHUNK = 10
"""Games per chunk: where a match may be cut (an idle worker takes the later chunks of another's
match when both bots reset at ``match <seed>``: ``arena.tournament.executors.placement``)."""

_Bot = TypeVar("_Bot")
"""A bot as ``pairings`` pairs it: its ``BotSpec``, or its name."""

MIN_JOBS = 4
"""A tournament of fewer pairings is cut into this many matches, whatever its bots: enough for a
few workers even when its chunks cannot go elsewhere (each match starts its bots)."""

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
    seed: int = 0
    """The seed of the game's chunk, which its bots get at its first game (started with it, or
    told ``match <seed>``): a chunk plays alike whether its match began there or not."""
    replay: bool = False
    """Stored already (a chunk stopped part-way): played again, not stored, so that the bots
    reach the state in which the chunk's next game began, as in an unstopped run."""


@dataclass(frozen=True)
class MatchJob:
    """A chunk to play: one seed's games of two bots, their slots in playing order."""

    key: str
    """Stable name of the chunk, e.g. ``greedy~random#3`` (pairing and chunk number)."""
    bot_a: BotSpec
    bot_b: BotSpec
    slots: tuple[GameSlot, ...]
    seed: int
    """The chunk's seed: its bot processes start with it, or are told it (``Match.reseed``)."""
    games: int = 0
    """The games of its match as planned (0: its slots'): what its bots' CPU limit is made for,
    so that they are those kept from matches of its like (``arena.referee.keeper``)."""
    round: int = 0
    """The round it is played in (``in_rounds``): no chunk of a later round is handed out while
    a match of this round waits."""
    follows: str | None = None
    """The key of the chunk whose bot processes it continues (None: it starts a match)."""

    def slot_key(self, slot: GameSlot) -> tuple[str, str, int]:
        """(Order name, Chaos name, index): the store's key of a slot."""
        order, chaos = (
            (self.bot_a, self.bot_b) if slot.order_seat == 0 else (self.bot_b, self.bot_a)
        )
        return order.name, chaos.name, slot.index

    def without(self, done: Collection[tuple[str, str, int]]) -> MatchJob:
        """The same chunk minus the games played: none if played whole; else those played before
        its last missing one kept as ``replay`` (a chunk's games depend on those before)."""
        missing = [i for i, slot in enumerate(self.slots) if self.slot_key(slot) not in done]
        left = self.slots[: missing[-1] + 1] if missing else ()
        return dataclasses.replace(
            self,
            slots=tuple(
                dataclasses.replace(slot, replay=True) if self.slot_key(slot) in done else slot
                for slot in left
            ),
        )

    @property
    def owed(self) -> int:
        """Its games to be stored: its slots but those it only replays."""
        return sum(not slot.replay for slot in self.slots)


def pairings(bots: Sequence[_Bot], format: str = "round-robin") -> list[tuple[_Bot, _Bot]]:
    """Unordered pairs to play: all pairs (round-robin) or the first bot against each other
    (bots, or their names: the store's account of what is owed pairs names)."""
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
    """A seeded random sequence of ``plies`` legal moves, each making no five (were there none
    left, which cannot happen this early, the draw starts over)."""
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


def berger_rounds(count: int) -> list[list[tuple[int, int]]]:
    """The rounds of a round robin of ``count`` players (indices, the lower first in each pair),
    by the circle method of Berger tables: player 0 stays, the others turn one place a round. An
    odd pool gets a phantom player, whose opponent in a round has the bye."""
    size = count + count % 2
    circle = list(range(size))
    rounds = []
    for _ in range(size - 1):
        pairs = [(circle[i], circle[size - 1 - i]) for i in range(size // 2)]
        rounds.append([(min(pair), max(pair)) for pair in pairs if max(pair) < count])
        circle = [circle[0], circle[-1], *circle[1:-1]]
    return rounds


def _berger_order(
    bots: Sequence[BotSpec], pairs: list[tuple[BotSpec, BotSpec]], format: str
) -> list[tuple[int, tuple[BotSpec, BotSpec]]]:
    """``pairs`` with their rounds, in round order: a round robin's Berger rounds; a gauntlet is
    one round (the challenger meets everyone in it, each other bot one opponent)."""
    if format == "gauntlet":
        return [(0, pair) for pair in pairs]
    index = {bot.name: i for i, bot in enumerate(bots)}
    by_indices = {(index[a.name], index[b.name]): (a, b) for a, b in pairs}
    return [
        (number, by_indices[pair])
        for number, pairs_of_round in enumerate(berger_rounds(len(bots)))
        for pair in pairs_of_round
    ]


def in_rounds(
    owed: Sequence[MatchJob],
    done: Collection[tuple[str, str, int]],
    format: str = "round-robin",
) -> list[MatchJob]:
    """The chunks of ``owed`` (a plan) that miss games, in the round each is played in now, in
    round order; each follows the last chunk left before it in its match (the first: None).
    A meeting goes in the round of the more advanced of its bots, counted in meetings played or
    placed before it (not a gauntlet's challenger): from the start its Berger round; after a
    stop, the rounds left; a late or changed bot's meetings go beside its opponents' next round.
    """
    meetings: dict[tuple[str, str], list[MatchJob]] = {}
    left_at: dict[str, str | None] = {}  # chunk -> the last chunk left up to it in its match
    for job in owed:
        missing = job.without(done)
        before = None if job.follows is None else left_at.get(job.follows)
        left_at[job.key] = job.key if missing.slots else before
        meetings.setdefault((job.bot_a.name, job.bot_b.name), []).extend(
            [dataclasses.replace(missing, follows=before)] if missing.slots else []
        )
    played: Counter[str] = Counter()
    for pair, jobs in meetings.items():
        if not jobs:
            played.update(pair)
    placed: list[MatchJob] = []
    for (a, b), jobs in meetings.items():
        if jobs:
            number = max(played[name] for name in ((b,) if format == "gauntlet" else (a, b)))
            placed += (dataclasses.replace(job, round=number) for job in jobs)
            played.update((a, b))
    return sorted(placed, key=lambda job: job.round)  # stable: the plan's order within a round


def plan_matches(
    bots: Sequence[BotSpec],
    games_per_pairing: int,
    *,
    format: str = "round-robin",
    seed: int = 1,
    done: Collection[tuple[str, str, int]] = (),
    chunk: int = CHUNK,
    opening_plies: int = 0,
) -> list[MatchJob]:
    """The chunks that play every missing game (``in_rounds``): a function of its arguments.
    A pairing's games alternate roles index by index, in chunks of ``chunk`` games (rounded up to
    even), each seeded from the tournament's seed and its name (``a~b#3``). A pairing is one
    match, or, below ``MIN_JOBS`` pairings, that many near-equal matches of whole chunks. Games
    of index i start from ``opening_for(seed, i, opening_plies)``.
    """
    pairs = pairings(bots, format)
    per_chunk = max(1, (chunk + 1) // 2)  # index pairs
    chunks = max(1, -(-games_per_pairing // per_chunk))
    parts = min(chunks, max(1, -(-MIN_JOBS // max(1, len(pairs)))))
    starts = [chunks * i // parts for i in range(parts)]
    jobs = []
    openings = [opening_for(seed, index, opening_plies) for index in range(games_per_pairing)]
    for meeting_round, (a, b) in _berger_order(bots, pairs, format):
        name = f"{a.name}~{b.name}"
        seeds = [_derived_seed(seed, f"{name}#{number}") for number in range(chunks)]
        slots = [
            GameSlot(seat, index, openings[index], seeds[index // per_chunk])
            for index in range(games_per_pairing)
            for seat in (0, 1)
        ]
        for first, end in zip(starts, [*starts[1:], chunks], strict=True):
            games = len(slots[2 * per_chunk * first : 2 * per_chunk * end])
            for number in range(first, end):
                part = tuple(slots[2 * per_chunk * number : 2 * per_chunk * (number + 1)])
                follows = None if number == first else f"{name}#{number - 1}"
                key = f"{name}#{number}"
                jobs.append(MatchJob(key, a, b, part, seeds[number], games, meeting_round, follows))
    return in_rounds(jobs, done, format)


def match_count(jobs: Sequence[MatchJob]) -> int:
    """How many matches ``jobs`` start: the chunks that follow none."""
    return sum(job.follows is None for job in jobs)


def round_matches(
    pairs: Sequence[tuple[BotSpec, BotSpec]], number: int, *, seed: int = 1, opening_plies: int = 0
) -> list[MatchJob]:
    """The chunks of round ``number`` (from 1) of a course: a pairing one game per role in slot
    ``number - 1``, seeded from the tournament's seed, the pairing and the round."""
    index = number - 1
    opening = opening_for(seed, index, opening_plies)
    jobs = []
    for a, b in pairs:
        key = f"{a.name}~{b.name}@{number}"
        match_seed = _derived_seed(seed, key)
        slots = tuple(GameSlot(seat, index, opening, match_seed) for seat in (0, 1))
        jobs.append(MatchJob(key, a, b, slots, match_seed, len(slots), index))
    return jobs
