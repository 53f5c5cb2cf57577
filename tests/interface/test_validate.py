"""``arena validate``: good bots pass every check; each fault bot fails the check it breaks.

Real bot processes throughout: the skeletons of ``arena new-bot``, the bundled bots, and the
fault fixtures of ``tests/bots`` (copied to the test's own folder, so that the leftover-process
check sees only this test's processes).
"""

from __future__ import annotations

import io
import json
import os
import queue
import shutil
import signal
import threading
import time
from pathlib import Path

import pytest
from conftest import REPO_ROOT, TEST_BOTS_DIR, run_arena, start_arena
from factories import copy_bot

from arena.botspec import BotSpec
from arena.commands.new_bot import Language, build_c_bot, create_bot
from arena.commands.validate import CHECKS, print_report, validate_bot
from arena.commands.validate.games import MIN_MOVES_A_GAME
from arena.launch.sandbox import bwrap_path
from arena.limits import SandboxMode, TimeControl
from arena.referee.match import Match, MatchSettings

TEST_BOTS = TEST_BOTS_DIR
needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not usable here")


def _copy(name: str, folder: Path) -> BotSpec:
    target = folder / f"{name}.py"
    shutil.copy(TEST_BOTS / f"{name}.py", target)
    return BotSpec.from_path(target)


@pytest.mark.parametrize("language", list(Language))
def test_new_skeletons_pass(no_leftover_processes: Path, language: Language) -> None:
    bot = create_bot("fresh", language, no_leftover_processes)
    if language is Language.C:
        if shutil.which("cc") is None:
            pytest.skip("no C compiler")
        build_c_bot(bot)
    report = validate_bot(BotSpec.from_path(bot.program), games=2, move_ms=500)  # load: margin
    assert report.ok, [(c.key, c.detail) for c in report.failures()]
    assert [c.key for c in report.checks.values()] == list(CHECKS)
    assert report.checks["quit"].summary.endswith("status 0")
    assert len(report.games) == 4
    assert {g["role"] for g in report.games} == {"order", "chaos"}
    if bwrap_path() is not None:
        assert report.checks["sandbox"].status == "pass"


@pytest.mark.parametrize("name", ["instant", "crlf", "flood_stderr"])
def test_correct_fixtures(no_leftover_processes: Path, name: str) -> None:
    spec = _copy(name, no_leftover_processes)
    report = validate_bot(spec, games=1, move_ms=500, sandbox=SandboxMode.NONE)
    failed = {c.key for c in report.failures()}
    # flood_stderr plays correctly, but writes far more to stderr than is kept
    assert failed == ({"stderr"} if name == "flood_stderr" else set())


FAULTS = [
    # (fixture, the check it fails, a phrase of the hint for it)
    ("ahead_of_turn", "silence", "exactly one line per `turn`"),
    ("bad_cell", "legal", "play an empty cell"),
    ("closes_stdin", "crash", "exited or closed its stdout"),
    ("closes_stdout", "crash", "exited or closed its stdout"),
    ("crash_at_start", "startup", "exited at start-up"),
    ("crash_midgame", "crash", "exited or closed its stdout"),
    ("debug_on_stdout", "silence", "log to stderr"),
    ("endless_line", "format", "end each line with \\n"),
    ("extra_line_later", "silence", "exactly one line per `turn`"),
    ("garbage", "format", "a cell and a mark"),
    ("go_panic", "crash", "see its stderr"),
    ("hang_midgame", "time", "answer well within"),
    ("ignore_quit", "quit", "exit when you read `quit`"),
    ("illegal", "legal", "play an empty cell"),
    ("late", "time", "answer well within"),
    ("markup_reply", "format", "a cell and a mark"),
    ("not_a_move", "format", "a cell and a mark"),
    ("raises_in_choose", "crash", "see its stderr"),
    ("reply_before_reading", "silence", "exactly one line per `turn`"),
    ("traceback_then_log", "crash", "see its stderr"),
    ("unflushed", "startup", "nothing arrived on stdout: flush after each line"),
]


@pytest.mark.parametrize(("name", "check", "hint"), FAULTS, ids=[name for name, *_ in FAULTS])
def test_fault_bots_fail_the_right_check_with_its_hint(
    no_leftover_processes: Path, name: str, check: str, hint: str
) -> None:
    spec = _copy(name, no_leftover_processes)
    report = validate_bot(spec, games=1, startup_ms=1000, sandbox=SandboxMode.NONE)
    failed = report.checks[check]
    assert not report.ok
    assert failed.status == "fail", [(c.key, c.detail) for c in report.failures()]
    assert failed.detail and hint in failed.hint, (failed.detail, failed.hint)


def test_a_bot_that_asks_for_match_but_does_not_reset_fails_reuse(
    no_leftover_processes: Path,
) -> None:
    """``no_reset`` promises (``want match``) to reset at ``match <seed>`` and does not: its
    game in a kept process differs from a fresh start's, and only the reuse check fails."""
    report = validate_bot(
        _copy("no_reset", no_leftover_processes), games=1, sandbox=SandboxMode.NONE
    )
    check = report.checks["reuse"]
    assert [c.key for c in report.failures()] == ["reuse"], check.detail
    assert check.detail.startswith("after `match 1` its game went ")
    assert "a fresh start seeded 1 went" in check.detail and "reseed" in check.hint


def test_reuse_is_judged_only_for_a_bot_that_asks_for_match(no_leftover_processes: Path) -> None:
    plain = validate_bot(_copy("instant", no_leftover_processes), games=1, sandbox=SandboxMode.NONE)
    assert plain.ok and plain.checks["reuse"].status == "skip"
    assert "not asked for (`want match`)" in plain.checks["reuse"].summary
    bundled = validate_bot(BotSpec.resolve("greedy"), games=1)
    assert bundled.ok, [(c.key, c.detail) for c in bundled.failures()]
    assert bundled.checks["reuse"].status == "pass", bundled.checks["reuse"].summary


def test_fork_and_exit_is_a_crash_or_a_timeout(no_leftover_processes: Path) -> None:
    """Its child keeps the pipe open: the referee sees a crash at the deadline (or a timeout)."""
    report = validate_bot(
        _copy("fork_and_exit", no_leftover_processes), games=1, sandbox=SandboxMode.NONE
    )
    assert {c.key for c in report.failures()} & {"crash", "time"}


def test_every_fault_fixture_is_covered() -> None:
    """A new fault fixture in tests/bots must be added to FAULTS (or said why not, here)."""
    not_for_validate = {
        "fork_and_exit",  # its own test above
        "no_reset",  # its own test above
        "kill_parent",  # harness faults, not the bot's: the referee replays those games
        "stops_referee",
        "never_ready",  # test_startup_faults
        "slow_start",
        # The hostile ones of the sandbox's and the limits' tests (test_limits, test_sandbox,
        # test_reaper): what they attempt is refused or killed by the harness, not by a check here.
        "fork_bomb",
        "fill_tmp",
        "fill_shm",
        "scatter",
        "snoop",
        "keyring",  # test_seccomp
    }
    fault_fixtures = {
        path.stem
        for path in TEST_BOTS.glob("*.py")
        if "Fault fixture" in path.read_text().split('"""')[1]
    }
    assert fault_fixtures - not_for_validate <= {name for name, *_ in FAULTS}


def test_games_too_short_to_judge_say_not_judged_not_pass(no_leftover_processes: Path) -> None:
    """Every game of ``short`` ends at its second move (it plays on its opponent's last cell):
    one reply a game shows neither that its replies are well formed, nor in time, nor that it
    stays up, so none of those is a PASS."""
    bot = no_leftover_processes / "short.py"
    bot.write_text(
        "import os, sys\n"
        "turns = 0\n"
        "for line in iter(sys.stdin.buffer.readline, b''):\n"
        "    words = line.split()\n"
        "    if line.startswith(b'arena'):\n"
        "        os.write(1, b'ready short\\n')\n"
        "    elif line.startswith(b'game'):\n"
        "        turns = 0\n"
        "    elif line.startswith(b'turn'):\n"
        "        turns += 1\n"
        "        cell = line.index(b'.', 5) - 5\n"
        "        move = f\"{'abcdef'[cell % 6]}{cell // 6 + 1}X\".encode()\n"
        "        if turns == 2:\n"
        "            move = words[2][:2] + b'X'  # an occupied cell: the game ends here\n"
        "        os.write(1, move + b'\\n')\n"
        "    elif line.startswith(b'quit'):\n"
        "        break\n"
    )
    report = validate_bot(BotSpec.from_path(bot), games=2, sandbox=SandboxMode.NONE)
    assert [check.key for check in report.failures()] == ["legal"]
    for key in ("format", "time", "crash"):
        check = report.checks[key]
        assert check.status == "skip", (key, check.summary)
        assert check.summary == (
            f"not judged: the games were too short, 4 of its moves in 4 games (at least"
            f" {4 * MIN_MOVES_A_GAME} needed: {MIN_MOVES_A_GAME} a game)"
        )
    printed = io.StringIO()
    print_report(report, printed)
    assert "skip  every reply is one well-formed move line" in printed.getvalue()


def test_long_enough_games_are_judged(no_leftover_processes: Path) -> None:
    report = validate_bot(
        _copy("instant", no_leftover_processes), games=1, sandbox=SandboxMode.NONE
    )
    assert len(report.move_times_ms) >= 2 * MIN_MOVES_A_GAME
    assert all(report.checks[key].status == "pass" for key in ("format", "legal", "crash"))


@pytest.mark.parametrize("name", ["never_ready", "slow_start"])
def test_startup_faults(no_leftover_processes: Path, name: str) -> None:
    spec = _copy(name, no_leftover_processes)
    report = validate_bot(spec, games=1, startup_ms=400, sandbox=SandboxMode.NONE)
    assert [c.key for c in report.failures()] == ["startup"]
    assert "no `ready` within 400 ms" in report.checks["startup"].detail
    assert "flush" in report.checks["startup"].hint
    assert report.checks["time"].status == "skip"  # nothing else is judged


@needs_bwrap
@pytest.mark.sandbox
def test_a_bot_reading_outside_its_folder_fails_the_sandbox_check(
    no_leftover_processes: Path,
) -> None:
    data = no_leftover_processes / "data"
    data.mkdir()
    (data / "table.txt").write_text("weights\n")
    folder = no_leftover_processes / "bot"
    folder.mkdir()
    bot = folder / "main.py"
    bot.write_text(
        "from pathlib import Path\n"
        "from arena.bot import run\n"
        f"Path({str(data / 'table.txt')!r}).read_text()  # outside its folder\n"
        "run(lambda state: state.rng.choice(state.board.legal_moves()))\n"
    )
    report = validate_bot(BotSpec.from_path(bot), games=1, move_ms=500)
    assert report.checks["sandbox"].status == "fail", report.to_json()
    assert "passes without it" in report.checks["sandbox"].detail
    assert report.checks["startup"].status == "fail"  # what went wrong under the sandbox


@needs_bwrap
@pytest.mark.sandbox
def test_a_failing_bot_that_cannot_run_bare_still_gets_its_checklist(
    no_leftover_processes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As root, a bot without bubblewrap runs as an unprivileged user, who may not reach its
    interpreter (a venv under /root): the comparison run of the sandbox check then cannot start.
    That leaves the sandbox unjudged; it must not end ``arena validate`` with a harness error."""
    from arena.commands.validate import check as check_module
    from arena.errors import SandboxError

    real = check_module._run

    def bare_refused(spec: BotSpec, *args: object) -> object:
        if args[2] is SandboxMode.NONE:  # (games, time_control, mode, ...)
            raise SandboxError("it cannot reach its program /root/venv/bin/python")
        return real(spec, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(check_module, "_run", bare_refused)
    spec = _copy("extra_line_later", no_leftover_processes)
    report = validate_bot(spec, games=1, move_ms=500, sandbox=SandboxMode.BWRAP)
    assert not report.ok and report.checks["silence"].status == "fail"
    sandbox = report.checks["sandbox"]
    assert sandbox.status == "skip" and "cannot run without the sandbox" in sandbox.summary


def test_tap_sees_both_directions(no_leftover_processes: Path) -> None:
    spec = _copy("instant", no_leftover_processes)
    seen: list[tuple[int, str, bytes]] = []
    settings = MatchSettings(time_control=TimeControl(move_ms=1000), sandbox=SandboxMode.NONE)
    with Match(spec, spec.renamed("other"), settings) as match:
        match.tap = lambda seat, direction, _t, data: seen.append((seat, direction, data))
        record = match.play(0)
    sent = b"".join(d for s, w, d in seen if s == 0 and w == ">")
    got = b"".join(d for s, w, d in seen if s == 0 and w == "<")
    assert sent.startswith(b"arena 1\ngame order\nturn ") and sent.endswith(b"quit\n")
    assert got.startswith(b"ready")
    assert got.count(b"\n") == 1 + (len(record.moves) + 1) // 2  # ready, then its moves


def test_cli_json_transcript_and_exit_status(no_leftover_processes: Path) -> None:
    good = _copy("instant", no_leftover_processes)
    bad = _copy("not_a_move", no_leftover_processes)
    ok = run_arena(
        "validate", str(good.program), "--games", "1", "--move-ms", "500", "--json", "--transcript"
    )
    assert ok.returncode == 0, ok.stderr
    data = json.loads(ok.stdout)
    assert data["ok"] is True and len(data["checks"]) == len(CHECKS)
    assert data["move_ms_max"] < 500
    assert "> arena 1" in ok.stderr and "< ready" in ok.stderr  # the transcript, beside the JSON
    narrow = {**os.environ, "COLUMNS": "80"}
    failed = run_arena("validate", bad.program, "--games", "1", "--sandbox", "none", env=narrow)
    assert failed.returncode == 1
    assert "FAIL  every reply is one well-formed move line\n" in failed.stdout
    assert 'not a move: "hello"' in failed.stdout and "hint:" in failed.stdout
    # Folded to the width, as in a pipe; the first line is the bot's command, paths and all.
    assert max(map(len, failed.stdout.splitlines()[1:])) <= 80
    wide = run_arena("validate", good.program, "--games", "1", env={**narrow, "COLUMNS": "250"})
    assert wide.returncode == 0, wide.stderr
    checks = [line for line in wide.stdout.splitlines() if line[:8] in ("  PASS  ", "  skip  ")]
    assert len(checks) == len(CHECKS)  # one line a check where they fit
    missing = run_arena("validate", str(no_leftover_processes / "nope.py"))
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_stops_validate_like_ctrl_c(
    no_leftover_processes: Path, stop: signal.Signals
) -> None:
    """SIGTERM or SIGHUP mid-check: 128 + the signal, one line, and the bot gone (the fixture
    checks that no process of the test's folder is left)."""
    spec = _copy("paced", no_leftover_processes)  # slow moves: the check is still running
    process = start_arena(
        "validate",
        spec.program,
        "--games",
        "50",
        "--move-ms",
        "1000",
        "--sandbox",
        "none",
        "--transcript",
    )
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line) for line in process.stdout or ()])
    reader.start()
    try:
        deadline = time.monotonic() + 60
        while True:  # until the games are under way, both bots up (the transcript says so)
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            if line.startswith("-- game 2:"):
                break
        process.send_signal(stop)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        reader.join(timeout=10)
    err = process.stderr.read() if process.stderr else ""
    assert process.returncode == 128 + stop, err
    assert err == f"arena: validation of paced interrupted ({stop.name})\n"


def test_exit_status_after_quit(no_leftover_processes: Path) -> None:
    bot = no_leftover_processes / "grumpy.py"
    bot.write_text(
        "import sys\n"
        "from arena.bot import run\n"
        "run(lambda state: state.rng.choice(state.board.legal_moves()))\n"
        "print('bye', file=sys.stderr)\n"
        "sys.exit(3)\n"
    )
    report = validate_bot(BotSpec.from_path(bot), games=1, move_ms=500, sandbox=SandboxMode.NONE)
    assert [c.key for c in report.failures()] == ["quit"]
    assert report.checks["quit"].detail == "exit status 3 after `quit`; last on stderr: bye"


def test_a_fault_after_good_games_suggests_resetting_state(no_leftover_processes: Path) -> None:
    bot = no_leftover_processes / "stale.py"
    bot.write_text(
        "from arena.bot import run\n"
        "games = 0\n"
        "def on_game(role):\n"
        "    global games\n"
        "    games += 1\n"
        "def choose(state):\n"  # from its third game on, it replays a stale move
        "    return 'a1X' if games >= 3 else state.board.legal_moves()[-1]\n"
        "run(choose, on_game=on_game)\n"
    )
    spec = BotSpec.from_path(bot)
    report = validate_bot(spec, games=2, move_ms=500, sandbox=SandboxMode.NONE)
    legal = report.checks["legal"]
    assert legal.status == "fail" and legal.detail.startswith("game 3 (as Order)")
    assert "reset its state at each `game`" in legal.hint


@needs_bwrap
@pytest.mark.sandbox
@pytest.mark.skipif(os.geteuid() != 0, reason="bots run as another user only when arena is root")
def test_a_bot_failing_under_bwrap_is_judged_even_where_it_cannot_run_without_it(
    no_leftover_processes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As root, without bubblewrap, bots run as an unprivileged user, who cannot reach a bot in
    pytest's private (0700) folder: the second run without the sandbox, meant to tell whether
    the sandbox is to blame, is impossible. The checklist says so instead of ending in an error."""
    monkeypatch.delenv("ARENA_BOTS_AS_ROOT", raising=False)
    bot = no_leftover_processes / "bot" / "main.py"
    bot.parent.mkdir()
    bot.write_text("import sys\nsys.exit(3)\n")  # fails under bwrap (and would without)
    report = validate_bot(BotSpec.from_path(bot), games=1, move_ms=500)
    assert report.checks["startup"].status == "fail", report.to_json()
    sandbox = report.checks["sandbox"]
    assert sandbox.status == "skip" and "cannot run without the sandbox here" in sandbox.summary


def test_a_bot_that_exits_after_ready_fails_stays_up_only(no_leftover_processes: Path) -> None:
    """``read -r l; echo ready; exit 3``: it starts, then crashes; it never wrote a line when
    none was due (end of file is not a line)."""
    script = no_leftover_processes / "exit1.sh"
    script.write_text("#!/bin/sh\nread -r l; echo ready; exit 3\n")
    script.chmod(0o755)
    report = validate_bot(BotSpec.from_path(script), games=1, sandbox=SandboxMode.NONE)
    assert report.checks["startup"].status == "pass"
    assert report.checks["crash"].status == "fail"
    assert report.checks["silence"].status != "fail", report.checks["silence"].detail
    assert report.checks["format"].status != "fail", report.checks["format"].detail


@pytest.mark.parametrize(
    "before",
    [
        'print("hello")',  # docs/writing-a-bot.md's case: written before `arena 1` is even read
        'import sys; sys.stdout.write("hello\\n"); sys.stdout.flush()',
    ],
)
def test_a_line_before_ready_gets_the_same_verdict_every_time(
    no_leftover_processes: Path, before: str
) -> None:
    """The skeleton with a line printed before ``run``: ``expected `ready`, got "hello"`` with the
    start-up hint, every time, whether ``hello`` and ``ready`` arrive in one read or in two (it
    was "more than one line at start-up", with a hint about `turn`, when they came together)."""
    bot = create_bot("hello", Language.PYTHON, no_leftover_processes)
    source = bot.program.read_text()
    bot.program.write_text(source.replace("    run(choose", f"    {before}\n    run(choose", 1))
    spec = BotSpec.from_path(bot.program)
    for _ in range(4):
        report = validate_bot(spec, games=1, sandbox=SandboxMode.NONE)
        check = report.checks["startup"]
        assert check.status == "fail"
        assert check.detail == 'expected `ready`, got "hello"', check.detail
        assert "nothing else first" in check.hint and "turn" not in check.hint, check.hint


def test_a_line_after_ready_is_a_line_when_none_was_due(no_leftover_processes: Path) -> None:
    """``ready`` and another line in one write: the bot started, and then wrote a line when
    none was due (the silence check, with its hint), as when the line comes a moment later."""
    program = copy_bot(no_leftover_processes, "ready_then_hello.py", name="chatty.py")
    report = validate_bot(BotSpec.from_path(program), games=1, sandbox=SandboxMode.NONE)
    assert report.checks["startup"].status == "pass", report.checks["startup"].detail
    silence = report.checks["silence"]
    assert silence.status == "fail"
    assert 'wrote a line when no reply was due: "hello"' in silence.detail, silence.detail


@pytest.mark.parametrize(
    "mode",
    [
        SandboxMode.NONE,
        pytest.param(SandboxMode.BWRAP, marks=[needs_bwrap, pytest.mark.sandbox]),
    ],
)
def test_a_crlf_script_is_told_its_line_ends(no_leftover_processes: Path, mode: SandboxMode):
    """A shell script saved with CRLF line ends: not just ``exit 127 … not found`` (or ENOENT
    without the sandbox), but what is wrong and the fix."""
    folder = no_leftover_processes / "crlf"
    folder.mkdir()
    source = (REPO_ROOT / "bots" / "shell" / "main").read_bytes()
    (folder / "main").write_bytes(source.replace(b"\n", b"\r\n"))
    (folder / "main").chmod(0o755)
    report = validate_bot(BotSpec.from_path(folder), games=1, sandbox=mode)
    check = report.checks["startup"]
    assert check.status == "fail"
    assert "its #! line ends in \\r (Windows line ends)" in check.detail, check.detail
    assert f"dos2unix {folder / 'main'}" in check.detail, check.detail
    assert "\\n line ends" in check.hint, check.hint


def test_a_folder_whose_main_is_not_executable_is_told_to_chmod(tmp_path: Path) -> None:
    """Not "a folder without either": what is wrong (its main is not executable) and the fix,
    as for a program file given directly; in one line, for validate and match alike."""
    folder = tmp_path / "nx"
    folder.mkdir()
    (folder / "main").write_text("#!/bin/sh\n")
    for args in (["validate", folder], ["match", folder, "random"]):
        result = run_arena(*args, timeout=60)
        assert result.returncode != 0
        assert "Traceback" not in result.stderr
        assert result.stderr.strip().splitlines() == [
            f"arena: error: bot nx: path: expected a folder holding main.py or an executable main,"
            f" got '{folder}' (its main is not executable: {folder / 'main'}; chmod +x it)"
        ]


@needs_bwrap
@pytest.mark.sandbox
@pytest.mark.skipif(os.geteuid() != 0, reason="bots run as another user only when arena is root")
def test_as_root_a_failing_python_bot_gets_one_line_about_the_bare_run(
    no_leftover_processes: Path,
) -> None:
    """As root, a Python bot that fails under bubblewrap (here it crashes on
    its 3rd turn) cannot be run bare to compare (the bot user cannot reach the venv's Python).
    That is not why it failed: the unjudged sandbox check says so in one short line, without a
    paragraph of uids and folders; the failure itself keeps its detail and hint."""
    _copy("crash_midgame", no_leftover_processes)
    no_leftover_processes.chmod(0o755)  # its own folder open to others: the bot runs as its uid
    env = {k: v for k, v in os.environ.items() if k != "ARENA_BOTS_AS_ROOT"}
    done = run_arena(
        "validate", no_leftover_processes / "crash_midgame.py", "--games", "1", env=env
    )
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "works under the sandbox" in line)
    assert lines[at].lstrip().startswith("skip")
    detail = lines[at + 1 :]
    assert detail[0].lstrip().startswith("not judged") and len(detail[0]) <= 80, detail
    assert detail[1].startswith(("FAIL", "OK", "  PASS", "  FAIL", "  skip")), detail
    assert "uid" not in done.stdout and "ARENA_BOTS_AS_ROOT" not in done.stdout
    assert "crash" in done.stdout  # the real cause is still there


JVM_RESERVE_FAILURE = """#!/bin/sh
# What a JVM prints, on stdout, when RLIMIT_AS is below what it reserves; then it exits 1.
read line
printf 'Error occurred during initialization of VM\\n'
printf 'Could not reserve enough space for 1048576KB object heap\\n'
exit 1
"""


@pytest.mark.parametrize(
    "sandbox", [SandboxMode.NONE, pytest.param(SandboxMode.BWRAP, marks=needs_bwrap)]
)
def test_a_runtime_that_could_not_reserve_memory_gets_the_memory_hint(
    no_leftover_processes: Path, sandbox: SandboxMode
) -> None:
    """Not "answer `arena 1` with `ready`": the hint names limits.memory_mb and --memory-mb."""
    bot = no_leftover_processes / "jvm.sh"
    bot.write_text(JVM_RESERVE_FAILURE)
    bot.chmod(0o755)
    report = validate_bot(BotSpec.from_path(bot), games=1, sandbox=sandbox)
    check = report.checks["startup"]
    assert check.status == "fail", check
    assert "Error occurred during initialization of VM" in check.detail
    assert "could not reserve memory" in check.hint and "--memory-mb" in check.hint, check.hint


def test_validate_takes_memory_mb(no_leftover_processes: Path) -> None:
    spec = _copy("instant", no_leftover_processes)
    result = run_arena("validate", spec.program, "--games", "1", "--memory-mb", "128")
    assert result.returncode == 0, result.stdout + result.stderr
    refused = run_arena("validate", spec.program, "--memory-mb", "10")
    assert refused.returncode == 2 and "Traceback" not in refused.stderr, refused.stderr
