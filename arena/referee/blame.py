"""Whose fault a move that did not come in time is: the one rule, decided here.

Under ``measure: cpu`` (the default) a move is charged the CPU time of the bot's whole process
tree, which the machine's load does not change: a move over its allowance is the bot's. Each
move also has a wall-clock cap (``CPU_WALL_FACTOR`` times the allowance plus
``CPU_WALL_MARGIN_MS``), so that a bot that sleeps or blocks is bounded too. A bot that reaches
the cap within its CPU allowance had less than a third of a core: if its threads spent at least
half of the time read waiting for a CPU (their run-queue delay, ``schedstat``), the machine held
it back (``MachineFault``: the match replays the game, see ``Match.play``); otherwise it slept
or blocked, or ran at a priority it lowered itself, and the timeout is its own. (A bot still
runnable at the cap is read again once it has had a CPU: the kernel counts a wait only when it
ends.) A start-up is judged the same way against
``startup_ms``. Under ``measure: wall`` a reply must come within the allowance, whatever the
load: the bot is charged for it.
"""

from __future__ import annotations

import os
import time
from typing import NamedTuple

from arena.errors import HarnessError
from arena.launch.process import BotProcess

_HALF = 0.5  # the share of the time read that a held-back bot spent waiting for a CPU
_MIN_WAIT_NS = 5_000_000  # less run-queue delay than this explains no lateness
_PROBE_NS = 500_000_000  # how long a bot still runnable at its cap is watched for its next CPU
TOO_LOADED_HINT = "use fewer workers, or give the bots more time"


class LoadReading(NamedTuple):
    """A bot's run-queue delay and CPU time at one moment (``perf_counter_ns``)."""

    delay_ns: int
    cpu_ns: int
    at_ns: int


def read_load(process: BotProcess) -> LoadReading:
    return LoadReading(process.run_delay_ns(), process.cpu_ns(), time.perf_counter_ns())


class MachineFault(HarnessError):
    """The machine, not the bot, kept a move (or a start-up) from coming in time."""

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(detail)


def too_loaded(details: list[str]) -> HarnessError:
    """The error of a game the machine spoiled every time it was played."""
    return HarnessError(
        f"the machine is too loaded to referee fairly: {TOO_LOADED_HINT} ({'; '.join(details)})"
    )


def judge_cap(process: BotProcess, mark: LoadReading, what: str, beside_ns: int = 0) -> str:
    """Judge a bot that reached the wall-clock cap of ``what`` within its CPU allowance: raise
    ``MachineFault`` if it waited for a CPU others held for at least half the time since
    ``mark``; else return what was measured, for the bot's fault's detail.

    Only the CPU others held counts: at most the capacity of the bot's cores that it did not use
    itself (a bot whose own threads crowd its cores waits for itself). ``beside_ns``: CPU time
    of processes started with it that also count as its own (its opponent starting on the same
    core)."""
    now = read_load(process)
    if process.runnable():
        now = _once_run(process, now)
    span = now.at_ns - mark.at_ns
    cpu = now.cpu_ns - mark.cpu_ns
    try:
        cores = len(os.sched_getaffinity(process.pid))
    except OSError:
        cores = os.cpu_count() or 1
    waited = max(min(now.delay_ns - mark.delay_ns, cores * span - cpu - beside_ns), 0)
    measured = (
        f"over {span / 1e6:.0f} ms it used {cpu / 1e6:.0f} ms of CPU and waited"
        f" {waited / 1e6:.0f} ms for one"
    )
    if process.lowered_priority():
        return f"; {measured}, at a priority it lowered itself"
    if waited >= _MIN_WAIT_NS and waited >= _HALF * span:
        name = process.spec.name
        raise MachineFault(f"{name} was held back by the machine in {what}: {measured}")
    return f"; {measured}"


def _once_run(process: BotProcess, now: LoadReading) -> LoadReading:
    """``now`` read again once the bot has had a CPU (its CPU clock moved), at most
    ``_PROBE_NS`` later: the kernel adds a thread's wait to its run-queue delay only when the
    thread gets a CPU again, so a bot still waiting at ``now`` shows none of that wait yet."""
    end = now.at_ns + _PROBE_NS
    while time.perf_counter_ns() < end:
        time.sleep(0.005)
        later = read_load(process)
        if later.cpu_ns != now.cpu_ns:
            return later
    return read_load(process)
