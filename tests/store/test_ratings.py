"""Tests for arena.ratings: tallies, sequential Elo (package and fallback) and the MLE fit."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ratings import (
    BotTally,
    CrossCell,
    GameResult,
    compute_all,
    cross_table,
    order_win_rate,
    tallies,
)
from arena.ratings.elo import expected_score, package_available, sequential_elo
from arena.ratings.mle import ELO_PER_LOGIT, LogisticPosterior, aggregate, fit_mle

G = GameResult


def p_win(d: np.ndarray | float) -> np.ndarray | float:
    """Elo-scale logistic."""
    return 1.0 / (1.0 + 10.0 ** (-np.asarray(d) / 400.0))


def simulate(
    seed: int, s_order: list[float], s_chaos: list[float], n_games: int
) -> tuple[list[str], list[GameResult]]:
    """Random pairings (never a bot against itself) of bots with known per-role strengths."""
    rng = np.random.default_rng(seed)
    n = len(s_order)
    names = [f"bot{i}" for i in range(n)]
    o = rng.integers(0, n, n_games)
    c = (o + rng.integers(1, n, n_games)) % n
    won = rng.random(n_games) < p_win(np.asarray(s_order)[o] - np.asarray(s_chaos)[c])
    return names, [G(names[a], names[b], bool(w)) for a, b, w in zip(o, c, won, strict=True)]


def random_games(seed: int, n_games: int, bots: str = "abcdef") -> list[GameResult]:
    rnd = random.Random(seed)
    return [G(rnd.choice(bots), rnd.choice(bots), rnd.random() < 0.6) for _ in range(n_games)]


games_strategy = st.lists(
    st.builds(G, st.sampled_from("abcd"), st.sampled_from("abcd"), st.booleans()), max_size=40
)


# --- GameResult, tallies, cross table -------------------------------------------------------


def test_import_is_light():
    code = "import sys, arena.ratings; print(sorted({'numpy', 'scipy', 'elo'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_game_result_from_record():
    from arena.records import GameRecord, Reason
    from arena.rules import Role

    record = GameRecord("a", "b", Role.CHAOS, Reason.TIMEOUT, moves=["a1X", "b2O", "c3X"])
    g = G.from_record(record)
    assert g[:5] == ("a", "b", False, "timeout", 3) and g.winner == "b" and g.loser == "a"
    assert len(g.key) == 16
    # The key is the game's content: equal for the same game, different for another one.
    again = GameRecord("a", "b", Role.CHAOS, Reason.TIMEOUT, moves=["a1X", "b2O", "c3X"], seed=9)
    other = GameRecord("a", "b", Role.CHAOS, Reason.TIMEOUT, moves=["a1X", "b2O", "c4X"])
    assert G.from_record(again).key == g.key != G.from_record(other).key
    assert G.from_record(SimpleNamespace(order="a", chaos="b", winner="order")).order_won
    with pytest.raises(ValueError):
        G.from_record(SimpleNamespace(order="a", chaos="b", winner="draw"))


def test_cross_table_and_tallies():
    games = [G("a", "b", True), G("a", "b", False), G("b", "a", True), G("a", "c", True)]
    table = cross_table(games, names=["z"])
    assert set(table) == {"a", "b", "c", "z"}
    assert table["a"]["b"] == CrossCell(order_wins=1, order_games=2, chaos_wins=0, chaos_games=1)
    assert table["b"]["a"] == CrossCell(1, 1, 1, 2)
    assert table["a"]["c"] == CrossCell(1, 1, 0, 0)
    assert table["c"]["a"] == CrossCell(0, 0, 0, 1)
    assert table["z"] == {} and "c" not in table["b"]

    t = tallies(games, names=["z"])
    assert t["a"] == BotTally(
        "a", games=4, wins=2, wins_order=2, games_order=3, wins_chaos=0, games_chaos=1
    )
    assert t["b"] == BotTally("b", 3, 2, 1, 1, 1, 2)
    assert t["z"].games == 0 and t["z"].win_rate is None
    assert order_win_rate(games) == 0.75 and order_win_rate([]) is None


@given(games_strategy)
def test_tallies_consistent_with_cross_table(games):
    table, t = cross_table(games), tallies(games)
    assert sum(x.games for x in t.values()) == 2 * len(games)
    assert sum(x.wins for x in t.values()) == len(games)
    for name, row in table.items():
        assert sum(c.order_games for c in row.values()) == t[name].games_order
        assert sum(c.order_wins for c in row.values()) == t[name].wins_order
        assert sum(c.chaos_games for c in row.values()) == t[name].games_chaos
        assert sum(c.chaos_wins for c in row.values()) == t[name].wins_chaos
        for other, cell in row.items():
            mirror = table[other][name]
            assert (cell.order_games, cell.chaos_games) == (mirror.chaos_games, mirror.order_games)
            assert cell.order_wins + mirror.chaos_wins == cell.order_games


# --- sequential Elo ------------------------------------------------------------------------


def test_elo_single_game_by_hand():
    e = sequential_elo([G("a", "b", True)], backend="builtin")
    assert e.overall == {"a": 1508.0, "b": 1492.0}
    assert e.as_order == {"a": 1508.0, "b": 1500.0}
    assert e.as_chaos == {"a": 1500.0, "b": 1492.0}
    assert expected_score(1600, 1500) == pytest.approx(1 / (1 + 10**-0.25))
    assert e.expected("a", "b") == pytest.approx(expected_score(1508, 1492))


def test_elo_self_play_only_moves_role_ratings():
    e = sequential_elo([G("a", "a", True)], k=10, backend="builtin", names=["b"])
    assert e.overall == {"a": 1500.0, "b": 1500.0}
    assert e.as_order["a"] == 1505.0 and e.as_chaos["a"] == 1495.0


@pytest.mark.skipif(
    not package_available(), reason="the elo package is not installed (it cannot be on >= 3.12)"
)
def test_elo_package_agrees_with_builtin():
    games = random_games(7, 3000)
    for k in (16.0, 32.0):
        pkg = sequential_elo(games, k=k, backend="package")
        own = sequential_elo(games, k=k, backend="builtin")
        assert pkg.backend == "package" and own.backend == "builtin"
        for field in ("overall", "as_order", "as_chaos"):
            a, b = getattr(pkg, field), getattr(own, field)
            assert a.keys() == b.keys()
            for name in a:
                assert type(a[name]) is float
                assert a[name] == pytest.approx(b[name], abs=1e-9, rel=0)
    assert sequential_elo(games).backend == "package"


def test_elo_falls_back_without_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "elo", None)  # makes `import elo` raise ImportError
    assert not package_available()
    assert sequential_elo([G("a", "b", True)]).backend == "builtin"
    with pytest.raises(ImportError):
        sequential_elo([G("a", "b", True)], backend="package")
    with pytest.raises(ValueError):
        sequential_elo([], backend="nope")  # type: ignore[arg-type]


@given(games_strategy)
def test_elo_is_zero_sum(games):
    e = sequential_elo(games, backend="builtin")
    n = len(e.overall)
    assert sum(e.overall.values()) == pytest.approx(1500 * n)
    assert sum(e.as_order.values()) + sum(e.as_chaos.values()) == pytest.approx(3000 * n)


def test_sequential_elo_depends_on_order_mle_does_not():
    games = [G("a", "b", True)] * 20 + [G("b", "a", True)] * 20
    forward, backward = sequential_elo(games), sequential_elo(games[::-1])
    assert forward.overall["a"] < 1500 < backward.overall["a"]
    f1, f2 = fit_mle(games), fit_mle(games[::-1])
    assert f1.rating == f2.rating and f1.order_rating == f2.order_rating


# --- maximum-likelihood fit ----------------------------------------------------------------


def test_analytic_gradient_and_hessian():
    from scipy.optimize import approx_fprime

    rng = np.random.default_rng(3)
    n, p = 4, 10
    cols = np.column_stack([rng.integers(0, n, p), n + rng.integers(0, n, p), np.full(p, 2 * n)])
    games = rng.integers(1, 20, p).astype(float)
    model = LogisticPosterior(
        cols,
        np.tile([1.0, -1.0, 1.0], (p, 1)),
        games,
        np.floor(games * rng.random(p)),
        rng.random(2 * n + 1) + 0.1,
    )
    u = rng.normal(size=2 * n + 1)
    num_grad = approx_fprime(u, lambda v: model.fun_grad(v)[0], 1e-6)
    assert model.fun_grad(u)[1] == pytest.approx(num_grad, rel=1e-4, abs=1e-4)
    num_hess = np.array(
        [approx_fprime(u, lambda v, i=i: model.fun_grad(v)[1][i], 1e-6) for i in range(u.size)]
    )
    assert model.hess(u) == pytest.approx(num_hess, rel=1e-4, abs=1e-4)


def test_aggregate_counts_pairs():
    c = aggregate([G("b", "a", True), G("b", "a", False), G("a", "b", True)], names=["c"])
    assert c.names == ("a", "b", "c")
    pairs = {
        (int(o), int(ch)): (g, w)
        for o, ch, g, w in zip(c.order_idx, c.chaos_idx, c.games, c.order_wins, strict=True)
    }
    assert pairs == {(0, 1): (1.0, 1.0), (1, 0): (2.0, 1.0)}


def test_edge_cases():
    empty = fit_mle([])
    assert empty.names == () and empty.rating == {} and empty.los == {}
    assert empty.order_win_rate is None and empty.role_advantage == 0.0 and empty.converged

    lone = fit_mle([G("a", "a", True), G("a", "a", True), G("a", "a", False)], offset=0.0)
    assert lone.rating == {"a": 0.0} and lone.rating_ci95 == {"a": 0.0}
    assert lone.role_advantage > 0 and lone.los == {"a": {"a": 0.5}}
    assert lone.order_rating["a"] - lone.chaos_rating["a"] > 0

    played = random_games(2, 300, bots="abc")
    idle, without = fit_mle(played, names=["idle"]), fit_mle(played)
    assert idle.names == ("a", "b", "c", "idle")
    assert idle.rating_ci95["idle"] > 5 * idle.rating_ci95["a"] > 0
    assert idle.rating["idle"] == pytest.approx(1500, abs=1e-6)
    assert idle.order_rating["idle"] > 1500 > idle.chaos_rating["idle"]  # Order's edge, 60% wins
    for name in "abc":  # a newcomer changes nobody's rating or interval
        assert idle.rating[name] == pytest.approx(without.rating[name], abs=1e-6)
        assert idle.rating_ci95[name] == pytest.approx(without.rating_ci95[name], rel=1e-6)
        assert idle.order_rating[name] == pytest.approx(without.order_rating[name], abs=1e-6)

    one_sided = fit_mle([G("a", "b", True), G("b", "a", True)] * 200)  # Order always wins
    assert 200 < one_sided.role_advantage < 5000
    assert one_sided.rating["a"] == pytest.approx(one_sided.rating["b"])

    with pytest.raises(ValueError):
        fit_mle([], prior_sd=0)


def test_unbeaten_and_winless_bots_get_finite_ratings():
    games = random_games(1, 600, bots="bcd")
    for other in "bcd":
        games += [G("ace", other, True), G(other, "ace", False)] * 5
        games += [G("dud", other, False), G(other, "dud", True)] * 5
    fit = fit_mle(games)
    assert all(math.isfinite(v) for v in (*fit.rating.values(), *fit.rating_ci95.values()))
    best = max(fit.rating, key=fit.rating.get)
    worst = min(fit.rating, key=fit.rating.get)
    assert (best, worst) == ("ace", "dud")
    assert fit.rating["ace"] - fit.rating["dud"] > 400
    assert all(fit.los["ace"][b] > 0.95 for b in "bcd")
    assert fit.order_rating["ace"] > max(fit.order_rating[b] for b in "bcd")
    assert fit.chaos_rating["dud"] < min(fit.chaos_rating[b] for b in "bcd")


def test_mle_recovers_known_strengths():
    strengths = np.array([-300.0, -180.0, -60.0, 0.0, 40.0, 130.0, 220.0, 350.0])
    h = 120.0
    names, games = simulate(11, list(strengths + h / 2), list(strengths - h / 2), 20_000)
    fit = fit_mle(games)
    assert fit.converged and fit.games == 20_000
    truth = strengths - strengths.mean() + 1500
    for name, t in zip(names, truth, strict=True):
        assert abs(fit.rating[name] - t) < 3 * fit.rating_se[name]
        assert 4 < fit.rating_se[name] < 10
    assert abs(fit.role_advantage - h) < 3 * fit.role_advantage_se
    assert fit.rating_ci95["bot0"] == pytest.approx(1.96 * fit.rating_se["bot0"], rel=1e-3)
    assert sum(fit.rating.values()) / len(names) == pytest.approx(1500)
    # The per-role model contains the overall one: its strengths are about s +- h/2.
    for name in names:
        assert fit.order_rating[name] - fit.chaos_rating[name] == pytest.approx(h, abs=50)


def test_mle_recovers_per_role_strengths():
    s_order = [300.0, 100.0, 250.0, -50.0, 150.0, 0.0]
    s_chaos = [-200.0, 100.0, 50.0, -100.0, -250.0, 60.0]
    names, games = simulate(5, s_order, s_chaos, 20_000)
    fit = fit_mle(games)
    centre = (np.mean(s_order) + np.mean(s_chaos)) / 2 - 1500
    for i, name in enumerate(names):
        assert abs(fit.order_rating[name] - (s_order[i] - centre)) < 3 * fit.order_se[name]
        assert abs(fit.chaos_rating[name] - (s_chaos[i] - centre)) < 3 * fit.chaos_se[name]
    mean_role = (sum(fit.order_rating.values()) + sum(fit.chaos_rating.values())) / 12
    assert mean_role == pytest.approx(1500)


def test_per_role_model_predicts_observed_rates():
    # bot0 is a strong Order player and a weak Chaos player, bot3 the opposite.
    s_order = [400.0, 150.0, 100.0, -250.0]
    s_chaos = [-300.0, -50.0, 0.0, 200.0]
    names, games = simulate(2, s_order, s_chaos, 36_000)
    fit = fit_mle(games)
    table = cross_table(games)
    worst_role = worst_overall = 0.0
    for a in names:
        for b in names:
            if a == b:
                continue
            cell = table[a][b]
            observed = cell.order_wins / cell.order_games
            p = fit.expected_by_role(a, b)
            z = abs(p - observed) / math.sqrt(p * (1 - p) / cell.order_games)
            worst_role = max(worst_role, z)
            worst_overall = max(worst_overall, abs(fit.expected(a, b) - observed))
            assert z < 3.5, (a, b, p, observed)
    assert worst_overall > 0.1  # one strength per bot cannot capture role specialists


def test_mle_is_invariant_to_game_order():
    _, games = simulate(4, [100.0, 0.0, -80.0, 50.0, 20.0], [0.0, 40.0, -80.0, -20.0, 0.0], 5000)
    shuffled = games[:]
    random.Random(0).shuffle(shuffled)
    a, b = fit_mle(games), fit_mle(shuffled)
    for field in ("rating", "rating_ci95", "order_rating", "chaos_rating", "chaos_ci95"):
        assert getattr(a, field) == pytest.approx(getattr(b, field), rel=1e-12)
    assert a.role_advantage == pytest.approx(b.role_advantage, rel=1e-12)
    assert sequential_elo(games).overall != sequential_elo(shuffled).overall


@settings(max_examples=40, deadline=None)
@given(games_strategy)
def test_los_is_antisymmetric(games):
    fit = fit_mle(games)
    for a in fit.names:
        assert fit.los[a][a] == 0.5
        for b in fit.names:
            assert fit.los[a][b] + fit.los[b][a] == pytest.approx(1.0, abs=1e-12)
            assert 0.0 <= fit.los[a][b] <= 1.0
            if fit.rating[a] > fit.rating[b] + 1e-9:
                assert fit.los[a][b] > 0.5


def test_los_uses_the_covariance():
    fit = fit_mle(random_games(9, 400, bots="abc"))
    a, b = "a", "b"
    i, j = fit.names.index(a), fit.names.index(b)
    c = fit.rating_cov
    sd = math.sqrt(c[i, i] + c[j, j] - 2 * c[i, j])
    phi = 0.5 * (1 + math.erf((fit.rating[a] - fit.rating[b]) / sd / math.sqrt(2)))
    assert fit.los[a][b] == pytest.approx(phi, abs=1e-12)
    assert c[i, j] != 0


def test_per_role_los_follows_each_roles_strengths_with_their_covariance():
    """A bot that wins every Order game but loses every Chaos game is ahead as Order and behind
    as Chaos, whatever the overall LOS says; each role's LOS comes from that role's ratings and
    their covariance in the per-role fit."""
    games = []
    for i in range(30):
        games.append(G("split", "steady", True))  # split always wins as Order
        games.append(G("steady", "split", True))  # and always loses as Chaos
        games.append(G("steady", "other", i % 2 == 0))
        games.append(G("other", "steady", i % 3 == 0))
        games.append(G("split", "other", i % 4 != 0))
        games.append(G("other", "split", i % 5 != 0))
    fit = fit_mle(games)
    assert fit.order_los["split"]["steady"] > 0.95
    assert fit.chaos_los["split"]["steady"] < 0.05
    n = len(fit.names)
    for field, offset, ratings in (
        ("order_los", 0, fit.order_rating),
        ("chaos_los", n, fit.chaos_rating),
    ):
        los = getattr(fit, field)
        for a in fit.names:
            assert los[a][a] == 0.5
            for b in fit.names:
                assert los[a][b] + los[b][a] == pytest.approx(1.0, abs=1e-12)
        i, j = offset + fit.names.index("split"), offset + fit.names.index("other")
        c = fit.role_cov
        sd = math.sqrt(c[i, i] + c[j, j] - 2 * c[i, j])
        diff = ratings["split"] - ratings["other"]
        phi = 0.5 * (1 + math.erf(diff / sd / math.sqrt(2)))
        assert los["split"]["other"] == pytest.approx(phi, abs=1e-12)


def test_intervals_shrink_with_more_games():
    _, games = simulate(8, [200.0, 50.0, 0.0, -100.0], [100.0, 0.0, -50.0, -150.0], 16_000)
    few, many = fit_mle(games[:1000]), fit_mle(games)
    for name in few.names:
        assert many.rating_ci95[name] < few.rating_ci95[name] / 3
        assert many.order_ci95[name] < few.order_ci95[name] / 3
        assert many.chaos_ci95[name] < few.chaos_ci95[name] / 3
    assert many.role_advantage_ci95 < few.role_advantage_ci95 / 3


def test_lbfgsb_agrees_with_newton():
    _, games = simulate(6, [100.0, 0.0, -80.0], [0.0, 40.0, -80.0], 3000)
    a, b = fit_mle(games), fit_mle(games, method="L-BFGS-B")
    assert b.converged
    assert a.rating == pytest.approx(b.rating, abs=0.05)
    assert a.order_rating == pytest.approx(b.order_rating, abs=0.05)
    assert a.rating_se == pytest.approx(b.rating_se, rel=1e-3)


@given(
    st.lists(
        st.tuples(st.integers(0, 5), st.integers(0, 5), st.booleans()).filter(
            lambda g: g[0] != g[1]
        ),
        max_size=60,
    ),
    st.booleans(),
)
@settings(max_examples=60, deadline=None)
def test_numpy_newton_agrees_with_scipy_trust_region(draws, one_sided):
    """The default fit (damped Newton, numpy alone) finds scipy's trust-exact optimum: on any
    small tournament, one where somebody wins every game, and bots without games. (scipy stops
    at a gradient of about 1e-5, up to a few hundredths of an Elo point short on the flat
    posteriors of a few games; Newton goes on to 1e-10.)"""
    games = [G(f"b{o}", f"b{c}", won or one_sided) for o, c, won in draws]
    names = [f"b{i}" for i in range(7)]  # b6 never plays
    ours, scipys = fit_mle(games, names=names), fit_mle(games, names=names, method="trust-exact")
    assert ours.converged and scipys.converged
    for field in ("rating", "order_rating", "chaos_rating", "rating_se", "order_se", "chaos_se"):
        assert getattr(ours, field) == pytest.approx(getattr(scipys, field), abs=0.1), field
    assert ours.role_advantage == pytest.approx(scipys.role_advantage, abs=0.1)
    for name in names:
        assert ours.los[name] == pytest.approx(scipys.los[name], abs=1e-3)


def test_prior_shrinks_towards_the_average():
    games = [G("a", "b", True), G("b", "a", False)] * 3  # a won all six
    wide, narrow = fit_mle(games, prior_sd=1000), fit_mle(games, prior_sd=100)
    assert wide.rating["a"] - wide.rating["b"] > narrow.rating["a"] - narrow.rating["b"] > 0
    assert abs(ELO_PER_LOGIT - 173.7178) < 1e-4


def test_large_fit_converges():
    """50 bots, 100k games: converges and ranks right (its speed is for benchmarks/, not here)."""
    rng = np.random.default_rng(0)
    strengths = rng.normal(0, 150, 50)
    _, games = simulate(0, list(strengths + 50), list(strengths - 50), 100_000)
    fit = fit_mle(games)
    assert fit.converged and len(fit.names) == 50
    centred = strengths - strengths.mean()
    est = np.array([fit.rating[f"bot{i}"] for i in range(50)]) - 1500
    assert np.corrcoef(centred, est)[0, 1] > 0.98


# --- bundled standings ----------------------------------------------------------------------


def _plain(x: object) -> bool:
    if isinstance(x, dict):
        return all(type(k) is str and _plain(v) for k, v in x.items())
    if isinstance(x, list):
        return all(_plain(v) for v in x)
    return x is None or type(x) in (str, int, float, bool)


def test_compute_all_and_json():
    _, games = simulate(3, [200.0, 0.0, -100.0], [50.0, -20.0, -200.0], 900)
    games.append(G("bot0", "bot0", True))
    standings = compute_all(iter(games), names=["newbie"])
    assert standings.games == len(games)
    played = [b for b in standings.bots if b.tally.games]
    ratings = [b.rating.value for b in played]
    assert ratings == sorted(ratings, reverse=True) and standings.bots[-1].name == "newbie"
    assert standings.bots[0].name == "bot0" and [b.rank for b in standings.bots] == [1, 2, 3, 4]

    data = standings.to_json()
    assert _plain(data)
    json.dumps(data, allow_nan=False)
    assert set(data) >= {
        "bots",
        "order_win_rate",
        "role_advantage",
        "role_advantage_ci95",
        "los",
        "cross_table",
    }
    first = data["bots"][0]
    assert {
        "name",
        "games",
        "wins",
        "wins_order",
        "games_order",
        "wins_chaos",
        "games_chaos",
        "elo",
        "elo_ci95",
        "elo_order",
        "elo_order_ci95",
        "elo_chaos",
        "elo_chaos_ci95",
        "elo_sequential",
        "elo_sequential_order",
        "elo_sequential_chaos",
        "faults",
        "survival",
    } <= set(first)
    assert first["name"] == "bot0"
    assert first["games"] == first["games_order"] + first["games_chaos"]
    assert first["elo_sequential"] == standings.bot("bot0").sequential
    newbie = next(b for b in data["bots"] if b["name"] == "newbie")
    assert newbie["games"] == 0 and newbie["elo_sequential"] is None and newbie["elo"] is None
    assert data["cross_table"]["bot0"]["bot1"] == table_cell(games, "bot0", "bot1")
    assert data["los"]["bot0"]["bot1"] + data["los"]["bot1"]["bot0"] == pytest.approx(1.0)


def table_cell(games: list[GameResult], row: str, col: str) -> dict[str, int]:
    as_order = [g for g in games if (g.order, g.chaos) == (row, col)]
    as_chaos = [g for g in games if (g.order, g.chaos) == (col, row)]
    return {
        "order_wins": sum(g.order_won for g in as_order),
        "order_games": len(as_order),
        "chaos_wins": sum(not g.order_won for g in as_chaos),
        "chaos_games": len(as_chaos),
    }


def test_compute_all_without_games():
    standings = compute_all([])
    assert standings.bots == [] and standings.games == 0
    data = standings.to_json()
    assert data["bots"] == [] and data["order_win_rate"] is None
    json.dumps(data, allow_nan=False)


# --- agreement with independent computations -----------------------------------------------


def independent_map_fit(
    games: list[GameResult], names: list[str], prior_sd: float, prior_sd_role: float
) -> tuple[np.ndarray, float]:
    """The overall model's posterior mode by plain Newton steps over the games one by one (no
    aggregation, no scipy): a second implementation to check ``fit_mle`` against."""
    index = {n: i for i, n in enumerate(names)}
    n = len(names)
    rows = np.zeros((len(games), n + 1))
    for k, g in enumerate(games):
        rows[k, index[g.order]] += 1.0
        rows[k, index[g.chaos]] -= 1.0
        rows[k, n] = 1.0
    y = np.array([float(g.order_won) for g in games])
    precision = np.r_[
        np.full(n, (ELO_PER_LOGIT / prior_sd) ** 2), (ELO_PER_LOGIT / prior_sd_role) ** 2
    ]
    u = np.zeros(n + 1)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(rows @ u)))
        grad = rows.T @ (y - p) - precision * u
        hess = (rows * (p * (1 - p))[:, None]).T @ rows + np.diag(precision)
        step = np.linalg.solve(hess, grad)
        u += step
        if np.abs(step).max() < 1e-12:
            break
    s = u[:n] * ELO_PER_LOGIT
    return s - s.mean(), float(u[n] * ELO_PER_LOGIT)


def test_fit_agrees_with_an_independent_fit():
    names, games = simulate(
        12, [250.0, 100.0, 0.0, -60.0, -200.0], [50.0, -80.0, -100.0, -150.0, -300.0], 4000
    )
    mine = fit_mle(games, offset=0.0)
    other, h = independent_map_fit(games, names, 400.0, 1000.0)
    for name, value in zip(names, other, strict=True):
        assert mine.rating[name] == pytest.approx(value, abs=0.01)
    assert mine.role_advantage == pytest.approx(h, abs=0.01)


def test_head_to_head_is_the_fit_without_prior():
    """Two bots: the closed form of ``arena match`` is the exact maximum likelihood of the
    standings' model (what Ordo gives with -W -d 0), so the fit with a negligible prior agrees."""
    from arena.ratings.headtohead import head_to_head

    games = [G("a", "b", True)] * 37 + [G("a", "b", False)] * 13
    games += [G("b", "a", True)] * 21 + [G("b", "a", False)] * 29
    fit = fit_mle(games, prior_sd=1e6, prior_sd_role=1e6)
    h2h = head_to_head(37, 50, 21, 50)
    assert h2h.diff == pytest.approx(fit.rating["a"] - fit.rating["b"], abs=0.01)
    assert h2h.order_advantage == pytest.approx(fit.role_advantage, abs=0.01)
    assert h2h.los == pytest.approx(fit.los["a"]["b"], abs=1e-6)
    # By hand: logit(37/50) = 1.0460, logit(21/50) = -0.3228: d = 0.6844 logits = 118.9 Elo;
    # se = sqrt(1/(50*.74*.26) + 1/(50*.42*.58)) / 2 = 0.2157 logits: ±73 Elo at 95%.
    assert h2h.diff == pytest.approx(118.9, abs=0.1) and h2h.text() == "+119 ±73"
    assert not h2h.bound


def test_head_to_head_bounds_and_gaps():
    from arena.ratings.headtohead import head_to_head

    unbeaten = head_to_head(10, 10, 0, 10)
    assert unbeaten.bound == ">" and unbeaten.ci95 is None and unbeaten.text().startswith(">+")
    assert unbeaten.los is not None and unbeaten.los > 0.99
    assert head_to_head(0, 5, 5, 5).bound == "<"
    one_role = head_to_head(3, 5, 0, 0)
    assert one_role.diff is None and one_role.text() == "-"


# --- what the standings say -----------------------------------------------------------------


def record_like(order: str, chaos: str, order_won: bool, reason: str, moves: int, salt: int) -> G:
    from arena.records import GameRecord, Reason
    from arena.rules import Role

    tokens = [f"{'abcdef'[i % 6]}{i // 6 + 1}{'XO'[(i + salt) % 2]}" for i in range(moves)]
    winner = Role.ORDER if order_won else Role.CHAOS
    return G.from_record(GameRecord(order, chaos, winner, Reason(reason), moves=tokens))


def tournament_games(seed: int) -> list[GameResult]:
    rnd = random.Random(seed)
    games = []
    for o in "abcd":
        for c in "abcd":
            if o != c:
                for k in range(12):
                    won = rnd.random() < 0.7
                    games.append(
                        record_like(o, c, won, "five" if won else "full", rnd.randint(9, 36), k)
                    )
    return games


def test_sequential_elo_does_not_depend_on_the_schedule():
    """The same games in any order (another schedule, other worker timing) give the same
    sequential Elo in the standings; the raw sequential_elo over play order does not."""
    games = tournament_games(1)
    schedules = [games, games[::-1], sorted(games, key=lambda g: (g.chaos, g.order_won))]
    standings = [compute_all(s) for s in schedules]
    for other in standings[1:]:
        for name in "abcd":
            assert other.bot(name).sequential == standings[0].bot(name).sequential
            assert other.bot(name).sequential_order == standings[0].bot(name).sequential_order
    assert sequential_elo(games).overall != sequential_elo(schedules[2]).overall


def test_canonical_order_interleaves_rounds():
    from arena.ratings.elo import canonical_order

    games = tournament_games(2)
    ordered = canonical_order(games)
    assert sorted(ordered) == sorted(games)
    # Every pairing's first game comes before any pairing's second game.
    first_round = ordered[:12]
    assert len({(g.order, g.chaos) for g in first_round}) == 12


def test_json_states_the_ratings_settings_and_convergence():
    data = compute_all(tournament_games(3)).to_json()
    assert data["sequential_elo"]["k"] == 16.0 and data["sequential_elo"]["initial"] == 1500.0
    assert "rounds" in data["sequential_elo"]["order"]
    assert data["converged"] is True and data["fit"]["converged"] is True
    assert data["fit"]["prior_sd"] == 400.0 and data["fit"]["prior_sd_role"] == 1000.0
    json.dumps(data, allow_nan=False)


def test_faults_are_counted_per_bot_and_reason():
    games = [
        record_like("a", "b", False, "timeout", 4, 0),  # a (Order) timed out
        record_like("a", "b", False, "crash", 2, 1),
        record_like("b", "a", False, "crash", 3, 0),  # b (Order) crashed
        record_like("b", "a", True, "illegal", 5, 0),  # a (Chaos) played an illegal move
        record_like("a", "b", True, "five", 9, 0),
    ]
    s = compute_all(games)
    assert s.bot("a").faults == {
        "timeout": 1,
        "illegal": 1,
        "malformed": 0,
        "crash": 1,
        "startup": 0,
    }
    assert s.bot("b").faults["crash"] == 1 and s.bot("b").fault_total == 1
    bots = {b["name"]: b for b in s.to_json()["bots"]}
    assert bots["a"]["faults"]["timeout"] == 1 and bots["a"]["fault_total"] == 3


def test_bounds_and_roles_never_played():
    games = [G("ace", "x", True), G("x", "ace", False)] * 5  # ace wins everything
    games += [G("x", "y", True), G("y", "x", True), G("x", "y", False)] * 3
    games += [G("order-only", "x", True), G("order-only", "y", False)] * 3
    s = compute_all(games)
    ace, x, only = s.bot("ace"), s.bot("x"), s.bot("order-only")
    assert ace.rating.bound == ">" and ace.rating.ci95 is None
    assert ace.rating.text().startswith(">") and "±" not in ace.rating.text()
    assert ace.order.bound == ">" and ace.chaos.bound == ">"
    assert x.rating.bound == "" and x.rating.ci95 is not None
    assert only.chaos.value is None and only.chaos.text() == "-" and only.sequential_chaos is None
    entry = next(b for b in s.to_json()["bots"] if b["name"] == "order-only")
    assert entry["elo_chaos"] is None and entry["chaos"] == {
        "value": None,
        "ci95": None,
        "bound": None,
    }
    assert entry["survival"] is None


def test_groups_that_never_met_are_found():
    games = [G("a", "b", True), G("b", "a", True), G("c", "d", False), G("d", "c", True)]
    games += [G("e", "e", True)]  # a game against itself connects nothing
    s = compute_all(games)
    assert s.groups == [["a", "b"], ["c", "d"], ["e"]]
    assert s.bot("c").group == 1 and s.to_json()["groups"] == [["a", "b"], ["c", "d"], ["e"]]
    assert compute_all(tournament_games(4)).groups == [["a", "b", "c", "d"]]


def test_survival_per_chaos_bot():
    games = [
        record_like("a", "c", True, "five", 10, 0),
        record_like("a", "c", True, "five", 20, 1),
        record_like("a", "c", False, "full", 36, 0),
        record_like("b", "c", True, "five", 30, 0),
    ]
    s = compute_all(games).bot("c").survival
    assert s is not None and (s.games, s.wins) == (4, 1)
    assert s.mean_plies_lost == pytest.approx(20.0) and s.win_rate == 0.25
    assert s.by_order["a"].games == 3 and s.by_order["a"].mean_plies_lost == pytest.approx(15.0)
    assert s.by_order["b"].wins == 0 and s.by_order["b"].mean_plies_lost == 30.0
    assert compute_all(games).bot("a").survival is None  # never played Chaos


def test_distinct_games_are_counted():
    games = [record_like("a", "b", True, "five", 9, 0)] * 5 + [
        record_like("b", "a", True, "five", 9, 0)
    ]
    games += [record_like("a", "b", True, "five", 9, 1)]
    s = compute_all(games)
    assert s.games == 7 and s.distinct_games == 3 and s.to_json()["distinct_games"] == 3
    assert compute_all([G("a", "b", True)]).distinct_games is None  # no content known


def test_a_gauntlet_splits_the_per_role_model():
    """A gauntlet connects everyone overall, but the first bot's Order play meets only the
    others' Chaos play: two role groups, said in the JSON and under the table."""
    from arena.commands.display.standings import render_standings

    games = []
    for other in "bcd":
        games += [
            G("a", other, True),
            G("a", other, False),
            G(other, "a", True),
            G(other, "a", False),
        ]
    s = compute_all(games)
    assert s.groups == [["a", "b", "c", "d"]]
    assert s.role_groups == [
        ["a as Chaos", "b as Order", "c as Order", "d as Order"],
        ["a as Order", "b as Chaos", "c as Chaos", "d as Chaos"],
    ]
    text = " ".join(line.text for line in render_standings(s))
    assert "per-role ratings form 2 groups that never met" in text
    assert len(compute_all(tournament_games(5)).role_groups) == 1
