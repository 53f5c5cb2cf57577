"""``arena replay`` on a store made by real tournaments: the list and its filters, the viewer on a
real pseudo-terminal (keys, what each frame draws), ``--play``, ``--ply`` and plain text off a
terminal, ``NO_COLOR``, bad arguments; and the game numbers shared with ``arena faults`` and
``arena report``.

The store is played twice (module fixture): a round robin of crashy (crashes midgame), greedy and
random; then crashy's program changes and the same config runs again, so that crashy's old games
are set aside. Its new games then sit after the others in the store: a command that numbered the
games it counts from 1 would print numbers that open other games in ``arena replay``.

What a frame draws is read back from the screen (``boardtext.drawn``) and checked against the
position the rules engine reaches with the stored moves, not against ``arena.boardview``'s output.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import termios
from collections.abc import Callable
from pathlib import Path

import pytest
from boardtext import assert_frame, drawn, fives, position
from conftest import TEST_BOTS_DIR, bundled_program
from ptyrun import PtyRun

from arena.commands.replay import Key, cut_short, read_input, read_keys
from arena.records import GameRecord
from arena.store.database import Store

pytestmark = pytest.mark.usefixtures("no_leftover_processes")

TIMEOUT_S = 120
SGR = re.compile(rb"\x1b\[[0-9;]*m")
"""A colour/style escape sequence."""
SLOW_PLAY = ("--play", "--delay-ms", "600000")
"""An animation that stays on its first frame for the whole test."""

TOOK = r"(?: in [\d.]+ ms)?"
"""How long a bot's move took, after it on the line under the board (not after the opening's)."""


def arena(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        stdin=subprocess.DEVNULL,
        env=env,
        check=False,
    )


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("replay")


@pytest.fixture(scope="module")
def store(folder: Path) -> Path:
    """Two runs of one config; crashy changed between them (its first games set aside)."""
    for name in ("greedy", "random"):
        (folder / name).mkdir()
        shutil.copyfile(bundled_program(name), folder / name / "main.py")
    (folder / "crashy").mkdir()
    shutil.copyfile(TEST_BOTS_DIR / "crash_midgame.py", folder / "crashy" / "main.py")
    db = folder / "results" / "t.sqlite"
    (folder / "t.yaml").write_text(
        "name: replay-test\n"
        "bots:\n"
        "  - {name: crashy, path: crashy/main.py}\n"
        "  - {name: greedy, path: greedy/main.py}\n"
        "  - {name: random, path: random/main.py}\n"
        "games_per_pairing: 2\n"
        "time_control: {move_ms: 500, startup_ms: 5000}\n"
        "workers: 1\n"
        "sandbox: none\n"
        "seed: 3\n"
        f"db: {db}\n"
    )
    first = arena("tournament", folder / "t.yaml", "--quiet")
    assert first.returncode == 0, first.stderr
    with (folder / "crashy" / "main.py").open("a") as f:
        f.write("# version 2\n")
    second = arena("tournament", folder / "t.yaml", "--quiet")
    assert second.returncode == 0, second.stderr
    return db


@pytest.fixture(scope="module")
def games(store: Path) -> dict[int, GameRecord]:
    """Every stored game by its number, read straight from the store."""
    with Store.open(store, readonly=True) as s:
        return dict(s.numbered_games(include_inactive=True))


def first_game(games: dict[int, GameRecord], test: Callable[[GameRecord], bool]) -> int:
    return next(n for n, r in games.items() if test(r))


# --- the list --------------------------------------------------------------------------------
def listed(*args: object) -> list[int]:
    result = arena("replay", *args)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["game", "order", "chaos"], result.stdout
    return [int(m.group(1)) for line in lines[1:] if (m := re.match(r"\s*(\d+)  ", line))]


def test_the_list_shows_every_game_and_each_filter_keeps_the_right_ones(
    store: Path, games: dict[int, GameRecord]
) -> None:
    def want(test: Callable[[GameRecord], bool]) -> list[int]:
        numbers = sorted(n for n, r in games.items() if test(r))
        assert numbers, "a filter that keeps nothing would not test much"
        return numbers

    assert listed(store) == sorted(games) and len(games) == 20
    assert listed(store, "--bot", "greedy") == want(lambda r: "greedy" in (r.order, r.chaos))
    assert listed(store, "--bot", "greedy", "--as", "chaos") == want(lambda r: r.chaos == "greedy")
    assert listed(store, "--bot", "crashy", "--as", "order") == want(lambda r: r.order == "crashy")
    for reason in ("five", "full", "crash"):
        wanted = want(lambda r, reason=reason: r.reason.value == reason)
        assert listed(store, "--reason", reason) == wanted
    assert listed(store, "--winner", "chaos") == want(lambda r: r.winner.value == "chaos")
    assert listed(store, "--winner", "Order") == want(lambda r: r.winner.value == "order")
    assert listed(store, "--winner", "greedy") == want(lambda r: r.winner_name == "greedy")
    assert listed(store, "--min-plies", 30) == want(lambda r: len(r.moves) >= 30)
    assert listed(store, "--bot", "random", "--reason", "five", "--winner", "order") == want(
        lambda r: "random" in (r.order, r.chaos) and r.reason.value == "five"
    )
    full = arena("replay", store, "--reason", "full").stdout.splitlines()
    assert full[-1] == f"{len(full) - 2} of 20 games; see one with: arena replay DB GAME"
    assert all(line.split()[3:6] == ["chaos", "full", "36"] for line in full[1:-1]), full
    nothing = arena("replay", store, "--bot", "crashy", "--reason", "full")
    assert nothing.returncode == 0 and nothing.stdout == "No games match (the store holds 20).\n"


# --- the viewer on a terminal ----------------------------------------------------------------
def step(run: PtyRun, key: bytes, ply: int, total: int) -> dict[str, str]:
    run.send(key)
    run.expect(rf"^ply {ply}/{total}: .*\n.*keys:")
    return drawn(run.screen())


def test_the_viewer_steps_with_the_keys_and_draws_each_position(
    store: Path, games: dict[int, GameRecord]
) -> None:
    number = first_game(games, lambda r: r.reason.value == "five")
    record = games[number]
    moves, n = record.moves, len(record.moves)
    with PtyRun("replay", store, number) as run:
        run.expect(rf"^game {number}: {record.order} \(Order\) vs {record.chaos} \(Chaos\)")
        found = run.expect(
            rf"^ply {n}/{n}: Order played {moves[-1]}{TOOK}; Order wins: five in a line (.*)"
        )
        assert set(found.group(1).split()) == fives(position(moves))
        run.expect("keys: <- -> step, Home/End first/last, q quit")
        assert_frame(drawn(run.screen()), moves, final=True)

        assert_frame(step(run, b"\x1b[D", n - 1, n), moves[:-1], final=False)  # left
        assert_frame(step(run, b"\x1bOD", n - 2, n), moves[:-2], final=False)  # left (SS3)
        assert_frame(step(run, b"\x1b[C", n - 1, n), moves[:-1], final=False)  # right
        empty = step(run, b"\x1b[H", 0, n)  # Home
        assert set(empty.values()) == {" . "}
        assert "ply 0/" + str(n) + ": the empty board" in run.screen()
        assert_frame(step(run, b"\x1b[D", 0, n), [], final=False)  # stays at the start
        assert_frame(step(run, b"\x1b[C", 1, n), moves[:1], final=False)
        assert_frame(step(run, b"\x1b[F", n, n), moves, final=True)  # End
        assert_frame(step(run, b"\x1b[C", n, n), moves, final=True)  # stays at the end
        assert_frame(step(run, b"\x1b[1~", 0, n), [], final=False)  # Home (vt)
        assert_frame(step(run, b"\x1b[4~", n, n), moves, final=True)  # End (vt)
        run.send(b"x")
        run.expect(rf"^ply {n}/{n}: .*\nunknown key; keys:")
        run.send(b"q")
        assert run.wait() == 0
        mode = termios.tcgetattr(run.slave)
        assert mode[3] & termios.ECHO and mode[3] & termios.ICANON, "the terminal was not restored"


def test_the_viewer_ends_a_full_board_and_a_fault_with_their_reason(
    store: Path, games: dict[int, GameRecord]
) -> None:
    full = first_game(games, lambda r: r.reason.value == "full")
    with PtyRun("replay", store, full) as run:
        run.expect(r"^ply 36/36: Chaos played \w+(?: in [\d.]+ ms)?; Chaos wins: full board\n")
        run.expect("keys:")
        cells = drawn(run.screen())
        assert_frame(cells, games[full].moves, final=True)
        assert not any(c.startswith("(") for c in cells.values())
        run.send(b"\x1b[D")
        run.expect(r"^ply 35/36: Order played \w+(?: in [\d.]+ ms)?\n")
        run.send(b"Q")
        assert run.wait() == 0
    crash = first_game(games, lambda r: r.reason.value == "crash" and r.order == "crashy")
    n = len(games[crash].moves)
    with PtyRun("replay", store, crash) as run:
        run.expect(
            rf"^ply {n}/{n}: Chaos played \w+{TOOK}; Chaos wins: crashy \(Order\) lost by crash:"
            " exited"
        )
        run.send(b"\x04")  # Ctrl-D quits too
        assert run.wait() == 0


@pytest.mark.parametrize(
    ("args", "stop", "code"),
    [
        ((), lambda run: run.send(b"\x03"), 130),  # Ctrl-C, typed
        ((), lambda run: os.killpg(run.proc.pid, signal.SIGTERM), 143),
        (("--play", "--delay-ms", "600000"), lambda run: run.send(b"\x03"), 130),
        (
            ("--play", "--delay-ms", "600000"),
            lambda run: os.killpg(run.proc.pid, signal.SIGHUP),
            129,
        ),
    ],
)
def test_an_interrupt_ends_the_viewer_with_the_terminal_restored(
    store: Path,
    games: dict[int, GameRecord],
    args: tuple[str, ...],
    stop: Callable[[PtyRun], None],
    code: int,
) -> None:
    number = first_game(games, lambda r: r.reason.value == "five")
    with PtyRun("replay", store, number, *args) as run:
        run.expect("keys:" if not args else "q stops")
        stop(run)
        assert run.wait() == code
        assert "Traceback" not in run.text()
        mode = termios.tcgetattr(run.slave)
        assert mode[3] & termios.ECHO and mode[3] & termios.ICANON, "the terminal was not restored"


@pytest.mark.parametrize("no_color", [True, False])
def test_no_color_turns_the_styles_off(
    store: Path, games: dict[int, GameRecord], no_color: bool
) -> None:
    number = first_game(games, lambda r: r.reason.value == "five")
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    if no_color:
        env["NO_COLOR"] = "1"
    with PtyRun("replay", store, number, env=env) as run:
        run.expect("keys:")
        run.send(b"q")
        assert run.wait() == 0
        styled = SGR.search(run.output) is not None
    with PtyRun("replay", store, number, "--play", "--delay-ms", "1", env=env) as run:
        assert run.wait() == 0
        styled_play = SGR.search(run.output) is not None
    assert styled is styled_play is (not no_color), run.output[:300]


# --- --play, --ply, plain text ---------------------------------------------------------------
def test_play_animates_every_position_in_order(store: Path, games: dict[int, GameRecord]) -> None:
    number = first_game(games, lambda r: r.reason.value == "five")
    moves, n = games[number].moves, len(games[number].moves)
    with PtyRun("replay", store, number, "--play", "--delay-ms", "5") as run:
        for ply in range(n + 1):
            # The whole frame in one match: the next ones may have arrived already.
            frame = run.expect(rf"^    a  b  c  d  e  f\n(.*\n){{6}}ply {ply}/{n}: .*\nq stops")
            assert_frame(drawn(frame.group(0)), moves[:ply], final=ply == n)
        assert run.wait() == 0
    assert "Order wins: five in a line" in run.text()


def test_q_stops_the_animation(store: Path, games: dict[int, GameRecord]) -> None:
    number = first_game(games, lambda r: r.reason.value == "full")
    with PtyRun("replay", store, number, "--play", "--delay-ms", "600000") as run:
        run.expect(r"^ply 0/36: the empty board\nq stops")
        run.send(b"q")  # without it, the test would wait ten minutes for the next frame
        assert run.wait() == 0
        assert "ply 1/36" not in run.text()
        assert termios.tcgetattr(run.slave)[3] & termios.ECHO


def test_ply_prints_one_position_as_plain_text_off_a_terminal(
    store: Path, games: dict[int, GameRecord]
) -> None:
    number = first_game(games, lambda r: r.reason.value == "five" and len(r.moves) > 5)
    record = games[number]
    result = arena("replay", store, number, "--ply", 4)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "\x1b" not in out
    lines = out.splitlines()
    assert lines[0] == (
        f"game {number}: {record.order} (Order) vs {record.chaos} (Chaos), seed {record.seed}"
    )
    assert_frame(drawn(out), record.moves[:4], final=False)
    assert lines[-2] == (
        f"ply 4/{len(record.moves)}: Chaos played {record.moves[3]} in {record.ms[3]:.1f} ms"
    )
    assert lines[-1] == "moves: " + " ".join(record.moves)
    # No --ply, output not a terminal: the final position, plain.
    whole = arena("replay", store, number)
    assert whole.returncode == 0 and "\x1b" not in whole.stdout
    assert_frame(drawn(whole.stdout), record.moves, final=True)
    assert "Order wins: five in a line" in whole.stdout
    # --play into a pipe: every position, plain, one after the other (no waiting, no clearing).
    played = arena("replay", store, number, "--play", "--delay-ms", "600000")
    assert played.returncode == 0 and "\x1b" not in played.stdout
    assert re.findall(r"^ply (\d+)/", played.stdout, re.M) == [
        str(i) for i in range(len(record.moves) + 1)
    ]


def test_ply_on_a_terminal_with_no_color_has_no_escapes(
    store: Path, games: dict[int, GameRecord]
) -> None:
    number = first_game(games, lambda r: r.reason.value == "full")
    with PtyRun("replay", store, number, "--ply", 36, env=dict(os.environ, NO_COLOR="1")) as run:
        assert run.wait() == 0
        assert b"\x1b" not in run.output
        assert_frame(drawn(run.text()), games[number].moves, final=True)
        assert "Chaos wins: full board" in run.text()


# --- one number everywhere -------------------------------------------------------------------
def test_a_number_printed_by_faults_or_the_report_opens_that_game_in_replay(
    store: Path, games: dict[int, GameRecord], tmp_path: Path
) -> None:
    with Store.open(store, readonly=True) as s:
        counted = {number for number, _record in s.numbered_games()}
    assert len(counted) == 12 and len(games) == 20  # crashy's first 8 games set aside
    listed = arena("replay", store).stdout  # every game, those set aside marked as such
    marked = {int(line.split()[0]) for line in listed.splitlines() if line.endswith("  *")}
    assert marked == set(games) - counted, listed
    assert "* 8 of them the standings leave out (played by an older version of a bot," in listed
    faulted = json.loads(arena("faults", store, "--json").stdout)
    assert {row["game"] for row in faulted} == {
        n for n in counted if games[n].reason.value == "crash"
    }, "faults lists the games that count: crashy's second version only"
    assert min(row["game"] for row in faulted) > len(counted), "the test would not tell apart"
    for row in faulted:
        record = games[row["game"]]
        assert (record.loser_name, record.reason.value, record.seed) == (
            row["bot"], row["reason"], row["seed"],
        )  # fmt: skip
        shown = arena("replay", store, row["game"], "--ply", 0)
        assert shown.returncode == 0, shown.stderr
        role = row["role"].capitalize()
        assert f"{row['bot']} ({role})" in shown.stdout.splitlines()[0]
        assert f"lost by {row['reason']}" not in shown.stdout  # ply 0: not the end yet
        assert f"lost by {row['reason']}" in arena("replay", store, row["game"]).stdout
    text = arena("faults", store).stdout
    assert sorted(int(n) for n in re.findall(r"^game (\d+): ", text, re.M)) == sorted(
        row["game"] for row in faulted
    )

    page = tmp_path / "report.html"
    written = arena("report", store, "--out", page)
    assert written.returncode == 0, written.stderr
    html = page.read_text()
    fault_row = r'<tr><td><a href="#game-(\d+)">\d+</a></td><td class="name"><a href="#bot-crashy">'
    in_table = re.findall(fault_row, html)
    assert sorted(map(int, in_table)) == sorted(row["game"] for row in faulted)
    viewer = re.search(r'<script type="application/json" id="viewer-data">(.*?)</script>', html)
    assert viewer is not None
    data = json.loads(viewer.group(1))["games"]
    assert {entry[0] for entry in data} == counted


# --- bad arguments ---------------------------------------------------------------------------
def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode != 0, result.stdout
    assert "Traceback" not in result.stderr and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_bad_arguments_give_one_line(
    store: Path, games: dict[int, GameRecord], tmp_path: Path
) -> None:
    top = max(games)
    assert f"no game {top + 1} (its games are numbered 1 to {top};" in one_error_line(
        arena("replay", store, top + 1)
    )
    assert "no such store" in one_error_line(arena("replay", tmp_path / "none.sqlite"))
    assert "no such store" in one_error_line(arena("replay", tmp_path / "none.sqlite", 1))
    Store.open(tmp_path / "empty.sqlite").close()
    assert "no games stored yet" in one_error_line(arena("replay", tmp_path / "empty.sqlite"))
    assert "no games stored yet" in one_error_line(arena("replay", tmp_path / "empty.sqlite", 1))
    (tmp_path / "notes.txt").write_text("not a store\n")
    assert "not an arena store" in one_error_line(arena("replay", tmp_path / "notes.txt"))
    config = tmp_path / "t.yaml"  # a tournament file where its store is meant: its store named
    config.write_text("bots: [random, greedy]\ndb: games.sqlite\n")
    for command in ("replay", "ratings", "faults", "export", "report"):
        line = one_error_line(arena(command, config))
        assert f"is a tournament file, not a store: its games are in {tmp_path}" in line, line
    assert "--ply must be 0 to" in one_error_line(arena("replay", store, 1, "--ply", 99))
    assert "no games of a bot named 'nobody'" in one_error_line(
        arena("replay", store, "--bot", "nobody")
    )
    assert "--winner 'nobody' is neither a role (order, chaos) nor one of its bots" in (
        one_error_line(arena("replay", store, "--winner", "nobody"))
    )
    assert "--as needs --bot" in one_error_line(arena("replay", store, "--as", "order"))
    assert "need a GAME" in one_error_line(arena("replay", store, "--ply", 1))
    assert "filter the list" in one_error_line(arena("replay", store, 1, "--bot", "greedy"))
    assert "not both" in one_error_line(arena("replay", store, 1, "--play", "--ply", 1))


@pytest.mark.parametrize("command", ["replay", "play"])
def test_help_has_an_example(command: str) -> None:
    result = arena(command, "--help", env=dict(os.environ, NO_COLOR="1", COLUMNS="100"))
    assert result.returncode == 0, result.stderr
    assert f"\n  Example:\n    arena {command} " in result.stdout


def test_an_opening_is_shown_as_such(folder: Path, store: Path) -> None:
    """A tournament with openings: the opening's plies are counted, drawn and labelled apart."""
    db = folder / "results" / "openings.sqlite"
    (folder / "o.yaml").write_text(
        "bots:\n"
        "  - {name: greedy, path: greedy/main.py}\n"
        "  - {name: random, path: random/main.py}\n"
        "games_per_pairing: 2\n"
        "time_control: {move_ms: 500, startup_ms: 5000}\n"
        "sandbox: none\n"
        "openings: {random_plies: 4}\n"
        f"db: {db}\n"
    )
    result = arena("tournament", folder / "o.yaml", "--quiet")
    assert result.returncode == 0, result.stderr
    with Store.open(db, readonly=True) as s:
        number, record = next(iter(s.numbered_games()))
    assert len(record.opening) == 4
    every = record.opening + record.moves
    assert f"{number}  greedy" in arena("replay", db, "--min-plies", len(every)).stdout
    assert "No games match" in arena("replay", db, "--min-plies", len(every) + 40).stdout
    with PtyRun("replay", db, number) as run:
        run.expect("keys:")
        run.send(b"\x1b[H\x1b[C\x1b[C\x1b[C\x1b[C")  # Home, then four steps: the whole opening
        run.expect(rf"^ply 4/{len(every)}: opening played {record.opening[3]}\n")
        assert_frame(drawn(run.screen()), every[:4], final=False)
        run.send(b"\x1b[C")
        run.expect(rf"^ply 5/{len(every)}: Order played {record.moves[0]} in [\d.]+ ms\n")
        assert_frame(drawn(run.screen()), every[:5], final=False)
        run.send(b"q")
        assert run.wait() == 0
    plain = arena("replay", db, number, "--ply", 2).stdout
    assert f"ply 2/{len(every)}: opening played {record.opening[1]}" in plain
    assert "opening: " + " ".join(record.opening) in plain


def test_an_escape_sequence_cut_between_reads_is_made_whole() -> None:
    """A slow link can deliver an arrow key's ESC before its ``[D``: the viewer waits (briefly)
    for the rest instead of reading three unknown keys. A packet socket makes the cut exact: each
    write is read apart, as two packets of a slow link would be."""
    assert cut_short(b"\x1b") and cut_short(b"l\x1b[") and cut_short(b"\x1b[1")
    assert not cut_short(b"\x1b[D") and not cut_short(b"\x1b[4~") and not cut_short(b"q")
    assert not cut_short(b"\x1bOD") and cut_short(b"\x1bO")
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with ours, theirs:
        theirs.send(b"\x1b")
        theirs.send(b"[D")
        assert list(read_keys(read_input(ours.fileno()))) == [Key.BACK]
        theirs.send(b"l\x1bO")
        theirs.send(b"C")
        assert list(read_keys(read_input(ours.fileno()))) == [Key.FORWARD, Key.FORWARD]
        theirs.send(b"\x1b")  # a lone Esc: given up after ESCAPE_WAIT_S
        assert read_input(ours.fileno()) == b"\x1b"
