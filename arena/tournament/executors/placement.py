"""Which queued match a worker should play next: one with the bots it already keeps, and at the
end of a run the longest.

A worker keeps the processes of the bots it played (``keep_bots``), up to ``MAX_KEPT`` of them,
the longest unused going first. Handing it a match between bots it holds saves two starts; so
when a worker frees up, the executor looks a little way down the queue (``LOOKAHEAD`` matches)
for the one whose bots it played most recently, and otherwise takes the queue's head. The queue
is in blocks of the pairing matrix (``in_blocks``), so the match it wants is usually near. The
local pool and the cluster both hand out their matches this way.

Every choice stays within the round of the queue's head (``MatchJob.round``): the queue is in
round order (chunks given back by a worker and failed matches go to its front, and are of the
head's round or an earlier one), so no match of a later round starts while one of an earlier
round waits, and the games per bot stay level (``arena.tournament.schedule``).

Once the queue is short (``TAIL_JOBS`` per worker), the local pool and the cluster's driver hand
out the match expected to take longest (its bots' time on move per game so far), as the
longest-first rule of scheduling does: the run then ends on short matches, and the workers finish
together instead of one playing a long match alone while the others wait (a shared match is cut
only at its chunks, 10 games). ``Placement`` is all an executor sees of this.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Hashable, Iterator, Sequence

from arena.records import GameRecord
from arena.referee.keeper import MAX_KEPT
from arena.tournament.schedule import MatchJob

LOOKAHEAD = 256
"""How far down the queue a free worker looks for a match with the bots it keeps."""


def in_blocks(jobs: Sequence[MatchJob], size: int = MAX_KEPT // 2) -> list[MatchJob]:
    """The jobs in blocks of the pairing matrix, round by round: the bots cut into groups of
    ``size`` (in order of first appearance), within a round the matches between two groups
    together. A worker that keeps at most ``2 x size`` bots then finds matches of bots it keeps
    near the head of the queue."""
    group: dict[str, int] = {}
    for job in jobs:
        for name in (job.bot_a.name, job.bot_b.name):
            group.setdefault(name, len(group) // size)

    def block(job: MatchJob) -> tuple[int, int, int]:
        a, b = group[job.bot_a.name], group[job.bot_b.name]
        return job.round, min(a, b), max(a, b)

    return sorted(jobs, key=block)  # stable: within a block, the plan's order


class _RecentBots:
    """The bots of a worker's recent matches, oldest first: those it may still keep."""

    def __init__(self, bound: int = MAX_KEPT) -> None:
        self.bound = bound
        """The most it keeps (the keeper's own bound)."""
        self._names: dict[str, None] = {}

    def __contains__(self, name: object) -> bool:
        return name in self._names

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

    def seconds(self, job: MatchJob) -> float:
        """The expected time of ``job``'s games; infinite while one of its bots has played no
        game yet (unknown: played first, it cannot be the one a run ends waiting for)."""
        per_game = self._beside / self._games if self._games else 0.0
        for name in (job.bot_a.name, job.bot_b.name):
            total = self._on_move.get(name)
            if total is None:
                return math.inf
            per_game += total[0] / total[1]
        return per_game * len(job.slots)


def _of_round(queue: deque[MatchJob], number: int, most: int) -> Iterator[MatchJob]:
    """The first ``most`` jobs of ``queue`` as long as they are of round ``number``."""
    return itertools.takewhile(lambda job: job.round == number, itertools.islice(queue, most))


def _next_job(
    queue: deque[MatchJob], held: _RecentBots | None, costs: _MatchCosts, last: int
) -> MatchJob:
    """Take from ``queue`` the match for a worker holding ``held``: among the first
    ``LOOKAHEAD`` of the head's round, the first with both its bots held, else the first with
    one, else the head. ``held`` None (nothing known, or no bot is kept): the head. ``held`` is
    updated.

    Once ``queue`` holds ``last`` matches or fewer: among those of the head's round, the one
    expected to take longest (``costs``; the first of equals)."""
    best = 0
    head_round = queue[0].round
    if len(queue) <= last:
        expected = [costs.seconds(job) for job in _of_round(queue, head_round, len(queue))]
        best = expected.index(max(expected))
    elif held is not None and len(held):
        score = -1
        for i, job in enumerate(_of_round(queue, head_round, LOOKAHEAD)):
            count = held.count(job)
            if count > score:
                best, score = i, count
                if count == 2:
                    break
    job = queue[best]
    del queue[best]
    if held is not None:
        held.played(job)
    return job


class Placement:
    """The queue of a run's matches, and which of them a free worker takes next (``take``).

    It learns, per worker, the bots of its recent matches (those it may keep, when ``keeps``)
    and, from the games so far, how long each match will take; both outlive a ``fill``, as an
    executor plays a course's rounds one after another."""

    def __init__(self, keeps: bool, workers: int = 1, kept: int = MAX_KEPT) -> None:
        self.keeps = keeps
        """Whether workers keep bots between matches (``keep_bots``): then placed by them."""
        self.workers = workers
        """Matches played at once (a cluster's threads): the tail is ``TAIL_JOBS`` per worker."""
        self.kept = kept
        """The most bots a worker keeps (the keeper's bound)."""
        self.queue: deque[MatchJob] = deque()
        self._recent: dict[Hashable, _RecentBots] = {}
        self._costs = _MatchCosts()

    def fill(self, jobs: Sequence[MatchJob]) -> None:
        """Queue ``jobs`` (in blocks, ``in_blocks``, when workers keep bots)."""
        self.queue = deque(in_blocks(jobs) if self.keeps else jobs)

    def take(self, worker: Hashable | None) -> MatchJob:
        """Take the match ``worker`` (None: one not known) plays next from the queue."""
        recent = None if worker is None or not self.keeps else self._recent_of(worker)
        return _next_job(self.queue, recent, self._costs, last=TAIL_JOBS * self.workers)

    def give_back(self, job: MatchJob) -> None:
        """Put ``job`` (chunks a worker gave back) at the front of the queue."""
        self.queue.appendleft(job)

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

    def seconds(self, job: MatchJob) -> float:
        """The expected time of ``job``'s games (infinite while one of its bots is unknown)."""
        return self._costs.seconds(job)

    def _recent_of(self, worker: Hashable) -> _RecentBots:
        recent = self._recent.get(worker)
        if recent is None:
            recent = self._recent[worker] = _RecentBots(self.kept)
        return recent
