"""Pinning a match to a core: the plan, and bots inheriting the pin."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.tournament.affinity import current_cpu, plan_cores, usable_cores

BOT = """
import os, sys
sys.stderr.write("affinity=%s\\n" % sorted(os.sched_getaffinity(0)))
sys.stderr.flush()
for line in sys.stdin:
    if line.startswith("arena"):
        print("ready", flush=True)
    elif line.startswith("turn"):
        cell = line.split()[1].index(".")
        print("%s%dX" % ("abcdef"[cell % 6], cell // 6 + 1), flush=True)
    elif line.startswith("quit"):
        break
"""


def test_plan() -> None:
    cores = usable_cores()
    assert plan_cores(3, "off") == [None] * 3
    assert plan_cores(len(cores) + 1, "auto") == [None] * (len(cores) + 1)
    many = plan_cores(len(cores) + 1, "on")
    assert set(many) == set(cores)
    spread = plan_cores(len(cores), "auto")
    assert sorted(spread) == cores  # one core each


@pytest.mark.skipif(current_cpu() is None, reason="/proc does not say which core runs us")
def test_a_lone_match_stays_on_the_core_it_runs_on() -> None:
    # Pinned for the test, this process cannot move between the plan and the check.
    cores = usable_cores()
    try:
        for core in (cores[0], cores[-1]):
            os.sched_setaffinity(0, {core})
            assert plan_cores(1, "auto") == [core] == [current_cpu()]
    finally:
        os.sched_setaffinity(0, set(cores))


@pytest.mark.skipif(len(usable_cores()) < 2, reason="needs two cores to tell a pin from none")
def test_a_match_pins_its_bots_to_the_referees_core(tmp_path: Path) -> None:
    bot = tmp_path / "where.py"
    bot.write_text(BOT)
    record = tmp_path / "games.jsonl"
    result = subprocess.run(
        [sys.executable, "-m", "arena", "match", str(bot), str(bot), "--games", "1",
         "--sandbox", "none", "--affinity", "on", "--record", str(record), "--quiet"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    import json

    game = json.loads(record.read_text().splitlines()[0])
    lines = [
        line for text in (game["stderr_order"], game["stderr_chaos"]) for line in text.splitlines()
    ]
    pins = {line for line in lines if line.startswith("affinity=")}
    assert len(pins) == 1, lines  # both bots on the same single core
    assert pins.pop().count(",") == 0
    assert os.sched_getaffinity(0) == set(usable_cores())  # this process was not touched
