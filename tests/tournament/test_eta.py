"""The time left (``arena.tournament.eta.WorkLeft``): the games owed costed by their bots' games
so far, shared among the workers, at the end the longest chunk left.

The games are those of a plan played by two simulated workers with a known time per game (a slow
bot, a bot slow to start: its start is in its first game of each match), so that the true time
left is known at every game.
"""

from __future__ import annotations

import heapq
from pathlib import Path

from arena.botspec import BotSpec
from arena.records import GameRecord
from arena.rules import Reason, Role
from arena.tournament.eta import WorkLeft
from arena.tournament.executors.placement import chains
from arena.tournament.schedule import MatchJob, plan_matches

PER_GAME = {"b0": 0.05, "b1": 0.05, "b2": 0.05, "b3": 0.05, "starter": 0.05, "slow": 1.0}
START = {"starter": 2.0}
"""Seconds of a bot's start, in its first game of each match."""


def played(jobs: list[MatchJob], workers: int) -> list[GameRecord]:
    """The games of ``jobs``' matches handed in order to the first free of ``workers``, by
    finish."""
    free = [(0.0, worker) for worker in range(workers)]
    records = []
    for match in chains(jobs):
        now, worker = heapq.heappop(free)
        for number, slot in enumerate(slot for job in match for slot in job.slots):
            order, chaos, _ = match[0].slot_key(slot)
            wall = (PER_GAME[order] + PER_GAME[chaos]) / 2
            wall += 0 if number else START.get(order, 0.0) + START.get(chaos, 0.0)
            records.append(GameRecord(order, chaos, Role.CHAOS, Reason.FULL, started_at=now,
                                      finished_at=now + wall))  # fmt: skip
            now += wall
        heapq.heappush(free, (now, worker))
    return sorted(records, key=lambda record: record.finished_at)


def estimates(workers: int) -> list[tuple[float, float]]:
    """(true time left, estimate) after each game."""
    jobs = plan_matches([BotSpec(name, ("true",), Path(".")) for name in PER_GAME], 10)
    records = played(jobs, workers)
    now = 0.0
    work = WorkLeft(jobs, workers, clock=lambda: now)
    work.RECOUNT_S = 0.0
    out = []
    for record in records:
        now = record.finished_at
        work.observe(record)
        expected = work.seconds()
        assert expected is not None
        out.append((records[-1].finished_at - now, expected))
    return out


def test_the_time_left_follows_slow_bots_and_slow_starters_to_the_end() -> None:
    for workers in (1, 2):
        seen = estimates(workers)
        assert len(seen) == 300
        for true, expected in seen[len(seen) // 5 : -20]:
            assert abs(expected - true) <= 0.2 * true + 0.5, (workers, true, expected)
        # In the last match a start counts in each game left, though the match paid it already.
        for true, expected in seen[-20:]:
            assert abs(expected - true) <= 0.2 * true + START["starter"] + 1, (true, expected)
        assert seen[-1] == (0.0, 0.0)


def test_an_estimate_counts_down_until_it_is_worked_out_again() -> None:
    jobs = plan_matches([BotSpec(name, ("true",), Path(".")) for name in PER_GAME], 2)
    now = 0.0
    work = WorkLeft(jobs, 2, clock=lambda: now)
    assert work.seconds() is None  # nothing measured yet
    now = 1.0
    work.observe(GameRecord("b0", "slow", Role.CHAOS, Reason.FULL, started_at=0.0, finished_at=1.0))
    first = work.seconds()
    assert first is not None and first > 0
    now += work.RECOUNT_S / 2
    assert work.seconds() == first - work.RECOUNT_S / 2
