"""``arena faults``: which games a bot lost by its own fault, why, and what it said on stderr.

The standings count faults per bot and reason; this command shows the games behind the counts,
so that a bot author can see what went wrong without opening the store. Everything the bot wrote
(the fault detail quotes its replies; its stderr) is escaped before it is printed
(``protocol.escape``): a bot cannot clear the screen or forge lines of this output.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.protocol import shown
from arena.records import GameRecord
from arena.referee.verdicts import DETAIL_WIDTH, last_lines, shown_detail
from arena.rules import Role


@dataclass(frozen=True)
class FaultRow:
    """One game lost by a bot's own fault."""

    game: int
    """The game's number in the store: the one ``arena replay DB GAME`` and the report show."""
    bot: str
    """The bot at fault (it lost the game)."""
    role: str
    """The role it played: ``order`` or ``chaos``."""
    opponent: str
    """The other bot."""
    reason: str
    """``timeout``, ``illegal``, ``malformed``, ``crash`` or ``startup``."""
    detail: str
    """What the referee saw, escaped and cut to ``DETAIL_WIDTH``."""
    stderr: list[str]
    """The last lines the bot wrote to stderr during that game, each escaped."""
    plies: int
    """Moves played before the fault."""
    seed: int
    """The seed the bots had (``ARENA_SEED``), to reproduce the game."""

    def to_json(self) -> dict[str, Any]:
        """The fault as JSON-ready data, its fields in order (``--json``)."""
        return asdict(self)


def fault_rows(
    games: Iterable[tuple[int, GameRecord]],
    *,
    bot: str | None = None,
    reason: str | None = None,
    stderr_lines: int = 5,
) -> list[FaultRow]:
    """The faulted games among ``games`` (each with its number in the store, as
    ``Store.numbered_games`` gives them), optionally only those of ``bot`` and of ``reason``.

    The store's number, not a count from 1: a number printed here must open the same game in
    ``arena replay`` whatever was filtered out (another bot's games, an older version's)."""
    rows = []
    for number, record in games:
        role = record.faulty_role
        if role is None:
            continue
        faulty = record.loser_name
        if (bot is not None and faulty != bot) or (reason is not None and record.reason != reason):
            continue
        stderr = record.stderr_order if role is Role.ORDER else record.stderr_chaos
        rows.append(
            FaultRow(
                game=number,
                bot=faulty,
                role=role.value,
                opponent=record.winner_name,
                reason=record.reason.value,
                detail=shown_detail(record.detail, DETAIL_WIDTH),
                stderr=last_lines(stderr, stderr_lines),
                plies=len(record.moves),
                seed=record.seed,
            )
        )
    return rows


def render_faults(rows: Sequence[FaultRow]) -> list[str]:
    """Plain lines: one block per faulted game, then the counts by bot and reason."""
    if not rows:
        return ["No faulted games."]
    lines = []
    for r in rows:
        plies = f"{r.plies} move{'s' * (r.plies != 1)}"
        lines.append(
            f"game {r.game}: {shown(r.bot)} as {r.role.capitalize()} vs {shown(r.opponent)}: "
            f"{r.reason} after {plies} (seed {r.seed})"
        )
        lines.append(f"  detail: {r.detail or '-'}")
        if r.stderr:
            lines.append(f"  stderr, last {len(r.stderr)} line{'s' * (len(r.stderr) != 1)}:")
            lines.extend(f"  | {line}" for line in r.stderr)
        else:
            lines.append("  stderr: nothing")
    counts = Counter((r.bot, r.reason) for r in rows)
    summary = ", ".join(f"{shown(bot)} {reason} {n}" for (bot, reason), n in sorted(counts.items()))
    lines.append(f"{len(rows)} faulted game{'s' * (len(rows) != 1)}: {summary}")
    return lines


def faults_command(
    db: Path,
    *,
    bot: str | None,
    reason: str | None,
    json_output: bool,
    stderr_lines: int,
    all_versions: bool = False,
) -> None:
    """``arena faults DB``: print the faulted games of a stored tournament."""
    from arena.store.database import Store

    with Store.open(db, readonly=True, all_versions=all_versions) as store:
        games = list(store.numbered_games())
    records = [record for _number, record in games]
    if bot is not None:
        names = sorted({r.order for r in records} | {r.chaos for r in records})
        if bot not in names:
            known = ", ".join(map(shown, names)) or "none"
            raise ArenaError(f"{db}: no games of a bot named {bot!r} (its bots: {known})")
    rows = fault_rows(games, bot=bot, reason=reason, stderr_lines=stderr_lines)
    if json_output:
        print(json.dumps([r.to_json() for r in rows], indent=2))
    else:
        print("\n".join(render_faults(rows)))
