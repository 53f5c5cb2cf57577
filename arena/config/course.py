"""The keys of a course: ``rounds:``, ``until: {top: K, los: P}`` and ``budget: {games: G}``.

A course (``format: swiss`` or ``contested``) plays one game per role each time a pair meets,
in rounds decided as it goes; ``until:`` and ``budget:`` end it, or a round robin, sooner.
Each key is checked where it stands, so that a wrong one is told with its line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.config.context import Context, describe, key_line, value_line
from arena.tournament.course import COURSE_FORMATS
from arena.tournament.stoprule import Budget, StopRule

DEFAULT_LOS = 0.95
LEAST_BUDGET = 2
UNTIL_KEYS = {
    "top": ("required", "the places to settle, K (at most the pool's size less one)"),
    "los": (
        f"`{DEFAULT_LOS}`",
        "the likelihood of superiority each of them needs over the next (between 0.5 and 1)",
    ),
}
"""The keys of ``until:``: the reference's default and help of each."""
BUDGET_KEYS = {"games": ("required", f"the most games to play (at least {LEAST_BUDGET})")}
"""The keys of ``budget:``: the reference's default and help of each."""


def refuse_games_per_pairing(ctx: Context, top: Mapping[str, Any], fmt: str) -> None:
    """A course plays one game per role each time a pair meets: a ``games_per_pairing`` there
    would be silently lost, and is an error."""
    if fmt in COURSE_FORMATS and "games_per_pairing" in top:
        raise ctx.error(
            "games_per_pairing",
            f"expected no games_per_pairing in a {fmt} course (each meeting plays one game per"
            " role; set rounds: or budget: for more games)",
            key_line(top, "games_per_pairing"),
        )


def parse_rounds(ctx: Context, top: Mapping[str, Any], fmt: str) -> int:
    """``rounds:``, a course's only (another format would silently lose it)."""
    if fmt not in COURSE_FORMATS:
        courses = " or ".join(COURSE_FORMATS)
        raise ctx.error(
            "rounds",
            f"expected only with format: {courses} (the format here is {fmt})",
            key_line(top, "rounds"),
        )
    return ctx.integer(top, "rounds", "rounds")


def _section(ctx: Context, top: Mapping[str, Any], key: str, example: str) -> Mapping[str, Any]:
    value = top[key]
    if not isinstance(value, Mapping):
        raise ctx.error(
            key,
            f"expected a mapping such as {example}, got {describe(value)}",
            value_line(top, key),
        )
    return value


def _require(ctx: Context, top: Mapping[str, Any], key: str, inner: str, expected: str) -> None:
    """A section's required key, told missing at the section's line."""
    if inner not in top[key]:
        raise ctx.error(f"{key}.{inner}", f"missing (expected {expected})", key_line(top, key))


def parse_until(ctx: Context, top: Mapping[str, Any], pool: int) -> StopRule:
    """``until: {top: K, los: P}``, any format's: K at most the pool's size less one."""
    section = _section(ctx, top, "until", "{top: 10, los: 0.95}")
    ctx.check_keys(section, UNTIL_KEYS, "until")
    _require(ctx, top, "until", "top", "the places to settle, such as top: 10")
    places = ctx.integer(
        section, "top", "until.top", maximum=max(1, pool - 1), why=f"{pool} bots in the pool"
    )
    los = section.get("los", DEFAULT_LOS)
    if isinstance(los, bool) or not isinstance(los, int | float) or not 0.5 < los < 1.0:
        raise ctx.error(
            "until.los",
            f"expected a likelihood of superiority between 0.5 and 1 (such as 0.95), got"
            f" {describe(los)}",
            value_line(section, "los"),
        )
    return StopRule(places, float(los))


def parse_budget(ctx: Context, top: Mapping[str, Any]) -> Budget:
    """``budget: {games: G}``, any format's."""
    section = _section(ctx, top, "budget", "{games: 1000}")
    ctx.check_keys(section, BUDGET_KEYS, "budget")
    _require(ctx, top, "budget", "games", "the most games to play, such as games: 1000")
    games = ctx.integer(section, "games", "budget.games", minimum=LEAST_BUDGET)
    return Budget(games)
