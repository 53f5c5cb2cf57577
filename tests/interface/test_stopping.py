"""Stop signals while a command waits for a person: ``arena.commands.stopping``.

A blocking read of a person's input can miss a signal that lands just before the read starts
(Python runs handlers between bytecodes), and ``arena play`` then ignored SIGTERM for as long as
nothing was typed. ``wait_readable`` waits on the input and on a wake-up pipe that signals write
to. These tests check what it promises with real pipes and real signals, each wait bounded.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator

import pytest

from arena.commands.stopping import Stopped, stopped_like_ctrl_c, wait_readable

BOUND_S = 30.0
"""Bound on every wait here: far beyond what any of them takes."""


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read_end, write_end = os.pipe()
    try:
        yield read_end, write_end
    finally:
        os.close(read_end)
        os.close(write_end)


def test_input_waiting_or_arriving_is_seen_and_a_timeout_ends_the_wait(
    pipe: tuple[int, int],
) -> None:
    read_end, write_end = pipe
    assert wait_readable(read_end, timeout=0.01) is False
    os.write(write_end, b"c4X\n")
    assert wait_readable(read_end, timeout=BOUND_S) is True
    assert os.read(read_end, 64) == b"c4X\n"
    later = threading.Timer(0.05, os.write, (write_end, b"q\n"))
    later.start()
    try:
        assert wait_readable(read_end) is True  # no timeout: until the line comes
    finally:
        later.join(BOUND_S)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_during_the_wait_raises_at_once(
    pipe: tuple[int, int], signum: signal.Signals
) -> None:
    """The signal comes from another thread while the main thread waits with no timeout and no
    input: the wait ends with ``Stopped`` (or the test would hang, up to pytest's own bound)."""
    read_end, _write_end = pipe
    sender = threading.Timer(0.05, os.kill, (os.getpid(), signum))
    with stopped_like_ctrl_c():
        sender.start()
        try:
            with pytest.raises(Stopped) as stopped:
                wait_readable(read_end)
        finally:
            sender.join(BOUND_S)
    assert stopped.value.signum == signum
    assert signal.getsignal(signum) in (signal.SIG_DFL, signal.SIG_IGN)  # handlers restored
    assert signal.set_wakeup_fd(-1) == -1  # and no wake-up pipe left set


def test_ctrl_c_during_the_wait_raises_keyboard_interrupt(pipe: tuple[int, int]) -> None:
    read_end, _write_end = pipe
    sender = threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT))
    sender.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            wait_readable(read_end)
    finally:
        sender.join(BOUND_S)


def test_a_signal_with_a_handler_that_does_not_raise_does_not_end_the_wait(
    pipe: tuple[int, int],
) -> None:
    """A signal that is not a stop (here SIGUSR2 with a counting handler) wakes the wait, which
    goes on until the input comes."""
    read_end, write_end = pipe
    seen: list[int] = []
    previous = signal.signal(signal.SIGUSR2, lambda signum, _frame: seen.append(signum))
    poke = threading.Timer(0.02, os.kill, (os.getpid(), signal.SIGUSR2))
    line = threading.Timer(0.2, os.write, (write_end, b"x\n"))
    try:
        poke.start()
        line.start()
        assert wait_readable(read_end, timeout=BOUND_S) is True
        assert seen == [signal.SIGUSR2]
    finally:
        poke.join(BOUND_S)
        line.join(BOUND_S)
        signal.signal(signal.SIGUSR2, previous)


def test_outside_the_main_thread_it_still_waits_and_returns(pipe: tuple[int, int]) -> None:
    """No wake-up pipe can be set there: the periodic look alone."""
    read_end, write_end = pipe
    os.write(write_end, b"x\n")
    found: list[bool] = []
    worker = threading.Thread(target=lambda: found.append(wait_readable(read_end, BOUND_S)))
    worker.start()
    worker.join(BOUND_S)
    assert found == [True]
