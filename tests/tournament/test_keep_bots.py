"""Bots kept alive between a worker's matches (``keep_bots``): reused, frozen, stopped; under
``auto``, only those that asked for the ``match`` extension, which then play the same games.

Real bot processes (copied into ``tmp_path``, so that a scan of ``/proc`` finds exactly what these
tests started), real worker processes. A bot here says its process id in its ``ready``, which
the records keep as its display name: how many processes served a bot is read from the games
(or, for the bundled bots, from the log of the fixture ``counted.py`` that starts them).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import sqlite3
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import (
    TEST_BOTS_DIR,
    bundled_program,
    process_states,
    wait_for_no_leftovers,
    wait_until,
)
from factories import copy_bot, games_of, log_of, logged_bots

from arena.botspec import BotSpec
from arena.config import TournamentConfig, config_from_dict
from arena.launch.sandbox import bwrap_path
from arena.limits import KeepBots, SandboxMode, TimeControl
from arena.referee.keeper import MAX_KEPT
from arena.referee.match import MatchSettings
from arena.rules import Reason
from arena.store.database import Store
from arena.tournament.executors import GameDone, InlineExecutor, LocalPoolExecutor, MatchExecutor
from arena.tournament.executors.base import kept_processes
from arena.tournament.executors.placement import in_blocks
from arena.tournament.run import run_tournament
from arena.tournament.schedule import MatchJob, plan_matches

SETTINGS = MatchSettings(
    time_control=TimeControl(500, 5000), sandbox=SandboxMode.NONE, keep_bots=KeepBots.ALL
)
OFF = dataclasses.replace(SETTINGS, keep_bots=KeepBots.OFF)
AUTO = dataclasses.replace(SETTINGS, keep_bots=KeepBots.AUTO)
FAULTS = {reason.value for reason in Reason if reason.is_fault}

PID_BOT = """import os, sys
for line in iter(sys.stdin.buffer.readline, b""):
    if line.startswith(b"arena"):
        sys.stdout.buffer.write(b"WANTready p%d\\n" % os.getpid())
    elif line.startswith(b"turn"):
        cell = line.split()[1].index(b".")
        sys.stdout.buffer.write(b"%c%dX\\n" % (b"abcdef"[cell % 6], cell // 6 + 1))
    elif line.startswith(b"quit"):
        break
    sys.stdout.buffer.flush()
"""


def test_keep_bots_is_auto_by_default_and_a_bool_means_what_it_meant() -> None:
    assert MatchSettings().keep_bots is KeepBots.AUTO
    assert MatchSettings(keep_bots=True).keep_bots is KeepBots.ALL  # before `auto`: a bool
    assert MatchSettings(keep_bots=False).keep_bots is KeepBots.OFF


def pid_bots(folder: Path, count: int, asks: bool = False) -> list[BotSpec]:
    """``count`` bots, each its own file, that say their process id in their ``ready`` (and,
    with ``asks``, ask for the ``match`` extension first: they have nothing to reset)."""
    folder.mkdir(exist_ok=True)
    specs = []
    for i in range(count):
        path = folder / f"pid{i}.py"
        path.write_text(PID_BOT.replace("WANT", "want match\\n" if asks else ""))
        specs.append(BotSpec.from_path(path))
    return specs


def processes_per_bot(executor: MatchExecutor, bots: list[BotSpec]) -> dict[str, set[str]]:
    """Play the round robin of ``bots`` (one game a side); the processes that served each."""
    served: dict[str, set[str]] = defaultdict(set)
    try:
        for batch in executor.execute(plan_matches(bots, 1)):
            for event in batch:
                if isinstance(event, GameDone):
                    record = event.record
                    assert not record.reason.is_fault, record.detail
                    served[record.order].add(record.order_display)
                    served[record.chaos].add(record.chaos_display)
    finally:
        executor.close()
    return dict(served)


@pytest.mark.parametrize("executor", ["inline", "local"])
def test_a_worker_starts_each_bot_once_and_reuses_it(tmp_path: Path, executor: str) -> None:
    bots = pid_bots(tmp_path, 4)  # 6 matches: each bot plays 3
    asking = pid_bots(tmp_path / "asking", 4, asks=True)
    # keep_bots true keeps every bot; auto only those that ask for `match`; false none.
    cases = ((SETTINGS, bots, 1), (OFF, bots, 3), (AUTO, bots, 3), (AUTO, asking, 1))
    for settings, pool, most in cases:
        made: MatchExecutor = (
            InlineExecutor(settings) if executor == "inline" else LocalPoolExecutor(1, settings)
        )
        served = processes_per_bot(made, pool)
        assert sorted(served) == [b.name for b in pool]
        assert all(len(pids) == most for pids in served.values()), (settings.keep_bots, served)
        assert wait_for_no_leftovers([str(tmp_path)]) == []  # none outlives the run


def test_a_local_pool_gives_a_worker_the_matches_of_the_bots_it_keeps(tmp_path: Path) -> None:
    bots = pid_bots(tmp_path, 6)  # 15 matches on 2 workers
    served = processes_per_bot(LocalPoolExecutor(2, SETTINGS), bots)
    assert all(1 <= len(pids) <= 2 for pids in served.values()), served  # at most one a worker
    assert wait_for_no_leftovers([str(tmp_path)]) == []


@pytest.mark.parametrize("sandbox", [SandboxMode.NONE, SandboxMode.BWRAP], ids=["none", "bwrap"])
def test_a_kept_bot_is_frozen_while_it_waits(tmp_path: Path, sandbox: SandboxMode) -> None:
    if sandbox is SandboxMode.BWRAP and bwrap_path() is None:
        pytest.skip("bubblewrap is not installed")
    path = tmp_path / "ponder.py"  # spins whenever it is not on move: running unless frozen
    path.write_bytes((TEST_BOTS_DIR / "ponder.py").read_bytes())
    ponder, other = BotSpec.from_path(path), pid_bots(tmp_path, 1)[0]
    settings = dataclasses.replace(SETTINGS, sandbox=sandbox)
    executor = InlineExecutor(settings)
    batches = executor.execute(plan_matches([ponder, other], 1) * 2)
    try:
        first = next(batches)
        assert all(not e.record.reason.is_fault for e in first if isinstance(e, GameDone))
        assert len(kept_processes()) == 2  # between the two matches: both kept

        def stopped() -> bool:  # the cgroup freezer takes effect a moment after it is asked
            states = process_states(str(path))
            # T: stopped by SIGSTOP; D: frozen by the cgroup freezer (a spinning bot never is)
            return bool(states) and all(state in "TD" for state in states)

        assert wait_until(stopped, 5), process_states(str(path))
        second = next(batches)
        assert all(not e.record.reason.is_fault for e in second if isinstance(e, GameDone))
    finally:
        batches.close()
        executor.close()
    assert kept_processes() == []
    assert wait_for_no_leftovers([str(tmp_path)]) == []


def test_a_bot_that_faulted_is_not_kept(tmp_path: Path) -> None:
    crash = tmp_path / "crash_midgame.py"
    crash.write_bytes((TEST_BOTS_DIR / "crash_midgame.py").read_bytes())
    bots = [BotSpec.from_path(crash), *pid_bots(tmp_path, 2)]
    executor = InlineExecutor(SETTINGS)
    batches = executor.execute(plan_matches(bots, 1))
    try:
        faults = [
            e.record.reason
            for batch in batches
            for e in batch
            if isinstance(e, GameDone) and e.record.reason.is_fault
        ]
    finally:
        executor.close()
    assert faults and set(faults) == {Reason.CRASH}
    assert wait_for_no_leftovers([str(tmp_path)]) == []


@pytest.mark.parametrize("sandbox", [SandboxMode.NONE, SandboxMode.BWRAP], ids=["none", "bwrap"])
def test_a_worker_stopped_with_kept_bots_kills_them(tmp_path: Path, sandbox: SandboxMode) -> None:
    """Frozen bots too: under bwrap, as root, by the cgroup freezer, where a SIGKILL waits for a
    thaw (``stop_bots`` thaws them: the worker's stop took 6 s without, 0.02 s with)."""
    if sandbox is SandboxMode.BWRAP and bwrap_path() is None:
        pytest.skip("bubblewrap is not installed")
    bots = pid_bots(tmp_path, 3)
    pool = LocalPoolExecutor(1, dataclasses.replace(SETTINGS, sandbox=sandbox))
    try:
        batches = pool.execute(plan_matches(bots, 1))
        next(batches)  # the first match is done: its bots are kept by the worker
        (worker,) = pool.worker_pids
        os.kill(worker, signal.SIGTERM)  # as when the harness stops
        for _batch in batches:
            pass
    finally:
        pool.close()
    assert wait_for_no_leftovers([str(tmp_path)]) == []


def starts_in_order(jobs: list[MatchJob], kept: int = MAX_KEPT) -> int:
    """The bot starts of one worker that plays ``jobs`` in order, keeping ``kept`` bots (LRU)."""
    held: dict[str, None] = {}
    starts = 0
    for job in jobs:
        for name in (job.bot_a.name, job.bot_b.name):
            if name in held:
                del held[name]
            else:
                starts += 1
            held[name] = None
            while len(held) > kept:
                del held[next(iter(held))]
    return starts


def test_matches_in_blocks_within_their_rounds() -> None:
    """Blocks of the pairing matrix, round by round: the same matches in the same rounds, and a
    pool the keeper holds whole starts each bot once. (A larger one pays for its rounds with
    starts: every bot plays every round; ``docs/scaling.md`` has the figures.)"""
    for count in (64, 300):
        bots = [BotSpec.from_command(["true"], f"b{i}") for i in range(count)]
        jobs = plan_matches(bots, 1)
        blocked = in_blocks(jobs)
        assert sorted(j.key for j in blocked) == sorted(j.key for j in jobs)  # the same matches
        assert [j.round for j in blocked] == [j.round for j in jobs]  # round after round
    assert starts_in_order(in_blocks(plan_matches(bots[:64], 1))) == 64


def test_a_kept_bot_that_asks_is_told_each_match_the_seed_of_a_fresh_start(tmp_path: Path) -> None:
    told: dict[KeepBots, dict[str, list[int]]] = {}
    for settings in (OFF, AUTO):
        folder = tmp_path / settings.keep_bots.name
        bots = logged_bots(folder, 4)  # 6 matches: each bot plays 3
        assert len(processes_per_bot(InlineExecutor(settings), bots)) == 4
        told[settings.keep_bots] = {}
        for bot in bots:
            log = log_of(folder, bot.name)
            starts = {pid: seed for kind, pid, seed in log if kind == "start"}
            matches = [(pid, seed) for kind, pid, seed in log if kind == "match"]
            if settings is OFF:  # each match starts the bot; its first line is its own seed
                assert [seed for _pid, seed in matches] == list(starts.values())
            assert len(starts) == (3 if settings is OFF else 1), log
            assert all(pid in starts for pid, _seed in matches)
            told[settings.keep_bots][bot.name] = [seed for _pid, seed in matches]
    assert told[KeepBots.AUTO] == told[KeepBots.OFF]  # the seed a fresh start would have had
    assert wait_for_no_leftovers([str(tmp_path)]) == []


def test_a_bot_that_does_not_ask_is_not_told_of_matches_nor_kept_under_auto(
    tmp_path: Path,
) -> None:
    bots = logged_bots(tmp_path, 3, "--no-match")
    assert len(processes_per_bot(InlineExecutor(AUTO), bots)) == 3
    for bot in bots:
        log = log_of(tmp_path, bot.name)
        assert [kind for kind, _pid, _seed in log] == ["start", "start"], log  # 2 matches each
    assert wait_for_no_leftovers([str(tmp_path)]) == []


# --- the same games, kept or not -----------------------------------------------------------------
def bundled_tournament(folder: Path, keep: object) -> TournamentConfig:
    """A round robin of bundled randomised bots (two ``random``, two ``greedy``: both break ties
    with ``ARENA_SEED``), 4 games a pairing on 2 workers, each bot started through
    ``counted.py`` (its starts logged to ``folder/starts.log``)."""
    counted = copy_bot(folder / "bots", "counted.py")
    log = folder / "starts.log"
    bots = []
    for name in ("random", "greedy"):
        program = copy_bot(folder / "bots", bundled_program(name), name=f"{name}_bot.py")
        for i in (1, 2):
            command = ["python3", str(counted), str(log), str(program)]
            bots.append({"name": f"{name}{i}", "command": command})
    data = {
        "name": "t",
        "bots": bots,
        "games_per_pairing": 4,
        "time_control": {"move_ms": 1000, "startup_ms": 5000},
        "workers": 2,
        "db": str(folder / "t.sqlite"),
        "sandbox": "none",
        "affinity": "off",
        "seed": 7,
        "keep_bots": keep,
    }
    return config_from_dict(data, base_dir=folder)


def starts_logged(folder: Path) -> int:
    return len((folder / "starts.log").read_text().splitlines())


def test_bundled_bots_play_the_same_games_and_resume_alike_kept_or_not(tmp_path: Path) -> None:
    played: dict[str, dict[tuple[str, str, int], tuple[str, str, str, str]]] = {}
    starts: dict[str, int] = {}
    for keep in ("auto", True, False):
        folder = tmp_path / str(keep)
        config = bundled_tournament(folder, keep)
        with Store.open(config.db) as store:
            result = run_tournament(config.plan(), store)
        assert result.complete and result.played == 48
        played[str(keep)] = games_of(config.db)
        starts[str(keep)] = starts_logged(folder)
    assert played["auto"] == played["False"] == played["True"]
    assert not any(reason in FAULTS for _m, _w, reason, _d in played["auto"].values())
    # Without reuse each of the 6 pairings' matches starts both bots; with it, each worker starts
    # each bot at most once.
    assert starts["False"] >= 12 and starts["auto"] <= 8 and starts["True"] <= 8, starts

    # Resume: the same games lost from both stores (a whole pairing, and the last game of
    # another) are played again alike, kept or not.
    for keep in ("auto", False):
        folder = tmp_path / str(keep)
        with contextlib.closing(sqlite3.connect(folder / "t.sqlite")) as conn, conn:
            conn.execute(
                "DELETE FROM games WHERE order_name = 'random1' AND chaos_name = 'greedy2'"
            )
            conn.execute("DELETE FROM games WHERE order_name = 'greedy1' AND slot = 3")
        (folder / "starts.log").unlink()  # a file its command names: part of the bots' version
        config = bundled_tournament(folder, keep)
        with Store.open(config.db) as store:
            result = run_tournament(config.plan(), store)
        assert result.complete and result.played == 7, result
        played[str(keep)] = games_of(config.db)
    assert played["auto"] == played["False"]
    assert wait_for_no_leftovers([str(tmp_path)]) == []
