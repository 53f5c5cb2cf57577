"""``arena match``: a head-to-head between two bots, with a readable summary."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from arena.affinity import pin_to_core, plan_cores
from arena.botspec import BotSpec
from arena.errors import ArenaError
from arena.limits import AffinityMode, Limits, SandboxMode, TimeControl
from arena.records import GameRecord
from arena.referee import MatchSettings, play_match
from arena.rules import Role
from arena.sandbox import resolve_mode

__all__ = ["run_match", "summarize"]


def run_match(
    bot_a: str,
    bot_b: str,
    *,
    games: int,
    move_ms: int,
    startup_ms: int,
    seed: int,
    record: Path | None,
    sandbox: SandboxMode,
    affinity: AffinityMode,
    memory_mb: int,
    freeze_idle: bool,
    quiet: bool,
) -> list[GameRecord]:
    from rich.console import Console

    console = Console(highlight=False, soft_wrap=True)
    spec_a, spec_b = BotSpec.resolve(bot_a), BotSpec.resolve(bot_b)
    if spec_a.name == spec_b.name:
        spec_b = spec_b.renamed(spec_b.name + "-2")
    mode = resolve_mode(sandbox)
    if mode is SandboxMode.NONE and sandbox is SandboxMode.AUTO and not quiet:
        console.print(
            "[yellow]warning:[/] bubblewrap (bwrap) is not usable here: bots run with resource "
            "limits only, without a sandbox (apt-get install bubblewrap)."
        )
    settings = MatchSettings(
        time_control=TimeControl(move_ms=move_ms, startup_ms=startup_ms),
        limits=Limits(memory_mb=memory_mb),
        sandbox=mode,
        freeze_idle=freeze_idle,
    )
    pin_to_core(plan_cores(1, affinity)[0])
    sink = None
    if record is not None:
        try:
            record.parent.mkdir(parents=True, exist_ok=True)
            sink = record.open("w", encoding="utf-8")
        except OSError as exc:
            raise ArenaError(f"cannot write the record file {record}: {exc.strerror}") from exc
    played = 0

    def on_game(game: GameRecord) -> None:
        nonlocal played
        played += 1
        if sink is not None:
            sink.write(json.dumps(game.to_json(), separators=(",", ":")) + "\n")
            sink.flush()
        if not quiet and (games <= 20 or played % max(1, games // 10) == 0):
            console.print(f"game {played}/{games}: {describe(game)}")

    try:
        records = play_match(spec_a, spec_b, games, settings, seed, on_game)
    finally:
        if sink is not None:
            sink.close()
    if not quiet:
        console.print(summarize(records, spec_a.name, spec_b.name))
    return records


def describe(game: GameRecord) -> str:
    """One line: who played which role, who won, how."""
    winner = game.winner_name
    role = "Order" if game.winner is Role.ORDER else "Chaos"
    text = f"{game.order} (Order) vs {game.chaos} (Chaos): {winner} wins as {role} by {game.reason}"
    text += f" after {len(game.moves)} moves"
    if game.detail:
        text += f" ({game.detail})"
    return text


def summarize(records: list[GameRecord], name_a: str, name_b: str) -> str:
    """Each bot's wins as Order and as Chaos, and every fault with its reason."""
    wins: Counter[tuple[str, Role]] = Counter()
    played: Counter[tuple[str, Role]] = Counter()
    for game in records:
        played[(game.order, Role.ORDER)] += 1
        played[(game.chaos, Role.CHAOS)] += 1
        wins[(game.winner_name, game.winner)] += 1
    lines = [f"{len(records)} games"]
    width = max(len(name_a), len(name_b), 3)
    for name in (name_a, name_b):
        total = sum(wins[(name, r)] for r in Role)
        lines.append(
            f"  {name:<{width}}  {total:>4} wins   as Order {wins[(name, Role.ORDER)]}"
            f"/{played[(name, Role.ORDER)]}   as Chaos {wins[(name, Role.CHAOS)]}"
            f"/{played[(name, Role.CHAOS)]}"
        )
    faults = [(i, g) for i, g in enumerate(records, 1) if g.reason.is_fault]
    if faults:
        lines.append(f"faults ({len(faults)}):")
        for number, game in faults:
            culprit = game.loser_name
            lines.append(f"  game {number}: {culprit} lost by {game.reason}: {game.detail}")
    else:
        lines.append("no faults")
    return "\n".join(lines)
