"""Which queued match a free worker takes: one with the bots it keeps (``placement``)."""

from __future__ import annotations

from collections import deque
from pathlib import Path

from arena.botspec import BotSpec
from arena.tournament.executors.placement import HeldBots, next_job
from arena.tournament.schedule import MatchJob, plan_matches


def bot(name: str) -> BotSpec:
    return BotSpec(name, ("true",), Path("."))


def bots(count: int) -> list[BotSpec]:
    return [bot(f"b{i}") for i in range(count)]


def names(job: MatchJob) -> tuple[str, str]:
    return job.bot_a.name, job.bot_b.name


def test_a_worker_takes_the_match_whose_bots_it_holds_else_one_of_them_else_the_head() -> None:
    queue = deque(plan_matches(bots(6), 1))
    held = HeldBots()
    first = next_job(queue, held)  # holds nothing yet: the head
    assert names(first) == ("b0", "b1")
    assert "b0" in held and "b1" in held
    nxt = next_job(queue, held)  # none with both: the first with one of them
    assert len({"b0", "b1"} & set(names(nxt))) == 1
    assert names(nxt) == ("b0", "b2")
    again = deque(plan_matches(bots(6), 1))
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
