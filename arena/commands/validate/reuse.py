"""validate's ``reuse`` check: a bot that asks for ``match`` plays after ``match S`` as a fresh
start seeded ``S`` would, since a tournament keeps such a bot's process between matches
(``keep_bots: auto``) on that promise. A bot whose games depend on the clock is not judged."""

from __future__ import annotations

from arena.botspec import BotSpec
from arena.commands.validate.games import random_opponent
from arena.commands.validate.report import Report
from arena.limits import KeepBots, Limits, SandboxMode
from arena.referee.keeper import BotKeeper
from arena.referee.match import Match, MatchSettings

HINT = (
    "at `match <seed>`, reset as a fresh start would: reseed your generator from <seed> and forget"
    " what earlier matches taught (arena.bot's run does it; else drop `want match`)"
)


def check_reuse(
    spec: BotSpec, report: Report, mode: SandboxMode, seed: int, limits: Limits, wants: set[str]
) -> None:
    """Fill in the ``reuse`` check: one game as Order from a fresh start with ``seed``, and the
    same game in a process kept from a match with another seed, told ``match`` of ``seed``."""
    check = report.checks["reuse"]
    if "match" not in wants:
        check.skip("not asked for (`want match`): a tournament starts it for each match")
        return
    if report.failures():
        check.skip("not checked: an earlier check failed")
        return
    settings = MatchSettings(
        time_control=report.time_control, limits=limits, sandbox=mode, keep_bots=KeepBots.AUTO
    )
    fresh = _moves(spec, settings, seed, None)
    keeper = BotKeeper()
    try:
        _moves(spec, settings, seed + 1, keeper)  # the process's first match, another seed
        kept = _moves(spec, settings, seed, keeper)
        reused = keeper.reused  # processes taken from the keeper: the bot's and random's
    finally:
        keeper.close()
    if reused < 2:
        check.skip("not judged: its process was not kept (it wrote, faulted or exited)")
        return
    if kept == fresh:
        check.summary = f"after `match {seed}` it played a fresh start's game, move for move"
        return
    if _moves(spec, settings, seed, None) != fresh:
        check.skip("not judged: two fresh starts with one seed played differently (the clock?)")
        return
    same = sum(1 for _ in zip(fresh, kept, strict=False))  # a common length to compare within
    ply = next((i for i in range(same) if fresh[i] != kept[i]), same)
    check.fail(
        f"after `match {seed}` its game went {_at(kept, ply)} at ply {ply + 1}, where a fresh"
        f" start seeded {seed} went {_at(fresh, ply)}",
        HINT,
    )


def _at(moves: list[str], ply: int) -> str:
    return moves[ply] if ply < len(moves) else "to its end"


def _moves(
    spec: BotSpec, settings: MatchSettings, seed: int, keeper: BotKeeper | None
) -> list[str]:
    """The moves of one game, the bot as Order against ``random``, in a match of ``seed``."""
    with Match(
        spec, random_opponent(spec), settings, seed, expected_games=1, keeper=keeper
    ) as match:
        return list(match.play(0).moves)
