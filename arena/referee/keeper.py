"""Bots kept alive between the matches of one worker process, frozen while they wait.

Starting a bot (a Python interpreter, a JVM, a sandbox) can cost far more than its games: a
round robin of many bots would spend most of its time starting them. A ``BotKeeper`` holds the
ready processes of the bots a worker has played, keyed by everything they were started with (the
bot, its version, the sandbox, the limits, the settings), so that the worker's next match with
that bot takes the process instead of starting a new one. A kept process is exactly a process of
a match: sandboxed, limited and reaped the same; it is frozen (``BotProcess.freeze``) while it
waits, stopped after any fault (``Match`` never gives a faulted process back), and every kept
process is stopped when the worker stops (``close``; a worker's SIGTERM kills them through
``processes``). The bound: ``max_bots`` processes, and none kept while the machine has less than
``MIN_AVAILABLE_SHARE`` of its memory available; the longest unused goes first. Matches in
several threads (a Dask worker's) may share a keeper: ``take`` removes what it returns, under a
lock, so that no two matches ever hold one process; a closed keeper keeps nothing more.

What a kept bot carries from one match to the next is what it carries between the games of one
match: its memory, its random state (seeded once, at its start), its files in its scratch /tmp.
It is told of each new game by ``game``, as always. A bot that asked for the ``match`` extension
is also told where each match begins (``match <seed>``, sent by ``Match``), and resets there as
if started afresh; under ``keep_bots: auto`` only such bots are given to a keeper.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass

from arena.launch.process import QUIT_GRACE_S, BotProcess

MAX_KEPT = 64
"""Default bound on the processes one worker keeps."""
MIN_AVAILABLE_SHARE = 0.25
"""No bot is kept while less than this share of the machine's memory is available."""


@dataclass
class Kept:
    """A ready bot process with what its ``ready`` said."""

    process: BotProcess
    display_name: str
    wants: frozenset[str]


def _memory_tight() -> bool:
    """Whether the machine has less than ``MIN_AVAILABLE_SHARE`` of its memory available."""
    values: dict[str, int] = {}
    try:
        with open("/proc/meminfo", "rb") as file:
            for line in file:
                name, _, rest = line.partition(b":")
                if name in (b"MemTotal", b"MemAvailable"):
                    values[name.decode()] = int(rest.split()[0])
    except (OSError, ValueError, IndexError):
        return False
    total, available = values.get("MemTotal"), values.get("MemAvailable")
    if not total or available is None:
        return False
    return available < MIN_AVAILABLE_SHARE * total


class BotKeeper:
    """The bot processes one worker keeps between its matches (see the module's docstring)."""

    def __init__(self, max_bots: int = MAX_KEPT) -> None:
        self.max_bots = max_bots
        self._kept: OrderedDict[int, tuple[Hashable, Kept]] = OrderedDict()
        self._serial = 0
        self._lock = threading.Lock()
        self._closed = False
        self.reused = 0
        """How many processes were taken instead of started (for benchmarks and tests)."""
        self.used_at = time.monotonic()
        """When a process was last taken or given (how long the keeper has been idle)."""

    def __len__(self) -> int:
        return len(self._kept)

    def processes(self) -> list[BotProcess]:
        """Every kept process (to kill them all at once when the worker is stopped). Takes no
        lock (a signal handler calls it): a snapshot, taken at once, of what another thread may
        be changing."""
        return [kept.process for _key, kept in list(self._kept.values())]

    def take(self, key: Hashable) -> Kept | None:
        """A kept, live process started as ``key`` says, thawed and no longer kept; or None.

        One that died, or wrote anything, while it waited is stopped instead (it would be a
        fault of a match it has no part in)."""
        while (kept := self._pop(key)) is not None:
            process = kept.process
            process.thaw()
            if (
                process.running
                and not process.outbuf
                and not process.read_waiting()
                and not process.input_closed()
            ):
                process.take_stderr()  # written while no match held it: nobody's record
                with self._lock:
                    self.reused += 1
                return kept
            self._discard(process, graceful=False)
        return None

    def _pop(self, key: Hashable) -> Kept | None:
        """The longest kept process started as ``key`` says, no longer kept (under the lock)."""
        with self._lock:
            self.used_at = time.monotonic()
            for serial, (kept_key, kept) in self._kept.items():
                if kept_key == key:
                    del self._kept[serial]
                    return kept
        return None

    def give(self, key: Hashable, kept: Kept) -> None:
        """Keep a ready process, frozen; stop the longest unused ones beyond the bound (and
        this one if the keeper was closed: its run is over)."""
        kept.process.take_stderr()
        kept.process.freeze()
        stopped = []
        with self._lock:
            self.used_at = time.monotonic()
            if self._closed:
                stopped.append(kept.process)
            else:
                self._serial += 1
                self._kept[self._serial] = (key, kept)
            while self._kept and (len(self._kept) > self.max_bots or _memory_tight()):
                _serial, (_key, oldest) = self._kept.popitem(last=False)
                stopped.append(oldest.process)
        for process in stopped:
            self._discard(process, graceful=True)

    def close(self, graceful: bool = True) -> None:
        """Stop every kept process, and keep none given later: ``graceful``, ``quit`` to all
        at once, then reaped as after a match; else killed at once (a run stopped)."""
        with self._lock:
            self._closed = True
            processes = self.processes()
            self._kept.clear()
        for process in processes:
            process.thaw()
            if graceful:
                process.send_quit()
        deadline = time.monotonic() + QUIT_GRACE_S  # one grace for all, not one each
        for process in processes:
            with contextlib.suppress(Exception):
                if graceful:
                    process.exited_within(max(0.0, deadline - time.monotonic()))
                process.stop(graceful=False)  # reaped; killed if it ignored `quit`

    @staticmethod
    def _discard(process: BotProcess, graceful: bool) -> None:
        process.thaw()
        process.stop(graceful)
