"""What each microsecond of ``arena match``'s per-ply cost over the floor is, for ``bench.py``.

The whole command's us/ply minus the floor's is cut into: start-up (the whole command minus its
marginal cost), bubblewrap (the marginal cost with the default sandbox minus without), and, from
runs in this process pinned to the bots' core with ``sandbox none`` (``profile_ply.py``'s), each
against a floor measured beside them: the record (``Match.play`` with ``to_json`` +
``json.dumps`` minus without), the game lines (the ready check, ``game`` and ``end`` lines, the
stderr drain: ``_ensure_ready``, ``_begin``, ``_finish``), the ahead-of-turn checks (two
``FIONREAD`` ioctls a ply, timed on a pipe), the rest of ``Match.play`` (what is left of its cost
over the floor), and what is left unexplained: the command's marginal cost without a sandbox
over the floor, minus ``Match.play``'s in this process (the command's own loop, the record's
file, a process of its own). The parts add up to the whole command's cost over the floor.
"""

from __future__ import annotations

import array
import fcntl
import os
import termios
import timeit

from floor import measure_floor, pinned
from profile_ply import arena_play, parts_of_play

CHECKS = "the ahead-of-turn checks (2 FIONREAD a ply)"
ROUNDS = 5
INNER = "= in-process Match.play + record over its floor"


def fionread_us() -> float:
    """us for the two ``FIONREAD`` ioctls the referee makes each ply (best of 5)."""
    read_end, write_end = os.pipe()
    try:
        unread = array.array("i", [0])

        def twice() -> None:
            fcntl.ioctl(read_end, termios.FIONREAD, unread)
            fcntl.ioctl(write_end, termios.FIONREAD, unread)

        return min(timeit.repeat(twice, number=20_000, repeat=5)) / 20_000 * 1e6
    finally:
        os.close(read_end)
        os.close(write_end)


def in_process_parts(program: str, games: int, core: int) -> dict[str, float]:
    """us per ply of each in-process part over a floor measured beside them (best of ``ROUNDS``
    interleaved rounds): they add up to ``INNER`` exactly (the rest of the loop balances them)."""
    floors, plain, recorded = [], [], []
    with pinned(core):
        for _ in range(ROUNDS):
            floors.append(measure_floor([program], games, core))
            plain.append(arena_play(program, games, None)[0])
            recorded.append(arena_play(program, games, "to_json")[0])
        parts = parts_of_play(program, games)
    floor, record = min(floors), min(recorded) - min(plain)
    lines = sum(parts.get(name, 0.0) for name in ("_ensure_ready", "_begin", "_finish")) / 36
    checks = fionread_us()
    return {
        "the record (GameRecord.to_json + json.dumps)": record,
        "the game lines (ready check, game/end lines, stderr drain)": lines,
        CHECKS: checks,
        "the rest of Match.play (the turn loop beyond the floor's, GameRecord)": min(recorded)
        - floor
        - record
        - lines
        - checks,
        INNER: min(recorded) - floor,
    }
