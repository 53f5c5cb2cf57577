"""Tests of ``arena.bot`` and the bundled bots, in-process and over real pipes.

Why: the bundled bots are the first thing a user runs and the model bot authors copy, and the
protocol helper is shared by every Python bot; a slip there (a missing flush, a stray line, a hang
at end of input) would look like a harness bug. The pipe tests use a tiny harness written here,
independent of ``arena.launch.process``/``arena.referee.match``, bounded by deadlines everywhere:
every read goes through ``select`` with a timeout and every process is killed at the end. Only the
last tests play a real match, to show what a bug in ``choose`` looks like to the user.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest.mock import ANY

import pytest
from conftest import FIXTURE_BOTS, REPO_ROOT, TEST_BOTS_DIR

from arena.bot import BotState, Chooser, make_rng, run, seed_from_env
from arena.botspec import BotSpec
from arena.limits import SandboxMode, TimeControl
from arena.records import Reason
from arena.referee.match import MatchSettings, play_match
from arena.rules import Board, Mark, Move, Role

ROOT = REPO_ROOT
BOTS = ROOT / "bots"
FIXTURES = TEST_BOTS_DIR
SH = shutil.which("dash") or "/bin/sh"

READ_TIMEOUT = 10.0  # generous: a loaded CI machine may be slow to start Python
MOVE_MS = 2000


# --- a tiny harness ------------------------------------------------------------------------------
class Bot:
    """One bot process with pipes; every read has a deadline, so a test can never hang."""

    def __init__(self, argv: list[str], seed: int = 1) -> None:
        env = dict(os.environ, ARENA_SEED=str(seed))
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the bot
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            cwd=ROOT,
            env=env,
            start_new_session=True,  # its own process group, killed as a whole in close()
        )
        self.buffer = b""
        self.argv = argv

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode("ascii") + b"\n")
        self.proc.stdin.flush()

    def read_line(self, timeout: float = READ_TIMEOUT) -> str:
        """The next line the bot writes (without \\n or \\r\\n), within ``timeout`` seconds."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{self.argv}: no line within {timeout}s; {self.tail()}")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise AssertionError(f"{self.argv}: end of output; {self.tail()}")
                self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.rstrip(b"\r").decode("ascii", "replace")

    def assert_silent(self, wait: float = 0.05) -> None:
        """Nothing more was written (a line when no reply is due is a fault)."""
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout.fileno()], [], [], wait)
        extra = os.read(self.proc.stdout.fileno(), 65536) if ready else b""
        assert self.buffer + extra == b"", f"{self.argv} wrote unasked: {self.buffer + extra!r}"

    def wait_exit(self, timeout: float = READ_TIMEOUT) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"{self.argv} did not exit; {self.tail()}") from None

    def tail(self) -> str:
        self.stderr.seek(0)
        return "stderr: " + self.stderr.read()[-2000:].decode("utf-8", "replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(READ_TIMEOUT)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self.stderr.close()


def python_bot(name: str) -> list[str]:
    return [sys.executable, str(BOTS / name / "main.py")]


COMMANDS = {
    "random": python_bot("random"),
    "greedy": python_bot("greedy"),
    "shell": [SH, str(BOTS / "shell" / "main")],
}


def start(argv: list[str], seed: int = 1) -> Bot:
    bot = Bot(argv, seed)
    bot.send("arena 1")
    first = bot.read_line()
    while first.startswith("want "):  # an extension asked for before `ready`
        first = bot.read_line()
    assert first == "ready" or first.startswith("ready "), f"{argv} said {first!r} first"
    return bot


def play_game(order: Bot, chaos: Bot) -> Board:
    """One full game over the pipes; every reply must be a legal move, sent only when asked."""
    order.send("game order")
    chaos.send("game chaos")
    board = Board()
    last = "-"
    while not board.is_game_over():
        mover = order if board.turn is Role.ORDER else chaos
        mover.send(f"turn {board.board_string()} {last} {MOVE_MS}")
        reply = mover.read_line()
        move = Move.parse(reply)  # raises for anything that is not a move
        assert board.is_legal(move), f"illegal {reply} in\n{board}"
        board.push(move)
        last = move.token
        mover.assert_silent(0)
    outcome = board.outcome
    assert outcome is not None
    for bot, role in ((order, Role.ORDER), (chaos, Role.CHAOS)):
        bot.send(f"end {'win' if outcome.winner is role else 'loss'} {outcome.reason}")
    return board


@pytest.fixture
def bots() -> Iterator[list[Bot]]:
    """A list to put started bots in; all are killed at the end of the test, whatever happens."""
    started: list[Bot] = []
    yield started
    for bot in started:
        bot.close()


# --- the bundled bots over pipes -----------------------------------------------------------------
@pytest.mark.parametrize(
    "first,second", [("random", "greedy"), ("greedy", "shell"), ("shell", "random")]
)
def test_two_bundled_bots_play_full_games_in_both_roles(
    bots: list[Bot], first: str, second: str
) -> None:
    a = start(COMMANDS[first], seed=3)
    bots.append(a)
    b = start(COMMANDS[second], seed=4)
    bots.append(b)
    play_game(a, b)
    play_game(b, a)  # same processes, roles swapped: one process plays many games
    for bot in (a, b):
        bot.assert_silent()
        bot.send("quit")
        assert bot.wait_exit() == 0, bot.tail()


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_bundled_bots_exit_at_end_of_input(bots: list[Bot], name: str) -> None:
    bot = start(COMMANDS[name])
    bots.append(bot)
    assert bot.proc.stdin is not None
    bot.proc.stdin.close()
    assert bot.wait_exit() == 0, bot.tail()


def test_shell_bot_runs_by_its_shebang_and_accepts_crlf(bots: list[Bot]) -> None:
    path = BOTS / "shell" / "main"
    assert os.access(path, os.X_OK), "bots/shell/main must be executable"
    assert path.read_text().startswith("#!/bin/sh\n")
    bot = start([str(path)])
    bots.append(bot)
    assert bot.proc.stdin is not None
    bot.proc.stdin.write(b"game chaos\r\nturn ..X................................. c1X 100\r\n")
    bot.proc.stdin.flush()
    assert bot.read_line() == "a1O"  # first empty cell, the opposite of the opponent's mark


def test_a_game_replays_exactly_with_the_same_arena_seed(bots: list[Bot]) -> None:
    def game() -> list[Move]:
        order = start(COMMANDS["random"], seed=42)
        chaos = start(COMMANDS["greedy"], seed=43)
        bots.extend((order, chaos))
        return play_game(order, chaos).history

    assert game() == game()


@pytest.mark.parametrize("name", ["random", "greedy", "heuristic", "alphabeta", "mcts", "perfect"])
def test_bots_run_from_a_clone_without_arena_installed(bots: list[Bot], name: str) -> None:
    # -S: no site-packages, so the editable install is invisible; the bot finds ../arena itself.
    bot = start([sys.executable, "-S", str(BOTS / name / "main.py")])
    bots.append(bot)
    bot.send("game order")
    bot.send(f"turn {'.' * 36} - 100")
    assert Move.parse(bot.read_line())


# --- greedy strength, in process -----------------------------------------------------------------
def load_bot(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bundled_{name}", BOTS / name / "main.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_greedy_beats_random_clearly_in_both_roles() -> None:
    greedy = load_bot("greedy").greedy_move
    rng = random.Random(2024)

    def order_wins(order_is_greedy: bool, games: int = 60) -> int:
        wins = 0
        for _ in range(games):
            board = Board()
            while not board.is_game_over():
                if (board.turn is Role.ORDER) == order_is_greedy:
                    board.push(greedy(board, board.turn, rng))
                else:
                    board.push(rng.choice(board.legal_moves()))
            wins += board.outcome is not None and board.outcome.winner is Role.ORDER
        return wins

    assert order_wins(True) >= 55  # greedy Order vs random Chaos (random-random: about 78 %)
    assert order_wins(False) <= 5  # random Order vs greedy Chaos


def test_greedy_completes_a_five_and_chaos_blocks_it() -> None:
    greedy = load_bot("greedy").greedy_move
    board = Board.from_string("OOOO.." + "X....." + "X....." + "......" * 3)
    rng = random.Random(0)
    assert greedy(board, Role.ORDER, rng) == Move.parse("e1O")
    block = greedy(board, Role.CHAOS, rng)
    assert block == Move.parse("e1X")  # the only cell that stops a five next move


# --- arena.bot in process ------------------------------------------------------------------------
def drive(lines: list[str], choose: Chooser, **kwargs: Any) -> list[str]:
    """Run ``arena.bot.run`` on the given input lines and return its output lines."""
    out = io.BytesIO()
    data = "".join(line + "\n" for line in lines).encode()
    run(choose, stdin=io.BytesIO(data), stdout=out, rng=random.Random(5), **kwargs)
    return out.getvalue().decode().splitlines()


EMPTY = "." * 36


def test_run_handshake_turns_hooks_and_quit() -> None:
    seen: list[BotState] = []
    events: list[object] = []

    def choose(state: BotState) -> Move:
        seen.append(state)
        return next(m for m in state.board.legal_moves() if m.mark is Mark.O)

    out = drive(
        [
            "arena 1",
            "game chaos",
            f"turn X{EMPTY[1:]} a1X 250",
            "end loss five",
            "game order",
            f"turn {EMPTY} - 100",
            "end win full",
            "quit",
            f"turn {EMPTY} - 100",  # after quit: never read
        ],
        choose,
        name="  my   bot ",
        on_game=lambda role: events.append(role),
        on_end=lambda won, reason: events.append((won, reason)),
    )
    assert out == ["ready my bot", "b1O", "a1O"]
    assert events == [Role.CHAOS, (False, "five"), Role.ORDER, (True, "full")]
    first, second = seen
    assert (first.role, first.last, first.ms, first.game) == (Role.CHAOS, Move(0, Mark.X), 250, 1)
    assert (second.role, second.last, second.ms, second.game) == (Role.ORDER, None, 100, 2)
    assert 0 < first.remaining() <= 0.25
    assert first.board.board_string() == "X" + EMPTY[1:]


def test_after_match_run_plays_as_a_process_started_with_its_seed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A process kept for another match is told ``match <seed>``: ``run`` asks for the line,
    then reseeds its generator, restarts its game count and calls ``on_match``, so that the bot
    plays on exactly as a process started afresh with ``ARENA_SEED=<seed>``."""
    game = ["game order", f"turn {EMPTY} - 100", "end win full"]

    def play(env_seed: int, lines: list[str]) -> tuple[list[str], list[tuple[int, int]]]:
        monkeypatch.setenv("ARENA_SEED", str(env_seed))
        drawn: list[tuple[int, int]] = []  # (game, draw) of each turn

        def choose(state: BotState) -> Move:
            drawn.append((state.game, state.rng.getrandbits(64)))
            return state.rng.choice(state.board.legal_moves())

        def told(seed: int) -> None:
            drawn.append((-1, seed))

        out = io.BytesIO()
        data = "".join(line + "\n" for line in lines).encode()
        run(choose, stdin=io.BytesIO(data), stdout=out, on_match=told)
        return out.getvalue().decode().splitlines(), drawn

    fresh, fresh_drawn = play(42, ["arena 1", "match 42", *game, *game])
    kept, kept_drawn = play(7, ["arena 1", "match 7", *game, "match 42", *game, *game])
    assert fresh[0] == kept[0] == "want match" and fresh[1] == "ready"
    assert kept[-2:] == fresh[-2:]  # the moves after `match 42`
    assert kept_drawn[-3:] == fresh_drawn == [(-1, 42), (1, fresh_drawn[1][1]), (2, ANY)]
    assert os.environ["ARENA_SEED"] == "42"  # as a fresh process's, for code that reads it


def test_run_asks_for_match_only_when_it_can_keep_the_promise() -> None:
    assert drive(["arena 1"], lambda s: "a1X") == ["ready"]  # a generator of the caller's own
    asked = drive(["arena 1"], lambda s: "a1X", on_match=lambda seed: None)
    assert asked == ["want match", "ready"]  # ... which on_match reseeds
    assert drive(["arena 1"], lambda s: "a1X", on_match=print, reuse=False) == ["ready"]


def test_run_without_a_name_says_plain_ready_and_stops_at_end_of_input() -> None:
    assert drive(["arena 1"], lambda s: "a1X") == ["ready"]
    assert drive([], lambda s: "a1X") == []


def test_run_accepts_tokens_in_either_case_with_spaces() -> None:
    assert drive([f"turn X{EMPTY[1:]} a1X 100"], lambda s: " c4o ") == ["c4O"]


@pytest.mark.parametrize(
    ("result", "sent"),
    [("a1X", "a1X"), ("hello  world", "hello world"), (None, "None"), (Move(0, Mark.O), "a1O")],
)
def test_a_result_that_is_not_a_legal_move_is_sent_as_it_is(
    result: object, sent: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """No random move instead: the harness records the fault, and stderr says what happened."""
    assert drive([f"turn X{EMPTY[1:]} a1X 100"], lambda s: result) == [sent]
    assert "not a legal move" in capsys.readouterr().err


def test_an_exception_in_choose_propagates_after_a_line_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def broken(state: BotState) -> Move:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        drive(["arena 1", "game order", f"turn {EMPTY} - 100"], broken)
    assert "choose raised on a turn of game 1" in capsys.readouterr().err


def test_stray_prints_go_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    def chatty(state: BotState) -> str:
        print("thinking...")
        return "f6X"

    assert drive([f"turn {EMPTY} - 100"], chatty) == ["f6X"]
    assert "thinking..." in capsys.readouterr().err


def test_run_is_cheap_per_turn() -> None:
    turns = 3000
    lines = ["arena 1", "game order"] + [f"turn {'XO' * 10}{EMPTY[20:]} a1X 100"] * turns
    move = Move(20, Mark.X)
    begin = time.perf_counter()
    out = drive(lines, lambda s: move)
    per_turn = (time.perf_counter() - begin) / turns
    assert len(out) == turns + 1
    assert per_turn < 300e-6, f"{per_turn * 1e6:.0f} us per turn"  # about 15 us on a laptop


def test_seed_comes_from_arena_seed() -> None:
    assert seed_from_env({"ARENA_SEED": " 17 "}) == 17
    assert seed_from_env({"ARENA_SEED": "x"}) is None
    assert seed_from_env({}) is None
    a, b = make_rng({"ARENA_SEED": "9"}), make_rng({"ARENA_SEED": "9"})
    assert [a.random() for _ in range(3)] == [b.random() for _ in range(3)]


# --- the fault fixtures are what they claim ------------------------------------------------------


@pytest.mark.parametrize("path", FIXTURE_BOTS, ids=lambda path: path.stem)
def test_fixture_bots_are_documented_stdlib_scripts(path: Path) -> None:
    """Each fixture says why it exists, and runs anywhere: the standard library, and at most the
    bot author's kit (``arena.bot``, mounted in the sandbox)."""
    name = path.stem
    tree = ast.parse(path.read_text())
    assert ast.get_docstring(tree), f"{name}.py needs a docstring saying what it does"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
            )
            for module in modules:
                allowed = module in ("arena.bot", "arena.rules")
                assert allowed or module.split(".")[0] in sys.stdlib_module_names, (name, module)


@pytest.mark.parametrize("name", ["instant", "crlf", "flood_stderr"])
def test_correct_fixture_bots_play_a_full_game(bots: list[Bot], name: str) -> None:
    fixture = start([sys.executable, str(FIXTURES / f"{name}.py")])
    bots.append(fixture)
    other = start(COMMANDS["shell"])
    bots.append(other)
    play_game(fixture, other)
    play_game(other, fixture)
    fixture.send("quit")
    assert fixture.wait_exit() == 0


def test_the_transcript_in_the_protocol_doc_is_a_real_game() -> None:
    """docs/protocol.md shows both bots' views of one game; they must agree with the rules."""
    text = (ROOT / "docs" / "protocol.md").read_text()
    blocks = [b.split("```", 1)[0] for b in text.split("```text\n")[1:]]
    views = {Role.ORDER: blocks[0].splitlines(), Role.CHAOS: blocks[1].splitlines()}
    for role, lines in views.items():
        assert lines[:3] == ["> arena 1", lines[1], f"> game {role.value}"]
        assert lines[1].startswith("< ready")
        assert lines[-1] == "> quit"
        del lines[:3]
    board = Board()
    last = "-"
    while not board.is_game_over():
        lines = views[board.turn]
        turn, reply = lines.pop(0), lines.pop(0)
        assert turn == f"> turn {board.board_string()} {last} 100"
        move = Move.parse(reply.removeprefix("< "))
        board.push(move)
        last = move.token
    assert views[Role.ORDER] == ["> end win five", "> quit"]
    assert views[Role.CHAOS] == ["> end loss five", "> quit"]
    assert str(board) + "\n" == blocks[2]


# --- a bug in choose() is a crash, in a real match ----------------------------------------------
def test_an_exception_in_choose_loses_by_crash_naming_it(tmp_path: Path) -> None:
    """Via ``Match``: the kit bot crashes on its 2nd turn of each game, and the record says why."""
    shutil.copy(FIXTURES / "raises_in_choose.py", tmp_path)
    bot = BotSpec.from_path(tmp_path / "raises_in_choose.py")
    opponent = BotSpec.from_path(FIXTURES / "instant.py")
    settings = MatchSettings(TimeControl(move_ms=2000), sandbox=SandboxMode.NONE)
    records = play_match(bot, opponent, 2, settings)
    for record in records:
        assert record.loser_name == "raises_in_choose", record.to_json()
        assert record.reason is Reason.CRASH
        assert "ValueError: no idea what to play here" in record.detail, record.detail
        assert len(record.moves) == (2 if record.order == bot.name else 3)
        tail = record.stderr_order if record.order == bot.name else record.stderr_chaos
        assert "Traceback" in tail and "choose raised" in tail


def test_an_exception_in_choose_shows_in_arena_match(tmp_path: Path) -> None:
    """Via ``arena match``: the summary lists the crash with the exception, not "no faults"."""
    shutil.copy(FIXTURES / "raises_in_choose.py", tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "arena", "match", str(tmp_path / "raises_in_choose.py"), "random"]
        + ["--games", "2", "--move-ms", "2000", "--sandbox", "none"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    assert "faults (2)" in result.stdout, result.stdout
    assert result.stdout.count("raises_in_choose lost by crash") == 2, result.stdout
    assert "ValueError: no idea what to play here" in result.stdout
