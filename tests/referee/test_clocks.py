"""Time controls: a game clock with a Fischer increment, ``measure: cpu`` with its
wall-clock cap, ``margin_ms``, and a store that knows its time control.

Why: a bot must lose on time exactly on the move its clock runs out, never before; the recorded
clocks must add up; under ``measure: cpu`` a bot is charged its own process tree's work (in a
child process too) and a sleeping one is still bounded. Real bot processes (``spender.py``),
real pipes, real SQLite files.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest
from conftest import TEST_BOTS_DIR, hogs, run_arena

from arena import boardview
from arena.botspec import BotSpec
from arena.commands.replay import frame_lines
from arena.config import config_from_dict
from arena.errors import ConfigError, HarnessError
from arena.launch.process import BotProcess
from arena.limits import QUICK_MS, Measure, SandboxMode, TimeControl, parse_clock
from arena.records import GameRecord
from arena.referee import Match, MatchSettings, blame, play_match
from arena.referee import clock as clock_module
from arena.rules import Reason, Role

pytestmark = pytest.mark.usefixtures("no_leftover_processes")


def spender(folder: Path, name: str, *args: object) -> BotSpec:
    """``spender.py ARGS`` copied into the test's folder (the marker of its processes)."""
    target = folder / "spender.py"
    if not target.exists():
        shutil.copyfile(TEST_BOTS_DIR / "spender.py", target)
    return BotSpec.from_command([sys.executable, str(target), *map(str, args)], name)


def play(order: BotSpec, chaos: BotSpec, tc: TimeControl) -> GameRecord:
    """One game, ``order`` as Order, without a sandbox (the time is the bots' own)."""
    settings = MatchSettings(time_control=tc, sandbox=SandboxMode.NONE)
    (record,) = play_match(order, chaos, [0], settings)
    return record


def assert_clocks_add_up(record: GameRecord, tc: TimeControl) -> None:
    """Each mover's clock after a move is its clock before, less the move's time, plus the
    increment (never below the increment: a margin does not make it negative)."""
    assert tc.clock_ms is not None and record.clock_ms is not None
    assert record.clock_start_ms == tc.clock_ms
    assert len(record.clock_ms) == len(record.ms) == len(record.moves)
    clocks = [float(tc.clock_ms)] * 2
    for i, (used, left) in enumerate(zip(record.ms, record.clock_ms, strict=True)):
        expected = max(clocks[i & 1] - used, 0) + tc.increment_ms
        assert abs(left - expected) < 0.01, (i, left, expected)
        clocks[i & 1] = left


def test_a_bot_loses_on_time_on_the_move_its_clock_runs_out(tmp_path: Path) -> None:
    """3000 ms for the game, 550 ms a move: five moves fit (2750 ms), the sixth does not."""
    tc = TimeControl(clock_ms=3000, measure=Measure.WALL)
    record = play(spender(tmp_path, "slow", 550), spender(tmp_path, "quick", 0), tc)
    assert record.reason is Reason.TIMEOUT and record.winner is Role.CHAOS, record.detail
    assert len(record.moves) == 10  # five moves each: the sixth of Order's was the late one
    assert "left on its clock" in record.detail
    assert_clocks_add_up(record, tc)
    assert record.clock_ms is not None
    assert 0 < record.clock_ms[-2] < 550  # Order's clock after its fifth move
    # Each `turn` told the bot what was left on its clock (the most it may use now).
    told = [int(line.split()[-1]) for line in record.stderr_order.splitlines()]
    assert told[0] == 3000 and told[1:] == [int(record.clock_ms[i]) for i in range(0, 10, 2)]


def test_an_increment_that_covers_the_use_never_runs_out(tmp_path: Path) -> None:
    tc = TimeControl(clock_ms=600, increment_ms=250, measure=Measure.WALL)
    record = play(spender(tmp_path, "steady", 150), spender(tmp_path, "quick", 0), tc)
    assert record.reason is Reason.FULL, record.detail
    assert len(record.moves) == 36
    assert_clocks_add_up(record, tc)
    assert record.clock_ms is not None
    assert record.clock_ms[-2] > 600  # it gained on every move


def test_a_clock_game_is_stored_and_exported_with_its_clocks(tmp_path: Path) -> None:
    config = {
        "name": "clocked",
        "bots": [
            {"name": "a", "command": [sys.executable, str(TEST_BOTS_DIR / "spender.py"), "5"]},
            {"name": "b", "command": [sys.executable, str(TEST_BOTS_DIR / "spender.py"), "0"]},
        ],
        "games_per_pairing": 1,
        "time_control": {"clock_ms": 2000, "increment_ms": 100},
        "workers": 1,
        "sandbox": "none",
        "db": str(tmp_path / "t.sqlite"),
    }
    path = tmp_path / "t.yaml"
    path.write_text(json.dumps(config))
    result = run_arena("tournament", path, "--quiet")
    assert result.returncode == 0, result.stderr
    out = tmp_path / "games.jsonl"
    result = run_arena("export", tmp_path / "t.sqlite", "--format", "jsonl", "--out", out)
    assert result.returncode == 0, result.stderr
    records = [GameRecord.from_json(json.loads(line)) for line in out.read_text().splitlines()]
    assert len(records) == 2
    tc = TimeControl(clock_ms=2000, increment_ms=100)
    for record in records:
        assert record.measure == "cpu" and record.reason is Reason.FULL
        assert_clocks_add_up(record, tc)

    # Resuming with another clock or another measure is refused in one line saying what differs.
    for change, difference in (
        ({"clock_ms": 3000, "increment_ms": 100}, "time_control.clock_ms: 2000 in the store"),
        ({"clock_ms": 2000, "increment_ms": 0}, "time_control.increment_ms: 100 in the store"),
        (
            {"clock_ms": 2000, "increment_ms": 100, "measure": "wall"},
            'time_control.measure: "cpu" in the store, "wall" now',
        ),
    ):
        path.write_text(json.dumps({**config, "time_control": change}))
        result = run_arena("tournament", path)
        assert result.returncode == 2, result.stdout
        (line,) = result.stderr.splitlines()
        assert "holds the games of another tournament" in line and difference in line, line


def test_cpu_measure_charges_the_bots_own_work(tmp_path: Path) -> None:
    """Under measure: cpu a sleeping bot uses no time (its wall cap is far off); a bot that
    computes 150% of its time, in itself or in a child process, loses by timeout."""
    tc = TimeControl(move_ms=200, measure=Measure.CPU)
    quick = spender(tmp_path, "quick", 0)
    record = play(spender(tmp_path, "sleeper", 300, "sleep"), quick, tc)
    assert record.reason is Reason.FULL, record.detail
    assert record.measure == "cpu" and max(record.ms) < 100
    record = play(spender(tmp_path, "half", 100, "burn"), quick, tc)
    assert record.reason is Reason.FULL, record.detail
    assert 90 < max(record.ms[0::2]) < 200
    for how in ("burn", "child"):
        record = play(spender(tmp_path, how, 300, how), quick, tc)
        assert record.reason is Reason.TIMEOUT and record.winner is Role.CHAOS, record.detail
        assert record.moves == [] and "ms of CPU (limit 200 ms)" in record.detail


def test_cpu_measure_still_bounds_a_bot_that_sleeps(tmp_path: Path) -> None:
    tc = TimeControl(move_ms=100, measure=Measure.CPU)
    record = play(spender(tmp_path, "sleeper", 2000, "sleep"), spender(tmp_path, "q", 0), tc)
    assert record.reason is Reason.TIMEOUT, record.detail
    assert "no move within 800 ms of wall time" in record.detail


def test_a_bot_that_sleeps_past_its_time_loses_in_wall_mode(tmp_path: Path) -> None:
    """On an idle machine a sleeping bot waits for no CPU: it is late, not starved."""
    wall = TimeControl(measure=Measure.WALL)
    record = play(spender(tmp_path, "sleeper", 150), spender(tmp_path, "q", 0), wall)
    assert record.reason is Reason.TIMEOUT and "replayed" not in record.detail, record.detail


def test_lateness_within_the_margin_is_not_a_loss(tmp_path: Path) -> None:
    quick = spender(tmp_path, "q", 0)
    late = spender(tmp_path, "late", 130)
    record = play(late, quick, TimeControl(move_ms=100, margin_ms=150, measure=Measure.WALL))
    assert record.reason is Reason.FULL, record.detail
    record = play(late, quick, TimeControl(move_ms=100, measure=Measure.WALL))
    assert record.reason is Reason.TIMEOUT, record.detail


def test_clock_in_the_config_and_its_mistakes(tmp_path: Path) -> None:
    bots = ["random", "greedy"]
    tc = config_from_dict(
        {"bots": bots, "time_control": {"clock_ms": 60000, "increment_ms": 500, "measure": "cpu"}}
    ).time_control
    assert (tc.clock_ms, tc.increment_ms, tc.measure) == (60000, 500, Measure.CPU)
    for section, message in (
        ({"move_ms": 100, "clock_ms": 1000}, "move_ms or clock_ms, not both"),
        ({"increment_ms": 100}, "an increment needs a clock"),
        ({"measure": "cpu-time"}, "expected one of 'wall', 'cpu'"),
        ({"clock_ms": 0}, "time_control.clock_ms"),
    ):
        with pytest.raises(ConfigError, match=message):
            config_from_dict({"bots": bots, "time_control": section})


def test_parse_clock() -> None:
    assert parse_clock("60+0.5") == (60000, 500)
    assert parse_clock("2") == (2000, 0)
    assert parse_clock("0.1+0.01") == (100, 10)
    for bad in ("", "x", "0", "-1+1", "1+-1", "1+x", "1+", "nan", "inf+1"):
        with pytest.raises(ValueError, match="expected"):
            parse_clock(bad)


# --- load: never charged to a bot ---------------------------------------------------------------


def runnable_elsewhere(seconds: float = 0.5, samples: int = 10) -> float:
    """How many tasks besides this one were runnable, on average over ``seconds`` (the kernel's
    ``procs_running``, sampled): the load now, where the load average would still count the
    hogs of the test before for a minute after they were killed."""
    counts = []
    for _ in range(samples):
        for line in Path("/proc/stat").read_text().splitlines():
            if line.startswith("procs_running "):
                counts.append(int(line.split()[1]) - 1)
        time.sleep(seconds / samples)
    return sum(counts) / max(len(counts), 1)


def skip_if_loaded() -> None:
    """Skip a load test where the machine is loaded already (more runnable tasks than this
    process's cores): its hogs must be the load."""
    if runnable_elsewhere() > len(os.sched_getaffinity(0)):
        pytest.skip("the machine is already loaded: this test needs to be the load itself")


@contextlib.contextmanager
def pinned(core: int) -> Iterator[None]:
    """The test's own process pinned to ``core`` meanwhile, so that the match it referees and
    the bots it starts (which inherit it from their start) are on that one core, as in a
    tournament's pinned worker; the process's cores are restored after."""
    cores = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {core})
    try:
        yield
    finally:
        os.sched_setaffinity(0, cores)


def test_a_bot_starved_of_cpu_plays_under_cpu_and_is_late_in_wall_mode(tmp_path: Path) -> None:
    """A bot that computes 60% of its time, pinned to a core that three hogs share with it, gets
    a quarter of that core: under ``measure: cpu`` (the default) it is charged its own work and
    plays every move; in wall time, which charges a bot the machine's load, it is late."""
    core = min(os.sched_getaffinity(0))
    busy = spender(tmp_path, "busy", 60, "burn", core)
    quick = spender(tmp_path, "quick", 0)
    with hogs(3, core):
        record = play(busy, quick, TimeControl(move_ms=100))
        assert record.reason is Reason.FULL, record.detail
        assert max(record.ms[0::2]) < 100
        record = play(busy, quick, TimeControl(move_ms=100, measure=Measure.WALL))
    assert record.reason is Reason.TIMEOUT, record.detail


def test_a_bot_held_back_past_its_wall_cap_is_replayed_not_charged(tmp_path: Path) -> None:
    """A bot pinned to a core that two hogs at nice -15 share with it gets about 2% of it: its
    60 ms of CPU a move take seconds, past the wall cap (800 ms), while its threads wait for the
    CPU. That is the machine's doing: the game is played again, and the run, still as loaded,
    gives up with a harness error that says so. The same bot playing at nice 19 beside nice-0
    hogs waits as long, but at a priority it lowered itself: the timeout is its own (a bot must
    not be able to have its games replayed at will). (Root only, for the hogs' priority; with a
    core left for the referee, and only where the test is the load.)"""
    skip_if_loaded()
    if os.geteuid() != 0:
        pytest.skip("hogs above the bots' priority need root")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two cores: the bot and its hogs on one, the referee on another")
    core = min(os.sched_getaffinity(0))
    quick = spender(tmp_path, "quick", 0)
    held = spender(tmp_path, "held", 60, "burn", core)
    with hogs(2, core, nice=-15), pytest.raises(HarnessError, match="too loaded to referee"):
        play(held, quick, TimeControl(move_ms=100))
    meek = spender(tmp_path, "meek", 60, "burn", core, "-", "-", 19)
    with hogs(2, core):
        record = play(meek, quick, TimeControl(move_ms=100))
    assert record.reason is Reason.TIMEOUT and not record.moves, record.detail
    assert "at a priority it lowered itself" in record.detail, record.detail
    greedy = spender(tmp_path, "greedy", 300, "burn", core)
    record = play(greedy, quick, TimeControl(move_ms=100))
    assert record.reason is Reason.TIMEOUT and not record.moves, record.detail
    assert "ms of CPU (limit 100 ms)" in record.detail, record.detail


def test_a_bot_that_crowds_its_own_core_is_charged_its_whole_tree(tmp_path: Path) -> None:
    """Four processes of one bot on one core wait for each other, not for the machine: their CPU
    time is all the bot's, and it loses on time (never replayed, which would let a bot keep its
    games out of the store)."""
    core = min(os.sched_getaffinity(0))
    crowd = spender(tmp_path, "crowd", 60, "crowd", core)
    record = play(crowd, spender(tmp_path, "q", 0), TimeControl(move_ms=100))
    assert record.reason is Reason.TIMEOUT and "of CPU" in record.detail, record.detail
    assert not record.moves


def test_a_sleeping_bot_is_late_whatever_the_load(tmp_path: Path) -> None:
    """A bot that sleeps waits for no CPU: past its wall cap it loses on time, however loaded."""
    core = min(os.sched_getaffinity(0))
    sleeper = spender(tmp_path, "sleeper", 1500, "sleep", core)
    with hogs(1, core):
        record = play(sleeper, spender(tmp_path, "q", 0), TimeControl(move_ms=100))
    assert record.reason is Reason.TIMEOUT, record.detail
    assert "no move within 800 ms of wall time" in record.detail, record.detail
    assert "replayed" not in record.detail


def test_a_start_up_slowed_by_the_load_is_not_charged(tmp_path: Path) -> None:
    """A match pinned to a core that four hogs share with it, as a tournament's pinned worker
    is: its bot computes 200 ms before its ``ready`` and gets a fifth of that core, about a
    second of wall time. Its start-up is charged its CPU time, well within the 400 ms
    allowance: it starts and plays, as it does unloaded."""
    core = min(os.sched_getaffinity(0))
    slow = spender(tmp_path, "slow", 0, "burn", "-", "-", 200)
    quick = spender(tmp_path, "quick", 0)
    tc = TimeControl(move_ms=100, startup_ms=400)
    with pinned(core):
        with hogs(4, core):
            record = play(slow, quick, tc)
        assert record.reason is Reason.FULL, record.detail
        record = play(slow, quick, tc)
    assert record.reason is Reason.FULL, record.detail


def test_a_start_up_too_slow_for_its_allowance_is_the_bots_fault_and_says_why(
    tmp_path: Path,
) -> None:
    """A bot that computes longer than its start-up allowance, or sleeps past its wall cap
    however loaded the machine, waited for no other process's CPU: it loses by ``startup``,
    the detail giving the CPU it used (and the wait it had)."""
    core = min(os.sched_getaffinity(0))
    quick = spender(tmp_path, "quick", 0)
    tc = TimeControl(move_ms=100, startup_ms=200)
    greedy = spender(tmp_path, "greedy", 0, "burn", "-", "-", 2000)
    record = play(greedy, quick, tc)
    assert record.reason is Reason.STARTUP, record.detail
    assert re.search(r"(no `ready` within 1100 ms|to start).*\d+ ms of CPU", record.detail), (
        record.detail
    )
    sleepy = spender(tmp_path, "sleepy", 0, "sleep", core, "-", 2000)
    with hogs(1, core):
        record = play(sleepy, quick, tc)
    assert record.reason is Reason.STARTUP, record.detail
    assert re.search(r"it used \d+ ms of CPU and waited \d+ ms", record.detail), record.detail


def test_a_slow_start_is_not_excused_by_the_other_bots_start_beside_it(tmp_path: Path) -> None:
    """The two bots of a match start at once, on the same core when the match is pinned: a bot
    that waited for the CPU its opponent's start-up took was not held back by the machine. A bot
    computing through its 300 ms allowance beside one that starts four computing processes on the
    same core waits most of the time, for its opponent: it loses by ``startup``, no replay."""
    core = min(os.sched_getaffinity(0))
    slow = spender(tmp_path, "slow", 0, "burn", core, "-", 2000)
    crowd = spender(tmp_path, "crowd", 0, "crowd", core, "-", 2000)
    record = play(slow, crowd, TimeControl(move_ms=100, startup_ms=300))
    assert record.reason is Reason.STARTUP, record.detail
    assert record.loser_name == "slow", record.detail


def test_a_bot_that_answers_at_once_costs_no_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The referee reads a mover's clocks (and freezes the idle bot) only once the move has
    lasted ``QUICK_MS``: a bot that thinks 20 ms on each move is read at each, one that answers
    at once never is. Counted, not timed: 20 ms is ten times the threshold on any machine."""
    readings: list[int] = []
    read_load = clock_module.read_load

    def counted(process: BotProcess) -> blame.LoadReading:
        readings.append(process.pid)
        return read_load(process)

    monkeypatch.setattr(clock_module, "read_load", counted)  # as the move clock calls it
    settings = MatchSettings(time_control=TimeControl(move_ms=100), sandbox=SandboxMode.NONE)
    with Match(spender(tmp_path, "slow", 20), spender(tmp_path, "q", 0), settings) as match:
        record = match.play(order_seat=0)
        thinker, instant = (seat.process for seat in match.seats)
        assert thinker is not None and instant is not None
        assert record.reason is Reason.FULL, record.detail
        assert readings.count(thinker.pid) == 18
        # A read move is charged at least the QUICK_MS it waited: on an idle machine none of
        # the instant bot's (a busy one may delay its reply past the threshold).
        instant_ms = record.ms[1::2]
        assert readings.count(instant.pid) <= sum(ms >= QUICK_MS for ms in instant_ms)
        assert readings.count(instant.pid) < 18


def test_the_blame_rule_counts_only_the_cpu_others_held() -> None:
    """At the wall cap, a bot whose threads waited for a CPU at least half the time was held
    back by the machine (``MachineFault``); one that slept was not; and a wait its own
    processes caused, computing on every core it may use, is its own. Made-up readings."""
    cores = len(os.sched_getaffinity(0))
    span = 1_000_000_000
    mark = blame.LoadReading(delay_ns=0, cpu_ns=0, at_ns=time.perf_counter_ns() - span)

    def bot(delay_ns: int, cpu_ns: int) -> BotProcess:
        reading = {
            "run_delay_ns": lambda: delay_ns,
            "cpu_ns": lambda: cpu_ns,
            "runnable": lambda: False,
            "lowered_priority": lambda: False,
        }
        return cast(BotProcess, SimpleNamespace(pid=0, spec=SimpleNamespace(name="b"), **reading))

    with pytest.raises(blame.MachineFault, match="b was held back by the machine in a move"):
        blame.judge_cap(bot(900_000_000, 50_000_000), mark, "a move")
    assert "waited 10 ms" in blame.judge_cap(bot(10_000_000, 50_000_000), mark, "a move")
    crowded = bot(3 * span, 2 * cores * span)  # its own processes filled its cores
    assert "waited 0 ms" in blame.judge_cap(crowded, mark, "a move")


# --- the negotiated extension ------------------------------------------------------------------


def test_the_time_extension_is_sent_only_to_a_bot_that_asks(tmp_path: Path) -> None:
    asks = spender(tmp_path, "asks", 0, "sleep", "-", "want")
    plain = spender(tmp_path, "plain", 0)
    record = play(asks, plain, TimeControl(clock_ms=5000, increment_ms=250, measure=Measure.CPU))
    assert record.reason is Reason.FULL, record.detail
    assert record.stderr_order.splitlines()[0] == "time clock 5000 250 cpu"
    assert "time" not in record.stderr_chaos
    (record,) = play_match(
        plain, asks, [1], MatchSettings(time_control=TimeControl(), sandbox=SandboxMode.NONE)
    )
    assert record.reason is Reason.FULL, record.detail
    assert record.stderr_order.splitlines()[0] == "time move 100 0 cpu"
    assert "time" not in record.stderr_chaos


# --- what users see ------------------------------------------------------------------------------


def test_the_replay_shows_each_moves_time_and_both_clocks() -> None:
    record = GameRecord(
        "a", "b", Role.CHAOS, Reason.TIMEOUT, moves=["a1X", "b1O"], ms=[100.0, 250.5],
        opening=["f6O"], clock_ms=[1400.0, 1249.5], clock_start_ms=1500, measure="wall",
    )  # fmt: skip
    frames = boardview.frames(record.moves, record.opening)
    assert frame_lines(record, frames, 1)[1] == "ply 1/3: opening played f6O"
    line = frame_lines(record, frames, 2)[1]
    assert (
        line == "ply 2/3: Chaos played a1X in 100.0 ms (wall); clocks: Order 1.50 s, Chaos 1.40 s"
    )
    assert "clocks: Order 1.25 s, Chaos 1.40 s" in frame_lines(record, frames, 3)[1]


def test_match_with_a_clock_summarises_time_use(tmp_path: Path) -> None:
    programs = []
    for name, ms in (("slow", 20), ("quick", 1)):
        program = tmp_path / name
        source = (TEST_BOTS_DIR / "spender.py").read_text()
        program.write_text(f"#!{sys.executable}\nimport sys\nsys.argv[1:] = ['{ms}']\n{source}")
        program.chmod(0o755)
        programs.append(program)
    result = run_arena(*["match", *programs, "--clock", "2+0.1", "--sandbox", "none"])
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    used = lines[lines.index("time used:") + 1 :][:2]
    assert all("ms a move (median)" in line and "clock left at the end" in line for line in used)
    assert "no faults" in result.stdout
    bad = run_arena("match", "random", "greedy", "--clock", "1+")
    assert bad.returncode == 2 and "--clock" in bad.stderr


def half_busy_tournament(tmp_path: Path, measure: str) -> tuple[Path, Path]:
    """A 2-worker tournament config of two bots that burn 40% and 60% of their 100 ms a move,
    under ``measure``; its path and the bots' program (the marker of their processes)."""
    program = tmp_path / "spender.py"
    shutil.copyfile(TEST_BOTS_DIR / "spender.py", program)
    bots = [
        {"name": f"half{i}", "command": [sys.executable, str(program), str(ms), "burn"]}
        for i, ms in enumerate((40, 60))
    ]
    config = {
        "name": "loaded",
        "bots": bots,
        "games_per_pairing": 2,
        "time_control": {"move_ms": 100, "measure": measure},
        "workers": 2,
        "sandbox": "none",
        "db": str(tmp_path / "t.sqlite"),
    }
    path = tmp_path / "t.yaml"
    path.write_text(json.dumps(config))
    return path, program


def test_a_loaded_tournament_charges_no_timeout_under_cpu(tmp_path: Path) -> None:
    """Four CPU hogs beside a 2-worker tournament on this machine: bots that burn half of their
    time in CPU lose no game on time under measure: cpu, whatever the wall clock says."""
    path, program = half_busy_tournament(tmp_path, "cpu")
    with hogs(4, None):
        result = run_arena("tournament", path, "--quiet", "--force-workers", timeout=600)
    assert result.returncode == 0, result.stderr
    out = tmp_path / "games.jsonl"
    assert run_arena("export", tmp_path / "t.sqlite", "--out", out).returncode == 0
    records = [GameRecord.from_json(json.loads(line)) for line in out.read_text().splitlines()]
    assert len(records) == 4
    for record in records:
        assert record.reason is Reason.FULL and record.measure == "cpu", record.detail
        assert max(record.ms) < 100
