"""Courses decided round by round: Swiss, the contested format, the stopping rule and the budget."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from arena.ratings import GameResult
from arena.ratings.mle import aggregate, fit_pooled
from arena.tournament.contested import contested_round, open_pairs
from arena.tournament.course import (
    CoursePlan,
    Finished,
    Round,
    course_fit,
    default_rounds,
    next_round,
    round_games,
)
from arena.tournament.stoprule import Budget, StopRule, adjacent_los, trimmed_to_budget
from arena.tournament.swiss import meeting


def _bots(n: int) -> list[str]:
    return [f"b{i:02d}" for i in range(n)]


def _play(pairings: tuple[tuple[str, str], ...], seed: int) -> list[GameResult]:
    """The stronger (lower number) bot wins as Order, and as Chaos with a coin's odds."""
    rng = np.random.default_rng(seed)
    return [
        GameResult(order, chaos, order < chaos or bool(rng.random() < 0.5))
        for order, chaos in round_games(pairings)
    ]


def _course(plan: CoursePlan, bots: list[str]) -> tuple[list[list[GameResult]], Finished]:
    rounds: list[list[GameResult]] = []
    while isinstance(step := next_round(plan, bots, rounds), Round):
        assert step.number == len(rounds) + 1
        rounds.append(_play(step.pairings, len(rounds)))
    return rounds, step


def test_each_pairing_plays_both_roles() -> None:
    assert round_games((("a", "b"), ("c", "d"))) == [("a", "b"), ("b", "a"), ("c", "d"), ("d", "c")]


def test_a_swiss_course_plays_its_rounds_each_bot_once_a_round_no_pairing_twice() -> None:
    bots = _bots(9)
    rounds, end = _course(CoursePlan("swiss", rounds=5), bots)
    assert end == Finished("rounds", 5)
    meetings = Counter(meeting(g.order, g.chaos) for games in rounds for g in games)
    assert set(meetings.values()) == {2}  # both roles, never twice
    byes = []
    for games in rounds:
        played = Counter(name for g in games for name in (g.order, g.chaos))
        assert set(played.values()) == {2}
        byes += [bot for bot in bots if bot not in played]
    assert len(byes) == 5 and len(set(byes)) == 5


def test_the_next_round_is_a_function_of_the_finished_rounds_games() -> None:
    bots = _bots(10)
    rounds, _ = _course(CoursePlan("swiss", rounds=4), bots)
    plan = CoursePlan("swiss", rounds=6)
    assert next_round(plan, bots, rounds) == next_round(plan, bots, [list(r) for r in rounds])
    shuffled = [list(reversed(games)) for games in rounds]
    assert next_round(plan, bots, shuffled) == next_round(plan, bots, rounds)


def test_the_budget_stops_a_course_and_its_last_round_is_cut_to_whole_pairings() -> None:
    bots = _bots(10)
    rounds, end = _course(CoursePlan("swiss", rounds=10, budget=Budget(25)), bots)
    assert [len(games) for games in rounds] == [10, 10, 4]
    assert end == Finished("budget", 3)
    assert trimmed_to_budget((("a", "b"), ("c", "d")), 2, 3) == (("a", "b"),)


def test_the_stopping_rule_stops_a_course_once_the_top_is_separated() -> None:
    bots = _bots(6)
    rounds, end = _course(CoursePlan("swiss", rounds=40, until=StopRule(top=1, los=0.9)), bots)
    assert end.reason == "until" and end.rounds < 40
    fit = course_fit(bots, rounds)
    assert adjacent_los(fit)[0] >= 0.9
    assert adjacent_los(course_fit(bots, rounds[:-1]))[0] < 0.9


def test_the_contested_course_plays_every_bot_every_round_and_the_top_more() -> None:
    bots = _bots(32)
    plan = CoursePlan("contested", rounds=3, until=StopRule(top=1, los=0.95))
    rounds, end = _course(plan, bots)
    assert end.reason == "until" and len(rounds) > 3
    for games in rounds:
        assert {name for g in games for name in (g.order, g.chaos)} == set(bots)
    later = Counter(name for games in rounds[3:] for g in games for name in (g.order, g.chaos))
    assert later.most_common(1)[0][0] in bots[:3]
    top, rest = bots[:3], bots[16:]
    assert sum(later[b] for b in top) / len(top) > 1.5 * sum(later[b] for b in rest) / len(rest)


def every_pair(strength: dict[str, float], games: int) -> list[GameResult]:
    """``games`` games of every ordered pair, Bradley-Terry on the 400-point scale (seeded)."""
    rng = np.random.default_rng(3)
    return [
        GameResult(o, c, bool(rng.random() < 1 / (1 + 10 ** ((strength[c] - strength[o]) / 400))))
        for o in strength
        for c in strength
        if o != c
        for _ in range(games)
    ]


def test_contested_rounds_meet_the_open_pairs_first_and_nothing_once_settled() -> None:
    # a and b are close, b far above c and d: only a-b (and b against those below) is in doubt.
    strength = {"a": 0.0, "b": -10.0, "c": -900.0, "d": -950.0}
    fit = fit_pooled(aggregate(every_pair(strength, 20)))
    pairs = open_pairs(fit, top=1, los=0.95)
    assert [(fit.names[a], fit.names[b]) for a, b, _ in pairs][:1] in ([("a", "b")], [("b", "a")])
    pairings = contested_round(fit, top=1, los=0.95, meetings=1)
    assert sorted(pairings[0]) == ["a", "b"]
    assert contested_round(fit, top=3, los=0.95, meetings=0) == ()


def test_doubts_inside_the_top_and_at_its_edge_are_played_the_most_doubtful_first() -> None:
    # Top 2: a and b nearly tied inside it, c a little below b, at its edge, d far below.
    strength = {"a": 0.0, "b": -10.0, "c": -120.0, "d": -900.0}
    fit = fit_pooled(aggregate(every_pair(strength, 6)))
    pairs = open_pairs(fit, top=2, los=0.95)
    named = [{fit.names[a], fit.names[b]} for a, b, _ in pairs]
    assert {"b", "c"} in named  # who is in the top is still open ...
    assert named[0] == {"a", "b"}  # ... but less so than the order inside it
    assert [d for _, _, d in pairs] == sorted((d for _, _, d in pairs), reverse=True)


def test_a_plan_refuses_what_it_cannot_play() -> None:
    with pytest.raises(ValueError, match="course format"):
        CoursePlan("knockout")
    with pytest.raises(ValueError, match="rounds"):
        CoursePlan("swiss", rounds=0)
    with pytest.raises(ValueError, match="los"):
        StopRule(top=3, los=1.0)
    with pytest.raises(ValueError, match="budget"):
        Budget(0)


def test_default_rounds_grow_with_the_log_of_the_pool() -> None:
    assert [default_rounds(n) for n in (2, 40, 300)] == [5, 10, 13]


def test_a_late_entry_starts_in_the_middle_moves_by_its_results_and_stops_once_placed() -> None:
    """A course of 24 bots, then an entry as strong as b06 (it beats b07 and below as Order,
    and as Chaos with a coin's odds): its meetings climb from the middle to its place, one game
    per role each, far fewer than one against every bot."""
    from arena.tournament.lateentry import next_opponent

    bots = _bots(24)
    rounds, _ = _course(CoursePlan("swiss"), bots)
    games = [g for played in rounds for g in played]
    entry, rng = "b06x", np.random.default_rng(1)
    met: list[str] = []
    while (opponent := next_opponent(entry, bots, games, level=0.95)) is not None:
        assert opponent not in met
        met.append(opponent)
        for order, chaos in ((opponent, entry), (entry, opponent)):
            games.append(GameResult(order, chaos, order < chaos or bool(rng.random() < 0.5)))
    course = course_fit(bots, rounds)
    assert met[0] == course.names[int(np.argsort(course.rating)[12])]  # the middle of the standings
    assert min(met) < "b08"  # it climbed towards its place
    assert 3 <= len(met) <= 12, met
    again = [g for played in rounds for g in played]
    assert next_opponent(entry, bots, again, level=0.95) == met[0]  # a function of the games
    fit = course_fit([*bots, entry], [games])
    place = sorted(fit.names, key=lambda bot: -fit.rating[fit.names.index(bot)]).index(entry)
    assert abs(place - 6) <= 3, place
