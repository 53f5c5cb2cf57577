"""Tests of arena.config: loading tournament files, defaults, and every kind of error."""

from __future__ import annotations

import contextlib
import os
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import TEST_BOTS_DIR
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.botspec import HARNESS_PYTHON, BotSpec
from arena.config import TournamentConfig, config_from_dict, load_config
from arena.config.keys import TOP_KEYS
from arena.errors import ConfigError
from arena.limits import AffinityMode, KeepBots, Limits, SandboxMode, TimeControl
from arena.tournament.affinity import core_count
from arena.tournament.course import CoursePlan
from arena.tournament.stoprule import Budget, StopRule

MARK = "# <-"  # marks the line an error must point at


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder with bot files: two .py bots, an executable script and a plain data file."""
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "a.py").write_text("print('a')\n")
    (bots / "b.py").write_text("print('b')\n")
    script = bots / "run.sh"
    script.write_text("#!/bin/sh\necho ready\n")
    script.chmod(0o755)
    (bots / "data.bin").write_text("not a program\n")
    (tmp_path / "conf").mkdir()
    return tmp_path


def write(folder: Path, text: str, name: str = "tour.yaml") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def marked_line(text: str) -> int:
    lines = textwrap.dedent(text).lstrip("\n").splitlines()
    return next(i for i, line in enumerate(lines, 1) if MARK in line)


BOTS = """
bots:
  - name: a
    path: ../bots/a.py
  - name: b
    path: ../bots/b.py
"""


# --------------------------------------------------------------------------------------------
# Valid files


def test_full_config(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    python = Path(sys.executable)
    monkeypatch.setenv("PATH", str(python.parent))
    path = write(
        project / "conf",
        f"""
        name: ladder
        bots:
          - name: a
            path: ../bots/a.py
          - name: script+1.0
            path: ../bots/run.sh
          - name: greedy-v2
            command: [{python.name}, ../bots/b.py, --depth, "2", 3]
            dir: ../bots
          - name: sh_bot
            command: "../bots/run.sh --name 'two words'"
        format: gauntlet
        games_per_pairing: 4
        time_control: {{move_ms: 250, startup_ms: 3000}}
        limits:
          memory_mb: 512
          cpu_seconds: null
          file_size_mb: 2
          open_files: 32
          processes: 16
          stderr_kb: 8
          line_bytes: 2048
        workers: 3
        seed: 0
        db: out/ladder.db
        sandbox: none
        affinity: off
        freeze_idle: true
        """,
    )
    cfg = load_config(path)
    assert isinstance(cfg, TournamentConfig)
    bots = project / "bots"
    # python/python3 mean the harness's Python; another name is a program found on PATH.
    is_harness = python.name in ("python", "python3")
    interpreter = (HARNESS_PYTHON, "-u") if is_harness else (python.name,)
    assert cfg.name == "ladder"
    assert cfg.path == path.resolve()
    py = (HARNESS_PYTHON, "-u")
    assert cfg.bots == (
        BotSpec("a", (*py, "./a.py"), bots, "./a.py", ("./a.py",), False),
        BotSpec("script+1.0", ("./run.sh",), bots, "./run.sh", ("./run.sh",), False),
        BotSpec(
            "greedy-v2",
            (*interpreter, "./b.py", "--depth", "2", "3"),
            bots,
            "./b.py",
            ("./b.py",),
            True,
        ),
        BotSpec(
            "sh_bot", ("./run.sh", "--name", "two words"), bots, "./run.sh", ("./run.sh",), False
        ),
    )
    assert len(cfg.notices) == 2  # bots sharing a folder; a bot's folder holding others
    assert cfg.notices[1].startswith("bots greedy-v2: their folder holds other bots' programs")
    assert cfg.format == "gauntlet"
    assert cfg.games_per_pairing == 4
    assert cfg.time_control == TimeControl(move_ms=250, startup_ms=3000)
    assert cfg.limits == Limits(
        memory_mb=512,
        cpu_seconds=None,
        file_size_mb=2,
        open_files=32,
        processes=16,
        stderr_kb=8,
        line_bytes=2048,
    )
    assert cfg.workers == 3
    assert cfg.seed == 0
    assert cfg.db == project / "conf" / "out" / "ladder.db"
    assert cfg.sandbox is SandboxMode.NONE
    assert cfg.affinity is AffinityMode.OFF  # YAML 1.1 reads a bare `off` as false
    assert cfg.freeze_idle is True
    with pytest.raises(AttributeError):
        cfg.seed = 2  # type: ignore[misc]


def test_defaults(project: Path) -> None:
    cfg = load_config(write(project / "conf", BOTS, name="weekly.yaml"))
    assert cfg.name == "weekly"
    assert cfg.format == "round-robin"
    assert cfg.games_per_pairing == 10
    assert cfg.time_control == TimeControl()
    assert cfg.limits == Limits()
    assert cfg.workers == core_count() >= 1
    if hasattr(os, "sched_getaffinity"):
        assert cfg.workers == len(os.sched_getaffinity(0))
    assert cfg.seed == 1
    assert cfg.db == project / "conf" / "results" / "weekly.sqlite"
    assert cfg.sandbox is SandboxMode.AUTO
    assert cfg.affinity is AffinityMode.AUTO
    assert cfg.freeze_idle is True
    assert cfg.keep_bots is cfg.settings().keep_bots is KeepBots.AUTO
    assert cfg.executor == "local"
    assert cfg.opening_plies == cfg.plan().opening_plies == 0
    assert [b.dir for b in cfg.bots] == [project / "bots"] * 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [("on", AffinityMode.ON), ("'on'", AffinityMode.ON), ("auto", AffinityMode.AUTO)],
)
def test_affinity_spellings(project: Path, text: str, expected: AffinityMode) -> None:
    cfg = load_config(write(project / "conf", BOTS + f"affinity: {text}\n"))
    assert cfg.affinity is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("auto", KeepBots.AUTO),
        ("true", KeepBots.ALL),
        ("yes", KeepBots.ALL),  # YAML 1.1's booleans
        ("'true'", KeepBots.ALL),
        ("false", KeepBots.OFF),
        ("off", KeepBots.OFF),
    ],
)
def test_keep_bots_spellings(project: Path, text: str, expected: KeepBots) -> None:
    cfg = load_config(write(project / "conf", BOTS + f"keep_bots: {text}\n"))
    assert cfg.keep_bots is cfg.settings().keep_bots is expected


def test_relative_paths_follow_the_config_not_the_cwd(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = project / "elsewhere"
    elsewhere.mkdir()
    (project / "conf" / "mine").mkdir()
    (project / "conf" / "mine" / "bot.py").write_text("print(1)\n")
    write(
        project / "conf",
        """
        bots:
          - name: a
            path: ../bots/a.py
            dir: mine
          - name: c
            path: mine/bot.py
          - name: s
            command: [../bots/run.sh, mine/bot.py]
        db: ../store/x.sqlite
        """,
    )
    monkeypatch.chdir(elsewhere)
    cfg = load_config(Path("..") / "conf" / "tour.yaml")
    assert cfg.path == project / "conf" / "tour.yaml"
    assert cfg.bots[0].program == project / "bots" / "a.py"
    assert cfg.bots[0].dir == project / "conf" / "mine"
    assert cfg.bots[1].program == project / "conf" / "mine" / "bot.py"
    # Files named by the command are found from the config's folder, not the current one.
    assert cfg.bots[2].launch_argv() == [
        str(project / "bots" / "run.sh"),
        str(project / "conf" / "mine" / "bot.py"),
    ]
    assert cfg.db == project / "store" / "x.sqlite"
    assert all(b.dir.is_absolute() for b in cfg.bots)


def test_openings(project: Path) -> None:
    cfg = load_config(write(project / "conf", BOTS + "openings: {random_plies: 6}\n"))
    assert cfg.opening_plies == cfg.plan().opening_plies == 6
    assert load_config(write(project / "conf", BOTS + "openings: {}\n")).opening_plies == 0


def test_course_keys(project: Path) -> None:
    text = BOTS + "format: contested\nrounds: 3\nuntil: {top: 1, los: 0.9}\nbudget: {games: 40}\n"
    course = load_config(write(project / "conf", text)).plan().course()
    assert course is not None and course.format == "contested" and course.rounds == 3
    assert course.until == StopRule(1, 0.9) and course.budget == Budget(40)
    plain = load_config(write(project / "conf", BOTS + "format: swiss\n")).plan().course()
    assert plain == CoursePlan("swiss")
    assert load_config(write(project / "conf", BOTS)).plan().course() is None
    robin = load_config(write(project / "conf", BOTS + "until: {top: 1}\nbudget: {games: 8}\n"))
    assert robin.plan().course() is None
    assert robin.plan().until == StopRule(1, 0.95) and robin.plan().budget == Budget(8)


def test_yaml_anchors_and_merge_keys(project: Path) -> None:
    text = BOTS + "time_control: &tc {move_ms: 50}\nlimits: {<<: {memory_mb: 100, open_files: 90}, "
    cfg = load_config(write(project / "conf", text + "memory_mb: 200}\n"))
    assert cfg.time_control.move_ms == 50
    assert cfg.limits.memory_mb == 200 and cfg.limits.open_files == 90


# --------------------------------------------------------------------------------------------
# Errors


def load_error(path: Path | str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return info.value


def assert_error(err: ConfigError, file: str, key: str | None, line: int | None, what: str):
    message = str(err)
    assert file in message and err.file.endswith(file)
    assert err.key == key and err.line == line
    if line is not None:
        assert f"{file}:{line}: " in message
    if key is not None:
        assert f": {key}: " in message
    assert what in message, message


# Each case: the file's text (its error line marked), the key path, and the expectation.
ERROR_CASES = {
    "not an integer": (
        BOTS + "time_control:\n  move_ms: fast  # <-\n",
        "time_control.move_ms",
        "expected a positive integer, got 'fast'",
    ),
    "zero": (
        BOTS + "time_control: {move_ms: 0}  # <-\n",
        "time_control.move_ms",
        "expected a positive integer, got 0",
    ),
    "start-up below the minimum": (
        BOTS + "time_control: {startup_ms: 50}  # <-\n",
        "time_control.startup_ms",
        "expected an integer >= 100 (no bot process starts in less), got 50",
    ),
    "memory below the minimum": (
        BOTS + "limits: {memory_mb: 1}  # <-\n",
        "limits.memory_mb",
        "expected an integer >= 64 (a Python bot cannot start with less), got 1",
    ),
    "open files below the minimum": (
        BOTS + "limits:\n  open_files: 1  # <-\n",
        "limits.open_files",
        "expected an integer >= 16 (a Python bot cannot start with fewer), got 1",
    ),
    "line length below the minimum": (
        BOTS + "limits:\n  line_bytes: 10  # <-\n",
        "limits.line_bytes",
        "expected an integer >= 64",
    ),
    "games_per_pairing beyond what can be planned": (
        BOTS + "games_per_pairing: 2147483647  # <-\n",
        "games_per_pairing",
        "expected a positive integer no larger than 5000000 (at most 10,000,000 games in all;"
        " 2 bots in a round-robin make 1 pair), got 2147483647",
    ),
    "openings not a mapping": (
        BOTS + "openings: 4  # <-\n",
        "openings",
        "expected a mapping such as {random_plies: 4}, got 4",
    ),
    "unknown openings key": (
        BOTS + "openings: {random_ply: 4}  # <-\n",
        "openings.random_ply",
        "unknown key 'random_ply' (did you mean 'random_plies'?)",
    ),
    "too long an opening": (
        BOTS + "openings:\n  random_plies: 30  # <-\n",
        "openings.random_plies",
        "expected a non-negative integer no larger than 24 (random moves before the bots play",
    ),
    "a bot folder holding the store": (
        BOTS + "  - name: c\n    path: ../bots/a.py\n    dir: .  # <-\n",
        "bots[2].dir",
        "expected a folder of the bot's own, got ",
    ),
    "too many workers": (
        BOTS + "workers: 5000  # <-\n",
        "workers",
        "expected a positive integer no larger than 1024",
    ),
    "float": (
        BOTS + "games_per_pairing: 2.5  # <-\n",
        "games_per_pairing",
        "expected a positive integer, got 2.5",
    ),
    "bool is not an integer": (
        BOTS + "limits:\n  file_size_mb: true  # <-\n",
        "limits.file_size_mb",
        "expected a positive integer, got true",
    ),
    "null where not allowed": (
        BOTS + "limits:\n  stderr_kb: null  # <-\n",
        "limits.stderr_kb",
        "expected a positive integer, got null",
    ),
    "nullable limit": (
        BOTS + "limits:\n  cpu_seconds: -3  # <-\n",
        "limits.cpu_seconds",
        "expected a positive integer or null, got -3",
    ),
    "huge": (
        BOTS + "seed: 99999999999999999999999  # <-\n",
        "seed",
        "expected a non-negative integer no larger than 9223372036854775807",
    ),
    "an integer of 5,000 digits": (
        BOTS + "seed: " + "9" * 5000 + "  # <-\n",
        "seed",
        "expected a number of at most 4300 digits, got one of 5000",
    ),
    "workers": (BOTS + "workers: 0  # <-\n", "workers", "expected a positive integer"),
    "seed": (BOTS + "seed: -1  # <-\n", "seed", "expected a non-negative integer, got -1"),
    "unknown top-level key": (
        BOTS + "game_per_pairing: 3  # <-\n",
        "game_per_pairing",
        "unknown key 'game_per_pairing' (did you mean 'games_per_pairing'?)",
    ),
    "key of a section at the top level": (
        BOTS + "move_ms: 3  # <-\n",
        "move_ms",
        "unknown key 'move_ms' (did you mean time_control.move_ms",
    ),
    "unknown section key": (
        BOTS + "limits:\n  memory_mb: 5\n  memroy_mb: 5  # <-\n",
        "limits.memroy_mb",
        "unknown key 'memroy_mb' (did you mean 'memory_mb'?)",
    ),
    "section not a mapping": (
        BOTS + "time_control: 100  # <-\n",
        "time_control",
        "expected a mapping, got 100",
    ),
    "format": (
        BOTS + "format: roundrobin  # <-\n",
        "format",
        "expected one of 'round-robin', 'gauntlet', 'swiss', 'contested', got 'roundrobin'"
        " (did you mean 'round-robin'?)",
    ),
    "sandbox": (
        BOTS + "sandbox: docker  # <-\n",
        "sandbox",
        "expected one of 'auto', 'bwrap', 'none', got 'docker'",
    ),
    "executor": (
        BOTS + "executor: dask  # <-\n",
        "executor",
        "expected one of 'cluster', 'inline', 'local', got 'dask'",
    ),
    "affinity": (
        BOTS + "affinity: 2  # <-\n",
        "affinity",
        "expected one of 'auto', 'on', 'off', got 2",
    ),
    "freeze_idle": (
        BOTS + "freeze_idle: sometimes  # <-\n",
        "freeze_idle",
        "expected true or false, got 'sometimes'",
    ),
    "keep_bots": (
        BOTS + "keep_bots: sometimes  # <-\n",
        "keep_bots",
        "expected auto, true or false, got 'sometimes'",
    ),
    "tournament name": (
        BOTS + "name: a/b  # <-\n",
        "name",
        "expected a name without '/'",
    ),
    "db is a folder": (BOTS + "db: ../bots  # <-\n", "db", "got a directory"),
    "duplicate top-level key": (
        BOTS + "seed: 1\nseed: 2  # <-\n",
        "seed",
        "duplicate key 'seed' (first given at line 6)",
    ),
    "duplicate nested key": (
        BOTS + "time_control:\n  move_ms: 1\n  move_ms: 2  # <-\n",
        "time_control.move_ms",
        "duplicate key 'move_ms' (first given at line 7)",
    ),
    "duplicate key in a bot": (
        "bots:\n  - name: a\n    path: ../bots/a.py\n    path: ../bots/b.py  # <-\n  - b\n",
        "bots[0].path",
        "duplicate key 'path' (first given at line 3)",
    ),
    "missing bots": ("seed: 3  # <-\n", "bots", "missing (expected a list of at least 2 bots)"),
    "bots not a list": ("bots: {a: 1}  # <-\n", "bots", "expected a list of bots, got a mapping"),
    "one bot": (
        "bots:  # <-\n  - name: a\n    path: ../bots/a.py\n",
        "bots",
        "expected at least 2 bots, got 1",
    ),
    "bot of the wrong type": (
        BOTS + "  - [x]  # <-\n",
        "bots[2]",
        "expected a bot: a mapping with 'name' and 'path' or 'command'",
    ),
    "unknown bot key": (
        BOTS + "  - name: c\n    pth: x.py  # <-\n",
        "bots[2].pth",
        "unknown key 'pth' (did you mean 'path'?)",
    ),
    "missing bot name": (
        BOTS + "  - path: ../bots/a.py  # <-\n",
        "bots[2]",
        "missing required key 'name'",
    ),
    "bad bot name": (
        BOTS + "  - name: -dash  # <-\n    path: ../bots/a.py\n",
        "bots[2].name",
        "expected a bot name of 1 to 64 letters",
    ),
    "long bot name": (
        BOTS + f"  - name: {'x' * 65}  # <-\n    path: ../bots/a.py\n",
        "bots[2].name",
        "expected a bot name",
    ),
    "both path and command": (
        BOTS + "  - name: c  # <-\n    path: ../bots/a.py\n    command: [../bots/run.sh]\n",
        "bots[2]",
        "expected exactly one of 'path' or 'command', got both",
    ),
    "neither path nor command": (
        BOTS + "  - name: c  # <-\n    dir: ../bots\n",
        "bots[2]",
        "expected exactly one of 'path' or 'command', got neither",
    ),
    "duplicate bot names": (
        BOTS + "  - name: a  # <-\n    path: ../bots/b.py\n",
        "bots[2].name",
        "duplicate bot name 'a' (already used by bots[0])",
    ),
    "missing bot file": (
        BOTS + "  - name: c\n    path: ../bots/nope.py  # <-\n",
        "bots[2].path",
        "expected an existing path, got '../bots/nope.py' (not found: ",
    ),
    "bot file not executable": (
        BOTS + "  - name: c\n    path: ../bots/data.bin  # <-\n",
        "bots[2].path",
        "expected a .py file or an executable file, got '../bots/data.bin' (not executable",
    ),
    "bot path is a folder": (
        BOTS + "  - name: c\n    path: ../bots  # <-\n",
        "bots[2].path",
        "expected a bot file",
    ),
    "bot path not a string": (
        BOTS + "  - name: c\n    path: [a.py]  # <-\n",
        "bots[2].path",
        "expected a path, got a list",
    ),
    "unknown program": (
        BOTS + "  - name: c\n    command: [no-such-program-xyz, arg]  # <-\n",
        "bots[2].command[0]",
        "expected a program on PATH or a file",
    ),
    "missing program file": (
        BOTS + "  - name: c\n    command:\n      - ./missing.sh  # <-\n",
        "bots[2].command[0]",
        "expected a file (relative to ",
    ),
    "program not executable": (
        BOTS + "  - name: c\n    command: ../bots/data.bin --x  # <-\n",
        "bots[2].command[0]",
        "expected an executable file, got '../bots/data.bin'",
    ),
    "empty command": (
        BOTS + "  - name: c\n    command: []  # <-\n",
        "bots[2].command",
        "expected a non-empty command",
    ),
    "unsplittable command": (
        BOTS + '  - name: c\n    command: "run \'x"  # <-\n',
        "bots[2].command",
        "No closing quotation",
    ),
    "command argument not a string": (
        BOTS + "  - name: c\n    command:\n      - ../bots/run.sh\n      - {a: 1}  # <-\n",
        "bots[2].command[1]",
        "expected a string, got a mapping",
    ),
    "missing bot folder": (
        BOTS + "  - name: c\n    path: ../bots/a.py\n    dir: nowhere  # <-\n",
        "bots[2].dir",
        "expected an existing path, got 'nowhere'",
    ),
    "bot folder is a file": (
        BOTS + "  - name: c\n    path: ../bots/a.py\n    dir: ../bots/a.py  # <-\n",
        "bots[2].dir",
        "expected a folder",
    ),
    "non-string key": (BOTS + "3: x  # <-\n", None, "expected a string key, got 3"),
    "YAML tag": (
        BOTS + "seed: !!python/object:os.system 1  # <-\n",
        "seed",
        "expected no YAML tag",
    ),
    "recursive alias": (
        BOTS + "limits: &l {memory_mb: *l}  # <-\n",
        "limits.memory_mb",
        "recursive alias",
    ),
    "YAML syntax error": (
        BOTS + "time_control: {move_ms: 1\nseed: 2  # <-\n",
        None,
        "invalid YAML: while parsing a flow mapping",
    ),
    "bad indentation": (BOTS + " seed: 1  # <-\n", None, "invalid YAML"),
    "tab": (BOTS + "\tseed: 1  # <-\n", None, "invalid YAML"),
    "two documents": (BOTS + "---  # <-\nseed: 1\n", None, "expected a single document"),
    "top level is a list": ("- a  # <-\n- b\n", None, "expected a mapping at the top level"),
    "top level is a scalar": (
        "just text  # <-\n",
        None,
        "expected a mapping at the top level, got 'just text'",
    ),
    "empty file": ("# nothing  # <-\n", None, "got an empty file"),
    "a misspelt course format": (
        BOTS + "format: swis  # <-\n",
        "format",
        "expected one of 'round-robin', 'gauntlet', 'swiss', 'contested', got 'swis'"
        " (did you mean 'swiss'?)",
    ),
    "rounds in a round robin": (
        BOTS + "rounds: 5  # <-\n",
        "rounds",
        "expected only with format: swiss or contested (the format here is round-robin)",
    ),
    "games per pairing in a course": (
        BOTS + "format: swiss\ngames_per_pairing: 2  # <-\n",
        "games_per_pairing",
        "expected no games_per_pairing in a swiss course",
    ),
    "rounds not a count": (
        BOTS + "format: swiss\nrounds: 0  # <-\n",
        "rounds",
        "expected a positive integer, got 0",
    ),
    "until not a mapping": (
        BOTS + "format: swiss\nuntil: 10  # <-\n",
        "until",
        "expected a mapping such as {top: 10, los: 0.95}, got 10",
    ),
    "until misspelt": (
        BOTS + "format: swiss\nuntil:\n  tops: 1  # <-\n",
        "until.tops",
        "unknown key 'tops' (did you mean 'top'?)",
    ),
    "until without its top": (
        BOTS + "format: contested\nuntil:  # <-\n  los: 0.9\n",
        "until.top",
        "missing (expected the places to settle, such as top: 10)",
    ),
    "until's top beyond the pool": (
        BOTS + "format: swiss\nuntil: {top: 2}  # <-\n",
        "until.top",
        "expected a positive integer no larger than 1 (2 bots in the pool), got 2",
    ),
    "until's los out of range": (
        BOTS + "format: swiss\nuntil:\n  top: 1\n  los: 95  # <-\n",
        "until.los",
        "expected a likelihood of superiority between 0.5 and 1 (such as 0.95), got 95",
    ),
    "budget of no games": (
        BOTS + "format: swiss\nbudget:\n  games: 0  # <-\n",
        "budget.games",
        "expected an integer >= 2, got 0",
    ),
    "budget misspelt": (
        BOTS + "format: swiss\nbudget:\n  game: 100  # <-\n",
        "budget.game",
        "unknown key 'game' (did you mean 'games'?)",
    ),
}


@pytest.mark.parametrize("case", ERROR_CASES)
def test_errors(project: Path, case: str) -> None:
    text, key, expected = ERROR_CASES[case]
    path = write(project / "conf", text)
    err = load_error(path)
    assert_error(err, "tour.yaml", key, marked_line(text), expected)
    assert str(path) in str(err)  # the file as the user gave it


def test_error_names_the_file_as_given(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project / "conf", BOTS + "time_control:\n  move_ms: fast\n")
    monkeypatch.chdir(project)
    err = load_error("conf/tour.yaml")
    assert (
        str(err)
        == "conf/tour.yaml:7: time_control.move_ms: expected a positive integer, got 'fast'"
    )


def test_control_character(project: Path) -> None:
    path = project / "conf" / "tour.yaml"
    path.write_bytes(BOTS.lstrip().encode() + b"seed: 1\x07\n")
    assert_error(load_error(path), "tour.yaml", None, 6, "invalid YAML: unacceptable character")


def test_not_utf8(project: Path) -> None:
    path = project / "conf" / "tour.yaml"
    path.write_bytes(b"seed: 1\nname: caf\xe9\n")
    assert_error(load_error(path), "tour.yaml", None, 2, "invalid YAML")


def test_file_not_found(tmp_path: Path) -> None:
    assert_error(load_error(tmp_path / "nope.yaml"), "nope.yaml", None, None, "file not found")


def test_file_is_a_folder(tmp_path: Path) -> None:
    err = load_error(tmp_path)
    assert_error(err, tmp_path.name, None, None, "expected a YAML file, got a directory")


def test_file_not_readable(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(project / "conf", BOTS)
    if os.geteuid() == 0:  # root reads any file: make the read fail as it would for a user

        def deny(self: Path) -> bytes:
            raise PermissionError(13, "Permission denied", str(self))

        monkeypatch.setattr(Path, "read_bytes", deny)
    else:
        path.chmod(0)
    assert_error(load_error(path), "tour.yaml", None, None, "file not readable (permission")


def test_bad_argument() -> None:
    with pytest.raises(ConfigError, match="expected the path of a tournament file"):
        load_config(42)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# config_from_dict


def test_config_from_dict(project: Path) -> None:
    bots = project / "bots"
    cfg = config_from_dict(
        {
            "bots": [
                {"name": "a", "path": "bots/a.py"},
                {"name": "b", "path": bots / "b.py", "dir": Path("bots")},
                BotSpec.from_command(("sh", "-c", "true"), "c"),
            ],
            "time_control": TimeControl(move_ms=5),
            "limits": {"memory_mb": 64},
            "sandbox": SandboxMode.BWRAP,
            "seed": 7,
        },
        base_dir=project,
    )
    assert cfg.path is None
    assert cfg.name == "tournament"
    assert [b.program for b in cfg.bots] == [bots / "a.py", bots / "b.py", None]
    assert cfg.bots[1].dir == bots
    assert cfg.time_control == TimeControl(move_ms=5)
    assert cfg.limits == Limits(memory_mb=64)
    assert cfg.sandbox is SandboxMode.BWRAP
    assert cfg.db == project / "results" / "tournament.sqlite"


def test_config_from_dict_errors(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)  # the default base folder
    good = [{"name": "a", "path": "bots/a.py"}, {"name": "b", "path": "bots/b.py"}]
    assert config_from_dict({"bots": good}).bots[0].program == project / "bots" / "a.py"
    err = _dict_error({"bots": good, "workers": "many"})
    assert_error(err, "<dict>", "workers", None, "expected a positive integer, got 'many'")
    err = _dict_error({"bots": good, "limits": {"memory": 1}}, source="api")
    assert_error(err, "api", "limits.memory", None, "did you mean 'memory_mb'?")
    assert_error(_dict_error(["x"]), "<dict>", None, None, "expected a mapping at the top level")
    assert_error(_dict_error({1: 2}), "<dict>", None, None, "expected a string key, got 1")


def _dict_error(data: object, source: str = "<dict>") -> ConfigError:
    with pytest.raises(ConfigError) as info:
        config_from_dict(data, source=source)  # type: ignore[arg-type]
    return info.value


# --------------------------------------------------------------------------------------------
# Robustness: whatever the file holds, the result is a config or a ConfigError


_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 2**40), st.text(max_size=8), st.floats()
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["name", "path", "move_ms", "bots", "x"]), inner, max_size=3
        )
    ),
    max_leaves=8,
)
_TOKENS = [
    *"ab:-[]{},?|>'\"#\t\x07é~<",
    " ",
    "\n",
    "\n  ",
    "- ",
    "bots",
    "name",
    "path",
    "limits",
    "&a ",
    "*a",
    "<<",
    "!!str ",
    "!x ",
    "---",
    "null",
    "1",
    "../bots/a.py",
    "\\",
]
_keys = st.sampled_from(list(TOP_KEYS) + ["other"])


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.dictionaries(_keys, _values, max_size=5))
def test_any_data_gives_config_or_config_error(project: Path, data: dict) -> None:
    with contextlib.suppress(ConfigError):
        config_from_dict(data, base_dir=project / "conf")


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.sampled_from(_TOKENS), max_size=30).map("".join))
def test_any_text_gives_config_or_config_error(project: Path, text: str) -> None:
    path = project / "conf" / "fuzz.yaml"
    path.write_text(text)
    with contextlib.suppress(ConfigError):
        load_config(path)


def test_too_many_bots_for_the_default_games_is_refused_before_anything_exists(
    project: Path,
) -> None:
    bots = [f"  - {{name: b{i}, path: ../bots/a.py}}" for i in range(1500)]
    path = write(project / "conf", "bots:  # <-\n" + "\n".join(bots) + "\n")
    err = load_error(path)
    assert_error(err, "tour.yaml", "bots", 1, "expected fewer bots (at most 10,000,000 games")
    assert not (project / "conf" / "results").exists()


def test_folders_shared_with_other_bots_are_said_once(project: Path) -> None:
    (project / "conf" / "mine").mkdir()
    (project / "conf" / "mine" / "bot.py").write_text("import helper\n")
    (project / "conf" / "mine" / "helper.py").write_text("\n")
    text = BOTS + "  - name: c\n    path: mine/bot.py\n"
    cfg = load_config(write(project / "conf", text))
    assert [b.own_dir for b in cfg.bots] == [False, False, True]
    (notice,) = cfg.notices
    assert notice.startswith("bots a, b: their folder is not their own")
    assert load_config(write(project / "conf", text.replace("a.py", "run.sh", 1))).notices


def test_a_bot_beside_the_config_does_not_own_its_folder(project: Path) -> None:
    (project / "conf" / "near.py").write_text("pass\n")
    cfg = load_config(write(project / "conf", BOTS + "  - name: near\n    path: near.py\n"))
    assert cfg.bots[2].own_dir is False  # the config and the store live there
    assert cfg.bots[2].identity_files() == [project / "conf" / "near.py"]


def test_a_bot_in_the_store_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    """A bot's folder is shown to it: the store's folder, where SQLite makes files during the run,
    cannot be covered there, so a bot in it is refused before anything is created."""
    instant = (TEST_BOTS_DIR / "instant.py").read_text()
    (tmp_path / "a.py").write_text(instant)
    (tmp_path / "b.py").write_text(instant)
    config = tmp_path / "t.yaml"
    config.write_text("bots:\n  - {name: a, path: a.py}\n  - {name: b, path: b.py}\ndb: t.sqlite\n")
    err = load_error(config)
    assert_error(err, "t.yaml", "bots[0]", 2, "holds the results store")
    assert "\n" not in str(err)
    assert not (tmp_path / "t.sqlite").exists()


@pytest.mark.parametrize("target", ["device", "empty", "missing", "store"])
def test_db_is_a_store_of_its_own(project: Path, target: str) -> None:
    """``db: /dev/null`` and a link to an empty (or no) file are refused where they are
    written; a link to an existing store is the store."""
    conf = project / "conf"
    elsewhere = project / "someone.txt"
    if target == "device":
        db = "/dev/null"
    else:
        db = "link.sqlite"
        (conf / db).symlink_to(elsewhere)
        if target == "empty":
            elsewhere.write_bytes(b"")
        elif target == "store":
            from arena.store import Store

            Store.open(elsewhere).close()
    path = write(conf, BOTS + f"db: {db}  # <-\n")
    if target == "store":
        assert load_config(path).db == elsewhere.resolve()
        return
    err = load_error(path)
    expected = "a device or a pipe" if target == "device" else "got a link to"
    assert_error(err, "tour.yaml", "db", marked_line(BOTS + f"db: {db}  # <-\n"), expected)
    assert not Path("/dev/null-journal").exists()
    assert (elsewhere.read_bytes() if elsewhere.exists() else None) == (
        b"" if target == "empty" else None
    )
