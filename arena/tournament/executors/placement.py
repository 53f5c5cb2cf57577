"""The queue of matches (chains of chunks, ``MatchJob.follows``) and which a free worker takes.

A worker keeps the bots it played (``keep_bots``, at most ``MAX_KEPT``, the longest unused first),
so a free worker takes, among the next ``LOOKAHEAD`` matches of the head's round, one whose bots it
holds; the queue is in blocks of the pairing matrix (``in_blocks``), so that one is near. Every
choice stays within the head's round: no match of a later round starts while one of an earlier
round waits, and the games per bot stay level. Once the queue is short (``TAIL_JOBS`` a worker),
the longest match goes first (its bots' time on move so far), so that the workers finish
together. A worker is sent its match's chunks one by one; once nothing is queued, an idle one
takes the later chunks of a match whose bots reset at ``match`` (``take_later``): they play them
alike in new processes. ``Placement`` is all an executor sees of this.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections import Counter, deque
from collections.abc import Collection, Hashable, Iterable, Iterator, Sequence

from arena.records import GameRecord
from arena.referee.keeper import MAX_KEPT
from arena.tournament.executors.base import MAX_ATTEMPTS
from arena.tournament.schedule import MatchJob

Chain = list[MatchJob]
"""A match: chunks that each follow the one before, in playing order."""

LOOKAHEAD = 256
"""How far down the queue a free worker looks for a match with the bots it keeps."""


def in_blocks(jobs: Sequence[MatchJob], size: int = MAX_KEPT // 2) -> list[MatchJob]:
    """The chunks in blocks of the pairing matrix, round by round (bots in groups of ``size``,
    within a round the matches between two groups together, each match's chunks in order)."""
    group: dict[str, int] = {}
    for job in jobs:
        for name in (job.bot_a.name, job.bot_b.name):
            group.setdefault(name, len(group) // size)

    def block(job: MatchJob) -> tuple[int, int, int]:
        a, b = group[job.bot_a.name], group[job.bot_b.name]
        return job.round, min(a, b), max(a, b)

    return sorted(jobs, key=block)  # stable: within a block, the plan's order


def chains(jobs: Sequence[MatchJob]) -> list[Chain]:
    """``jobs`` cut into matches: a chunk joins the one before when it follows it."""
    cut: list[Chain] = []
    for job in jobs:
        if cut and job.follows is not None and job.follows == cut[-1][-1].key:
            cut[-1].append(job)
        else:
            cut.append([job])
    return cut


def games_in(chain: Sequence[MatchJob]) -> int:
    """The games of ``chain``'s chunks."""
    return sum(len(job.slots) for job in chain)


def _starting(chain: Chain) -> Chain:
    """``chain`` as a match of its own: its first chunk follows none."""
    return [dataclasses.replace(chain[0], follows=None), *chain[1:]] if chain else chain


class _RecentBots:
    """The bots of a worker's recent matches, oldest first: those it may still keep."""

    def __init__(self, bound: int = MAX_KEPT) -> None:
        self.bound = bound
        """The most it keeps (the keeper's own bound)."""
        self._names: dict[str, None] = {}

    def __len__(self) -> int:
        return len(self._names)

    def played(self, job: MatchJob) -> None:
        """``job``'s bots are now the most recently used; the oldest beyond the bound go."""
        for name in (job.bot_a.name, job.bot_b.name):
            self._names.pop(name, None)
            self._names[name] = None
        while len(self._names) > self.bound:
            del self._names[next(iter(self._names))]

    def clear(self) -> None:
        """It keeps nothing now (it was replaced, or told to stop its bots)."""
        self._names.clear()

    def count(self, job: MatchJob) -> int:
        """How many of ``job``'s two bots it holds (0, 1 or 2)."""
        return (job.bot_a.name in self._names) + (job.bot_b.name in self._names)


TAIL_JOBS = 4
"""Per worker (per thread of a cluster), how many of a run's last queued matches are handed out
longest first, so that the run does not end on one long match."""


class _MatchCosts:
    """What the games of a run so far say of how long a match will take: each bot's mean time on
    move per game (its own moves' ``ms``), and the mean time of a game beyond the moves."""

    def __init__(self) -> None:
        self._on_move: dict[str, list[float]] = {}  # per bot: [seconds on move, games]
        self._games = 0
        self._beside = 0.0  # seconds of the games' wall time when no bot was on move

    def observe(self, record: GameRecord) -> None:
        """Count a finished game (its ``ms`` alternate between the bots, Order's first after
        an opening of even length)."""
        order_first = len(record.opening) % 2 == 0
        times = record.ms
        firsts, seconds = sum(times[0::2]) / 1000, sum(times[1::2]) / 1000
        order_s, chaos_s = (firsts, seconds) if order_first else (seconds, firsts)
        for name, spent in ((record.order, order_s), (record.chaos, chaos_s)):
            total = self._on_move.setdefault(name, [0.0, 0])
            total[0] += spent
            total[1] += 1
        self._games += 1
        wall = record.finished_at - record.started_at if record.finished_at else 0.0
        self._beside += max(0.0, wall - firsts - seconds)

    def seconds(self, chain: Sequence[MatchJob]) -> float:
        """The expected time of ``chain``'s games; infinite while one of its bots has played no
        game yet (unknown: played first, it cannot be the one a run ends waiting for)."""
        per_game = self._beside / self._games if self._games else 0.0
        for name in (chain[0].bot_a.name, chain[0].bot_b.name):
            total = self._on_move.get(name)
            if total is None:
                return math.inf
            per_game += total[0] / total[1]
        return per_game * games_in(chain)


def _of_round(queue: deque[Chain], number: int, most: int) -> Iterator[Chain]:
    """The first ``most`` matches of ``queue`` as long as they are of round ``number``."""
    return itertools.takewhile(
        lambda chain: chain[0].round == number, itertools.islice(queue, most)
    )


def _next_chain(
    queue: deque[Chain], held: _RecentBots | None, costs: _MatchCosts, last: int
) -> Chain:
    """Take from ``queue`` the match for a worker holding ``held`` (updated): among the first
    ``LOOKAHEAD`` of the head's round, the first with both its bots held, else one, else the head
    (``held`` None: the head); once ``queue`` holds ``last`` or fewer, the longest of the round."""
    best = 0
    head_round = queue[0][0].round
    if len(queue) <= last:
        expected = [costs.seconds(chain) for chain in _of_round(queue, head_round, len(queue))]
        best = expected.index(max(expected))
    elif held is not None and len(held):
        score = -1
        for i, chain in enumerate(_of_round(queue, head_round, LOOKAHEAD)):
            count = held.count(chain[0])
            if count > score:
                best, score = i, count
                if count == 2:
                    break
    chain = queue[best]
    del queue[best]
    if held is not None:
        held.played(chain[0])
    return chain


def take_from_longest(matches: Iterable[tuple[Chain, int]]) -> Chain:
    """``take_later`` from the match with the most games left among ``matches`` (each its chunks
    not sent yet, and the games left in those sent); none if there is none."""
    longest = max(matches, key=lambda match: match[1] + games_in(match[0]), default=None)
    return [] if longest is None else take_later(*longest)


def take_later(reserved: Chain, playing: int) -> Chain:
    """Cut from ``reserved`` (a match's chunks not sent yet; ``playing`` games left in those
    sent) its chunks from the one nearest the middle of what is left: a match of their own."""
    left = playing + games_in(reserved)
    before = list(itertools.accumulate((len(job.slots) for job in reserved), initial=playing))
    cut = min(range(len(reserved)), key=lambda i: abs(before[i] - left / 2), default=None)
    if cut is None:
        return []
    later = reserved[cut:]
    del reserved[cut:]
    return _starting(later)


class Placement:
    """The queue of a run's matches, and which a free worker takes next (``take``). What it
    learns (each worker's recent bots, each match's expected time) outlives a ``fill``."""

    def __init__(self, keeps: bool, workers: int = 1, kept: int = MAX_KEPT) -> None:
        self.keeps = keeps
        """Whether workers keep bots between matches (``keep_bots``): then placed by them."""
        self.workers = workers
        """Matches played at once (a cluster's threads): the tail is ``TAIL_JOBS`` per worker."""
        self.kept = kept
        """The most bots a worker keeps (the keeper's bound)."""
        self.queue: deque[Chain] = deque()
        self._recent: dict[Hashable, _RecentBots] = {}
        self._costs = _MatchCosts()
        self._failures: Counter[str] = Counter()

    def fill(self, jobs: Sequence[MatchJob]) -> None:
        """Queue the matches of ``jobs`` (in blocks, ``in_blocks``, when workers keep bots)."""
        self.queue = deque(chains(in_blocks(jobs) if self.keeps else jobs))
        self._failures.clear()

    def take(self, worker: Hashable | None) -> Chain:
        """Take the match ``worker`` (None: one not known) plays next from the queue."""
        recent = None if worker is None or not self.keeps else self._recent_of(worker)
        return _next_chain(self.queue, recent, self._costs, last=TAIL_JOBS * self.workers)

    def failed(self, job: MatchJob, played: Collection[tuple[str, str, int]], rest: Chain) -> None:
        """Queue again in its round chunk ``job``, failed after ``played`` games (unless it failed
        ``MAX_ATTEMPTS`` times), and ``rest``, the chunks to follow it: a match of their own."""
        self._failures[job.key] += 1
        again = job.without(played)
        self.put_back(
            [again, *rest] if again.slots and self._failures[job.key] < MAX_ATTEMPTS else rest
        )

    def put_back(self, chain: Chain) -> None:
        """Queue ``chain`` again, at the end of its round, as a match of its own (its first
        chunk's bots start anew)."""
        if chain:
            number = chain[0].round
            at = next((i for i, c in enumerate(self.queue) if c[0].round > number), None)
            self.queue.insert(len(self.queue) if at is None else at, _starting(chain))

    def ran(self, worker: Hashable, job: MatchJob) -> None:
        """``worker`` played ``job``: its bots are now its most recent."""
        self._recent_of(worker).played(job)

    def forget(self, worker: Hashable | None = None) -> None:
        """``worker`` (None: every worker) keeps no bot now (replaced, or told to stop them)."""
        if worker is None:
            self._recent.clear()
        else:
            self._recent.pop(worker, None)

    def observe(self, record: GameRecord) -> None:
        """Learn from a finished game how long its bots take."""
        self._costs.observe(record)

    def seconds(self, chain: Sequence[MatchJob]) -> float:
        """The expected time of ``chain``'s games (infinite while one of its bots is unknown)."""
        return self._costs.seconds(chain)

    def _recent_of(self, worker: Hashable) -> _RecentBots:
        recent = self._recent.get(worker)
        if recent is None:
            recent = self._recent[worker] = _RecentBots(self.kept)
        return recent
