"""A correct bot that spends a fixed time on each move: ``spender.py MS
[sleep|burn|child|crowd] [CPU] [want|-] [START] [NICE]``.

Why: time controls are judged on what a bot spends. ``sleep`` waits MS milliseconds of wall time
(no CPU), ``burn`` computes for MS milliseconds of its own CPU time, ``child`` has a forked child
compute them (the parent waits for it, so its time is the tree's), ``crowd`` has three forked
children compute MS each beside itself (four processes on its cores: it waits for itself). CPU,
when given, pins the bot
to that core (a test that starves it of a CPU on purpose; ``-`` does not). ``want`` asks for
the ``time`` extension of the protocol (``want time`` before ``ready``). It logs each ``turn``'s
``<ms>`` and any ``time`` line to stderr. Its moves fill the board in reading order with a
pattern of marks that never makes five: a game lasts its 36 plies unless a bot faults.
MS may be a comma-separated list: the Nth move of the process spends its Nth item, the moves
after the list its last (``20,0``: a bot that thinks once, then answers at once). START, when
given, is spent the same way before its ``ready`` (a slow start-up: a model loaded, a table built).
NICE, when given, is added to its nice value just after its ``ready`` (a bot that starts at the
harness's priority, then plays at the lowest, as a bot under ``nice -n 19`` beside busy work), and
to its session's autogroup's where the kernel has them (``lower``).
"""

import contextlib
import os
import sys
import time


def burn(ms: float) -> None:
    """Compute until this process has used ``ms`` more milliseconds of CPU."""
    end = time.process_time() + ms / 1000.0
    while time.process_time() < end:
        pass


def spend(ms: float, how: str) -> None:
    """Spend ``ms`` milliseconds the way ``how`` says."""
    if ms <= 0:
        return
    if how == "sleep":
        time.sleep(ms / 1000.0)
    elif how == "burn":
        burn(ms)
    elif how == "crowd":
        pids = []
        for _ in range(3):
            pid = os.fork()
            if pid == 0:
                burn(ms)
                os._exit(0)
            pids.append(pid)
        burn(ms)
        for pid in pids:
            os.waitpid(pid, 0)
    else:
        pid = os.fork()
        if pid == 0:
            burn(ms)
            os._exit(0)
        os.waitpid(pid, 0)


def lower(nice: int) -> None:
    """Add ``nice`` to its nice value, and to its session's autogroup's where the kernel groups
    sessions (``sched_autogroup_enabled``): there a process's nice value weighs only against the
    other processes of its session, and a bot leads a session of its own, so against work in
    other sessions it would keep a whole session's share."""
    os.nice(nice)
    with contextlib.suppress(OSError, ValueError):
        with open("/proc/self/autogroup") as group:
            now = int(group.read().split()[-1])
        with open("/proc/self/autogroup", "w") as group:
            group.write(str(min(now + nice, 19)))


def main() -> None:
    """Answer each line; exit on ``quit`` or end of input."""
    times = [float(t) for t in sys.argv[1].split(",")] if len(sys.argv) > 1 else [0.0]
    how = sys.argv[2] if len(sys.argv) > 2 else "sleep"
    if len(sys.argv) > 3 and sys.argv[3] != "-":
        os.sched_setaffinity(0, {int(sys.argv[3])})
    want = len(sys.argv) > 4 and sys.argv[4] == "want"
    start_ms = float(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[5] != "-" else 0.0
    nice = int(sys.argv[6]) if len(sys.argv) > 6 else 0
    readline = sys.stdin.buffer.readline
    while True:
        line = readline()
        if not line or line.startswith(b"quit"):
            return
        if line.startswith(b"turn"):
            os.write(2, b"turn ms " + line.split()[-1] + b"\n")
            spend(times[0] if len(times) == 1 else times.pop(0), how)
            cell = line.index(b".", 5) - 5
            mark = "XO"[((cell % 6) // 2 + cell // 6) % 2]
            os.write(1, f"{'abcdef'[cell % 6]}{cell // 6 + 1}{mark}\n".encode())
        elif line.startswith(b"time"):
            os.write(2, line)
        elif line.startswith(b"arena"):
            spend(start_ms, how)
            os.write(1, b"want time\nready spender\n" if want else b"ready spender\n")
            if nice:
                lower(nice)
                nice = 0


if __name__ == "__main__":
    main()
