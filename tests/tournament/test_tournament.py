"""Tournaments through the library: the schedule, ``run_tournament`` and the worker pool.

Real bot processes and real SQLite files in ``tmp_path``. The bots are copied into ``tmp_path``
so that a scan of ``/proc`` for ``tmp_path`` finds exactly the processes these tests started.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from conftest import (
    REPO_ROOT,
    child_processes,
    leftover_processes,
    run_arena,
    wait_for_no_leftovers,
)
from factories import copy_bot
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.botspec import BotSpec
from arena.config import TournamentConfig, config_from_dict
from arena.errors import ArenaError
from arena.launch.sandbox import bwrap_path
from arena.limits import SandboxMode, TimeControl
from arena.records import GameRecord
from arena.referee.match import MatchSettings
from arena.rules import RULES_VERSION, Board, Move, Reason, Role
from arena.store.database import Store
from arena.tournament.affinity import core_count
from arena.tournament.capacity import TYPICAL_BOT_MB, WORKER_MB, Capacity, fair_workers
from arena.tournament.executors import (
    Event,
    ExecutorSetup,
    GameDone,
    InlineExecutor,
    LocalPoolExecutor,
)
from arena.tournament.executors import inline as inline_module
from arena.tournament.executors.base import MAX_ATTEMPTS, ChunkPlayer
from arena.tournament.owed import owed_games
from arena.tournament.run import TournamentPlan, TournamentResult, run_tournament
from arena.tournament.schedule import (
    CHUNK,
    MAX_OPENING_PLIES,
    MIN_JOBS,
    MatchJob,
    match_count,
    pairings,
    plan_matches,
    random_opening,
)

ROOT = REPO_ROOT
TEST_BOTS = ROOT / "tests" / "bots"
FAST = {"move_ms": 200, "startup_ms": 2000}


# --- helpers -----------------------------------------------------------------------------------


def make_config(tmp_path: Path, bots: list[dict], **extra: object) -> TournamentConfig:
    data = {
        "name": "t",
        "bots": bots,
        "games_per_pairing": 2,
        "time_control": FAST,
        "workers": 2,
        "db": str(tmp_path / "t.sqlite"),
        "sandbox": "none",
        "affinity": "off",
    }
    data.update(extra)
    return config_from_dict(data, base_dir=tmp_path)


def slots_of(store: Store) -> Counter[tuple[str, str, int]]:
    """Every stored game's slot, active or set aside, read from the SQLite file itself."""
    with contextlib.closing(sqlite3.connect(f"file:{store.path}?mode=ro", uri=True)) as conn:
        rows = conn.execute("SELECT order_name, chaos_name, slot FROM games").fetchall()
    return Counter((str(order), str(chaos), int(slot)) for order, chaos, slot in rows)


def owed_slots(names: Sequence[str], games: int) -> set[tuple[str, str, int]]:
    return {(a, b, i) for a in names for b in names if a != b for i in range(games)}


def spec(name: str) -> BotSpec:
    return BotSpec(name, ("true",), Path("/"), None)


# --- the schedule --------------------------------------------------------------------------------


@pytest.mark.parametrize("chunk", [2, 10])
@pytest.mark.parametrize("games", [1, 5, 12])
def test_plan_covers_every_slot_once_with_alternating_roles(chunk: int, games: int) -> None:
    bots = [spec(n) for n in "abcd"]
    jobs = plan_matches(bots, games, seed=3, chunk=chunk)
    keys = [job.slot_key(slot) for job in jobs for slot in job.slots]
    assert Counter(keys) == Counter(owed_slots("abcd", games))
    assert len({job.key for job in jobs}) == len(jobs)
    for job in jobs:
        seats = [slot.order_seat for slot in job.slots]
        assert seats == [i & 1 for i in range(len(seats))]  # alternating, bot A first
        # Stopped after any game, a match is balanced to within one game.
        for end in range(len(seats) + 1):
            assert abs(seats[:end].count(0) - seats[:end].count(1)) <= 1


def test_plan_cuts_pairings_into_seeded_chunks_and_skips_done_slots() -> None:
    bots = [spec("a"), spec("b")]
    jobs = plan_matches(bots, 50)  # one pairing: 10 chunks in MIN_JOBS matches
    assert len(jobs) == 10 and all(len(job.slots) == CHUNK for job in jobs)
    assert all({s.seed for s in job.slots} == {job.seed} for job in jobs)
    assert len({job.seed for job in jobs}) == 10  # each chunk its own seed
    assert match_count(jobs) == MIN_JOBS
    starts = {0, 2, 5, 7}  # each chunk but a match's first follows the one before it
    assert [job.follows for job in jobs] == [
        None if i in starts else jobs[i - 1].key for i in range(10)
    ]
    assert [job.games for job in jobs] == [20, 20, 30, 30, 30, 20, 20, 30, 30, 30]
    # Many pairings: one match each, still in seeded chunks.
    many = plan_matches([spec(n) for n in "abcdef"], 50)
    assert len(many) == 150 and match_count(many) == 15
    done = {("a", "b", i) for i in range(50)} | {("b", "a", 0)}
    left = plan_matches(bots, 50, done=done)
    assert {job.slot_key(s) for job in left for s in job.slots if not s.replay} == {
        ("b", "a", i) for i in range(1, 50)
    }
    # Each chunk's games before its last missing one are played again (not stored): here a~b's.
    assert {job.slot_key(s) for job in left for s in job.slots if s.replay} <= done
    assert all(job.seed == job.slots[0].seed for job in left)
    assert left[0].follows is None  # the first chunk left starts its match anew
    assert plan_matches(bots, 50, done=owed_slots("ab", 50)) == []


def test_gauntlet_pairs_the_first_bot_with_each_other() -> None:
    bots = [spec(n) for n in "abcd"]
    assert [(a.name, b.name) for a, b in pairings(bots, "gauntlet")] == [
        ("a", "b"), ("a", "c"), ("a", "d"),
    ]  # fmt: skip
    with pytest.raises(ValueError, match="unknown format"):
        pairings(bots, "swiss")


# --- run_tournament ----------------------------------------------------------------------------


class FlakyPlayer(ChunkPlayer):
    """Fails chunk ``fail_key`` after one new game (and the games it replays before it),
    ``times`` times."""

    fail_key = ""
    times = 0
    failures = 0

    def play(self, job: MatchJob, emit: Callable[[Event], None], **options: bool) -> None:
        if job.key != self.fail_key or FlakyPlayer.failures >= self.times:
            return super().play(job, emit, **options)
        FlakyPlayer.failures += 1

        def emit_then_fail(event: Event) -> None:
            emit(event)
            if isinstance(event, GameDone):
                raise ArenaError("simulated harness failure")

        super().play(job, emit_then_fail, **options)


def flaky(monkeypatch: pytest.MonkeyPatch, fail_key: str, times: int) -> None:
    """Make the inline executor's chunks fail as ``FlakyPlayer`` says."""
    monkeypatch.setattr(FlakyPlayer, "fail_key", fail_key)
    monkeypatch.setattr(FlakyPlayer, "times", times)
    monkeypatch.setattr(FlakyPlayer, "failures", 0)
    monkeypatch.setattr(inline_module, "ChunkPlayer", FlakyPlayer)


def two_bot_config(tmp_path: Path, games: int = 2) -> TournamentConfig:
    instant = copy_bot(tmp_path / "bots", "instant.py")
    bots = [{"name": "a", "path": str(instant)}, {"name": "b", "path": str(instant)}]
    return make_config(tmp_path, bots, games_per_pairing=games)


def inline(setup: ExecutorSetup) -> InlineExecutor:
    return InlineExecutor(setup.settings)


def test_harness_failure_is_recorded_and_its_games_replayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = two_bot_config(tmp_path, games=3)
    flaky(monkeypatch, "a~b#0", times=1)
    with Store.open(config.db) as store:
        result = run_tournament(config.plan(), store, executor_factory=inline)
        assert result.complete and result.total == 6 and result.played == 6
        assert result.faults == 0
        assert len(result.harness_errors) == 1
        assert [e.description for e in store.harness_errors()] == ["a~b#0"]
        assert slots_of(store) == Counter(owed_slots("ab", 3))


def test_retries_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = two_bot_config(tmp_path, games=2)
    flaky(monkeypatch, "a~b#0", times=10**6)
    factory = inline

    with Store.open(config.db) as store:
        result = run_tournament(config.plan(), store, executor_factory=factory)
        assert not result.complete
        assert len(result.harness_errors) == MAX_ATTEMPTS == len(store.harness_errors())
        # Each attempt played one game before failing: those games are kept, never doubled.
        assert result.played == MAX_ATTEMPTS
        assert sum(slots_of(store).values()) == MAX_ATTEMPTS
        assert max(slots_of(store).values()) == 1


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def started(self, total: int, already: int, jobs: int) -> None:
        self.calls.append(("started", total, already))

    def game(self, record: object) -> None:
        self.calls.append(("game",))

    def harness_error(self, job: str, error: str) -> None:
        self.calls.append(("harness_error", job))


def test_resume_adding_a_bot_and_changing_one(tmp_path: Path) -> None:
    instant = copy_bot(tmp_path / "bots", "instant.py")
    paced = copy_bot(tmp_path / "bots", "paced.py")
    a = {"name": "a", "path": str(instant)}
    b = {"name": "b", "path": str(paced)}
    c = {"name": "c", "path": str(ROOT / "bots" / "random")}
    with Store.open(tmp_path / "t.sqlite") as store:
        first = run_tournament(make_config(tmp_path, [a, b]).plan(), store)
        assert (first.total, first.already, first.played) == (4, 0, 4)

        observer = Recorder()
        again = run_tournament(make_config(tmp_path, [a, b]).plan(), store, observer)
        assert (again.total, again.already, again.played) == (4, 4, 0)
        assert observer.calls == [("started", 4, 4)]  # an observer without bot_changed is fine

        grown = run_tournament(make_config(tmp_path, [a, b, c]).plan(), store)
        assert (grown.total, grown.already, grown.played) == (12, 4, 8)
        assert slots_of(store) == Counter(owed_slots("abc", 2))

        with paced.open("a") as f:
            f.write("# changed\n")
        changed = run_tournament(make_config(tmp_path, [a, b, c]).plan(), store)
        assert [ch.name for ch in changed.changes] == ["b"]
        assert (changed.total, changed.already, changed.played) == (12, 4, 8)
        assert store.set_aside_count("b") == 8
        assert store.count_games() == 12 and store.count_games(include_inactive=True) == 20
        names = Counter(n for r in store.games() for n in (r.order, r.chaos))
        assert names == {"a": 8, "b": 8, "c": 8}


# --- the worker pool: workers that die -----------------------------------------------------------


def killer_config(tmp_path: Path, marker: Path | None, sandbox: str) -> TournamentConfig:
    instant = copy_bot(tmp_path / "bots", "instant.py")
    killer = copy_bot(tmp_path / "bots", "kill_parent.py", executable=True)
    command = [str(killer)] + ([str(marker)] if marker else [])
    bots = [
        {"name": "a", "path": str(instant)},
        {"name": "b", "path": str(instant)},
        {"name": "killer", "command": command},
    ]
    return make_config(tmp_path, bots, sandbox=sandbox)


def run_bounded(config: TournamentConfig, store: Store) -> TournamentResult:
    started = time.monotonic()
    result = run_tournament(config.plan(), store)
    assert time.monotonic() - started < 30, "the tournament took far too long"
    return result


def test_a_dead_worker_is_replaced_and_its_match_replayed(tmp_path: Path) -> None:
    config = killer_config(tmp_path, tmp_path / "struck", sandbox="none")
    with Store.open(config.db) as store:
        result = run_bounded(config, store)
        assert (tmp_path / "struck").exists()
        assert result.complete and result.played == 12
        errors = store.harness_errors()
        assert len(errors) == 1 and "worker process died" in errors[0].error
        assert errors[0].description.startswith(("a~killer", "b~killer"))
        assert slots_of(store) == Counter(owed_slots(["a", "b", "killer"], 2))
        assert not any(record.reason.is_fault for record in store.games())
    assert wait_for_no_leftovers([str(tmp_path)], timeout=10) == []
    assert child_processes() == []


def test_a_bot_that_always_kills_its_worker_cannot_hang_the_tournament(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = killer_config(tmp_path, None, sandbox="none")
    scratch = tmp_path / "tmp"  # where the workers' and so the bots' scratch folders go
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    with Store.open(config.db) as store:
        result = run_bounded(config, store)
        assert not result.complete
        # Both of the killer's matches failed on every attempt; the other pairing was played.
        assert len(store.harness_errors()) == 2 * MAX_ATTEMPTS == len(result.harness_errors)
        assert slots_of(store) == Counter(owed_slots("ab", 2))
        assert store.count_games() == result.played == 4
        owed = owed_games(store)
    assert wait_for_no_leftovers([str(tmp_path)], timeout=10) == []
    # The standings say what is owed, which pairings and why, never "No faults" alone.
    assert [(p.pairing, p.games, p.harness_errors) for p in owed] == [
        ("a~killer", 4, MAX_ATTEMPTS),
        ("b~killer", 4, MAX_ATTEMPTS),
    ]
    assert all("worker process died" in p.why for p in owed)
    table = run_arena("ratings", config.db)
    assert table.returncode == 0, table.stderr
    text = " ".join(table.stdout.split())
    assert "INCOMPLETE: 8 games are still owed, in 2 pairings: a~killer 4 (3 harness errors" in text
    assert re.search(r"a~killer 4 \(3 harness errors, the last: [^)]*worker process died", text)
    assert "b~killer 4 (3 harness errors" in text
    assert "No faults." not in text and "No faults in the games stored" in text
    lines = table.stdout.splitlines()
    assert lines.index(next(x for x in lines if x.startswith("INCOMPLETE"))) < lines.index("")
    data = json.loads(run_arena("ratings", config.db, "--json").stdout)
    assert [(p["pairing"], p["games"]) for p in data["owed"]] == [("a~killer", 4), ("b~killer", 4)]
    assert child_processes() == []
    assert list(scratch.iterdir()) == []  # not even the killed workers' bots' folders are left


@pytest.mark.sandbox
@pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not usable here")
def test_inside_bwrap_a_bot_cannot_kill_its_worker(tmp_path: Path) -> None:
    config = killer_config(tmp_path, None, sandbox="bwrap")
    with Store.open(config.db) as store:
        result = run_bounded(config, store)
        assert result.complete and result.played == 12
        assert store.harness_errors() == []
        killer_games = [r for r in store.games() if "killer" in (r.order, r.chaos)]
        assert len(killer_games) == 8  # it played on (or lost its games by a fault of its own)
    assert wait_for_no_leftovers([str(tmp_path)], timeout=10) == []
    assert child_processes() == []


def test_closing_a_busy_pool_kills_the_bots_at_once(tmp_path: Path) -> None:
    paced = copy_bot(tmp_path / "bots", "paced.py", executable=True)
    a = BotSpec.from_command([str(paced), "50"], "a")
    b = BotSpec.from_command([str(paced), "50"], "b")
    jobs = plan_matches([a, b], 20)
    pool = LocalPoolExecutor(2, MatchSettings(sandbox=SandboxMode.NONE))
    try:
        batches = pool.execute(jobs)
        assert isinstance(next(batches)[0], GameDone)  # the matches are under way
        assert len(leftover_processes([str(paced)])) >= 2
    finally:
        started = time.monotonic()
        pool.close()
        assert time.monotonic() - started < 3
    assert wait_for_no_leftovers([str(tmp_path)], timeout=5) == []
    assert child_processes() == []


def test_workers_record_their_games_and_fall_back_to_the_parent(tmp_path: Path) -> None:
    """With a sink, each game comes back recorded by its worker; if the sink fails, unrecorded."""
    instant = copy_bot(tmp_path / "bots", "instant.py")
    a, b = BotSpec.from_path(instant, "a"), BotSpec.from_path(instant, "b")
    jobs = plan_matches([a, b], 3)
    settings = MatchSettings(sandbox=SandboxMode.NONE)

    def recording() -> Callable[[list[GameDone]], list[bool]]:
        return lambda games: [True] * len(games)

    def failing() -> Callable[[list[GameDone]], list[bool]]:
        def sink(games: list[GameDone]) -> list[bool]:
            raise OSError("disk full")

        return sink

    for factory, expected in ((recording, True), (failing, False)):
        pool = LocalPoolExecutor(1, settings, sink_factory=factory)
        try:
            games = [e for batch in pool.execute(jobs) for e in batch if isinstance(e, GameDone)]
        finally:
            pool.close()
        assert len(games) == 6
        assert {game.recorded for game in games} == {expected}


# --- the library without the config ------------------------------------------------------------


def test_a_plan_runs_without_a_config_on_the_executor_it_names(tmp_path: Path) -> None:
    instant = copy_bot(tmp_path / "bots", "instant.py")
    plan = TournamentPlan(
        name="lib",
        bots=(BotSpec.from_path(instant, "a"), BotSpec.from_path(instant, "b")),
        games_per_pairing=2,
        settings=MatchSettings(time_control=TimeControl(200, 2000), sandbox=SandboxMode.NONE),
        executor="inline",
    )
    with Store.open(tmp_path / "lib.sqlite") as store:
        result = run_tournament(plan, store)
        assert result.complete and result.played == 4
        assert store.get_meta("name") == "lib"
        definition = json.loads(store.get_meta("definition") or "{}")
        assert definition["rules"] == RULES_VERSION  # a run under other rules is refused
    assert child_processes() == []  # inline: no worker was started


def test_the_tournament_layer_does_not_import_the_config_layer() -> None:
    code = (
        "import sys, arena.tournament.run; print(sorted(m for m in sys.modules if 'config' in m))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "[]"


# --- openings and distinct games -----------------------------------------------------------------


@given(st.integers(0, 2**63 - 1), st.integers(0, MAX_OPENING_PLIES))
@settings(max_examples=60, deadline=None)
def test_a_random_opening_is_legal_seeded_and_leaves_no_five(seed: int, plies: int) -> None:
    opening = random_opening(seed, plies)
    assert len(opening) == plies
    board = Board()
    for token in opening:
        assert not board.push(Move.parse(token))  # legal, and no five
    assert random_opening(seed, plies) == opening


def test_openings_bounds_and_variety() -> None:
    with pytest.raises(ValueError, match="0 to"):
        random_opening(1, MAX_OPENING_PLIES + 1)
    assert random_opening(1, 0) == ()
    assert len({random_opening(seed, 4) for seed in range(20)}) == 20


def test_both_role_assignments_of_an_index_share_their_opening() -> None:
    bots = [spec(n) for n in "abc"]
    jobs = plan_matches(bots, 5, seed=9, opening_plies=4)
    by_index: dict[int, set[tuple[str, ...]]] = {}
    for job in jobs:
        for slot in job.slots:
            assert len(slot.opening) == 4
            by_index.setdefault(slot.index, set()).add(slot.opening)
    assert all(len(openings) == 1 for openings in by_index.values())  # every pairing, both roles
    assert len({openings.pop() for openings in by_index.values()}) == 5
    assert plan_matches(bots, 5, seed=10, opening_plies=4) != jobs  # from the tournament's seed
    assert all(slot.opening == () for job in plan_matches(bots, 5) for slot in job.slots)


def test_the_result_counts_distinct_games(tmp_path: Path) -> None:
    config = two_bot_config(tmp_path, games=3)  # two deterministic bots: one game per role
    with Store.open(config.db) as store:
        result = run_tournament(config.plan(), store)
        assert (result.total, result.distinct) == (6, 2)
        again = run_tournament(config.plan(), store)
        assert (again.played, again.distinct) == (0, 2)


def test_openings_make_deterministic_bots_play_different_games(tmp_path: Path) -> None:
    config = two_bot_config(tmp_path, games=3)
    config = dataclasses.replace(config, opening_plies=4)
    with Store.open(config.db) as store:
        result = run_tournament(config.plan(), store)
        assert result.complete and result.distinct == 6


def test_a_stopped_worker_is_replaced_and_its_match_replayed_without_a_fault(
    tmp_path: Path,
) -> None:
    paced = copy_bot(tmp_path / "bots", "paced.py")
    config = make_config(
        tmp_path,
        [{"name": "a", "path": str(paced)}, {"name": "b", "path": str(paced)}],
        games_per_pairing=4,
        workers=1,
    )
    pools: list[LocalPoolExecutor] = []

    def factory(setup: ExecutorSetup) -> LocalPoolExecutor:
        pools.append(LocalPoolExecutor(1, setup.settings, stall_seconds=1.5))
        return pools[0]

    class StopTheWorkerOnce(Recorder):
        def game(self, record: object) -> None:
            super().game(record)
            if len(self.calls) == 2:  # started, then the first game
                os.kill(pools[0].worker_pids[0], signal.SIGSTOP)

    with Store.open(config.db) as store:
        started = time.monotonic()
        result = run_tournament(config.plan(), store, StopTheWorkerOnce(), executor_factory=factory)
        assert time.monotonic() - started < 30
        assert result.complete and result.played == 8
        assert len(result.harness_errors) == 1 and "no progress" in result.harness_errors[0]
        assert not any(record.reason.is_fault for record in store.games())
    assert wait_for_no_leftovers([str(tmp_path)], timeout=10) == []
    assert child_processes() == []


def test_a_bot_whose_helper_changed_is_replayed(tmp_path: Path) -> None:
    """A program importing a helper from its own folder is all of its files."""
    mine = tmp_path / "mine"
    mine.mkdir()
    shutil.copyfile(TEST_BOTS / "instant.py", mine / "bot.py")
    (mine / "helper.py").write_text("DEPTH = 1\n")
    instant = copy_bot(tmp_path / "bots", "instant.py")
    bots = [{"name": "mine", "path": str(mine / "bot.py")}, {"name": "b", "path": str(instant)}]
    with Store.open(tmp_path / "t.sqlite") as store:
        first = run_tournament(make_config(tmp_path, bots).plan(), store)
        assert first.played == 4
        (mine / "helper.py").write_text("DEPTH = 2\n")
        again = run_tournament(make_config(tmp_path, bots).plan(), store)
        assert [change.name for change in again.changes] == ["mine"]
        assert (again.already, again.played) == (0, 4)


def test_workers_are_capped_at_what_the_machine_runs_fairly() -> None:
    cores = core_count()
    assert fair_workers(1024, memory_mb=10**6) == Capacity(
        cores, f"the machine has {cores} core{'s' if cores != 1 else ''}"
    )
    tight = fair_workers(1024, memory_mb=WORKER_MB + 2 * TYPICAL_BOT_MB)
    assert tight.workers == 1 and "MiB of memory free" in tight.reason
    assert fair_workers(64, memory_mb=0).workers == 1  # never none


def test_a_run_uses_no_more_workers_than_is_fair_unless_forced(tmp_path: Path) -> None:
    instant = copy_bot(tmp_path / "bots", "instant.py")
    bots = [{"name": n, "path": str(instant)} for n in "abcd"]  # 6 pairings: 6 jobs
    asked = core_count() + 8  # more than the jobs too: the note still says what was asked
    observer = CapRecorder()
    with Store.open(tmp_path / "t.sqlite") as store:
        plan = make_config(tmp_path, bots, workers=asked, games_per_pairing=1).plan()
        result = run_tournament(plan, store, observer)
        fair = fair_workers(plan.settings.limits.memory_mb)
        assert result.workers == fair.workers <= core_count()
        assert observer.capped == [(asked, fair.workers, fair.reason)]
        store.reset()
        forced = run_tournament(dataclasses.replace(plan, force_workers=True), store, observer)
        assert forced.workers == 6 and len(observer.capped) == 1  # one a job at most
    assert child_processes() == []


class CapRecorder(Recorder):
    def __init__(self) -> None:
        super().__init__()
        self.capped: list[tuple[int, int, str]] = []

    def workers_capped(self, asked: int, used: int, reason: str) -> None:
        self.capped.append((asked, used, reason))


# --- start-up failures: a bot's, or the harness's -------------------------------------------------


class OverloadedExecutor:
    """Plays inline, but on its first ``failing`` rounds every game (after the first job of the
    first round) fails to start (as on an overloaded machine, or as colluding bots would make
    it look), blaming each game's Order bot; later rounds play normally."""

    def __init__(
        self, settings: MatchSettings, blamed: set[str] | None = None, failing: int = 1
    ) -> None:
        self.inline = InlineExecutor(settings)
        self.rounds = 0
        self.blamed = blamed  # None: everyone; else only these bots fail to start
        self.failing = failing

    def execute(self, jobs: Sequence[MatchJob]) -> Iterator[list[Event]]:
        self.rounds += 1
        for number, job in enumerate(jobs):
            if self.rounds > self.failing or (self.rounds == 1 and number == 0):
                yield from self.inline.execute([job])
                continue
            events: list[Event] = []
            for slot in job.slots:
                order, chaos = job.slot_key(slot)[:2]
                if self.blamed is None or order in self.blamed:
                    versions = {bot.name: bot.version() for bot in (job.bot_a, job.bot_b)}
                    record = GameRecord(
                        order,
                        chaos,
                        Role.CHAOS,
                        Reason.STARTUP,
                        detail="no ready in time",
                        order_version=versions[order],
                        chaos_version=versions[chaos],
                    )
                    events.append(GameDone(job.key, slot, record))
                else:
                    single = dataclasses.replace(job, slots=(slot,))
                    events += [e for b in self.inline.execute([single]) for e in b]
            yield events

    def close(self) -> None:
        pass


def test_start_up_faults_are_the_bots_own_and_never_replayed_by_the_run(tmp_path: Path) -> None:
    """Whether the machine held a start-up back is the referee's to judge (it replays such a
    game itself): the run stores the start-up faults an executor reports as they are, and
    replays no round for them, so that bots failing to start on purpose cannot keep their
    games unplayed."""
    instant = copy_bot(tmp_path / "bots", "instant.py")
    bots = [{"name": n, "path": str(instant)} for n in "abc"]
    config = make_config(tmp_path, bots, games_per_pairing=1)
    executors: list[OverloadedExecutor] = []

    def factory(setup: ExecutorSetup) -> OverloadedExecutor:
        executors.append(OverloadedExecutor(setup.settings))
        return executors[-1]

    with Store.open(config.db) as store:
        result = run_tournament(config.plan(), store, executor_factory=factory)
        assert result.complete and result.harness_errors == [] and executors[0].rounds == 1
        faults = [r for r in store.games() if r.reason is Reason.STARTUP]
        assert len(faults) == 4 and all(r.loser_name == r.order for r in faults)


def test_one_bot_failing_to_start_is_its_own_fault(tmp_path: Path) -> None:
    instant = copy_bot(tmp_path / "bots", "instant.py")
    bots = [{"name": n, "path": str(instant)} for n in "abc"]
    config = make_config(tmp_path, bots, games_per_pairing=1)

    def factory(setup: ExecutorSetup) -> OverloadedExecutor:
        return OverloadedExecutor(setup.settings, blamed={"a"})

    with Store.open(config.db) as store:
        result = run_tournament(config.plan(), store, executor_factory=factory)
        assert result.complete and result.harness_errors == []
        faults = [r for r in store.games() if r.reason is Reason.STARTUP]
        # a as Order in a~c and a~b (b~c, the first round's match, plays before any fails)
        assert [(r.order, r.loser_name) for r in faults] == [("a", "a")] * 2
