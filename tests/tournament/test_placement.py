"""Which queued match a free worker takes: one with the bots it keeps (``placement``)."""

from __future__ import annotations

import dataclasses
import math
from collections import deque
from pathlib import Path

from arena.botspec import BotSpec
from arena.records import GameRecord
from arena.rules import Reason, Role
from arena.tournament.executors.placement import TAIL_JOBS, Placement
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


def placed(queue: deque[MatchJob], keeps: bool = True, **options: int) -> Placement:
    """A placement whose queue is ``queue`` as it is (not cut in blocks)."""
    placement = Placement(keeps, **options)
    placement.queue = queue
    return placement


def test_a_worker_takes_the_match_whose_bots_it_holds_else_one_of_them_else_the_head() -> None:
    placement = placed(one_round(6))
    first = placement.take("w")  # holds nothing yet: the head
    assert names(first) == ("b0", "b1")
    nxt = placement.take("w")  # none with both: the first with one of them
    assert len({"b0", "b1"} & set(names(nxt))) == 1
    assert names(nxt) == ("b0", "b2")
    again = one_round(6)
    again.rotate(-5)  # b1~b2 is now the head; b0~b2 further down holds both of b0, b2
    both = placed(again)
    both.ran("w", MatchJob("x", bot("b0"), bot("b2"), (), 0))
    assert names(both.take("w")) == ("b0", "b2")
    head = again[0]
    assert both.take("v") is head  # another worker holds nothing: the head


def test_no_knowledge_takes_the_head_and_every_job_is_taken_once() -> None:
    queue = deque(plan_matches(bots(5), 2))
    order = [job.key for job in queue]
    for keeps, worker in ((False, "w"), (True, None)):
        placement = placed(deque(queue), keeps)
        taken = [placement.take(worker).key for _ in range(len(order))]
        assert taken == order and not placement.queue
    placement = placed(deque(queue))
    taken = [placement.take("w").key for _ in range(len(order))]
    assert sorted(taken) == sorted(order) and not placement.queue


def test_the_held_bots_are_bounded_like_the_keeper_oldest_first() -> None:
    specs = bots(5)
    placement = placed(deque(), kept=3, workers=0)  # no tail: held bots decide
    placement.ran("w", MatchJob("a", specs[0], specs[1], (), 0))
    placement.ran("w", MatchJob("b", specs[2], specs[0], (), 0))  # b0 used again: the newest
    placement.ran("w", MatchJob("c", specs[3], specs[0], (), 0))  # b1 goes: b0, b2, b3 held
    one = MatchJob("d", specs[1], specs[4], (), 0)  # none of its bots held
    two = MatchJob("e", specs[4], specs[2], (), 0)  # one held
    placement.queue = deque([one, two])
    assert placement.take("w") is two
    placement.queue = deque([one, two])
    placement.forget("w")
    assert placement.take("w") is one


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
    costs = Placement(True)
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
    placement = placed(one_round(6), workers=1)  # 15 matches, b0~b1 first, b4~b5 last
    for i, spec in enumerate(bots(6)):  # b5 the slowest bot, b0 the quickest
        placement.observe(played(spec.name, "x", 0.1 * (i + 1), 0.0))
    placement.ran("w", placement.queue[0])
    assert names(placement.take("w")) == ("b0", "b1")  # long queue: held bots
    while len(placement.queue) > TAIL_JOBS:
        placement.take(None)
    left = sorted(placement.queue, key=placement.seconds, reverse=True)
    taken = [placement.take("w") for _ in range(len(left))]
    assert [job.key for job in taken] == [job.key for job in left]


def test_no_match_of_a_later_round_is_taken_while_one_of_the_head_round_waits() -> None:
    """Held bots and the longest-first tail choose within the head's round only: the games per
    bot stay level whatever the workers keep."""
    six = bots(6)
    for workers in (0, 25):  # by held bots; longest first
        placement = placed(deque(plan_matches(six, 1)), workers=workers)  # 5 rounds of 3
        for i, spec in enumerate(six):
            placement.observe(played(spec.name, "x", 0.1 * (i + 1), 0.0))
        taken = []
        while placement.queue:
            # it holds the bots of the queue's last match, of a later round
            placement.ran("w", placement.queue[-1])
            taken.append(placement.take("w"))
        assert [job.round for job in taken] == sorted(job.round for job in taken)
        assert [job.round for job in taken] == [r for r in range(5) for _ in range(3)]
