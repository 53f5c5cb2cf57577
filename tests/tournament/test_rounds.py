"""Rounds (``schedule.berger_rounds``, ``schedule.in_rounds``): which round each match is played
in, from the start, after a stop, for a late entry and in a gauntlet."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from arena.botspec import BotSpec
from arena.tournament.schedule import MatchJob, berger_rounds, in_rounds, plan_matches


def bots(count: int) -> list[BotSpec]:
    return [BotSpec(f"b{i:02d}", ("true",), Path(".")) for i in range(count)]


def slots_of(jobs: list[MatchJob]) -> set[tuple[str, str, int]]:
    return {job.slot_key(slot) for job in jobs for slot in job.slots if not slot.replay}


@pytest.mark.parametrize("count", [2, 3, 4, 7, 20])
def test_each_round_meets_every_bot_once_and_every_pair_meets_once(count: int) -> None:
    rounds = berger_rounds(count)
    assert len(rounds) == count - 1 + count % 2
    for pairs in rounds:
        players = [player for pair in pairs for player in pair]
        assert len(players) == len(set(players)) == count - count % 2  # one bye when odd
    met = Counter(pair for pairs in rounds for pair in pairs)
    assert set(met) == {(a, b) for a in range(count) for b in range(a + 1, count)}
    assert set(met.values()) == {1}


def test_the_plan_is_in_rounds_and_holds_the_same_matches_and_seeds() -> None:
    pool = bots(6)
    jobs = plan_matches(pool, 12)
    assert [job.round for job in jobs] == sorted(job.round for job in jobs)
    assert max(job.round for job in jobs) == 4
    matches = [job for job in jobs if job.follows is None]  # a pairing's match: 3 chunks
    for number in range(5):
        names = [
            n for job in matches if job.round == number for n in (job.bot_a.name, job.bot_b.name)
        ]
        assert sorted(names) == sorted(bot.name for bot in pool)
    # Each chunk is named and seeded as ever: by its bots in the config's order, not its round.
    assert {job.key for job in jobs} == {
        f"b{a:02d}~b{b:02d}#{n}" for a in range(6) for b in range(a + 1, 6) for n in range(3)
    }


def test_after_a_stop_the_rounds_left_are_played_in_order() -> None:
    pool = bots(6)
    owed = plan_matches(pool, 2)
    done = slots_of([job for job in owed if job.round < 2]) | slots_of(owed[6:7])
    left = in_rounds(owed, done)
    assert slots_of(left) == slots_of(owed) - done
    assert [job.round for job in left] == [2, 2] + [3] * 3 + [4] * 3  # round 2's last two first
    assert left[0].key == owed[7].key


def test_a_late_entry_meets_everyone_in_one_round() -> None:
    """Its opponents have played all their other meetings: nothing holds its matches apart, and
    they all go to the workers at once."""
    pool = bots(6)
    done = slots_of(plan_matches(pool[:5], 2))
    left = plan_matches(pool, 2, done=done)
    assert {job.bot_b.name for job in left} == {"b05"} and len(left) == 5
    assert len({job.round for job in left}) == 1


def test_a_gauntlet_is_one_round_the_challenger_meeting_everyone() -> None:
    jobs = plan_matches(bots(6), 2, format="gauntlet")
    assert [job.bot_b.name for job in jobs] == [f"b{i:02d}" for i in range(1, 6)]
    assert {job.round for job in jobs} == {0}
