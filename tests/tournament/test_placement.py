"""Which queued match a free worker takes: one with the bots it keeps (``placement``)."""

from __future__ import annotations

import dataclasses
import math
from collections import deque
from pathlib import Path

from arena.botspec import BotSpec
from arena.records import GameRecord
from arena.rules import Reason, Role
from arena.tournament.executors.base import MAX_ATTEMPTS
from arena.tournament.executors.placement import TAIL_JOBS, Placement, take_later
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
    """A placement whose queue is ``queue`` as it is (not cut in blocks), a match a chunk."""
    placement = Placement(keeps, **options)
    placement.queue = deque([job] for job in queue)
    return placement


def take(placement: Placement, worker: str | None) -> MatchJob:
    """The one chunk of the match ``worker`` takes."""
    (job,) = placement.take(worker)
    return job


def test_a_worker_takes_the_match_whose_bots_it_holds_else_one_of_them_else_the_head() -> None:
    placement = placed(one_round(6))
    first = take(placement, "w")  # holds nothing yet: the head
    assert names(first) == ("b0", "b1")
    nxt = take(placement, "w")  # none with both: the first with one of them
    assert len({"b0", "b1"} & set(names(nxt))) == 1
    assert names(nxt) == ("b0", "b2")
    again = one_round(6)
    again.rotate(-5)  # b1~b2 is now the head; b0~b2 further down holds both of b0, b2
    both = placed(again)
    both.ran("w", MatchJob("x", bot("b0"), bot("b2"), (), 0))
    assert names(take(both, "w")) == ("b0", "b2")
    head = again[0]
    assert take(both, "v") is head  # another worker holds nothing: the head


def test_no_knowledge_takes_the_head_and_every_job_is_taken_once() -> None:
    queue = deque(plan_matches(bots(5), 2))
    order = [job.key for job in queue]
    for keeps, worker in ((False, "w"), (True, None)):
        placement = placed(deque(queue), keeps)
        taken = [take(placement, worker).key for _ in range(len(order))]
        assert taken == order and not placement.queue
    placement = placed(deque(queue))
    taken = [take(placement, "w").key for _ in range(len(order))]
    assert sorted(taken) == sorted(order) and not placement.queue


def test_the_held_bots_are_bounded_like_the_keeper_oldest_first() -> None:
    specs = bots(5)
    placement = placed(deque(), kept=3, workers=0)  # no tail: held bots decide
    placement.ran("w", MatchJob("a", specs[0], specs[1], (), 0))
    placement.ran("w", MatchJob("b", specs[2], specs[0], (), 0))  # b0 used again: the newest
    placement.ran("w", MatchJob("c", specs[3], specs[0], (), 0))  # b1 goes: b0, b2, b3 held
    one = MatchJob("d", specs[1], specs[4], (), 0)  # none of its bots held
    two = MatchJob("e", specs[4], specs[2], (), 0)  # one held
    placement.queue = deque([[one], [two]])
    assert take(placement, "w") is two
    placement.queue = deque([[one], [two]])
    placement.forget("w")
    assert take(placement, "w") is one


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
    assert abs(costs.seconds([job]) - 10 * (2.0 + 0.5 + 0.01)) < 1e-6
    unseen = MatchJob("slow~new#0", bot("slow"), bot("new"), (), 0)
    assert costs.seconds([unseen]) == math.inf


def test_the_last_matches_go_longest_first_and_the_rest_by_held_bots() -> None:
    """Once the queue is short, a free worker takes the longest match whatever it holds (the
    run then ends on short ones); before that, held bots decide as ever."""
    placement = placed(one_round(6), workers=1)  # 15 matches, b0~b1 first, b4~b5 last
    for i, spec in enumerate(bots(6)):  # b5 the slowest bot, b0 the quickest
        placement.observe(played(spec.name, "x", 0.1 * (i + 1), 0.0))
    placement.ran("w", placement.queue[0][0])
    assert names(take(placement, "w")) == ("b0", "b1")  # long queue: held bots
    while len(placement.queue) > TAIL_JOBS:
        take(placement, None)
    left = sorted(placement.queue, key=placement.seconds, reverse=True)
    taken = [take(placement, "w") for _ in range(len(left))]
    assert [job.key for job in taken] == [chain[0].key for chain in left]


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
            placement.ran("w", placement.queue[-1][0])
            taken.append(take(placement, "w"))
        assert [job.round for job in taken] == sorted(job.round for job in taken)
        assert [job.round for job in taken] == [r for r in range(5) for _ in range(3)]


def test_the_queue_holds_matches_each_a_chain_of_chunks() -> None:
    """Chunks that follow one another are one match: a worker takes it whole; the chunks an
    idle worker takes from it later start a match of their own."""
    jobs = plan_matches(bots(2), 50)  # one pairing: 10 chunks in 4 matches
    placement = Placement(False)
    placement.fill(jobs)
    assert [len(chain) for chain in placement.queue] == [2, 3, 2, 3]
    chain = placement.take(None)
    assert [job.key for job in chain] == [job.key for job in jobs[:2]]
    reserved = list(placement.take(None)[1:])  # a match of three chunks, its first sent
    later = take_later(reserved, playing=5)  # 5 games sent, 20 reserved: cut near the middle
    assert [job.key for job in later] == [jobs[4].key] and later[0].follows is None
    assert [job.key for job in reserved] == [jobs[3].key]
    assert take_later([], playing=10) == []


def test_a_failed_chunk_goes_back_in_its_round_with_the_rest_of_its_match() -> None:
    """Played again from its start in new processes (``follows`` None), its games played before
    the failure replayed, not after the later rounds; dropped after ``MAX_ATTEMPTS`` failures,
    the rest of its match still queued."""
    jobs = plan_matches(bots(6), 20)  # 5 rounds of 3 pairings, a match of 4 chunks each
    placement = Placement(False)
    placement.fill(jobs)
    chain = placement.take(None)
    failed, rest = chain[1], chain[2:]  # its second chunk fails after one game
    played = {failed.slot_key(failed.slots[0])}
    placement.failed(failed, played, rest)
    round_0 = [c for c in placement.queue if c[0].round == 0]
    assert placement.queue[len(round_0) - 1][0].key == failed.key  # last of round 0
    again = placement.queue[len(round_0) - 1]
    assert again[0].follows is None and [j.key for j in again[1:]] == [j.key for j in rest]
    assert [s.replay for s in again[0].slots] == [True] + [False] * (len(failed.slots) - 1)
    for _ in range(MAX_ATTEMPTS - 1):
        placement.failed(failed, played, rest)
    matches = [[j.key for j in c] for c in placement.queue]
    assert [j.key for j in rest] in matches  # the chunk failed for good: its match goes on
    assert sum(failed.key in keys for keys in matches) == MAX_ATTEMPTS - 1
