"""Swiss pairing: each round pairs bots of close score, never twice the same pair while another
pairing is possible, with a bye for an odd pool.

A pairing is a meeting of both roles (each bot plays Order once), so a score counts the games a
bot won. Pure: the round is a function of the scores, the ratings and the meetings so far.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

SEARCH_STEPS = 5_000
"""How many partial pairings the search tries before it pairs greedily and trades partners to undo
repeats: enough for every pairing of 12 bots, and a round of 300 still comes in milliseconds."""


def meeting(a: str, b: str) -> frozenset[str]:
    """The key of a pairing, whichever bot is named first."""
    return frozenset((a, b))


@dataclass(frozen=True)
class SwissRound:
    """One round: its pairings, higher-placed bot first, and the bot that sits it out."""

    pairings: tuple[tuple[str, str], ...]
    bye: str | None


def swiss_order(scores: Mapping[str, float], ratings: Mapping[str, float]) -> list[str]:
    """The bots by score, ties by rating (then name, so that the order is total)."""
    return sorted(scores, key=lambda bot: (-scores[bot], -ratings.get(bot, 0.0), bot))


def swiss_round(
    scores: Mapping[str, float],
    ratings: Mapping[str, float],
    met: Collection[frozenset[str]],
    byes: Mapping[str, int] | None = None,
) -> SwissRound:
    """The next round for the bots of ``scores``.

    The bye goes to the lowest placed of the bots with the fewest byes so far (``byes``) whose
    absence leaves a pool that can pair without repeats; each bot then meets the closest placed
    bot it has not met, searching further when that leaves someone without a new opponent.
    """
    order = swiss_order(scores, ratings)
    byes = byes or {}
    met_set = set(met)
    steps = [0]  # shared by every search of this round, so that the round's cost is bounded
    if len(order) % 2 == 0:
        fresh = _pair_without_repeats(order, met_set, steps)
        return SwissRound(fresh if fresh is not None else _fewest_repeats(order, met_set), None)
    candidates = sorted(reversed(order), key=lambda bot: byes.get(bot, 0))
    for bye in candidates:
        rest = [bot for bot in order if bot != bye]
        fresh = _pair_without_repeats(rest, met_set, steps)
        if fresh is not None:
            return SwissRound(fresh, bye)
    bye = candidates[0]
    return SwissRound(_fewest_repeats([bot for bot in order if bot != bye], met_set), bye)


def _pair_without_repeats(
    order: Sequence[str], met: set[frozenset[str]], steps: list[int]
) -> tuple[tuple[str, str], ...] | None:
    """Pairs in placing order, none of ``met``, by a depth-first search that takes the closest
    partner first; None when there is none (or ``steps[0]`` ran past ``SEARCH_STEPS``).

    A branch is dropped as soon as a bot left has met every other bot left: the search then
    only goes back as far as a repeat forces it to."""
    opponents: dict[str, set[str]] = {bot: set() for bot in order}
    for key in met:
        a, b = tuple(key) if len(key) == 2 else (next(iter(key)),) * 2
        if a in opponents and b in opponents:
            opponents[a].add(b)
            opponents[b].add(a)
    unpaired = list(order)
    pairs: list[tuple[str, str]] = []

    # Only a bot that has met at least as many bots as are left can have met them all.
    crowded = sorted(order, key=lambda bot: -len(opponents[bot]))

    def stuck() -> bool:
        left = set(unpaired)
        for bot in crowded:
            if len(opponents[bot]) < len(left) - 1:
                return False
            if bot in left and left - {bot} <= opponents[bot]:
                return True
        return False

    def search() -> bool:
        if not unpaired:
            return True
        steps[0] += 1
        if steps[0] > SEARCH_STEPS or stuck():
            return False
        first = unpaired.pop(0)
        for i, partner in enumerate(unpaired):
            if partner in opponents[first]:
                continue
            unpaired.pop(i)
            pairs.append((first, partner))
            if search():
                return True
            pairs.pop()
            unpaired.insert(i, partner)
            if steps[0] > SEARCH_STEPS:
                break
        unpaired.insert(0, first)
        return False

    return tuple(pairs) if search() else None


def _fewest_repeats(order: Sequence[str], met: set[frozenset[str]]) -> tuple[tuple[str, str], ...]:
    """Each bot in placing order with the closest bot left that it has not met (or the closest
    left), then each repeat undone by trading partners with the nearest pairing that can."""
    unpaired = list(order)
    pairs: list[tuple[str, str]] = []
    while len(unpaired) > 1:
        first = unpaired.pop(0)
        new = [bot for bot in unpaired if meeting(first, bot) not in met]
        partner = new[0] if new else unpaired[0]
        unpaired.remove(partner)
        pairs.append((first, partner))
    place = {bot: i for i, bot in enumerate(order)}
    for i in range(len(pairs)):
        if meeting(*pairs[i]) in met:
            _trade(pairs, i, met)
    ordered = [(a, b) if place[a] < place[b] else (b, a) for a, b in pairs]
    return tuple(sorted(ordered, key=lambda pair: place[pair[0]]))


def _trade(pairs: list[tuple[str, str]], i: int, met: set[frozenset[str]]) -> None:
    """Undo the repeat ``pairs[i]`` by trading partners with the nearest pairing whose bots both
    get a new opponent that way (none made worse, so the repeats only fall)."""
    a, b = pairs[i]
    for j in sorted(range(len(pairs)), key=lambda j: abs(j - i)):
        if j == i:
            continue
        c, d = pairs[j]
        for first, second in (((a, c), (b, d)), ((a, d), (b, c))):
            if meeting(*first) not in met and meeting(*second) not in met:
                pairs[i], pairs[j] = first, second
                return
