"""Which queued match a free worker takes: one with the bots it keeps (``placement``)."""

from __future__ import annotations

import dataclasses
import math
from collections import deque
from pathlib import Path

from arena.botspec import BotSpec
from arena.records import GameRecord
from arena.rules import Reason, Role
from arena.tournament.executors.placement import HeldBots, MatchCosts, next_job
from arena.tournament.schedule import GameSlot, MatchJob, plan_matches


def bot(name: str) -> BotSpec:
    return BotSpec(name, ("true",), Path("."))


def bots(count: int) -> list[BotSpec]:
    return [bot(f"b{i}") for i in range(count)]


def names(job: MatchJob) -> tuple[str, str]:
    return job.bot_a.name, job.bot_b.name


def one_round(count: int, games: int = 1) -> deque[MatchJob]:
    """The matches of ``count`` bots as if all were of one round, in pairing order (b0~b1,
    b0~b2, ...): how placement chooses within a round."""
    jobs = [dataclasses.replace(job, round=0) for job in plan_matches(bots(count), games)]
    return deque(sorted(jobs, key=lambda job: (int(job.bot_a.name[1:]), int(job.bot_b.name[1:]))))


def test_a_worker_takes_the_match_whose_bots_it_holds_else_one_of_them_else_the_head() -> None:
    queue = one_round(6)
    held = HeldBots()
    first = next_job(queue, held)  # holds nothing yet: the head
    assert names(first) == ("b0", "b1")
    assert "b0" in held and "b1" in held
    nxt = next_job(queue, held)  # none with both: the first with one of them
    assert len({"b0", "b1"} & set(names(nxt))) == 1
    assert names(nxt) == ("b0", "b2")
    again = one_round(6)
    again.rotate(-5)  # b1~b2 is now the head; b0~b2 further down holds both of b0, b2
    both = HeldBots()
    both.played(MatchJob("x", bot("b0"), bot("b2"), (), 0))
    assert names(next_job(again, both)) == ("b0", "b2")


def test_no_knowledge_takes_the_head_and_every_job_is_taken_once() -> None:
    queue = deque(plan_matches(bots(5), 2))
    order = [job.key for job in queue]
    taken = [next_job(queue, None).key for _ in range(len(order))]
    assert taken == order and not queue
    queue = deque(plan_matches(bots(5), 2))
    held = HeldBots()
    taken = [next_job(queue, held).key for _ in range(len(order))]
    assert sorted(taken) == sorted(order) and not queue


def test_the_held_bots_are_bounded_like_the_keeper_oldest_first() -> None:
    held = HeldBots(bound=3)
    specs = bots(4)
    held.played(MatchJob("a", specs[0], specs[1], (), 0))
    held.played(MatchJob("b", specs[2], specs[0], (), 0))  # b0 used again: now the newest
    held.played(MatchJob("c", specs[3], specs[0], (), 0))
    assert (
        len(held) == 3
        and "b1" not in held
        and {"b0", "b2", "b3"} <= {n for n in ("b0", "b1", "b2", "b3") if n in held}
    )
    held.clear()
    assert len(held) == 0


def played(order: str, chaos: str, order_s: float, chaos_s: float, opening: int = 0) -> GameRecord:
    """A finished game in which each bot spent that long on move (10 moves each)."""
    first, second = (order_s, chaos_s) if opening % 2 == 0 else (chaos_s, order_s)
    ms = [first * 100, second * 100] * 10
    return GameRecord(
        order=order,
        chaos=chaos,
        winner=Role.CHAOS,
        reason=Reason.FULL,
        opening=["a1X"] * opening,
        ms=ms,
        started_at=100.0,
        finished_at=100.0 + order_s + chaos_s + 0.01,
    )


def test_a_match_is_expected_to_take_its_bots_time_on_move_per_game() -> None:
    costs = MatchCosts()
    costs.observe(played("slow", "quick", 2.0, 0.5))
    costs.observe(played("quick", "slow", 0.5, 2.0, opening=1))  # Chaos moved first
    slots = tuple(GameSlot(i % 2, i // 2) for i in range(10))
    job = MatchJob("slow~quick#0", bot("slow"), bot("quick"), slots, 0)
    assert abs(costs.seconds(job) - 10 * (2.0 + 0.5 + 0.01)) < 1e-6
    unseen = MatchJob("slow~new#0", bot("slow"), bot("new"), (), 0)
    assert costs.seconds(unseen) == math.inf


def test_the_last_matches_go_longest_first_and_the_rest_by_held_bots() -> None:
    """Once the queue is short, a free worker takes the longest match whatever it holds (the
    run then ends on short ones); before that, held bots decide as ever."""
    six = bots(6)
    costs = MatchCosts()
    for i, spec in enumerate(six):  # b5 the slowest bot, b0 the quickest
        costs.observe(played(spec.name, "x", 0.1 * (i + 1), 0.0))
    queue = one_round(6)  # 15 matches, b0~b1 first, b4~b5 last
    held = HeldBots()
    held.played(queue[0])
    assert names(next_job(queue, held, costs, last=4)) == ("b0", "b1")  # long queue: held bots
    while len(queue) > 4:
        next_job(queue, None)
    left = sorted(queue, key=costs.seconds, reverse=True)
    taken = [next_job(queue, held, costs, last=4) for _ in range(len(left))]
    assert [job.key for job in taken] == [job.key for job in left]


def test_no_match_of_a_later_round_is_taken_while_one_of_the_head_round_waits() -> None:
    """Held bots and the longest-first tail choose within the head's round only: the games per
    bot stay level whatever the workers keep."""
    six = bots(6)
    costs = MatchCosts()
    for i, spec in enumerate(six):
        costs.observe(played(spec.name, "x", 0.1 * (i + 1), 0.0))
    for last in (0, 100):  # by held bots; longest first
        queue = deque(plan_matches(six, 1))  # 5 rounds of 3 matches
        held = HeldBots()
        taken = []
        while queue:
            held.played(queue[-1])  # holds the bots of the queue's last match, of a later round
            taken.append(next_job(queue, held, costs, last=last))
        assert [job.round for job in taken] == sorted(job.round for job in taken)
        assert [job.round for job in taken] == [r for r in range(5) for _ in range(3)]
