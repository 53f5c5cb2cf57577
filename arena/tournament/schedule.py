"""Which games a tournament owes: pairings, role assignments and the matches that play them.

Every pairing is played in both role assignments, ``games_per_pairing`` times each. A game is
identified by its *slot*: (Order bot, Chaos bot, index), which is also its key in the store, so
that a resumed tournament plays exactly the slots that are missing. The games of a pairing are
cut into chunks of ``CHUNK`` games, each with its own seed, and grouped into matches (the unit of
parallel work: a worker starts the two bots once and reuses them) in which roles alternate, so
that a tournament stopped at any point is balanced. The plan depends on the config alone, never
on the workers, so that the same games are played however many run them.

A round robin is played in rounds, as chess round robins are (Berger tables): in each round every
bot meets one opponent (a bye for an odd pool), and the executors hand out no match of a round
while one of an earlier round waits (``MatchJob.round``). So at any moment the games per bot
differ by at most one meeting's games plus those in flight, and standings taken mid-run are fair.
The order changes which games are played first, never which games: each chunk's seed is its own.
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
"""Games per chunk: where a match may be cut (a worker gives the rest of its match to an idle one
when both bots reset at ``match <seed>``: ``arena.tournament.executors.local``)."""

_Bot = TypeVar("_Bot")
"""A bot as ``pairings`` pairs it: its ``BotSpec``, or its name."""

MIN_JOBS = 4
"""A tournament of fewer pairings is cut into this many matches, at chunk boundaries, whatever
its bots: enough for a few workers even when its bots cannot be handed on (each match starts
its bots; a tournament of more pairings starts them no more often than one match a pairing)."""

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
    """The seed of the game's chunk: the bots' processes get it at the chunk's first game
    (started with it, or told ``match <seed>``: ``Match.reseed``), so that a chunk plays the
    same games whether its match began there or played the chunks before it."""
    replay: bool = False
    """Played and stored already (a chunk stopped part-way): played again, neither stored nor
    told, so that the bots are in the state in which the chunk's next game began, and a resumed
    chunk plays the games an unstopped run would have (bots that depend on their seed alone)."""


@dataclass(frozen=True)
class MatchJob:
    """A match to play: two bots and the slots of their games, in playing order."""

    key: str
    """Stable name of the job, e.g. ``greedy~random#0`` (pairing and chunk)."""
    bot_a: BotSpec
    bot_b: BotSpec
    slots: tuple[GameSlot, ...]
    seed: int
    """Seed of the match's bot processes: its first slot's (that of the chunk it begins in)."""
    games: int = 0
    """Its games as planned (0: as many as its slots): what its bots' CPU limit is made for, kept
    when games are taken off it (played already, or handed to another worker), so that its bots
    are those kept from matches of its like (``arena.referee.keeper``)."""
    round: int = 0
    """The round it is played in (``in_rounds``): no match of a later round is handed out while
    one of this round waits."""

    def slot_key(self, slot: GameSlot) -> tuple[str, str, int]:
        """(Order name, Chaos name, index): the store's key of a slot."""
        order, chaos = (
            (self.bot_a, self.bot_b) if slot.order_seat == 0 else (self.bot_b, self.bot_a)
        )
        return order.name, chaos.name, slot.index

    def without(self, done: Collection[tuple[str, str, int]]) -> MatchJob:
        """The same job minus the slots already played: a chunk played whole is dropped, and in
        a chunk stopped part-way the games played before its last missing one are kept as
        ``replay`` slots (a chunk's games depend on the ones before them in it)."""
        left: list[GameSlot] = []
        for chunk in _chunks(self.slots):
            missing = [i for i, slot in enumerate(chunk) if self.slot_key(slot) not in done]
            if missing:
                left += (
                    dataclasses.replace(slot, replay=True) if self.slot_key(slot) in done else slot
                    for slot in chunk[: missing[-1] + 1]
                )
        return dataclasses.replace(
            self, slots=tuple(left), seed=left[0].seed if left else self.seed
        )

    @property
    def owed(self) -> int:
        """Its games to be stored: its slots but those it only replays."""
        return sum(not slot.replay for slot in self.slots)


def _chunks(slots: Sequence[GameSlot]) -> list[list[GameSlot]]:
    """``slots`` cut where the seed changes: its chunks, in playing order."""
    chunks: list[list[GameSlot]] = []
    for slot in slots:
        if not chunks or chunks[-1][-1].seed != slot.seed:
            chunks.append([])
        chunks[-1].append(slot)
    return chunks


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
    """The matches of ``owed`` (a plan, in round order) that miss games, each in the round it is
    played in now, in round order: a function of the plan and the games stored.

    A meeting (a pairing's matches) goes in the round of the more advanced of its bots, counted
    in meetings played whole or placed before it (in a gauntlet, the challenger, which meets
    everyone, is not counted): from the start that is its Berger round; after a stop, the rounds
    left; for a late entry or a changed bot, which lags, its meetings go beside its opponents'
    next round, not one a round (they have played theirs; it catches up in parallel).
    """
    meetings: dict[tuple[str, str], list[MatchJob]] = {}
    for job in owed:
        missing = job.without(done)
        meetings.setdefault((job.bot_a.name, job.bot_b.name), []).extend(
            [missing] if missing.slots else []
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
    """The matches that play every missing game: a function of its arguments alone.

    Each pairing's 2 x ``games_per_pairing`` games alternate roles (A as Order, then B as Order,
    index by index), in chunks of ``chunk`` games (rounded up to even: both roles equally), each
    seeded from the tournament's seed and its name (``a~b#3``). A pairing is one match, or, when
    there are fewer than ``MIN_JOBS`` pairings, as many near-equal matches of whole chunks as make
    ``MIN_JOBS`` (a match is named after its first chunk). With ``opening_plies``, the games of
    index i start from ``opening_for(seed, i, plies)``. The matches come in round order, those
    with games missing from ``done`` only (``in_rounds``).
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
            part = tuple(slots[2 * per_chunk * first : 2 * per_chunk * end])
            key = f"{name}#{first}"
            jobs.append(MatchJob(key, a, b, part, seeds[first], len(part), meeting_round))
    return in_rounds(jobs, done, format)


def round_matches(
    pairs: Sequence[tuple[BotSpec, BotSpec]], number: int, *, seed: int = 1, opening_plies: int = 0
) -> list[MatchJob]:
    """The matches of round ``number`` (from 1) of a course: each pairing one match of one game
    per role, in slot ``number - 1``, so that a pair that meets again in a later round fills new
    slots. Each match is seeded from the tournament's seed, its pairing and its round."""
    index = number - 1
    opening = opening_for(seed, index, opening_plies)
    jobs = []
    for a, b in pairs:
        key = f"{a.name}~{b.name}@{number}"
        match_seed = _derived_seed(seed, key)
        slots = tuple(GameSlot(seat, index, opening, match_seed) for seat in (0, 1))
        jobs.append(MatchJob(key, a, b, slots, match_seed, len(slots), index))
    return jobs
