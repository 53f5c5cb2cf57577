"""``arena discard``: stored games set aside by number, kept and listed, so that the next run of
the tournament plays their slots again (and nothing else)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from arena.errors import ArenaError

if TYPE_CHECKING:
    from arena.store.aside import DiscardedGame


def discard_command(db: Path, numbers: Sequence[int], *, list_only: bool) -> None:
    """Discard the games ``numbers`` of the store ``db``; ``list_only``: list those that were."""
    from arena.store.database import Store

    if list_only:
        if numbers:
            raise ArenaError("--list: lists the discarded games; give no game numbers with it")
        with Store.open(db, readonly=True) as store:
            _print_list(store.discarded(), db)
        return
    if not numbers:
        raise ArenaError("give the numbers of the games to discard (arena replay DB lists them)")
    with Store.open(db) as store:
        counted = store.counted_numbers()
        done = store.discard(numbers)
    uncounted = [n for n in done if n not in counted]
    games, their = ("game", "its") if len(done) == 1 else ("games", "their")
    print(
        f"discarded {games} {', '.join(map(str, done))} of {db}: kept aside (arena discard"
        f" {db} --list); the next run of its tournament plays {their} slots again"
    )
    if uncounted:
        print(
            f"note: {', '.join(map(str, uncounted))} did not count (an older version of a bot,"
            " or beyond games_per_pairing): no run plays them again"
        )


def _print_list(games: Sequence[DiscardedGame], db: Path) -> None:
    from arena.protocol import shown

    if not games:
        print(f"no games discarded from {db}")
        return
    print(f"{len(games)} discarded from {db}:")
    print(f"{'game':>6}  {'discarded (UTC)':<19}  {'Order':<16} {'Chaos':<16} {'slot':>4}  result")
    for game in games:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(game.discarded_at))
        print(
            f"{game.number:>6}  {when:<19}  {shown(game.order):<16} {shown(game.chaos):<16}"
            f" {game.slot:>4}  {shown(game.winner)} won ({shown(game.reason)})"
        )
