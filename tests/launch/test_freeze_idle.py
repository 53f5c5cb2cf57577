"""``freeze_idle``: the bot not on move is stopped once its opponent thinks, and each move is
charged its CPU time.

Why: a tournament that promises that no bot thinks on its opponent's time must really stop the
idle bot, in both sandbox modes, and the CPU times it records are what a user compares bots by.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from pathlib import Path

import pytest
from conftest import TEST_BOTS_DIR, leftover_processes, process_states
from factories import copy_bot

from arena.botspec import BotSpec
from arena.launch import cgroups
from arena.launch.process import BotProcess
from arena.launch.sandbox import bwrap_path
from arena.limits import QUICK_MS, Measure, SandboxMode, TimeControl
from arena.records import GameRecord
from arena.referee.match import MatchSettings, play_match

pytestmark = pytest.mark.usefixtures("no_leftover_processes")


@pytest.fixture(params=["cgroup", "tree"])
def held_by(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each containment in turn: the bot's cgroup, and its process tree (no cgroups)."""
    if request.param == "tree":
        monkeypatch.setenv("ARENA_CGROUPS", "0")
    elif cgroups.pids_root() is None:
        pytest.skip("no cgroup for a bot here")
    return str(request.param)


def test_a_bot_that_answers_at_once_is_never_frozen(tmp_path: Path) -> None:
    """The idle bot is frozen only once the mover has thought ``QUICK_MS``: between two instant
    bots nothing is frozen, and every move is charged its wall time, under the threshold."""
    bot = BotSpec.from_path(copy_bot(tmp_path, "instant.py"))
    frozen: list[int] = []
    freeze = BotProcess.freeze

    def counted(process: BotProcess) -> None:
        frozen.append(process.pid)
        freeze(process)

    settings = MatchSettings(sandbox=SandboxMode.NONE)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(BotProcess, "freeze", counted)
        records = play_match(bot, bot.renamed("other"), 2, settings)
    # A frozen move was charged at least the threshold it waited: on an idle machine there is
    # none (a busy one may delay a reply past it).
    slow = sum(ms >= QUICK_MS for record in records for ms in record.ms)
    moves = sum(len(record.moves) for record in records)
    assert len(frozen) <= slow < moves


def _sample(marker: str, samples: list[str], done: threading.Event) -> None:
    while not done.wait(0.003):
        samples.extend(process_states(marker))


@pytest.mark.parametrize("sandbox", [SandboxMode.NONE, SandboxMode.BWRAP], ids=["none", "bwrap"])
def test_freeze_idle_stops_the_bot_not_on_move(sandbox: SandboxMode, tmp_path: Path) -> None:
    """With freeze_idle the idle bot is seen stopped (T) or frozen (D) while its opponent thinks;
    else never."""
    if sandbox is SandboxMode.BWRAP and bwrap_path() is None:
        pytest.skip("bubblewrap is not installed")
    ponder = BotSpec.from_path(copy_bot(tmp_path, "ponder.py"))
    marker = str(tmp_path / "ponder.py")
    paced = TEST_BOTS_DIR / "paced.py"
    thinker = BotSpec.from_command([sys.executable, str(paced), "40"], "thinker")
    stopped = {}
    for freeze in (False, True):
        samples: list[str] = []
        done = threading.Event()
        sampler = threading.Thread(target=_sample, args=(marker, samples, done))
        sampler.start()
        try:
            settings = MatchSettings(sandbox=sandbox, freeze_idle=freeze)
            records = play_match(ponder, thinker, [0, 1], settings)
        finally:
            done.set()
            sampler.join(timeout=10)
        assert all(not r.reason.is_fault for r in records), [r.detail for r in records]
        assert samples, "the sampler saw no ponder process"
        # T: stopped by SIGSTOP; D: frozen by the cgroup freezer (a spinning bot is never in D)
        stopped[freeze] = sum(state in "TD" for state in samples) / len(samples)
    assert stopped[False] < 0.05, stopped  # D: now and then a page fault, say
    assert stopped[True] > 0.2, stopped


@pytest.mark.parametrize("sandbox", [SandboxMode.NONE, SandboxMode.BWRAP], ids=["none", "bwrap"])
def test_cpu_time_counts_the_whole_process_tree_at_fine_resolution(
    sandbox: SandboxMode, held_by: str, tmp_path: Path
) -> None:
    """An adapter whose engine (a child started on its first turn) spends about 20 ms of CPU per
    move: each of its moves is charged that time. The instant bot's sub-millisecond moves show
    as such, not rounded to 10 ms clock ticks (that is, to 0). Under bwrap the engine is a
    grandchild of bwrap's init, in another PID namespace: still the bot's tree. Alike whether
    its cgroup or its process tree is read. Without ``freeze_idle``, so that every move is
    charged all the CPU its tree spent: with it, a move's first look comes ``QUICK_MS`` after the
    turn, later on a loaded machine, and what the bot spent before it is charged at most 2 ms."""
    if sandbox is SandboxMode.BWRAP and bwrap_path() is None:
        pytest.skip("bubblewrap is not installed")
    adapter = BotSpec.from_path(copy_bot(tmp_path, "adapter.py"))
    instant = BotSpec.from_path(copy_bot(tmp_path, "instant.py"))
    settings = MatchSettings(TimeControl(move_ms=2000), sandbox=sandbox, freeze_idle=False)
    records = play_match(adapter, instant, 2, settings)
    for record in records:
        assert not record.reason.is_fault, record.to_json()
        assert record.measure == "cpu"
        first = 0 if record.order == adapter.name else 1
        adapter_cpu, instant_cpu = record.ms[first::2], record.ms[1 - first :: 2]
        assert all(t >= 15 for t in adapter_cpu), adapter_cpu
        assert all(t < 10 for t in instant_cpu) and any(t > 0 for t in instant_cpu), instant_cpu


def _cpu_ticks(marker: str) -> int:
    """CPU time (user + system, in clock ticks) of the processes whose command line has
    ``marker``: a bot and the daemon it forked (which keeps its command line)."""
    ticks = 0
    for pid, _cmdline in leftover_processes([marker]):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
    return ticks


@pytest.mark.parametrize("sandbox", [SandboxMode.NONE, SandboxMode.BWRAP], ids=["none", "bwrap"])
def test_freeze_idle_stops_a_daemon_in_its_own_session_too(
    sandbox: SandboxMode, held_by: str, tmp_path: Path
) -> None:
    """A bot whose double-forked daemon (new session, not its child) spins: while its opponent
    thinks (300 ms a move) the daemon must not run. Its CPU time over a game (read before the
    bots stop) with freeze_idle is compared with the same game without (the machine's load
    decides how much CPU it gets at all): frozen, it spins only through the start-up. Alike
    whether the cgroup freezer or signals to its process tree stop it."""
    if sandbox is SandboxMode.BWRAP and bwrap_path() is None:
        pytest.skip("bubblewrap is not installed")
    spinner = BotSpec.from_path(copy_bot(tmp_path, "spinning_child.py"))
    marker = str(tmp_path / "spinning_child.py")
    paced = TEST_BOTS_DIR / "paced.py"
    thinker = BotSpec.from_command([sys.executable, str(paced), "300"], "thinker")
    spent: dict[bool, float] = {}
    for freeze in (False, True):
        wall = TimeControl(move_ms=2000, measure=Measure.WALL)  # the thinker's 300 ms show
        settings = MatchSettings(wall, sandbox=sandbox, freeze_idle=freeze)

        def measure(_record: GameRecord, freeze: bool = freeze) -> None:
            spent[freeze] = _cpu_ticks(marker) / os.sysconf("SC_CLK_TCK")

        records = play_match(thinker, spinner, [0], settings, on_game=measure)
        assert not records[0].reason.is_fault, records[0].to_json()
        assert sum(records[0].ms[0::2]) > 600, records[0].ms  # the thinker's time (Order)
    assert spent[False] >= 0.1, spent  # unfrozen, it spun through the thinker's time
    assert spent[True] < 0.4 * spent[False], spent
