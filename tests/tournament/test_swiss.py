"""Swiss pairing: close scores, ties by rating, no repeats while a round without one exists."""

from __future__ import annotations

import itertools
import random

import pytest

from arena.tournament.swiss import meeting, swiss_order, swiss_round


def test_bots_of_close_score_meet() -> None:
    scores = {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}
    assert swiss_round(scores, {}, set()).pairings == (("a", "b"), ("c", "d"))


def test_ties_in_score_are_broken_by_rating() -> None:
    scores = dict.fromkeys("abcd", 2.0)
    ratings = {"a": 1400.0, "b": 1600.0, "c": 1500.0, "d": 1700.0}
    assert swiss_order(scores, ratings) == ["d", "b", "c", "a"]
    assert swiss_round(scores, ratings, set()).pairings == (("d", "b"), ("c", "a"))


def test_a_repeat_forced_at_the_bottom_is_avoided_by_pairing_higher_up_otherwise() -> None:
    scores = {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}
    # Closest first would be a-b then c-d, a pairing already played.
    assert swiss_round(scores, {}, {meeting("c", "d")}).pairings == (("a", "c"), ("b", "d"))


def _repeat_free_round_exists(bots: list[str], met: set[frozenset[str]]) -> bool:
    if not bots:
        return True
    first, rest = bots[0], bots[1:]
    return any(
        meeting(first, other) not in met
        and _repeat_free_round_exists([b for b in rest if b != other], met)
        for other in rest
    )


@pytest.mark.parametrize("seed", range(40))
def test_no_pairing_repeats_whenever_a_round_without_one_exists(seed: int) -> None:
    rng = random.Random(seed)
    bots = [f"b{i}" for i in range(8)]
    pairs = list(itertools.combinations(bots, 2))
    met = {meeting(a, b) for a, b in rng.sample(pairs, rng.randint(4, 20))}
    scores = {bot: float(rng.randint(0, 6)) for bot in bots}
    pairings = swiss_round(scores, {}, met).pairings
    assert sorted(b for pair in pairings for b in pair) == sorted(bots)
    repeats = [pair for pair in pairings if meeting(*pair) in met]
    if _repeat_free_round_exists(bots, met):
        assert repeats == []
    else:
        assert repeats  # every bot still plays, at the fewest cost


def test_an_odd_pool_gives_the_lowest_placed_a_bye_and_not_twice_while_others_had_none() -> None:
    scores = {"a": 3.0, "b": 2.0, "c": 1.0}
    first = swiss_round(scores, {}, set())
    assert first.bye == "c" and first.pairings == (("a", "b"),)
    second = swiss_round(scores, {}, {meeting("a", "b")}, byes={"c": 1})
    assert second.bye == "b" and second.pairings == (("a", "c"),)


def test_the_bye_goes_where_the_others_can_still_pair_without_a_repeat() -> None:
    scores = {"a": 3.0, "b": 2.0, "c": 1.0}
    # With c out, a and b would meet again: c plays, and b (the next lowest) sits out.
    assert swiss_round(scores, {}, {meeting("a", "b")}).bye == "b"


def test_a_large_pool_with_many_rounds_pairs_quickly_without_repeats() -> None:
    bots = [f"b{i:03d}" for i in range(300)]
    rng = random.Random(1)
    met: set[frozenset[str]] = set()
    scores = dict.fromkeys(bots, 0.0)
    for _ in range(20):
        pairings = swiss_round(scores, {}, met).pairings
        assert not any(meeting(*pair) in met for pair in pairings)
        for a, b in pairings:
            met.add(meeting(a, b))
            scores[rng.choice((a, b))] += 1.0


def test_a_bottom_group_that_has_met_itself_is_spread_upwards_without_repeats() -> None:
    bots = [f"b{i:03d}" for i in range(300)]
    scores = {bot: float(300 - i) for i, bot in enumerate(bots)}
    met = {meeting(a, b) for a, b in itertools.combinations(bots[-12:], 2)}
    pairings = swiss_round(scores, {}, met).pairings
    assert sorted(b for pair in pairings for b in pair) == sorted(bots)
    assert not any(meeting(*pair) in met for pair in pairings)
    assert pairings[0] == ("b000", "b001")  # the top still meets its closest
