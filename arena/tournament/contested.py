"""The contested format: each round's games go where the fit is least sure of the order that
matters, the top K first.

The order that matters is each of the top K against the bot placed next, and the K-th against
every bot below it (any of them could be in the top). A pair of bots is open while the fit's
likelihood that the higher is the stronger is below the stopping rule's ``los``; the bots of open
pairs are contested. A round meets the open pairs themselves, the most doubtful first, then each
contested bot its nearest placed neighbours, at most a fair share of the round each (the course
adds them to a Swiss round for every bot). Pure: the round is a function of the fit of the games
of finished rounds.
"""

from __future__ import annotations

import math

import numpy as np

from arena.ratings.mle import OverallFit
from arena.tournament.stoprule import placing


def open_pairs(fit: OverallFit, top: int, los: float) -> list[tuple[int, int, float]]:
    """The pairs whose order matters and is not settled: (higher index, lower index, doubt),
    where the doubt is the likelihood that the lower bot is the stronger.

    The order that matters is who is in the top (each of the top against the first bot below
    it, and the last of the top against every bot below) and the order inside the top
    (each place against the next). Both are one list, the most doubtful first: a near tie
    inside the top is as much in doubt as one at its edge, and waiting for the edge to settle
    first leaves it unplayed."""
    order = placing(fit)
    n = order.size
    if n < 2:
        return []
    k = min(top, n - 1)
    first_out, last_in = order[k], order[k - 1]
    higher = np.r_[order[:k], np.full(n - k - 1, last_in), order[: k - 1]]
    lower = np.r_[np.full(k, first_out), order[k + 1 :], order[1:k]]
    doubt = 1.0 - fit.los_between(higher, lower)
    unsettled = [
        (int(a), int(b), float(d))
        for a, b, d in zip(higher, lower, doubt, strict=True)
        if d > 1.0 - los
    ]
    return sorted(unsettled, key=lambda pair: -pair[2])


def contested_round(
    fit: OverallFit, *, top: int, los: float, meetings: int
) -> tuple[tuple[str, str], ...]:
    """At most ``meetings`` pairings (higher placed bot first) for the next round; none when the
    top is settled."""
    pairs = open_pairs(fit, top, los)
    contested: list[int] = []
    for a, b, _ in pairs:
        contested.extend(bot for bot in (a, b) if bot not in contested)
    if not contested:
        return ()
    share = max(1, math.ceil(2 * meetings / len(contested)))
    played: dict[int, int] = {}
    chosen: list[tuple[int, int]] = []
    keys: set[frozenset[int]] = set()

    def add(a: int, b: int) -> None:
        chosen.append((a, b))
        keys.add(frozenset((a, b)))
        played[a] = played.get(a, 0) + 1
        played[b] = played.get(b, 0) + 1

    def free(bot: int) -> bool:
        return played.get(bot, 0) < share

    for a, b, _ in pairs:
        if len(chosen) < meetings and free(a) and free(b):
            add(a, b)
    order = placing(fit)
    place = {int(bot): i for i, bot in enumerate(order)}
    for bot in contested:
        for other in _neighbours(order, place[bot]):
            if len(chosen) >= meetings or not free(bot):
                break
            if free(other) and frozenset((bot, other)) not in keys:
                first, second = sorted((bot, other), key=place.__getitem__)
                add(first, second)
    names = fit.names
    return tuple((names[a], names[b]) for a, b in chosen)


def _neighbours(order: np.ndarray, place: int) -> list[int]:
    """The bots placed around ``place``, the nearest first (the one above before the one below)."""
    found: list[int] = []
    for distance in range(1, order.size):
        for other in (place - distance, place + distance):
            if 0 <= other < order.size:
                found.append(int(order[other]))
    return found
