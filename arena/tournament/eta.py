"""How long a run's games left will take: each game's time from its bots' measured games, the
work shared among the workers, and never less than the longest piece one worker must play.

A rate of recent games misjudges a run whose games differ: after the quick bots' meetings it
promises too little for the slow bots' (a slow starter's first games carry its start), and at
the end it divides by every worker a match that only one can play. So each game still owed is
costed by its two bots (each bot's share of its games' wall time so far, which holds its starts;
a bot not seen yet as an average one), the sum is shared among the workers, scaled by the
harness's time beside the games (measured: worker time until the last game over the games' wall
time, with each worker taken as half-way through a game), and bounded below by the longest chunk
left, which one worker plays alone.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence

from arena.records import GameRecord
from arena.tournament.schedule import CHUNK, MatchJob


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


class WorkLeft:
    """The games a run still owes, pairing by pairing, and what its games so far took."""

    FIT_ROUNDS = 4
    """Passes of the shares' fit (each bot's share given its opponents'): enough to converge."""
    TAIL_PAIRINGS = 64
    """With no more pairings left than this, the longest chunk bounds the time left (before,
    the work shared among the workers is longer anyway)."""
    RECOUNT_S = 1.0
    """How long an estimate stands (counting down) before the pairings left are read again."""

    def __init__(
        self,
        jobs: Sequence[MatchJob],
        workers: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.left: Counter[tuple[str, str]] = Counter()
        """Games owed per pairing (its bots' names, sorted)."""
        self.left_per_bot: Counter[str] = Counter()
        """Games owed per bot: the work left is the sum of each bot's share times these."""
        for job in jobs:
            self.left[_pair(job.bot_a.name, job.bot_b.name)] += job.owed
            for name in (job.bot_a.name, job.bot_b.name):
                self.left_per_bot[name] += job.owed
        self._open = sum(1 for games in self.left.values() if games)  # pairings with games left
        self.workers = max(1, workers)
        self.clock = clock
        self.start = clock()
        self._played: dict[tuple[str, str], tuple[float, int]] = {}  # wall seconds, games
        self._wall = 0.0  # every game's wall time so far
        self._games = 0
        self._last = self.start  # when the last game was told
        self._shares: dict[str, float] = {}
        self._fitted = 0  # the games the shares were fitted to
        self._counted: tuple[float, float] | None = None  # (when, seconds left then)

    def observe(self, record: GameRecord) -> None:
        """A game was played (and stored): it is owed no more, and its time is known."""
        pair = _pair(record.order, record.chaos)
        if self.left[pair] > 0:
            self.left[pair] -= 1
            self._open -= not self.left[pair]
            for name in pair:
                self.left_per_bot[name] -= 1
        wall = max(0.0, record.finished_at - record.started_at) if record.finished_at else 0.0
        seconds, games = self._played.get(pair, (0.0, 0))
        self._played[pair] = (seconds + wall, games + 1)
        self._wall += wall
        self._games += 1
        self._last = self.clock()

    def _fit(self) -> dict[str, float]:
        """Each bot's share of its games' wall time (a game takes its two bots' shares), fitted
        to the games so far; refitted as they grow by a twentieth (a fit reads every pairing)."""
        if self._games >= self._fitted * 21 / 20 + 1:
            met: dict[str, list[tuple[str, int]]] = {}
            spent: dict[str, float] = {}
            for (a, b), (seconds, games) in self._played.items():
                for bot, other in ((a, b), (b, a)):
                    met.setdefault(bot, []).append((other, games))
                    spent[bot] = spent.get(bot, 0.0) + seconds
            shares = {bot: spent[bot] / sum(n for _, n in met[bot]) / 2 for bot in met}
            for _ in range(self.FIT_ROUNDS):
                for bot, opponents in met.items():
                    theirs = sum(shares[other] * games for other, games in opponents)
                    shares[bot] = max(0.0, (spent[bot] - theirs) / sum(n for _, n in opponents))
            self._shares, self._fitted = shares, self._games
        return self._shares

    def game_seconds(self, a: str, b: str) -> float:
        """The expected wall time of a game of ``a`` and ``b``: the sum of their shares."""
        shares = self._fit()
        return shares.get(a, self._unknown()) + shares.get(b, self._unknown())

    def _unknown(self) -> float:
        """The share of a bot without games yet: half the mean game."""
        return self._wall / self._games / 2 if self._games else 0.0

    def seconds(self) -> float | None:
        """The time from now until the games left are played; None while no game has taken
        time. Worked out again at most every ``RECOUNT_S`` (a new fit reads every pairing)."""
        now = self.clock()
        if self._counted is None or now - self._counted[0] >= self.RECOUNT_S:
            left = self._estimate()
            self._counted = None if left is None else (now, left - (now - self._last))
        return (
            None if self._counted is None else max(0.0, self._counted[1] - (now - self._counted[0]))
        )

    def _estimate(self) -> float | None:
        """The time from the last game told until the games left are played."""
        if self._wall <= 0:
            return None
        shares = self._fit()
        work = sum(
            games * shares.get(name, self._unknown()) for name, games in self.left_per_bot.items()
        )
        tail = 0.0
        if self._open <= self.TAIL_PAIRINGS:  # the run's end: one chunk may outlast the rest
            for (a, b), games in self.left.items():
                if games:
                    tail = max(tail, min(games, CHUNK) * self.game_seconds(a, b))
        elapsed = (self._last - self.start) * self.workers
        in_flight = self.workers * self._wall / self._games / 2  # each worker half-way through one
        beside = max(1.0, elapsed / (self._wall + in_flight))  # worker time no game's wall holds
        return max(work * beside / self.workers, tail)
