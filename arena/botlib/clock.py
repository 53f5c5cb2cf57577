"""How much of a move's time a bundled bot spends: a work budget, and a deadline as a guard.

Why both: a bot must be deterministic given ``ARENA_SEED``, so it stops on a *work* budget
(nodes, playouts) proportional to the move time, which gives the same game on any machine that
is fast enough; and it must never lose on time, so it also stops at a *deadline*, a fixed share of
the move time, whatever the load (only then does its play depend on the machine's speed).
"""

from __future__ import annotations

import time

GUARD_SHARE = 0.4
"""The share of ``<ms>`` after which a bot stops thinking, whatever its work budget says."""
MARGIN_S = 0.02
"""Kept free at the end of every move: reading the position, writing the reply, the pipe, and
the scheduler of a loaded machine."""


def guard_deadline(deadline: float, ms: int, share: float = GUARD_SHARE) -> float:
    """A ``time.monotonic`` value to stop thinking at: ``share`` of the move's ``ms`` from its
    start (``deadline - ms``), and never later than ``MARGIN_S`` before ``deadline``."""
    start = deadline - ms / 1000.0
    stop = min(start + share * ms / 1000.0, deadline - MARGIN_S)
    return max(stop, min(time.monotonic(), deadline))
