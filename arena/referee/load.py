"""Whether a late bot was the machine's victim: the readings and rules by which the referee tells
a bot that was slow from one that the machine's load held back.

A move seen late is charged to the bot only when the machine ran it: the referee reads the
run-queue wait of the bot's threads and of its own (``schedstat``) and the bot's CPU time, and a
bot that waited for a CPU others held at least as long as it was late (``check_waited``), or for
most of a probe after its deadline (``Match._check_starved``, ``WaitWatch``), or of its start-up
allowance (``check_starved_start``), is not charged: its game is replayed (``Starved``). So is a
game whose deadline the referee itself saw long after it passed (``Stalled``, ``check_stall``).
The per-ply loop (``arena.referee.match``) reads nothing of this unless a bot takes its time.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import NamedTuple

from arena.errors import HarnessError
from arena.launch import procfs
from arena.launch.process import BotProcess

__all__ = [
    "STALL_MS",
    "STALL_NS",
    "LOAD_PROBE_MS",
    "STARVED_SHARE",
    "PACED_SHARE",
    "SAMPLE_NS",
    "TOO_LOADED_HINT",
    "STARTUP_LOADED_HINT",
    "LoadReading",
    "read_load",
    "WaitWatch",
    "Stalled",
    "Starved",
    "still_going",
    "mostly_waiting",
    "too_loaded",
    "waited_for_others",
    "check_waited",
    "check_starved_start",
    "check_stall",
]

STALL_MS = 50
"""How late past a deadline the referee may see a reply before it counts as not having been
running (stopped, or starved of CPU) at the deadline: it then cannot tell whether the reply came
in time, and replays the game instead of charging the bot. Below this, a reply seen late is late
(an idle machine wakes the referee within a millisecond)."""
LOAD_PROBE_MS = 200
"""In wall mode, how long past a missed deadline (at most the move's own budget) the referee
watches a late bot to tell whether it was waiting for a CPU (``Match._check_starved``)."""
STARVED_SHARE = 0.5
"""The share of the time past its deadline that a late bot's threads spent waiting for a CPU
(summed over its threads) from which the machine's load, not the bot, made it late: the game is
replayed instead of lost by ``timeout``."""
PACED_SHARE = 10
"""In wall mode, a bot that has taken at least 1/``PACED_SHARE`` of the move's budget on any move
of its process (or has made none yet) has the run-queue delay of its threads read when its
``turn`` is sent (``schedstat``, a few tens of microseconds), and the referee its own: should it
answer late, the referee knows whether it, or the referee, waited for a CPU meanwhile. Any move,
not the previous one: a bot that thinks answers some moves at once (a forced block, a pairing
reply, a five), and its next move, the first of a game say, is as likely to be late under load as
any (issue 25: ``mcts`` and ``alphabeta`` lost such moves on time in busy tournaments). A bot that
has always answered faster is not read (the hot path of instant bots pays nothing)."""
TOO_LOADED_HINT = (
    "use time_control.measure: cpu (--measure cpu), which charges bots their CPU time, or fewer"
    " workers"
)
"""What a run too loaded to referee in wall time suggests."""
STARTUP_LOADED_HINT = "give the bots a longer time_control.startup_ms, or use fewer workers"
"""What a run too loaded for its bots to start within their allowance suggests (``measure: cpu``
does not change how a start-up is timed)."""


STALL_NS = STALL_MS * 1_000_000
_MIN_STARVED_NS = 5_000_000  # less run-queue delay than this explains no lateness
_NOT_READ = "its run-queue wait was not read (no move of its took a tenth of its time)"
SAMPLE_NS = 10_000_000
"""How often the probe after a missed deadline samples the bot's threads (``WaitWatch``)."""
_SEEN_WAITING_NS = 20_000_000
"""How long a thread must be seen runnable with its ``schedstat`` unchanged before that counts as
a wait for a CPU: two scheduler ticks at the coarsest (HZ 100; 4 ms here, HZ 250), since the
kernel adds a running thread's CPU time only at ticks and switches (a running thread sampled
every 0.1 to 1 ms on this machine, a 2-core VM, showed it unchanged for at most 4 to 15 ms)."""


class WaitWatch:
    """A late bot's threads, sampled during the probe after its deadline, to see the waits for a
    CPU still going on, which its run-queue delay does not show yet: the kernel adds a wait to a
    thread's ``run_delay`` only when the thread gets a CPU again (``benchmarks/run_delay_lag.py``:
    flat for 200 to 550 ms, then +516 to +552 ms at once).

    A thread seen runnable (state ``R``) at one sample, whose ``schedstat`` (CPU time, run-queue
    delay, times it got a CPU) is the same at a later one, has been runnable all along without
    getting a CPU (it cannot sleep without running, and getting a CPU changes the count), or has
    been running without a tick (``_SEEN_WAITING_NS`` rules that out): it is waiting, and that
    wait is in no run-queue delay yet. The moment it gets a CPU the kernel adds the whole wait,
    and its ``schedstat`` changes: the sample that shows it starts afresh, so a wait is counted
    once, by the kernel or here, never both."""

    def __init__(self, process: BotProcess) -> None:
        self.process = process
        self.seen: dict[int, tuple[procfs.ThreadState, int]] = {}  # tid: (state, seen since)
        self.delay_ns = 0  # the run-queue delay the kernel has counted, at the last sample
        self.at_ns = 0
        self.sample()

    def sample(self) -> None:
        at = time.perf_counter_ns()
        states = self.process.thread_states()
        seen = {}
        for tid, state in states.items():
            last = self.seen.get(tid)
            seen[tid] = (state, last[1] if last is not None and last[0] == state else at)
        self.seen, self.at_ns = seen, at
        self.delay_ns = sum(state.delay_ns for state in states.values())

    def ongoing_ns(self) -> int:
        """The waits still going on at the last sample, as far as seen (since the first sample
        that showed each thread as it is now)."""
        total = 0
        for state, since in self.seen.values():
            waited = self.at_ns - since
            if state.runnable and waited >= _SEEN_WAITING_NS:
                total += waited
        return total

    def reading(self) -> LoadReading:
        """The last sample as a reading: the kernel's run-queue delay plus the waits going on."""
        ongoing = self.ongoing_ns()
        return LoadReading(
            self.delay_ns + ongoing,
            self.process.cpu_ns(),
            procfs.own_run_delay_ns(),
            self.at_ns,
            ongoing,
        )


def still_going(reading: LoadReading) -> str:
    """What a detail says of the waits still going on at ``reading``, if any."""
    if not reading.ongoing_ns:
        return ""
    return f", {reading.ongoing_ns / 1e6:.0f} ms of it still going on"


def mostly_waiting(waited_ns: int, span_ns: int) -> bool:
    """Whether a bot that waited ``waited_ns`` for a CPU others held in ``span_ns`` was held back
    by the machine: at least ``STARVED_SHARE`` of the span, and at least ``_MIN_STARVED_NS``. The
    one rule for a probe after a missed deadline and for a whole start-up allowance."""
    return waited_ns >= _MIN_STARVED_NS and waited_ns >= STARVED_SHARE * span_ns


def too_loaded(stalls: list[str], hint: str | None) -> HarnessError:
    """The one error of a game the machine was too loaded to referee (with what to do, when a
    bot was starved: ``Starved.hint``)."""
    said = f": {hint}" if hint else ""
    return HarnessError(f"the machine is too loaded to referee fairly{said} ({'; '.join(stalls)})")


class LoadReading(NamedTuple):
    """A bot's run-queue delay and CPU time (``schedstat``, its CPU clock), and the referee
    thread's own run-queue delay, at one moment."""

    delay_ns: int
    cpu_ns: int
    referee_ns: int
    at_ns: int  # ``perf_counter_ns``
    ongoing_ns: int = 0  # of ``delay_ns``, the waits still going on, seen by ``WaitWatch``


def read_load(process: BotProcess) -> LoadReading:
    return LoadReading(
        process.run_delay_ns(), process.cpu_ns(), procfs.own_run_delay_ns(), time.perf_counter_ns()
    )


class Stalled(Exception):
    """Raised inside a game when the referee was not running at a deadline and cannot judge."""

    def __init__(self, late_ns: int, what: str) -> None:
        self.detail = f"the referee was not scheduled for {late_ns / 1e6:.0f} ms past {what}"
        super().__init__(self.detail)


class Starved(Stalled):
    """Raised when a bot was late in wall time because it waited for a CPU (the machine's load,
    not the bot): the game is replayed like any harness error. ``hint``: what to do should the
    machine stay that loaded."""

    def __init__(self, detail: str, hint: str = TOO_LOADED_HINT) -> None:
        self.detail = f"{detail} (machine loaded)"
        self.hint = hint
        Exception.__init__(self, self.detail)


def waited_for_others(
    process: BotProcess, before: LoadReading, after: LoadReading, referee: bool = False
) -> int:
    """Of the time the bot's threads (and with ``referee``, the referee's thread too) waited for
    a CPU between two readings, the part that other processes caused: at most the capacity of
    the cores the bot may run on that it did not use itself. A bot whose own threads outnumber
    its cores waits for itself, and a referee that waits while the bot computes on its core waits
    for the bot: that is the bot's own doing, never the machine's load."""
    try:
        cores = len(os.sched_getaffinity(process.pid))
    except OSError:
        cores = os.cpu_count() or 1
    spare = cores * (after.at_ns - before.at_ns) - (after.cpu_ns - before.cpu_ns)
    waited = after.delay_ns - before.delay_ns
    if referee:
        waited += after.referee_ns - before.referee_ns
    return max(min(waited, spare), 0)


def check_waited(
    process: BotProcess | None,
    mark: LoadReading | None,
    late_ns: int,
    now: LoadReading | None = None,
) -> str:
    """Raise ``Starved`` if the bot of ``process``, whose reply the referee saw ``late_ns`` after
    its deadline, and the referee together waited for a CPU during the move at least that long
    (``waited_for_others``): on a machine that ran the bot when it was ready to run, and the
    referee when the reply came, it would have been seen in time. The referee's part counts
    because the lateness it measures includes its own: a reply that came in time, read by a
    referee left waiting for a CPU, looks late. Judged only where the move has a run-queue
    baseline ``mark``, read as its ``turn`` was sent (``PACED_SHARE``); otherwise the reply is
    late. ``now``: a reading just taken.

    Returns what was measured, for the detail of the ``timeout`` that follows: the bot's CPU time
    and run-queue wait over the move, and the referee's (the figures that tell a slow bot from a
    loaded machine), or that nothing was read."""
    if process is None:
        return ""
    if mark is None:
        return f"; {_NOT_READ}"
    now = now or read_load(process)
    waited = waited_for_others(process, mark, now, referee=True)
    if waited >= late_ns:
        own = max(min(now.delay_ns - mark.delay_ns, waited), 0)
        raise Starved(
            f"the bot waited {own / 1e6:.1f} ms for a CPU{still_going(now)} and the referee"
            f" {(waited - own) / 1e6:.1f} ms during a move it answered {late_ns / 1e6:.1f} ms late"
        )
    cpu = now.cpu_ns - mark.cpu_ns
    return (
        f"; measured over {(now.at_ns - mark.at_ns) / 1e6:.1f} ms from its `turn`: it used"
        f" {cpu / 1e6:.1f} ms of CPU and waited {(now.delay_ns - mark.delay_ns) / 1e6:.1f} ms for"
        f" one{still_going(now)}, the referee {(now.referee_ns - mark.referee_ns) / 1e6:.1f} ms"
    )


def check_starved_start(
    process: BotProcess, started_ns: int, companions: Sequence[BotProcess] = ()
) -> str:
    """Raise ``Starved`` if a bot that did not start within its allowance (from ``started_ns``,
    a ``perf_counter_ns`` value) spent at least ``STARVED_SHARE`` of that time waiting for a CPU
    that other processes held: the machine's load kept it from starting, as it makes a move
    late, and the game is replayed, not charged. Else return what was measured, for the
    ``startup`` fault's detail.

    A bot's processes are new at its start, so their run-queue wait so far is all of the
    start-up's: one reading at the deadline, no baseline. A bot that sleeps or blocks through
    its start-up, or whose own processes crowd its cores, waits for no other process's CPU: its
    start-up fault stands (issue 25: in busy tournaments ``mcts`` lost games by ``startup``).
    Nor does the CPU of ``companions``, the match's other bots started at the same moment (new
    too: their CPU time so far is all of this start-up's), count as the machine's load: two bots
    of one match start side by side on its core, and a slow start is not excused by an opponent's
    slow start beside it."""
    now = read_load(process)
    start = LoadReading(delay_ns=0, cpu_ns=0, referee_ns=now.referee_ns, at_ns=started_ns)
    beside = sum(companion.cpu_ns() for companion in companions)
    waited = waited_for_others(process, start, now._replace(cpu_ns=now.cpu_ns + beside))
    span = now.at_ns - started_ns
    if mostly_waiting(waited, span):
        raise Starved(
            f"the bot waited {waited / 1e6:.0f} ms for a CPU in the {span / 1e6:.0f} ms of its"
            " start-up allowance",
            STARTUP_LOADED_HINT,
        )
    return (
        f"; over {span / 1e6:.0f} ms it used {now.cpu_ns / 1e6:.0f} ms of CPU and waited"
        f" {now.delay_ns / 1e6:.0f} ms for one"
    )


def check_stall(process: BotProcess, deadline_ns: int, what: str) -> None:
    """Raise ``Stalled`` if the referee saw a deadline pass long after it did while a line had
    arrived meanwhile: it cannot tell whether that line came in time. (With nothing arrived by
    now, nothing had arrived by the deadline either: the bot was late, whatever the referee.)"""
    late_ns = time.perf_counter_ns() - deadline_ns
    if late_ns > STALL_NS and process.read_waiting():
        raise Stalled(late_ns, what)
