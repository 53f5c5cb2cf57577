"""The tournament's progress display: an ETA that means something, right plurals, no empty news.

``ProgressDisplay`` is driven here with a fake clock and real game records, off a terminal (its
plain-line mode), so that each scenario is exact and independent of the machine's load.
"""

from __future__ import annotations

import io
import re
from types import SimpleNamespace

import pytest
from rich.console import Console

from arena.commands.display.progress import ProgressDisplay
from arena.records import GameRecord, Reason
from arena.rules import Role


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def record() -> GameRecord:
    return GameRecord("a", "b", Role.ORDER, Reason.FIVE, moves=["a1X"] * 9)


def display(clock: Clock) -> tuple[ProgressDisplay, io.StringIO]:
    out = io.StringIO()
    return ProgressDisplay(Console(file=out, force_terminal=False), False, clock=clock), out


def etas(text: str) -> list[str]:
    return re.findall(r"eta (\S+)", text)


def test_no_eta_from_the_first_games(capsys: pytest.CaptureFixture[str]) -> None:
    """The first game carries the bots' start-up: no 'eta 1624s' from it."""
    clock = Clock()
    shown, _ = display(clock)
    shown.started(total=1000, already=0, jobs=12)
    clock.now = 20.0
    shown.game(record())
    assert etas(capsys.readouterr().out) == ["-"]


def test_eta_follows_a_slow_last_pairing(capsys: pytest.CaptureFixture[str]) -> None:
    """100 fast games, then one long pairing of 25 slow games (10 s each): once a few slow
    games are in, the ETA speaks of minutes, not of the seconds the fast games suggested."""
    clock = Clock()
    shown, _ = display(clock)
    shown.started(total=125, already=0, jobs=12)
    for _ in range(100):
        clock.now += 0.1
        shown.game(record())
    capsys.readouterr()
    for _ in range(6):
        clock.now += 10.0
        shown.game(record())
    last = etas(capsys.readouterr().out)[-1]
    assert last == "3m10s", last  # 19 games left x 10 s


def test_eta_is_exact_for_a_steady_pace(capsys: pytest.CaptureFixture[str]) -> None:
    clock = Clock()
    shown, _ = display(clock)
    shown.started(total=50, already=0, jobs=4)
    for _ in range(20):
        clock.now += 3.0
        shown.game(record())
    assert etas(capsys.readouterr().out)[-1] == "1m30s"  # 30 games left x 3 s


def test_plurals_and_no_news_of_zero_games(capsys: pytest.CaptureFixture[str]) -> None:
    clock = Clock()
    shown, out = display(clock)
    shown.started(total=1, already=1, jobs=1)
    assert "resuming: 1 of 1 game already played" in out.getvalue()
    shown.bot_changed(SimpleNamespace(name="greedy"), 0)  # after --fresh: nothing set aside
    assert "greedy" not in out.getvalue() + capsys.readouterr().out
    shown.bot_changed(SimpleNamespace(name="greedy"), 1)
    assert "its 1 earlier game is set aside" in out.getvalue()
    shown.bot_changed(SimpleNamespace(name="random"), 4)
    assert "its 4 earlier games are set aside" in out.getvalue()
