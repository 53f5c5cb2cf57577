"""``arena sprt``: is A stronger than B? Play game pairs until the SPRT decides.

Each pair is two games between the same two processes (started once, as in any match): A as
Order, then B as Order, both from the same opening (``--openings`` random plies, 4 by default:
deterministic bots would otherwise replay one pair forever, and the test would measure one game).
After each pair the log-likelihood ratio of ``arena.ratings.sprt`` is compared with Wald's
bounds; the test stops when it crosses one (H1: A is ``elo1`` stronger; H0: it is not stronger
than ``elo0``), or at ``--max-games``.

Games go to an SQLite store (``arena.store.database.Store``) as they are played, both games of a
pair in one transaction, pair ``k`` in slot ``k`` of each role assignment. The store is claimed as a
tournament's is: its definition (the two bots' names, time control, limits, openings, seed) must
match the one it was started with, and its run lock keeps a second run off it. Running the same
command again resumes the test with the pairs already played (the bounds may differ: the games are
the same); a changed bot's old games are set aside by the store, and its count starts afresh.
"""

from __future__ import annotations

import dataclasses
import json
import math
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from arena.botspec import BotSpec
from arena.commands.start import (
    Duel,
    check_store_outside_bots,
    distinct_names,
    match_settings,
    renamed_note,
    resolve_bot,
    start_harness,
)
from arena.errors import ArenaError
from arena.records import GameRecord, TimeUse
from arena.rules import RULES_VERSION, Role

if TYPE_CHECKING:
    from arena.ratings.sprt import SPRT, Estimate
    from arena.referee.match import MatchSettings
    from arena.store.database import Store


@dataclass
class SprtRun:
    """The state of a test: pair counts and what is needed to report on them."""

    a: str
    """The candidate's name."""
    b: str
    """The baseline's name."""
    counts: list[int] = field(default_factory=lambda: [0, 0, 0])
    """Pairs in which A scored 0, 1 and 2 points."""
    wins: dict[tuple[str, Role], int] = field(default_factory=dict)
    """Games won, by bot and role."""
    faults: list[str] = field(default_factory=list)
    """The first few faults, described."""
    fault_count: int = 0
    """Games lost by a fault."""
    resumed_pairs: int = 0
    """Pairs found in the store when the run began."""
    next_slot: int = 0
    """The slot of the next pair (one past the highest stored): its opening's index."""
    time_use: TimeUse = field(default_factory=TimeUse)
    """Each bot's time per move and clock left, over every game of the test."""

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    def add_pair(self, first: GameRecord, second: GameRecord) -> None:
        """``first``: A as Order; ``second``: B as Order (one opening)."""
        score = int(first.winner is Role.ORDER) + int(second.winner is Role.CHAOS)
        self.counts[score] += 1
        pair = self.pairs
        for game, record in ((2 * pair - 1, first), (2 * pair, second)):
            self.time_use.add(record)
            key = (record.winner_name, record.winner)
            self.wins[key] = self.wins.get(key, 0) + 1
            if record.reason.is_fault:
                self.fault_count += 1
                if len(self.faults) < 10:
                    self.faults.append(
                        f"game {game}: {record.loser_name} lost by {record.reason.value}:"
                        f" {record.detail}"
                    )


def stored_pairs(records: Sequence[GameRecord], a: str, b: str) -> list[tuple[GameRecord, ...]]:
    """Stored games as pairs ``(A as Order, B as Order)``, in play order.

    Both games of a pair are committed in one transaction, so a store never holds half a pair:
    the i-th game of each role assignment belong together.
    """
    firsts = [r for r in records if r.order == a and r.chaos == b]
    seconds = [r for r in records if r.order == b and r.chaos == a]
    return list(zip(firsts, seconds, strict=False))


def definition(a: str, b: str, settings: MatchSettings, openings: int, seed: int) -> dict[str, Any]:
    """What makes two runs' games comparable: a store refuses a run that differs in any of it
    (the bounds of the test are not in it: the same games serve any test)."""
    return {
        "sprt": [a, b],
        "seed": seed,
        "time_control": settings.time_control.definition(),
        "limits": dataclasses.asdict(settings.limits),
        "openings": {"random_plies": openings} if openings else None,
        "rules": RULES_VERSION,
    }


class Progress:
    """The LLR against its bounds: one live line on a terminal, plain lines (1/s) in a pipe."""

    def __init__(self, stream: TextIO, quiet: bool, clock: Callable[[], float] = time.monotonic):
        self.stream = stream
        self.quiet = quiet
        self.live = stream.isatty() and not quiet
        self.clock = clock
        self.last = -math.inf

    def show(self, text: str, final: bool = False) -> None:
        if self.quiet:
            return
        now = self.clock()
        if self.live:
            if final or now - self.last >= 0.1:
                self.stream.write("\r" + text + "\x1b[K" + ("\n" if final else ""))
                self.stream.flush()
                self.last = now
        elif final or now - self.last >= 1.0:
            print(text, file=self.stream, flush=True)
            self.last = now


def _status_line(run: SprtRun, value: float, test: SPRT) -> str:
    from arena.ratings.sprt import estimate

    e = estimate(run.counts)
    elo = f"{_num(e.elo)} [{_num(e.elo_low)}, {_num(e.elo_high)}]" if e.pairs else "-"
    return (
        f"games {2 * run.pairs}  LLR {value:+.2f} [{test.lower:+.2f}, {test.upper:+.2f}]  "
        f"pairs 0/1/2: {run.counts[0]}/{run.counts[1]}/{run.counts[2]}  Elo {elo}"
    )


def sprt_test(elo0: float, elo1: float, alpha: float, beta: float, normalized: bool) -> SPRT:
    """The test the options describe (``normalized``: the bounds in nElo); bad bounds or risks
    are a user's error."""
    from arena.ratings.sprt import SPRT

    try:
        return SPRT(elo0, elo1, alpha, beta, "normalized" if normalized else "logistic")
    except ValueError as exc:
        raise ArenaError(str(exc)) from None


@dataclass(frozen=True)
class _Pairs:
    """What every pair of games of a test is played with."""

    spec_a: BotSpec
    spec_b: BotSpec
    settings: MatchSettings
    seed: int
    openings: int
    max_games: int


def run_sprt(
    duel: Duel,
    test: SPRT,
    max_games: int,
    db: Path | None,
    *,
    json_output: bool,
    fresh: bool = False,
) -> int:
    """The command; 0 when a hypothesis was accepted, 1 when ``max_games`` came first, 128 + the
    signal when interrupted (the games played are kept: the same command resumes).

    ``fresh``: discard the store's games first (a store that holds another test's games is
    refused otherwise, and its error says so).
    """
    from arena.store.database import Store, hidden_from_bots

    given = resolve_bot(duel.bot_a), resolve_bot(duel.bot_b)
    spec_a, spec_b = distinct_names(*given)
    path = db if db is not None else Path("results") / f"sprt-{spec_a.name}-vs-{spec_b.name}.sqlite"
    say = sys.stderr if json_output else sys.stdout
    check_store_outside_bots(path, duel.sandbox, (spec_a, spec_b))
    # Hidden from the bots: one could read the games, or lock the store.
    settings = match_settings(duel.time_control, duel.sandbox, hidden=hidden_from_bots(path))
    pairs = _Pairs(spec_a, spec_b, settings, duel.seed, duel.openings, max_games)
    progress = Progress(say, duel.quiet)
    start_harness()
    with Store.open(path) as store:
        if fresh:
            print(f"--fresh: {store.reset().describe()}", file=say, flush=True)
        run = _resume(store, pairs)
        if run.pairs and not duel.quiet:
            print(f"resuming: {2 * run.pairs} games already played ({path})", file=say)
        verdict, value, stopped = _decide(pairs, run, test, store, progress)
    progress.show(_status_line(run, value, test), final=True)
    summary = _summary(run, test, value, verdict, path, stopped)
    if json_output:
        print(json.dumps(summary.to_json(), indent=2))
    else:
        _print_summary(summary, run)
    if (note := renamed_note(*given, (spec_a, spec_b))) is not None:
        print(note, file=say)
    if stopped is None:
        return 0 if verdict is not None else 1
    name = signal.Signals(stopped).name
    print(
        f"interrupted ({name}) after {2 * run.pairs} games: run the same command to resume",
        file=say,
    )
    return 128 + stopped


def _resume(store: Store, pairs: _Pairs) -> SprtRun:
    """Claim ``store`` for this test and count the pairs it holds already."""
    from arena.store.database import BotVersion

    specs = (pairs.spec_a, pairs.spec_b)
    a, b = (spec.name for spec in specs)
    store.claim(definition(a, b, pairs.settings, pairs.openings, pairs.seed), pairs.max_games // 2)
    store.set_meta("name", f"sprt {a} vs {b}")
    store.register_bots([BotVersion(s.name, s.version(), s.command) for s in specs])
    run = SprtRun(a, b)
    for first, second in stored_pairs(list(store.games()), a, b):
        run.add_pair(first, second)
    run.resumed_pairs = run.pairs
    slots = [slot for order, chaos, slot in store.completed_slots() if (order, chaos) == (a, b)]
    run.next_slot = max(slots, default=-1) + 1
    return run


def _decide(
    pairs: _Pairs, run: SprtRun, test: SPRT, store: Store, progress: Progress
) -> tuple[str | None, float, int | None]:
    """Play until a verdict or ``max_games``, unless the stored pairs decide already: the
    verdict, the last LLR and the signal that stopped the test (None: none did)."""
    from arena.commands.stopping import Stopped, stopped_like_ctrl_c

    value = float(test.llr(run.counts)) if run.pairs else 0.0
    verdict = test.verdict(value) if run.pairs else None
    try:
        with stopped_like_ctrl_c():
            if verdict is None and 2 * run.pairs + 2 <= pairs.max_games:
                verdict, value = _play(pairs, run, test, store, progress)
    except KeyboardInterrupt as stop:
        stopped = stop.signum if isinstance(stop, Stopped) else int(signal.SIGINT)
        value = float(test.llr(run.counts)) if run.pairs else 0.0  # of the pairs kept
        return None, value, stopped
    return verdict, value, None


def _play(
    pairs: _Pairs, run: SprtRun, test: SPRT, store: Store, progress: Progress
) -> tuple[str | None, float]:
    """Play pairs until a verdict or ``max_games``; the verdict and the last LLR."""
    from arena.referee.match import Match
    from arena.tournament.schedule import opening_for

    verdict: str | None = None
    value = float(test.llr(run.counts)) if run.pairs else 0.0
    expected = pairs.max_games - 2 * run.pairs
    match_seed = pairs.seed * 1_000_003 + run.next_slot  # a resumed test plays new games
    with Match(
        pairs.spec_a, pairs.spec_b, pairs.settings, match_seed, expected_games=expected
    ) as match:
        while verdict is None and 2 * run.pairs + 2 <= pairs.max_games:
            slot = run.next_slot
            opening = opening_for(pairs.seed, slot, pairs.openings)
            first, second = match.play(0, opening), match.play(1, opening)
            store.add_games([(first, slot), (second, slot)])
            run.add_pair(first, second)
            run.next_slot = slot + 1
            value = float(test.llr(run.counts))
            verdict = test.verdict(value)
            progress.show(_status_line(run, value, test))
    return verdict, value


def _num(x: float, digits: int = 0) -> str:
    """A signed number; ``+inf``/``-inf`` for an unbounded estimate (every pair won or lost)."""
    return f"{x + 0.0:+.{digits}f}"  # + 0.0: no "-0"


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


@dataclass(frozen=True)
class SprtSummary:
    """What a test found: printed for people, or written as JSON (``--json``) field by field."""

    a: str
    """The candidate."""
    b: str
    """The baseline."""
    verdict: str | None
    """``"H1"`` (A is ``elo1`` stronger), ``"H0"`` (not ``elo1`` stronger), or None: no
    decision (``max_games`` reached, or interrupted)."""
    model: str
    """The SPRT's Elo model: ``"logistic"`` or ``"normalized"`` (nElo)."""
    elo0: float
    elo1: float
    alpha: float
    beta: float
    llr: float
    """The log-likelihood ratio after the last pair."""
    lower: float
    """Wald's lower bound: at or below it, H0 is accepted."""
    upper: float
    """Wald's upper bound: at or above it, H1 is accepted."""
    games: int
    pairs: int
    pair_counts: list[int]
    """Pairs in which A scored 0, 1 and 2 points."""
    resumed_games: int
    """Games found in the store when the run began."""
    wins: dict[str, dict[str, int]]
    """Games won, by bot and then by role (``order``, ``chaos``)."""
    score: float
    """A's mean score per game."""
    elo: float | None
    """A's Elo advantage (None when unbounded: every pair won or lost)."""
    elo_ci95: list[float | None]
    los: float
    """Likelihood that A is stronger than B."""
    nelo: float | None
    nelo_ci95: float | None
    faults: int
    """Games lost by a fault (``arena faults DB`` lists them)."""
    time_use: dict[str, dict[str, float | None]]
    """Each bot's ``median_ms`` and ``max_ms`` per move, and under a clock its clock left at
    the end of its games (``clock_end_median_ms``, ``clock_end_least_ms``)."""
    db: str
    interrupted: str | None = None
    """The signal that stopped the run (``SIGINT``...), or None."""

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _summary(
    run: SprtRun, test: SPRT, value: float, verdict: str | None, path: Path, stopped: int | None
) -> SprtSummary:
    from arena.ratings.sprt import estimate

    e = estimate(run.counts)
    wins = {
        name: {role.value: run.wins.get((name, role), 0) for role in Role}
        for name in (run.a, run.b)
    }
    return SprtSummary(
        a=run.a,
        b=run.b,
        verdict=verdict,
        model=test.model,
        elo0=test.elo0,
        elo1=test.elo1,
        alpha=test.alpha,
        beta=test.beta,
        llr=value,
        lower=test.lower,
        upper=test.upper,
        games=2 * run.pairs,
        pairs=run.pairs,
        pair_counts=list(run.counts),
        resumed_games=2 * run.resumed_pairs,
        wins=wins,
        score=e.score,
        elo=_finite(e.elo),
        elo_ci95=[_finite(e.elo_low), _finite(e.elo_high)],
        los=e.los,
        nelo=_finite(e.nelo),
        nelo_ci95=_finite(e.nelo_ci95),
        faults=run.fault_count,
        time_use={name: run.time_use.stats(name) for name in (run.a, run.b)},
        db=str(path),
        interrupted=None if stopped is None else signal.Signals(stopped).name,
    )


def _print_summary(s: SprtSummary, run: SprtRun) -> None:
    from arena.ratings.sprt import estimate

    e: Estimate = estimate(run.counts)
    a, b = s.a, s.b
    unit = "nElo" if s.model == "normalized" else "elo"
    if s.verdict == "H1":
        verdict = f"H1 accepted: {a} is stronger than {b} ({unit} >= {s.elo1:g})"
    elif s.verdict == "H0":
        verdict = f"H0 accepted: {a} is not stronger than {b} by {s.elo1:g} ({unit} <= {s.elo0:g})"
    else:
        verdict = f"no decision after {s.games} games (LLR between the bounds)"
    print(verdict)
    print(
        f"  games {s.games} ({s.pairs} pairs: {s.pair_counts[2]} won by {a}, "
        f"{s.pair_counts[1]} split, {s.pair_counts[0]} won by {b})"
    )
    print(f"  LLR {s.llr:+.2f} [{s.lower:+.2f}, {s.upper:+.2f}]")
    print(
        f"  Elo {_num(e.elo, 1)} [{_num(e.elo_low, 1)}, {_num(e.elo_high, 1)}] (95%),"
        f" LOS {e.los:.1%}, nElo {_num(e.nelo, 1)} ± {e.nelo_ci95:.1f}"
    )
    for name in (a, b):
        w = s.wins[name]
        print(f"  {name}: {w['order']} wins as Order, {w['chaos']} as Chaos")
    if s.games:
        for name in (a, b):
            print(f"  time used by {run.time_use.line(name)}")
    if run.fault_count:
        print(f"  faults: {run.fault_count} (arena faults {s.db})")
        for line in run.faults:
            print(f"    {line}")
