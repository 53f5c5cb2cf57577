"""A match cut at a chunk boundary for an idle worker (the tail of a run), and the plan's chunks:
the games stored depend on the config alone, never on how many workers play them.

An idle worker takes the later chunks of another's match only when both bots reset at
``match <seed>`` (they then play a chunk alike in a new process); a bot that does not ask keeps
its match whole, and is started no more often. Real bot processes and workers throughout.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sqlite3
from pathlib import Path

from conftest import bundled_program, wait_for_no_leftovers
from factories import copy_bot, games_of, log_of, logged_bots

from arena.botspec import BotSpec
from arena.config import TournamentConfig, config_from_dict
from arena.limits import KeepBots, SandboxMode, TimeControl
from arena.records import GameRecord
from arena.referee.match import MatchSettings
from arena.store.database import Store
from arena.tournament.executors import GameDone, InlineExecutor, LocalPoolExecutor, MatchExecutor
from arena.tournament.run import run_tournament
from arena.tournament.schedule import MatchJob, in_rounds, plan_matches

AUTO = MatchSettings(
    time_control=TimeControl(500, 5000), sandbox=SandboxMode.NONE, keep_bots=KeepBots.AUTO
)


def one_match(bots: list[BotSpec]) -> list[MatchJob]:
    """The first match of two bots' 20 games: 10 games in 5 chunks of 2, each following the
    one before."""
    jobs = plan_matches(bots, 20, seed=5, chunk=2)[:5]
    assert [len(job.slots) for job in jobs] == [2] * 5 and len({job.seed for job in jobs}) == 5
    assert [job.follows for job in jobs] == [None, *(job.key for job in jobs[:4])]
    return jobs


def played(executor: MatchExecutor, jobs: list[MatchJob]) -> dict[tuple[str, str, int], GameRecord]:
    """Every game of ``jobs`` as ``executor`` played it, by slot."""
    games = {}
    try:
        for batch in executor.execute(jobs):
            for event in batch:
                if isinstance(event, GameDone):
                    assert not event.record.reason.is_fault, event.record.detail
                    games[jobs[0].slot_key(event.slot)] = event.record
    finally:
        executor.close()
    assert len(games) == sum(len(job.slots) for job in jobs)
    return games


def seeds_and_starts(folder: Path, bots: list[BotSpec]) -> tuple[list[int], int]:
    """The ``match`` seeds the bots were told (sorted) and how many processes they started."""
    logs = [entry for bot in bots for entry in log_of(folder, bot.name)]
    told = sorted(seed for kind, _pid, seed in logs if kind == "match")
    return told, sum(kind == "start" for kind, _pid, _seed in logs)


def test_an_idle_worker_takes_the_later_chunks_of_a_match_whose_bots_reset(tmp_path: Path) -> None:
    runs = {}
    for name, executor in (("inline", InlineExecutor(AUTO)), ("pool", LocalPoolExecutor(2, AUTO))):
        bots = logged_bots(tmp_path / name, 2)
        games = played(executor, one_match(bots))
        runs[name] = (
            {key: record.seed for key, record in games.items()},
            *seeds_and_starts(tmp_path / name, bots),
        )
    (inline_seeds, inline_told, inline_starts), (seeds, told, starts) = runs["inline"], runs["pool"]
    assert seeds == inline_seeds  # each game played under its chunk's seed, wherever it ran
    assert told == inline_told  # and the bots were told the same seeds
    assert inline_starts == 2 and starts == 4  # the idle worker started the pair for its chunks
    assert wait_for_no_leftovers([str(tmp_path)]) == []


def test_a_match_whose_bots_do_not_reset_is_not_shared(tmp_path: Path) -> None:
    bots = logged_bots(tmp_path, 2, "--no-match")
    jobs = one_match(bots)
    told: list[str] = []  # the idle worker has nothing to take: the run winds down, said once
    games = played(LocalPoolExecutor(2, AUTO, winding_down=lambda: told.append("now")), jobs)
    assert told == ["now"]
    assert {key: record.seed for key, record in games.items()} == {
        job.slot_key(slot): slot.seed for job in jobs for slot in job.slots
    }
    assert seeds_and_starts(tmp_path, bots) == ([], 2)  # one process each: the match stayed whole
    assert wait_for_no_leftovers([str(tmp_path)]) == []


def randomised(folder: Path, workers: int) -> TournamentConfig:
    """Three bundled randomised bots (two ``random``, a ``greedy``), 20 games a pairing: six
    matches of two chunks, on ``workers`` workers."""
    bots = []
    for name, program in (("r1", "random"), ("r2", "random"), ("g1", "greedy")):
        path = copy_bot(folder / "bots", bundled_program(program), name=f"{name}_bot.py")
        bots.append({"name": name, "path": str(path)})
    data = {
        "name": "t",
        "bots": bots,
        "games_per_pairing": 20,
        "time_control": {"move_ms": 1000, "startup_ms": 5000},
        "workers": workers,
        "db": str(folder / "t.sqlite"),
        "sandbox": "none",
        "affinity": "off",
        "seed": 3,
    }
    return config_from_dict(data, base_dir=folder)


def test_the_same_games_on_1_2_and_4_workers_and_a_lost_chunk_replayed_alike(
    tmp_path: Path,
) -> None:
    stored = {}
    for workers in (1, 2, 4):
        config = randomised(tmp_path / str(workers), workers)
        with Store.open(config.db) as store:
            plan = dataclasses.replace(config.plan(), force_workers=True)
            assert run_tournament(plan, store).played == 120
        stored[workers] = games_of(config.db)
    assert stored[1] == stored[2] == stored[4]
    config = randomised(tmp_path / "2", 2)

    def lose_and_resume(first: int, last: int) -> int:
        """Delete r1~g1's games of indices ``first``-``last`` (both roles), resume; games played."""
        with contextlib.closing(sqlite3.connect(config.db)) as conn, conn:
            conn.execute(
                "DELETE FROM games WHERE 'g1' IN (order_name, chaos_name) AND "
                "'r1' IN (order_name, chaos_name) AND slot BETWEEN ? AND ?",
                (first, last),
            )
        with Store.open(config.db) as store:
            return run_tournament(config.plan(), store).played

    # Resume: a whole chunk lost (indices 5-9) is played again alike.
    assert lose_and_resume(5, 9) == 10
    assert games_of(config.db) == stored[1]
    # A chunk stopped part-way (indices 8-9 of that chunk lost): its first games are played
    # again, not stored, so that the bots reach where they were, and the rest comes out alike.
    assert lose_and_resume(8, 9) == 4
    assert games_of(config.db) == stored[1]
    assert wait_for_no_leftovers([str(tmp_path)]) == []


def test_a_chunk_stopped_part_way_keeps_its_played_games_as_replays() -> None:
    bots = [
        BotSpec.from_path(bundled_program("random")),
        BotSpec.from_path(bundled_program("greedy")),
    ]
    jobs = one_match(bots)  # 5 chunks of 2 games: (index 0, both roles), (1, both), ...
    slots = [slot for job in jobs for slot in job.slots]
    done = {jobs[0].slot_key(slot) for slot in slots[:5]}  # chunks 0-1, and chunk 2's first
    left = in_rounds(jobs, done)
    assert [(s.index, s.replay) for job in left for s in job.slots] == [(2, True), (2, False), *(
        (i, False) for i in (3, 3, 4, 4)
    )]  # fmt: skip
    assert sum(job.owed for job in left) == 5 and left[0].seed == jobs[2].seed
    assert [job.follows for job in left] == [None, left[0].key, left[1].key]  # one match
    later = in_rounds(jobs, {jobs[0].slot_key(slots[5])})  # a chunk's second game alone
    assert slots[5] not in [s for job in later for s in job.slots]  # kept out
    assert sum(len(job.slots) for job in later) == sum(job.owed for job in later) == 9
    assert [job.follows for job in later] == [job.follows for job in jobs]


def test_a_replayed_game_is_told_as_progress_not_as_a_game(tmp_path: Path) -> None:
    """Each replay slot is played (the bots' logs show the chunk's games from its start) and
    told as ``GameReplayed`` (progress, for the pool's watchdog), never as a ``GameDone``."""
    bots = logged_bots(tmp_path, 2)
    jobs = one_match(bots)
    played = [*jobs[0].slots, jobs[1].slots[0]]  # chunk 0, and chunk 1's first game
    left = in_rounds(jobs, {jobs[0].slot_key(slot) for slot in played})
    events = [event for batch in InlineExecutor(AUTO).execute(left) for event in batch]
    done = [event for event in events if isinstance(event, GameDone)]
    assert [event.slot.index for event in done] == [1, 2, 2, 3, 3, 4, 4]
    assert [type(event).__name__ for event in events].count("GameReplayed") == 1
    assert wait_for_no_leftovers([str(tmp_path)]) == []
