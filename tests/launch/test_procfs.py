"""``arena.launch.procfs`` against real processes and pipes: CPU clocks of a process tree, pipe
levels, and whether a process still holds a pipe.

Why: the referee decides faults and records CPU times from these facts; a wrong one charges a bot
for nothing (a silent crash taken for a timeout, a stale line taken for a move) or records 0 ms
for a bot whose engine does the work.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from conftest import wait_until
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.launch import cgroups, procfs

BURN = "import time\nend = time.process_time() + {s}\nwhile time.process_time() < end: pass\n"


@settings(max_examples=30, deadline=None)
@given(st.binary(min_size=1, max_size=60_000))
def test_unread_bytes_counts_what_the_reader_has_not_read(data: bytes) -> None:
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, data)
        assert procfs.unread_bytes(write_end) == procfs.unread_bytes(read_end) == len(data)
        os.read(read_end, 1)
        assert procfs.unread_bytes(write_end) == len(data) - 1
    finally:
        os.close(read_end)
        os.close(write_end)


def test_tree_cpu_time_counts_a_running_child() -> None:
    """A parent waiting on a child that burns CPU: the tree's time grows, the parent's does not."""
    code = f"import subprocess, sys\nsubprocess.run([sys.executable, '-c', {BURN.format(s=5)!r}])"
    parent = subprocess.Popen([sys.executable, "-c", code])
    try:
        shown = wait_until(
            lambda: procfs.tree_cpu_ns(parent.pid) - procfs.process_cpu_ns(parent.pid) >= 0.1e9, 20
        )
        assert shown, "the child's CPU time never showed"
        assert procfs.descendants(parent.pid)
    finally:
        for pid in procfs.descendants(parent.pid):
            os.kill(pid, 9)
        parent.kill()
        parent.wait()


def test_process_cpu_ns_is_monotonic_and_zero_for_no_process() -> None:
    first = procfs.process_cpu_ns(os.getpid())
    sum(range(100_000))
    assert procfs.process_cpu_ns(os.getpid()) > first > 0
    assert procfs.process_cpu_ns(2**22 + 12345) == 0  # beyond pid_max: no such process


def test_holds_pipe_tells_an_open_stdout_from_a_closed_one() -> None:
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, sys, time\nsys.stdin.readline()\nos.close(1)\ntime.sleep(30)",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        ours = child.stdout.fileno()
        assert procfs.holds_pipe(child.pid, 1, ours) is True
        assert procfs.holds_pipe(child.pid, 0, ours) is False  # another pipe
        child.stdin.write(b"go\n")
        child.stdin.flush()
        closed = wait_until(lambda: not procfs.holds_pipe(child.pid, 1, ours), 20)
        assert closed, "the child never closed its stdout"
        assert procfs.holds_pipe(child.pid, 1, ours) is False
    finally:
        child.kill()
        child.wait()


def test_with_environ_finds_the_processes_given_an_entry() -> None:
    token = f"ARENA_TEST_MARK={os.getpid()}-{time.monotonic_ns()}"
    name, _, value = token.partition("=")
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"],
        stdin=subprocess.PIPE,
        env={**os.environ, name: value},
    )
    try:
        # Popen returns once the exec began; the kernel sets the new environment a little later.
        assert wait_until(lambda: child.pid in procfs.with_environ(token.encode()), 10)
        assert child.pid not in procfs.with_environ((token + "0").encode())
        assert os.getpid() not in procfs.with_environ(token.encode())
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=10)
    assert child.pid not in procfs.with_environ(token.encode())


SPAWNER = (
    "import subprocess, sys, threading, time\n"
    "threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
    "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
    "print('up', flush=True)\n"
    "time.sleep(60)\n"
)


THREADER = (
    "import sys, threading\n"
    "stops = []\n"
    "for line in sys.stdin:\n"
    "    if line == 'start\\n':\n"
    "        stop = threading.Event()\n"
    "        threading.Thread(target=stop.wait).start()\n"
    "        stops.append(stop)\n"
    "    elif stops:\n"
    "        thread = threading.enumerate()[-1]\n"
    "        stops.pop().set()\n"
    "        thread.join()\n"
    "    print(threading.active_count(), flush=True)\n"
)


@pytest.mark.skipif(cgroups.pids_root() is None, reason="no usable pids cgroup")
def test_the_threads_read_again_without_listing_them_are_still_all_of_them() -> None:
    """The referee lists a bot's threads only when its cgroup's task count has changed or one of
    the threads it read last has ended: a thread begun or ended between two moves is seen."""
    cgroup = cgroups.BotCgroup.create(16)
    assert cgroup is not None
    bot = subprocess.Popen(
        [sys.executable, "-c", THREADER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        preexec_fn=cgroup.join,
    )
    kept = procfs.KeptSchedstats()
    listed = cgroup.thread_ids

    def threads_after(command: bytes) -> int:
        assert bot.stdin is not None and bot.stdout is not None
        bot.stdin.write(command)
        bot.stdin.flush()
        return int(bot.stdout.readline())

    def read_and_check(expected: int) -> bool:
        """Read as the referee does; whether it listed the threads to do it."""
        calls = []
        cgroup.thread_ids = lambda: calls.append(1) or listed()  # type: ignore[method-assign]
        try:
            delay = cgroup.run_delay_ns(kept)
        finally:
            del cgroup.thread_ids
        tids = {int(t) for t in os.listdir(f"/proc/{bot.pid}/task")}
        assert set(kept.tids) == tids and len(tids) == expected
        assert delay == procfs.threads_run_delay_ns(tids)
        return bool(calls)

    try:
        assert threads_after(b"start\n") == 2
        assert read_and_check(2)  # first read: listed
        assert not read_and_check(2)  # the same threads: read again through the kept files
        assert threads_after(b"start\n") == 3
        assert read_and_check(3)  # one more task: listed again
        assert not read_and_check(3)
        assert threads_after(b"stop\n") == 2
        assert read_and_check(2)  # one fewer: listed again
        # One ends and another begins between two reads: the count matches, the ended one's
        # file says so.
        assert threads_after(b"stop\n") == 1
        assert threads_after(b"start\n") == 2
        assert read_and_check(2)
        assert not read_and_check(2)
    finally:
        kept.close()
        cgroup.kill()
        bot.wait()


@pytest.mark.skipif(cgroups.pids_root() is None, reason="no usable pids cgroup")
def test_a_bots_cgroup_lists_the_threads_its_tree_has() -> None:
    """What the referee reads on every move of a paced bot (its threads' run-queue wait, its CPU
    time) from the bot's cgroup, through files kept open, is what walking its tree reads."""
    cgroup = cgroups.BotCgroup.create(16)
    assert cgroup is not None
    bot = subprocess.Popen(
        [sys.executable, "-c", SPAWNER], stdout=subprocess.PIPE, preexec_fn=cgroup.join
    )
    try:
        assert bot.stdout is not None and bot.stdout.readline() == b"up\n"
        tree = [bot.pid, *procfs.descendants(bot.pid)]
        tids = {int(t) for pid in tree for t in os.listdir(f"/proc/{pid}/task")}
        assert len(tree) == 2 and len(tids) == 3  # the bot, its thread, its child
        for _ in range(2):  # the same list when read again
            assert set(cgroup.thread_ids() or ()) == tids
        assert procfs.threads_run_delay_ns(tids) == procfs.tree_run_delay_ns(bot.pid)
        kept = procfs.KeptSchedstats()
        kept.MAX_FILES = 2  # the third thread is read by its path
        for _ in range(2):  # opened, then read again through the kept files
            assert kept.run_delay_ns(sorted(tids)) == procfs.tree_run_delay_ns(bot.pid)
        kept.close()
        if "cpuacct" in cgroup.folders:
            path, v2 = cgroup.folders["cpuacct"]
            assert 0 < (cgroup.cpu_ns() or 0) <= (cgroups.cpu_time_ns(path, v2) or 0)
    finally:
        cgroup.kill()
        bot.wait()
