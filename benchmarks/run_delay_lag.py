"""Shows that a thread's run-queue wait (``/proc/<pid>/schedstat``) grows only when it runs again.

Run it as root or not, on a machine with at least two cores::

    python benchmarks/run_delay_lag.py

Why: the referee excuses a late move by the CPU wait the bot had during it
(``arena.referee.match``, ``_check_waited``). The kernel adds a wait to ``run_delay`` only when the
waiting thread gets a CPU (``sched_info_arrive``). A bot still waiting when the referee reads it
therefore shows none of its current wait. Under the harshest busy runs of issue 25 (arena under
``nice -n 19`` beside CPU burners at nice 0), 5 of 49 games were lost on time with about 130 ms of
each move unaccounted for, and this is why.

What it does: it starts two nice-0 hogs and one ``nice -n 19`` busy loop, all pinned to core 0. From
core 1 it reads the loop's ``run_delay`` and its state every 50 ms for 0.6 s. The loop is runnable
(``R``) all along, but its ``run_delay`` stays flat for hundreds of milliseconds and then jumps by
as much when it runs. Two runs (6.18 kernel, EEVDF): flat for 200 and 550 ms, then +516 and +552 ms.

A fix must count the wait still going on at a reading. The referee samples the bot's threads during
its probe after the deadline (``arena.referee.load.WaitWatch``, every 10 ms): a thread runnable
with its ``schedstat`` unchanged is waiting, and that wait is added until the kernel counts it. This
shows what it sees, sampling the loop the same way (``seen waiting``), and the sum of the kernel's
count and the wait seen (``counted``), which should follow the time waited: in two runs the wait
seen was the time elapsed to within 0.5 ms until the kernel's jump (+584 and +518 ms, at 466 and
515 ms), then 0 (or the 20 ms since), never counted twice. (Comparing the thread's
``se.exec_start`` in ``/proc/<tid>/sched`` with the referee's own works only on the same core:
each core's scheduler clock has its own offset, 8.8 s apart here.)
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from types import SimpleNamespace
from typing import cast

from arena.launch.process import BotProcess
from arena.launch.procfs import KeptSchedstats
from arena.referee.load import WaitWatch


def state(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def main() -> None:
    if len(os.sched_getaffinity(0)) < 2:
        raise SystemExit("needs two cores: the loop and its hogs on one, the reader on another")
    loop = [sys.executable, "-c", "while True: pass"]
    hogs = [subprocess.Popen(["taskset", "-c", "0", *loop]) for _ in range(2)]
    bot = subprocess.Popen(["taskset", "-c", "0", "nice", "-n", "19", *loop])
    try:
        os.sched_setaffinity(0, {1})
        time.sleep(0.3)
        kept = KeptSchedstats()
        loop_process = SimpleNamespace(thread_states=lambda: kept.states([bot.pid]))
        watch = WaitWatch(cast(BotProcess, loop_process))
        start, base = watch.at_ns, watch.delay_ns
        for i in range(1, 61):
            time.sleep(0.01)
            watch.sample()
            if i % 5:
                continue
            elapsed = (watch.at_ns - start) / 1e6
            grown = (watch.delay_ns - base) / 1e6
            seen = watch.ongoing_ns() / 1e6
            print(
                f"{elapsed:6.0f} ms: run_delay +{grown:6.1f} ms, state {state(bot.pid)},"
                f" seen waiting {seen:6.1f} ms, counted {grown + seen:6.1f} ms"
            )
        kept.close()
    finally:
        for proc in (*hogs, bot):
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    main()
