"""``arena match``: a head-to-head between two bots, with a readable summary."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from arena.commands.display.standings import bot_label
from arena.commands.start import (
    Duel,
    distinct_names,
    match_settings,
    renamed_note,
    resolve_bot,
    sandbox_for,
    start_harness,
)
from arena.commands.stopping import exit_code, stopped_like_ctrl_c
from arena.errors import ArenaError
from arena.limits import AffinityMode, SandboxMode
from arena.records import GameRecord, TimeUse
from arena.referee.match import Match, alternating_order_seats
from arena.referee.verdicts import DETAIL_WIDTH, shown_detail
from arena.rules import Role
from arena.tournament.affinity import pin_to_core, plan_cores
from arena.tournament.schedule import opening_for

if TYPE_CHECKING:
    from arena.ratings.headtohead import HeadToHead


def run_match(
    duel: Duel,
    games: int,
    record: Path | None,
    affinity: AffinityMode,
    *,
    memory_mb: int,
    freeze_idle: bool,
) -> MatchTally:
    """Play the match, streaming records to ``record``; memory does not grow with ``games``.

    ``duel.openings``: each pair of games (both role assignments) starts from the same seeded
    random position of that many plies (``arena.tournament.schedule.opening_for``, as in a
    tournament). Deterministic bots then do not replay one game over and over.
    """
    given = resolve_bot(duel.bot_a), resolve_bot(duel.bot_b)
    spec_a, spec_b = distinct_names(*given)
    if record is not None:
        _check_record_path(record)
    mode = sandbox_for(duel.sandbox, quiet=duel.quiet)
    settings = match_settings(
        duel.time_control,
        mode,
        memory_mb=memory_mb,
        freeze_idle=freeze_idle,
        hidden=() if record is None else (str(record),),
    )
    pin_to_core(plan_cores(1, affinity)[0])
    start_harness()
    records = _RecordFile(record, made_first=mode is SandboxMode.BWRAP)
    tally = MatchTally(spec_a.name, spec_b.name)
    stopped: KeyboardInterrupt | None = None
    try:
        match = Match(spec_a, spec_b, settings, duel.seed, expected_games=games)
        with stopped_like_ctrl_c(), match:
            _play(match, games, duel, records, tally)
    except KeyboardInterrupt as stop:  # the bots are stopped by now (Match.__exit__)
        stopped = stop
    finally:
        records.close()
    if stopped is not None:
        code, name = exit_code(stopped)
        print(f"\ninterrupted after {tally.games} of {games} games ({name})", file=sys.stderr)
    print(tally.summary())  # --quiet hides the progress, never the result
    if (note := renamed_note(*given, (spec_a, spec_b))) is not None:
        print(note)
    if stopped is not None:
        raise SystemExit(code)
    return tally


def _play(match: Match, games: int, duel: Duel, records: _RecordFile, tally: MatchTally) -> None:
    """Play the games, roles alternating, into ``records`` and ``tally``; unless ``duel.quiet``,
    a line for each game up to 20, else for every tenth of them."""
    every = 1 if games <= 20 else max(1, games // 10)
    for index, order_seat in enumerate(alternating_order_seats(games)):
        game = match.play(order_seat, opening=opening_for(duel.seed, index // 2, duel.openings))
        records.write(index + 1, game)
        tally.add(game)
        if not duel.quiet and tally.games % every == 0:
            print(f"game {tally.games}/{games}: {describe(game)}", flush=True)


class _RecordFile:
    """The match's record, one JSON line per game, written from the first game: a match that
    fails to start leaves none (and an earlier record as it was).

    ``made_first`` (under the sandbox): the file exists before any bot starts, so that it can be
    covered; a bot in the folder it is written to would otherwise read its games as they come.
    It is made empty if it was not there, and removed again (with the folders made for it) if no
    game reaches it.
    """

    def __init__(self, path: Path | None, *, made_first: bool) -> None:
        self.path = path
        self.made = _touch_record(path) if path is not None and made_first else []
        self.sink: TextIO | None = None

    def write(self, number: int, game: GameRecord) -> None:
        """Add game ``number`` of the match (its first key, as ``game`` is in ``arena export``)."""
        if self.path is None:
            return
        if self.sink is None:
            self.sink = _open_record(self.path)
        line = {"game": number, **game.to_json()}
        self.sink.write(json.dumps(line, separators=(",", ":")) + "\n")
        self.sink.flush()

    def close(self) -> None:
        if self.sink is not None:
            self.sink.close()
        else:
            _remove_made(self.made)


def describe(game: GameRecord) -> str:
    """One line: who played which role, who won, how."""
    winner = game.winner_name
    role = "Order" if game.winner is Role.ORDER else "Chaos"
    text = f"{game.order} (Order) vs {game.chaos} (Chaos): {winner} wins as {role} by {game.reason}"
    text += f" after {len(game.moves)} moves"
    if game.detail:
        text += f" ({shown_detail(game.detail, DETAIL_WIDTH)})"
    return text


class MatchTally:
    """Each bot's wins and games by role, and the faults, counted as games come in."""

    MAX_LISTED_FAULTS = 50

    def __init__(self, name_a: str, name_b: str) -> None:
        self.names = (name_a, name_b)
        self.games = 0
        self.wins: Counter[tuple[str, Role]] = Counter()
        self.played: Counter[tuple[str, Role]] = Counter()
        self.fault_count = 0
        self.faults: list[str] = []
        self.distinct: set[int] = set()  # hashes of the games' openings and moves
        self.display_names: dict[str, str] = {}  # what each bot called itself (`ready <name>`)
        self.time_use = TimeUse()

    def add(self, game: GameRecord) -> None:
        self.games += 1
        self.time_use.add(game)
        opening = tuple(game.opening)
        self.distinct.add(hash((game.order, game.chaos, opening, tuple(game.moves))))
        for name, display in ((game.order, game.order_display), (game.chaos, game.chaos_display)):
            if display:
                self.display_names[name] = display
        self.played[(game.order, Role.ORDER)] += 1
        self.played[(game.chaos, Role.CHAOS)] += 1
        self.wins[(game.winner_name, game.winner)] += 1
        if game.reason.is_fault:
            self.fault_count += 1
            if len(self.faults) < self.MAX_LISTED_FAULTS:
                detail = shown_detail(game.detail, DETAIL_WIDTH)
                self.faults.append(
                    f"  game {self.games}: {game.loser_name} lost by {game.reason}: {detail}"
                )

    def head_to_head(self) -> HeadToHead:
        """The first bot against the second: Elo difference, interval, superiority."""
        from arena.ratings.headtohead import head_to_head

        a, b = self.names
        a_as_order = (self.wins[(a, Role.ORDER)], self.played[(a, Role.ORDER)])
        b_as_order = (self.wins[(b, Role.ORDER)], self.played[(b, Role.ORDER)])
        return head_to_head(*a_as_order, *b_as_order)

    def elo_line(self) -> str:
        """What a bot author asks after a match: how much stronger, and how sure."""
        a, b = self.names
        h2h = self.head_to_head()
        if h2h.diff is None or h2h.los is None:
            return f"Elo difference {a} - {b}: - (it needs games with each bot as Order)"
        if h2h.bound:
            how = "won" if h2h.bound == ">" else "lost"
            estimate = f"{h2h.text()} ({a} {how} every game: a bound, not an estimate)"
        else:
            h = round(h2h.order_advantage or 0.0)
            estimate = f"{h2h.text()} (95%, Order's advantage {h:+d} taken out)"
        return (
            f"Elo difference {a} - {b}: {estimate}; likelihood of superiority {100 * h2h.los:.1f}%"
        )

    def summary(self) -> str:
        """Each bot's wins as Order and as Chaos, and every fault with its reason."""
        wins, played = self.wins, self.played
        lines = [f"{self.games} game{'s' * (self.games != 1)} ({len(self.distinct)} distinct)"]
        labels = {n: bot_label(n, self.display_names.get(n, ""), None) for n in self.names}
        width = max(*(len(label) for label in labels.values()), 3)
        for name in self.names:
            total = sum(wins[(name, r)] for r in Role)
            lines.append(
                f"  {labels[name]:<{width}}  won {total:>4}   as Order {wins[(name, Role.ORDER)]}"
                f"/{played[(name, Role.ORDER)]}   as Chaos {wins[(name, Role.CHAOS)]}"
                f"/{played[(name, Role.CHAOS)]}"
            )
        lines.append(self.elo_line())
        if self.games:
            lines.append("time used:")
            lines.extend(f"  {self.time_use.line(name)}" for name in self.names)
        if self.fault_count:
            lines.append(f"faults ({self.fault_count}):")
            lines.extend(self.faults)
            if self.fault_count > len(self.faults):
                lines.append(f"  ... and {self.fault_count - len(self.faults)} more")
        else:
            lines.append("no faults")
        return "\n".join(lines)


def _check_record_path(record: Path) -> None:
    """Say now, before any game and without making anything, that ``record`` cannot be written:
    ``_RecordFile`` makes it only once the match begins."""
    problem = None
    if record.is_dir():
        problem = "it is a directory"
    else:
        existing = record if record.exists() else record.parent
        while not existing.exists():
            existing = existing.parent
        if existing != record and not existing.is_dir():
            problem = f"{existing} is not a directory"
        elif not os.access(existing, os.W_OK):
            problem = f"{existing} is not writable"
    if problem is not None:
        raise ArenaError(f"cannot write the record file {record}: {problem}")


def _touch_record(record: Path) -> list[Path]:
    """Make ``record`` empty, and the folders above it, where they are not; what was made."""
    missing = [folder for folder in record.parents if not folder.exists()]
    try:
        record.parent.mkdir(parents=True, exist_ok=True)
        with record.open("x", encoding="utf-8"):
            return [record, *missing]
    except FileExistsError:
        return missing
    except OSError as exc:
        raise ArenaError(f"cannot write the record file {record}: {exc.strerror}") from exc


def _remove_made(made: list[Path]) -> None:
    """Remove what ``_touch_record`` made (the file first, then its folders, innermost first),
    where it is still empty."""
    for path in made:
        with contextlib.suppress(OSError):
            if path.is_dir():
                path.rmdir()
            elif path.stat().st_size == 0:
                path.unlink()


def _open_record(record: Path) -> TextIO:
    try:
        record.parent.mkdir(parents=True, exist_ok=True)
        return record.open("w", encoding="utf-8")
    except OSError as exc:
        raise ArenaError(f"cannot write the record file {record}: {exc.strerror}") from exc
