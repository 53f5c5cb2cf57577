"""``arena play``: a person (this test, typing on a real pseudo-terminal) against a real bundled
bot (``bots/random``, copied to the test's folder), in both roles.

At every prompt the test first types a malformed move and a move on an occupied cell, and checks
that each is explained and asked again; then a legal move in some case (``c4x``, ``C4X``...). The
game is played to its end, stored, and read back by ``arena replay``. Quitting (``q``, Ctrl-D,
Ctrl-C) stores nothing and leaves no bot process behind (``no_leftover_processes``).
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from boardtext import assert_frame, cell_name, drawn, fives, position
from conftest import TEST_BOTS_DIR, bundled_program
from ptyrun import PtyRun

from arena.rules import CELLS
from arena.store.database import Store

pytestmark = pytest.mark.usefixtures("no_leftover_processes")

TIMEOUT_S = 120
BOT = "random"

MALFORMED = [
    ("zz", r"'zz' is not a move: a column a-f, a row 1-6 and a mark X or O, e\.g\. c4X"),
    ("g1X", r"'g1X': no column 'g' \(columns are a-f\)"),
    ("a7X", r"'a7X': no row '7' \(rows are 1-6\)"),
    ("a1Z", r"'a1Z': the mark must be X or O, not 'Z'"),
    ("", r"type a move: a column a-f"),
    ("a1XX", r"'a1XX' is not a move"),
    ("é1X", r"is not a move"),
]
"""What a person might mistype, and the start of the explanation."""


@pytest.fixture
def bot(no_leftover_processes: Path) -> Path:
    """The bot's folder (named so after it), a copy of ``bots/random``."""
    folder = no_leftover_processes / BOT
    folder.mkdir()
    shutil.copyfile(bundled_program(BOT), folder / "main.py")
    return folder


def arena(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def start(bot: Path, role: str, *extra: object) -> PtyRun:
    run = PtyRun("play", bot, "--as", role, "--move-ms", 2000, "--sandbox", "none", *extra)
    other = "Chaos" if role == "order" else "Order"
    try:
        run.expect(rf"^You play {role.capitalize()} against {BOT} \({other}, 2000 ms a move\)")
        run.expect(r"^ply 0: the empty board\n")
    except BaseException:
        run.close()
        raise
    return run


PROMPT = r"your move \((?:Order|Chaos), e\.g\. c4X; q quits\): "


@pytest.mark.parametrize("role", ["order", "chaos"])
def test_a_whole_game_with_bad_moves_at_every_prompt_is_stored_and_replayed(
    bot: Path, role: str
) -> None:
    db = bot.parent / "mine" / "games.sqlite"
    me = role.capitalize()
    them = "Chaos" if role == "order" else "Order"
    mistakes = itertools.cycle(MALFORMED)
    cases = itertools.cycle([str.lower, str.upper, lambda t: t[:2] + t[2].lower(), " {} ".format])
    moves: list[str] = []
    prompts = 0
    with start(bot, role, "--db", db) as run:
        while True:
            event = run.expect(
                r"^    a  b  c  d  e  f\n(?:.*\n){6}ply (\d+): (you|\S+) \((\w+)\) played (\w{3})"
                r"(?: in [\d.]+ ms)?\n"
                rf"|^{PROMPT}"
                r"|^(You win|\S+ wins): (.*)\n"
            )
            if event.group(1):  # a move, drawn
                ply, who, mover, token = event.groups()[:4]
                assert int(ply) == len(moves) + 1
                assert (who == "you") is (mover == me) and who in ("you", BOT)
                assert mover == ("Order" if int(ply) % 2 else "Chaos")
                moves.append(token)
                over = position(moves).is_game_over()
                assert_frame(drawn(event.group(0)), moves, final=over)
                continue
            if event.group(5):  # the end
                break
            # A prompt: two mistakes, each explained and asked again, then a legal move.
            prompts += 1
            typed, why = next(mistakes)
            run.sendline(typed)
            run.expect(rf"^  {why}.*\n{PROMPT}")
            if moves:
                taken = moves[0][:2]
                run.sendline(taken + "O")
                mark = position(moves).board_string()[_cell(taken)]
                run.expect(
                    rf"^  {taken} is taken \(it holds {mark}\): choose an empty cell\n{PROMPT}"
                )
            board = position(moves).board_string()
            cell = board.index(".") if role == "chaos" else _orders_choice(moves)
            mark = "O" if role == "chaos" else "X"
            run.sendline(next(cases)(cell_name(cell) + mark))
        winner_text, how = event.group(5), event.group(6)
        stored = run.expect(r"^stored as game (\d+) in (.*): arena replay \2 \1\n")
        assert run.wait() == 0
    number = int(stored.group(1))

    final = position(moves)
    assert final.is_game_over() and prompts >= 1
    if final.has_five():
        assert how == "five in a line " + " ".join(sorted(fives(final), key=_cell))
        assert winner_text == ("You win" if role == "order" else f"{BOT} wins")
    else:
        assert len(moves) == CELLS and how == "full board"
        assert winner_text == ("You win" if role == "chaos" else f"{BOT} wins")
    last_frame = run.text().rsplit("    a  b  c  d  e  f", 1)[1]
    assert_frame(drawn("    a  b  c  d  e  f" + last_frame), moves, final=True)

    with Store.open(db, readonly=True) as store:
        record = store.game(number)
        assert store.count_games(include_inactive=True) == 1
    assert record is not None and record.moves == moves
    assert getattr(record, role) == "human" and getattr(record, them.lower()) == BOT
    listing = arena("replay", db)
    assert listing.returncode == 0, listing.stderr
    row = listing.stdout.splitlines()[1].split()
    order, chaos = ("human", BOT) if role == "order" else (BOT, "human")
    assert row[:3] == [str(number), order, chaos] and row[-1] == str(len(moves))
    shown = arena("replay", db, number)
    assert shown.returncode == 0, shown.stderr
    assert f"game {number}: {order} (Order) vs {chaos} (Chaos)" in shown.stdout
    assert_frame(drawn(shown.stdout), moves, final=True)
    assert "moves: " + " ".join(moves) in shown.stdout


def _cell(name: str) -> int:
    return "abcdef".index(name[0].lower()) + 6 * (int(name[1]) - 1)


def _orders_choice(moves: list[str]) -> int:
    """Order's cell: the first empty one of the first row that Chaos has not spoiled (X only)."""
    board = position(moves).board_string()
    for row in range(6):
        cells = board[6 * row : 6 * row + 6]
        if "O" not in cells[:5] and "." in cells:
            return 6 * row + cells.index(".")
    return board.index(".")


@pytest.mark.parametrize(
    ("key", "why", "code"),
    [("q\n", "you quit", 0), ("quit\n", "you quit", 0), ("\x04", "end of input", 1)],
)
def test_leaving_stores_nothing_and_stops_the_bot(bot: Path, key: str, why: str, code: int) -> None:
    db = bot.parent / "games.sqlite"
    with start(bot, "order", "--db", db) as run:
        run.expect(PROMPT)
        run.sendline("c4x")
        run.expect(r"^ply 1: you \(Order\) played c4X\n")
        run.expect(rf"^ply 2: {BOT} \(Chaos\) played \w{{3}} in [\d.]+ ms\n")
        run.expect(PROMPT)
        run.send(key)
        run.expect(rf"^game abandoned \({why}\): not stored\n")
        assert run.wait() == code
    assert not db.exists()  # nothing stored: no empty store left behind either


def test_leaving_keeps_a_store_that_was_there(bot: Path) -> None:
    db = bot.parent / "games.sqlite"
    Store.open(db).close()
    with start(bot, "chaos", "--db", db) as run:
        run.expect(PROMPT)
        run.sendline("q")
        assert run.wait() == 0
    with Store.open(db, readonly=True) as store:
        assert store.count_games(include_inactive=True) == 0


@pytest.mark.parametrize(
    ("stop", "name"),
    [
        (lambda run: run.send(b"\x03"), "SIGINT"),  # Ctrl-C, typed
        (lambda run: os.killpg(run.proc.pid, signal.SIGTERM), "SIGTERM"),
        (lambda run: os.killpg(run.proc.pid, signal.SIGHUP), "SIGHUP"),  # the terminal closed
    ],
)
def test_an_interrupt_abandons_the_game_and_stops_the_bot(
    bot: Path, stop: Callable[[PtyRun], None], name: str
) -> None:
    """Ctrl-C, SIGTERM or SIGHUP at a prompt: one line, nothing stored, exit 128 + the signal;
    the bot stopped and its folder removed (checked after every test)."""
    db = bot.parent / "games.sqlite"
    with start(bot, "chaos", "--db", db) as run:
        run.expect(PROMPT)
        stop(run)
        run.expect(rf"^game abandoned \(interrupted by {name}\): not stored\n")
        assert run.wait() == 128 + signal.Signals[name].value, run.text()
    assert "Traceback" not in run.text()
    assert not db.exists()


def test_a_killed_play_leaves_neither_bot_nor_folder(bot: Path) -> None:
    """SIGKILL gives ``arena play`` no chance to clean up: its guardian stops the bot and removes
    the bot's folder (and, as root, unmounts its /tmp), as for ``arena match``. Both are checked
    after every test."""
    with start(bot, "chaos") as run:
        run.expect(PROMPT)
        os.kill(run.proc.pid, signal.SIGKILL)
        assert run.wait() == -signal.SIGKILL


def test_bad_arguments_give_one_line(bot: Path) -> None:
    for args, why in [
        (("no_such_bot", "--as", "order"), "no bot file 'no_such_bot'"),
        ((bot, "--as", "order", "--db", bot), "is a directory, not a store file"),
        ((bot, "--as", "order", "--db", bot / "main.py"), "not an arena store"),
    ]:
        result = arena("play", *args)
        assert result.returncode == 2, result.stdout
        assert "Traceback" not in result.stderr and why in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert "your move" not in result.stdout  # refused before the game
    assert re.search(r"Missing option.*--as", arena("play", bot).stderr.replace("\n", " "))


def test_a_bot_that_crashes_loses_and_the_game_is_stored(no_leftover_processes: Path) -> None:
    """The bot is judged as in a tournament: its crash is its loss, said with what it wrote."""
    folder = no_leftover_processes / "crashy"
    folder.mkdir()
    shutil.copyfile(TEST_BOTS_DIR / "crash_midgame.py", folder / "main.py")
    db = no_leftover_processes / "games.sqlite"
    args = ("play", folder, "--as", "chaos", "--move-ms", 2000, "--sandbox", "none", "--db", db)
    with PtyRun(*args) as run:
        while True:
            event = run.expect(rf"^{PROMPT}|^You win: (.*)\n")
            if event.group(1):
                break
            cells = drawn(run.text())
            run.sendline(next(name for name, text in cells.items() if text == " . ") + "o")
        assert event.group(1).startswith("crashy lost by crash: exited with code 1; last on")
        stored = run.expect(r"^stored as game (\d+) in ")
        assert run.wait() == 0
    shown = arena("replay", db, stored.group(1))
    assert shown.returncode == 0, shown.stderr
    assert "Chaos wins: crashy (Order) lost by crash: exited with code 1" in shown.stdout


def test_a_bot_that_cannot_start_is_said_and_nothing_is_stored(
    no_leftover_processes: Path,
) -> None:
    """No game was played: the reason, with what the bot wrote, and no store (not a person's
    win by forfeit)."""
    folder = no_leftover_processes / "dud"
    folder.mkdir()
    shutil.copyfile(TEST_BOTS_DIR / "crash_at_start.py", folder / "main.py")
    db = no_leftover_processes / "games.sqlite"
    result = arena("play", folder, "--as", "order", "--sandbox", "none", "--db", db)
    assert result.returncode == 1, result.stderr
    assert re.search(r"^dud could not start: .+; nothing stored$", result.stderr, re.M), result
    assert "Traceback (most recent call last)" not in result.stderr.split("could not start")[0]
    assert not db.exists()


@pytest.mark.parametrize("no_color", [True, False])
def test_no_color_turns_the_styles_off(bot: Path, no_color: bool) -> None:
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    if no_color:
        env["NO_COLOR"] = "1"
    with PtyRun("play", bot, "--as", "chaos", "--sandbox", "none", env=env) as run:
        run.expect(rf"^ply 1: {BOT} \(Order\) played")
        run.expect(PROMPT)
        run.sendline("q")
        assert run.wait() == 0
    assert (re.search(rb"\x1b\[[0-9;]*m", run.output) is None) is no_color, run.output[:300]
