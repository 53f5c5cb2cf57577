"""What makes a process a place where bots can run, and what stops them all at once there.

Every executor's workers, local or remote, call :func:`prepare_worker` once (plain data only, and
importable on its own, so that it ships to them): it resolves the sandbox mode on the machine that
starts the bots, and makes the process a harness that no bot process can outlive (the reaper).
:func:`stop_bots` kills this process's bots at once, from a signal handler or from normal code.
"""

from __future__ import annotations

import contextlib
import os
import signal

from arena.launch import procfs, reaper
from arena.launch.sandbox import resolve_mode
from arena.limits import SandboxMode
from arena.tournament.affinity import pin_to_core
from arena.tournament.executors.base import active_matches, kept_processes


def prepare_worker(
    sandbox: SandboxMode | str = SandboxMode.AUTO,
    *,
    scratch: str | None = None,
    core: int | None = None,
) -> SandboxMode:
    """Make this process ready to run bots (idempotent); the sandbox mode they will run in
    (``auto``: ``bwrap`` where it works here, else ``none``; ``bwrap`` where it does not:
    ``SandboxError``). ``scratch``: the bots' scratch folders' folder (default: a new
    ``arena-run-*``), removed even if this process is killed. ``core``: pin it to that core."""
    mode = resolve_mode(sandbox)
    pin_to_core(core)
    reaper.install_harness(scratch)
    return mode


def stop_bots() -> None:
    """Kill every bot of this process (kept ones too) and all they started, then remove their
    cgroups and folders, at once: safe in a signal handler (a short bounded reap at most)."""
    processes = [seat.process for match in active_matches() for seat in match.seats if seat.process]
    processes += kept_processes()
    for pid in {p.pid for p in processes if p.pid > 0} | procfs.all_children():
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)  # a bot leads its own process group
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)  # in case it had not got there yet
    for process in processes:  # a frozen bot (kept, or idle) dies only once thawed
        with contextlib.suppress(Exception):
            process.thaw()
    reaper.close_harness()  # every process below this one, the bots' cgroups and folders
    for process in processes:
        with contextlib.suppress(Exception):
            process.plan.cleanup()  # its cgroup and scratch folder
