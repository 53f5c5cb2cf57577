"""The tournament's progress display: an ETA that means something, right plurals, no empty news.

``ProgressDisplay`` is driven here with a fake clock and real game records, off a terminal (its
plain-line mode), so that each scenario is exact and independent of the machine's load.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console

from arena.botspec import BotSpec
from arena.commands.display.progress import ProgressDisplay
from arena.records import GameRecord, Reason
from arena.rules import Role
from arena.tournament.schedule import GameSlot, MatchJob


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def record(clock: Clock, seconds: float = 1.0, order: str = "a", chaos: str = "b") -> GameRecord:
    """A game of ``order`` and ``chaos`` that ends now after ``seconds``."""
    return GameRecord(
        order,
        chaos,
        Role.ORDER,
        Reason.FIVE,
        moves=["a1X"] * 9,
        started_at=clock.now - seconds,
        finished_at=clock.now,
    )


def match(a: str, b: str, games: int) -> MatchJob:
    """A match of ``games`` games between bots ``a`` and ``b``."""
    slots = tuple(GameSlot(i % 2, i // 2) for i in range(games))
    return MatchJob(f"{a}~{b}#0", bot(a), bot(b), slots, 0)


def bot(name: str) -> BotSpec:
    return BotSpec(name, ("true",), Path("."))


def display(clock: Clock) -> tuple[ProgressDisplay, io.StringIO]:
    out = io.StringIO()
    return ProgressDisplay(Console(file=out, force_terminal=False), False, clock=clock), out


def etas(text: str) -> list[str]:
    return re.findall(r"eta (\S+)", text)


def test_no_eta_from_the_first_games(capsys: pytest.CaptureFixture[str]) -> None:
    """The first game carries the bots' start-up: no 'eta 1624s' from it."""
    clock = Clock()
    shown, _ = display(clock)
    shown.started(total=1000, already=0, jobs=1)
    shown.planned([match("a", "b", 1000)], workers=1)
    clock.now = 20.0
    shown.game(record(clock, 20.0))
    assert etas(capsys.readouterr().out) == ["-"]


def planned(clock: Clock, jobs: list[MatchJob], workers: int) -> ProgressDisplay:
    """A display told of a run of ``jobs`` on ``workers`` workers, none of its games played."""
    shown, _ = display(clock)
    shown.started(total=sum(job.owed for job in jobs), already=0, jobs=len(jobs))
    shown.planned(jobs, workers)
    return shown


def play(shown: ProgressDisplay, clock: Clock, games: int, every: float, pair: str = "ab") -> None:
    """``games`` games of ``pair``'s bots, one ending every ``every`` seconds on one worker."""
    for _ in range(games):
        clock.now += every
        shown.game(record(clock, every, pair[0], pair[1]))


def test_eta_follows_a_slow_last_pairing(capsys: pytest.CaptureFixture[str]) -> None:
    """100 fast games, then one long pairing of 25 slow games (10 s each): once a few slow
    games are in, the ETA speaks of minutes, not of the seconds the fast games suggested."""
    clock = Clock()
    shown = planned(clock, [match("a", "b", 100), match("c", "d", 25)], workers=1)
    play(shown, clock, 100, 0.1)
    capsys.readouterr()
    play(shown, clock, 6, 10.0, "cd")
    last = etas(capsys.readouterr().out)[-1]
    assert last == "3m10s", last  # 19 games left x 10 s


def test_eta_is_exact_for_a_steady_pace(capsys: pytest.CaptureFixture[str]) -> None:
    clock = Clock()
    shown = planned(clock, [match("a", "b", 50)], workers=1)
    play(shown, clock, 20, 3.0)
    assert etas(capsys.readouterr().out)[-1] == "1m30s"  # 30 games left x 3 s


def test_eta_shares_the_games_left_among_the_workers(capsys: pytest.CaptureFixture[str]) -> None:
    """Two workers, each game 6 s: a game ends every 3 s, and 30 games left take 90 s."""
    clock = Clock()
    shown = planned(clock, [match("a", "b", 26), match("c", "d", 24)], workers=2)
    clock.now = 3.0
    for number in range(20):
        clock.now += 3.0
        shown.game(record(clock, 6.0, *("ab" if number % 2 else "cd")))
    assert etas(capsys.readouterr().out)[-1] == "1m30s"  # 30 games left x 6 s / 2 workers


def test_eta_at_the_end_is_the_longest_chunk_one_worker_plays(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Two workers, but what is left is one slow match: it cannot be halved."""
    clock = Clock()
    shown = planned(clock, [match("a", "b", 50), match("c", "d", 10)], workers=2)
    play(shown, clock, 50, 0.1)
    play(shown, clock, 2, 5.0, "cd")
    assert etas(capsys.readouterr().out)[-1] == "40s"  # 8 games x 5 s on one worker


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
