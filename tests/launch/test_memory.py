"""``limits.memory_mb`` bounds a bot's memory, not its address space, where arena has a memory
cgroup for it; a JVM bot starts and plays under the default limits.

Real bots: ``touch_memory.py`` touches 2 GiB at start-up, ``reserve_address_space.py`` reserves
8 GiB of address space and touches 10 MiB, and a Java bot compiled with ``javac`` here (skipped,
with the reason, where no JDK is installed: ``.ci/run`` installs one).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
from conftest import TEST_BOTS_DIR, run_arena

from arena.botspec import BotSpec
from arena.launch import cgroups
from arena.launch.sandbox import bwrap_path
from arena.limits import Limits, TimeControl
from arena.records import Reason
from arena.referee import MatchSettings, play_match

pytestmark = pytest.mark.usefixtures("no_leftover_processes")

SLOW_OK = TimeControl(move_ms=2000, startup_ms=20000)  # tests that expect no fault: none from load
MODES = [
    "none",
    pytest.param(
        "bwrap",
        marks=pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not usable here"),
    ),
]
NEEDS_MEMORY_CGROUP = pytest.mark.skipif(
    cgroups.controller_root("memory") is None or cgroups.pids_root() is None,
    reason="no usable memory cgroup (arena is not root, or the machine has none)",
)


def bots(folder: Path, name: str) -> tuple[BotSpec, BotSpec]:
    for script in (name, "instant.py"):
        shutil.copy(TEST_BOTS_DIR / script, folder / script)
    return BotSpec.from_path(folder / name), BotSpec.from_path(folder / "instant.py")


@pytest.mark.parametrize("mode", MODES)
def test_a_bot_that_touches_2_gib_loses_by_crash_naming_the_limit(
    mode: str, tmp_path: Path
) -> None:
    hog, instant = bots(tmp_path, "touch_memory.py")
    settings = MatchSettings(SLOW_OK, sandbox=mode, limits=Limits(memory_mb=256))
    records = play_match(hog, instant, 2, settings)
    for record in records:
        assert record.loser_name == "touch_memory", record.to_json()
        assert record.reason in (Reason.CRASH, Reason.STARTUP), record.to_json()
        if cgroups.controller_root("memory") is not None:
            assert "exceeded limits.memory_mb (256 MB" in record.detail, record.detail
        else:
            assert "MemoryError" in record.detail, record.detail


@NEEDS_MEMORY_CGROUP
@pytest.mark.parametrize("mode", MODES)
def test_a_bot_that_reserves_8_gib_but_touches_10_mib_plays_under_256_mb(
    mode: str, tmp_path: Path
) -> None:
    reserver, instant = bots(tmp_path, "reserve_address_space.py")
    settings = MatchSettings(SLOW_OK, sandbox=mode, limits=Limits(memory_mb=256))
    records = play_match(reserver, instant, 2, settings)
    for record in records:
        assert not record.reason.is_fault, record.to_json()


# --- a JVM bot under the default limits -----------------------------------------------------------

JAVA_BOT = """
import java.io.*;

public class Bot {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.startsWith("quit")) return;
            if (line.startsWith("arena")) System.out.println("ready java");
            else if (line.startsWith("turn")) {
                int cell = line.split(" ")[1].indexOf('.');
                System.out.println("" + "abcdef".charAt(cell % 6) + (cell / 6 + 1) + "X");
            }
            System.out.flush();
        }
    }
}
"""


@pytest.fixture(scope="module")
def java_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder bot whose ``main`` is ``exec java -Xmx64m -cp . Bot``, compiled here."""
    javac, java = shutil.which("javac"), shutil.which("java")
    if javac is None or java is None:
        pytest.skip("no JDK installed (javac and java): .ci/run installs default-jdk-headless")
    folder = tmp_path_factory.mktemp("java") / "javabot"
    folder.mkdir()
    (folder / "Bot.java").write_text(textwrap.dedent(JAVA_BOT))
    subprocess.run([javac, "Bot.java"], cwd=folder, check=True, timeout=120)
    main = folder / "main"
    main.write_text("#!/bin/sh\nexec java -Xmx64m -cp . Bot\n")
    main.chmod(0o755)
    for path in (folder.parent, folder, *folder.iterdir()):  # readable by an unprivileged bot
        path.chmod(path.stat().st_mode | 0o055)
    return folder


@pytest.fixture
def as_a_user_would(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default a user gets: as root, each bot runs as a uid of its own (not root, as the other
    tests' bots do), so the JVM must find what it reads (``/etc/alternatives``) as that uid."""
    monkeypatch.delenv("ARENA_BOTS_AS_ROOT", raising=False)


@NEEDS_MEMORY_CGROUP  # else RLIMIT_AS of memory_mb: a JVM needs more (docs/sandbox.md)
@pytest.mark.usefixtures("as_a_user_would")
def test_a_java_bot_passes_validate_under_the_default_limits(java_bot: Path) -> None:
    result = run_arena("validate", java_bot, "--games", "1", "--move-ms", "1000", timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "OK: javabot speaks arena 1 correctly" in result.stdout, result.stdout


@NEEDS_MEMORY_CGROUP  # else RLIMIT_AS of memory_mb: a JVM needs more (docs/sandbox.md)
@pytest.mark.usefixtures("as_a_user_would")
def test_a_java_bot_plays_a_tournament_under_the_default_limits(
    java_bot: Path, tmp_path: Path
) -> None:
    (tmp_path / "bots").mkdir()
    instant = shutil.copy(TEST_BOTS_DIR / "instant.py", tmp_path / "bots" / "instant.py")
    db = tmp_path / "t.sqlite"
    config = {
        "name": "java",
        "bots": [
            {"name": "java", "path": str(java_bot)},
            {"name": "instant", "path": str(instant)},
        ],
        "games_per_pairing": 2,
        "time_control": {"move_ms": 1000, "startup_ms": 20000},  # JIT and load, not the limits
        "workers": 1,
        "db": str(db),
    }
    path = tmp_path / "t.yaml"
    path.write_text(json.dumps(config))
    result = run_arena("tournament", path, "--quiet", timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    exported = run_arena("export", db, "--format", "jsonl")
    games = [json.loads(line) for line in exported.stdout.splitlines()]
    assert len(games) == 4, exported.stdout + exported.stderr
    for game in games:
        assert game["reason"] in ("five", "full"), game
