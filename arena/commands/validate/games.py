"""The games of ``arena validate``: against ``random``, in one process, refereed as in a tournament.

Each game's verdict is the referee's; ``verdicts.advice`` maps a fault to the check it fails and the
hint for it. A first fault after both roles went fine in the same process hints at state kept
from one game to the next.
"""

from __future__ import annotations

import re
import statistics

from arena.botspec import BotSpec
from arena.commands.validate.probe import SILENCE_MS
from arena.commands.validate.report import Report
from arena.commands.validate.transcript import Transcript
from arena.limits import Limits, Measure, SandboxMode
from arena.records import GameRecord
from arena.referee import verdicts
from arena.referee.match import Match, MatchSettings
from arena.rules import Role

_DROPPED = re.compile(r"\[(\d+) earlier bytes dropped\]\n")
MIN_MOVES_A_GAME = 4
"""The bot's moves a game, on average, below which its replies are not judged from its games
(against ``random`` a game seldom ends before each bot's fourth move, unless a fault ends it)."""


def play_games(
    spec: BotSpec,
    report: Report,
    mode: SandboxMode,
    seed: int,
    transcript: Transcript | None,
    count: int,
    limits: Limits,
) -> list[GameRecord]:
    """``count`` games against ``random`` in one match, roles alternating (the bot is Order in
    the first); their records."""
    settings = MatchSettings(
        time_control=report.time_control,
        limits=limits,
        sandbox=mode,
    )
    opponent = random_opponent(spec)
    records = []
    with Match(spec, opponent, settings, seed, expected_games=count) as match:
        if transcript is not None:
            tap = transcript.tap

            def seat_tap(seat: int, direction: str, t_ns: int, data: bytes) -> None:
                if seat == 0:  # the bot under test; random's lines are not the author's concern
                    tap(direction, t_ns, data)

            match.tap = seat_tap
        for index in range(count):
            order_seat = index & 1
            if transcript is not None:
                role = "Order" if order_seat == 0 else "Chaos"
                transcript.note(f"game {index + 1}: {spec.name} as {role} against random")
            record = match.play(order_seat)
            records.append(record)
            if transcript is not None:
                detail = f": {record.detail}" if record.detail else ""
                transcript.note(f"{record.winner_name} won by {record.reason.value}{detail}")
    if transcript is not None:
        transcript.flush()
    return records


def random_opponent(spec: BotSpec) -> BotSpec:
    """The bundled ``random``, named apart from the bot under test."""
    opponent = BotSpec.resolve("random")
    return opponent.renamed("random-opponent") if opponent.name == spec.name else opponent


def _stderr_volume(stderr: str) -> int:
    """Bytes a bot wrote to stderr in a game: the tail kept and what was dropped before it."""
    dropped = _DROPPED.match(stderr)
    return len(stderr.encode()) + (int(dropped.group(1)) if dropped else 0)


def judge_games(report: Report, records: list[GameRecord], limits: Limits) -> None:
    """Fill in ``report``'s checks from the games' records."""
    faulted = False
    most_stderr = 0
    for index, record in enumerate(records, 1):
        most_stderr = max(most_stderr, _note_game(report, index, record))
        if _judge_fault(report, index, record, first=not faulted):
            faulted = True
    _summarise_moves(report, len(records))
    _judge_stderr(report, most_stderr, limits.stderr_kb * 1024)
    checks = report.checks
    if not faulted and not checks["crash"].summary:
        wins = sum(game["won"] for game in report.games)
        checks["crash"].summary = f"{len(records)} games in one process, {wins} won against random"
    elif checks["crash"].status == "pass" and not checks["crash"].summary:
        checks["crash"].summary = f"no exit nor closed stdout in {len(records)} games"
    _too_short_to_judge(report, len(records))


def _bot_role(index: int) -> Role:
    """The bot's role in game ``index`` (from 1): Order in the odd games."""
    return Role.ORDER if index % 2 == 1 else Role.CHAOS


def _note_game(report: Report, index: int, record: GameRecord) -> int:
    """Add the game to ``report``: its line, the bot's move times and clock left; the bytes the
    bot wrote to stderr in it."""
    bot_role = _bot_role(index)
    first = 0 if bot_role is Role.ORDER else 1
    report.move_times_ms.extend(record.ms[first::2])  # no openings here
    if record.clock_ms:
        left = record.clock_ms[first::2]
        if left:
            report.clocks_left_ms.append(left[-1])
    report.games.append(
        {
            "game": index,
            "role": bot_role.value,
            "won": record.winner is bot_role,
            "reason": record.reason.value,
            "detail": record.detail,
            "moves": len(record.moves),
        }
    )
    stderr = record.stderr_order if bot_role is Role.ORDER else record.stderr_chaos
    return _stderr_volume(stderr)


def _judge_fault(report: Report, index: int, record: GameRecord, *, first: bool) -> bool:
    """Fail the check that the bot's fault in this game breaks; whether it faulted. A ``first``
    fault after both roles went fine in this process hints at state kept between games."""
    bot_role = _bot_role(index)
    if record.winner is bot_role or not record.reason.is_fault:
        return False
    ply = len(record.moves) + 1
    where = f"game {index} (as {bot_role.value.capitalize()}), move {(ply + 1) // 2}"
    key, hint = verdicts.advice(record.reason, record.detail)
    if first and index > 2 and key != "startup":
        hint += "; " + verdicts.HINTS["reset"]
    report.checks[key].fail(f"{where}: {record.reason.value}: {record.detail}", hint)
    return True


def _summarise_moves(report: Report, games: int) -> None:
    """The summaries of the checks judged from the bot's moves: format, legality, time, silence."""
    checks = report.checks
    times = report.move_times_ms
    checks["format"].summary = checks["legal"].summary = (
        f"{len(times)} moves in {games} games, and the probe's"
    )
    if not times:
        for key in ("format", "legal", "time"):
            checks[key].skip("not judged: no move of the bot's was accepted")
    checks[
        "silence"
    ].summary = f"nothing after `game`, its move or `end` ({SILENCE_MS} ms each), nor between turns"
    if not times:
        return
    tc = report.time_control
    of = f"of {tc.move_ms} ms" if tc.clock_ms is None else f"({tc.describe()})"
    checks["time"].summary = (
        f"{len(times)} moves: median {statistics.median(times):.1f} ms,"
        f" max {max(times):.1f} ms {of}"
    )
    if tc.measure is not Measure.CPU:
        checks["time"].summary += f", {tc.measure.value} time"
    if report.clocks_left_ms:
        least = min(report.clocks_left_ms)
        checks["time"].summary += f"; clock left at the end: least {least:.0f} ms"


def _judge_stderr(report: Report, most: int, kept: int) -> None:
    """Fail the stderr check when a game's stderr overflowed what is kept of it."""
    if most > kept:
        report.checks["stderr"].fail(
            f"up to {most / 1024:.0f} KiB of stderr in one game (kept: {kept // 1024} KiB)",
            verdicts.HINTS["stderr"],
        )
    else:
        kept_kib = kept // 1024
        report.checks["stderr"].summary = f"at most {most} bytes per game (kept: {kept_kib} KiB)"


def _too_short_to_judge(report: Report, games: int) -> None:
    """Replies and staying up are not judged from games that ended after a move or two: a bot
    whose every game ended at its second turn has shown one reply a game, not that it plays."""
    moves = len(report.move_times_ms)
    needed = MIN_MOVES_A_GAME * games
    if moves >= needed:
        return
    why = (
        f"not judged: the games were too short, {moves} of its moves in {games} games"
        f" (at least {needed} needed: {MIN_MOVES_A_GAME} a game)"
    )
    for key in ("format", "legal", "time", "crash"):
        report.checks[key].skip(why)  # a failure stays one
