"""``TimeUse``, the per-bot time summary of ``arena match`` and ``arena sprt``: its binned median
and its maximum against a plain computation over the same moves (property test)."""

from __future__ import annotations

import math
import statistics

from factories import make_record
from hypothesis import given
from hypothesis import strategies as st

from arena.records import TimeUse

_TIMES = st.lists(st.floats(min_value=0.001, max_value=5000.0), min_size=1, max_size=36)


@given(games=st.lists(st.tuples(_TIMES, st.integers(0, 2)), min_size=1, max_size=6))
def test_each_bots_median_and_maximum_are_those_of_its_own_moves(
    games: list[tuple[list[float], int]],
) -> None:
    """Games with openings of 0 to 2 plies (so either bot may move first): each bot is charged
    with its own moves only, its maximum exactly, its median within the bins' 0.5%."""
    use = TimeUse()
    mine: dict[str, list[float]] = {"alpha": [], "beta": []}
    for times, opening_plies in games:
        opening = ["a1X", "b1O"][:opening_plies]
        use.add(make_record(ms=times, moves=["c3X"] * len(times), opening=opening))
        first = opening_plies & 1  # 0: Order (alpha) moves first
        for i, ms in enumerate(times):
            mine[("alpha", "beta")[(first + i) & 1]].append(ms)
    for name, times in mine.items():
        stats = use.stats(name)
        if not times:
            assert stats["median_ms"] is None and stats["max_ms"] is None
            continue
        assert stats["max_ms"] == max(times)
        median = stats["median_ms"]
        assert median is not None  # the middle bin's geometric centre: within 0.25% of its values
        assert math.isclose(median, statistics.median_low(times), rel_tol=0.003)
