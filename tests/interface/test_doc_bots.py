"""Bots written from ``docs/protocol.md`` alone play a tournament as documented.

``tests/bots/doc_node/main`` (Node.js, an executable folder ``main`` with a ``#!`` line),
``tests/bots/doc_rust/main.rs`` (Rust, built here with ``rustc`` into a folder's ``main``) and
``tests/bots/doc_python.py`` (plain Python, nothing of arena imported) were written from the
protocol document only. A short real tournament of the three (real processes and pipes, the
default sandbox, a real store) must end with every game decided on the board, no fault, and each
bot rated. A language whose toolchain is missing here is left out, saying so; the tournament
needs two bots.

The environment a bot gets is compared with the document's table, in both sandbox modes.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, SANDBOX_MODES, TEST_BOTS_DIR, run_arena

ROOT = REPO_ROOT
PROTOCOL = ROOT / "docs" / "protocol.md"
BUILD_S = 180.0
"""Bound on compiling the Rust bot (rustc -O of one file: seconds, more under load)."""


def _doc_bots(
    folder: Path, languages: tuple[str, ...] = ("py", "node", "rust")
) -> tuple[dict[str, Path], list[str]]:
    """The doc bots of ``languages`` copied (and built) under ``folder``, by name; and why any
    is missing."""
    bots: dict[str, Path] = {}
    missing: list[str] = []
    if "py" in languages:
        python = folder / "python"
        python.mkdir()
        shutil.copy(TEST_BOTS_DIR / "doc_python.py", python / "bot.py")
        bots["py"] = python / "bot.py"
    if "node" not in languages:
        pass
    elif shutil.which("node") is None:
        missing.append("node: not installed")
    else:
        shutil.copytree(TEST_BOTS_DIR / "doc_node", folder / "node")
        bots["node"] = folder / "node"
    rustc = shutil.which("rustc")
    if "rust" not in languages:
        pass
    elif rustc is None:
        missing.append("rust: no rustc here")
    else:
        rust = folder / "rust"
        rust.mkdir()
        built = subprocess.run(
            [rustc, "-O", str(TEST_BOTS_DIR / "doc_rust" / "main.rs"), "-o", str(rust / "main")],
            capture_output=True,
            text=True,
            timeout=BUILD_S,
            check=False,
        )
        assert built.returncode == 0, built.stderr
        bots["rust"] = rust
    return bots, missing


def test_bots_written_from_the_protocol_document_play_a_tournament(tmp_path: Path) -> None:
    bots, missing = _doc_bots(tmp_path)
    if len(bots) < 2:
        pytest.skip("; ".join(missing))
    config = tmp_path / "docbots.yaml"
    lines = ["bots:"]
    lines += [
        f"  - name: {name}\n    path: {path.relative_to(tmp_path)}" for name, path in bots.items()
    ]
    lines += [
        "games_per_pairing: 2",
        "time_control: {move_ms: 50, startup_ms: 5000}",
        "workers: 1",
        "seed: 3",
    ]
    config.write_text("\n".join(lines) + "\n")
    done = run_arena("tournament", config, "--quiet", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    db = tmp_path / "results" / "docbots.sqlite"
    shown = run_arena("ratings", db, "--json")
    assert shown.returncode == 0, shown.stderr
    standings = json.loads(shown.stdout)
    games = len(bots) * (len(bots) - 1) * 2
    assert standings["games"] == games
    by_name = {b["name"]: b for b in standings["bots"]}
    assert set(by_name) == set(bots)
    for name, bot in by_name.items():
        assert sum(bot["faults"].values()) == 0, (name, bot["faults"])
        assert bot["games"] == 4 * (len(bots) - 1), name  # 2 games per ordered pair
    listing = run_arena("replay", db)
    assert listing.returncode == 0, listing.stderr
    if missing:
        print("left out:", "; ".join(missing), file=sys.stderr)


@pytest.mark.parametrize("language", ["py", "node", "rust"])
def test_each_doc_bot_passes_validate(tmp_path: Path, language: str) -> None:
    """Each of them alone passes ``arena validate`` (skipped, saying why, without its
    toolchain)."""
    bots, missing = _doc_bots(tmp_path, (language,))
    if language not in bots:
        pytest.skip("; ".join(m for m in missing if m.startswith(language)))
    done = run_arena("validate", bots[language], "--games", "2", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


ENV_BOT = '''"""Writes its environment and working directory to stderr as JSON, then plays."""
import json, os, sys
print("ENV " + json.dumps({"env": sorted(os.environ), "cwd": os.getcwd()}), file=sys.stderr)
print("ready", flush=True)
for line in sys.stdin:
    words = line.split()
    if words[0] == "turn":
        i = words[1].index(".")
        print("abcdef"[i % 6] + str(i // 6 + 1) + "X", flush=True)
    elif words[0] == "quit":
        break
'''


def _documented_variables() -> tuple[set[str], set[str]]:
    """The variables of protocol.md's environment table: always set or maybe set, and those
    set under bubblewrap only."""
    text = PROTOCOL.read_text()
    table = text.split("these variables and no others:", 1)[1].split("Nothing else", 1)[0]
    always: set[str] = set()
    bwrap_only: set[str] = set()
    for row in table.splitlines():
        if not row.strip().startswith("| `"):
            continue
        first, second = row.strip().strip("|").split("|")[:2]
        names = {n.split("=")[0] for n in re.findall(r"`([A-Z_]+(?:=\d)?)`", first)}
        (bwrap_only if "bubblewrap only" in second else always).update(names)
    return always, bwrap_only


@pytest.mark.parametrize("sandbox", SANDBOX_MODES)
def test_the_environment_is_what_the_protocol_document_says(tmp_path: Path, sandbox: str) -> None:
    folder = tmp_path / "envbot"
    folder.mkdir()
    (folder / "main.py").write_text(ENV_BOT)
    record = tmp_path / "games.jsonl"
    done = run_arena(
        "match", folder, "random", "--games", "1", "--sandbox", sandbox, "--record", record, "-q"
    )
    assert done.returncode == 0, done.stderr
    game = json.loads(record.read_text().splitlines()[0])
    seen = json.loads(game["stderr_order"].split("ENV ", 1)[1].splitlines()[0])
    always, bwrap_only = _documented_variables()
    allowed = always | (bwrap_only if sandbox == "bwrap" else set())
    assert set(seen["env"]) <= allowed, set(seen["env"]) - allowed
    for name in ("PATH", "HOME", "TMPDIR", "ARENA_SEED", "ARENA_BOT_TOKEN"):
        assert name in seen["env"], name
    assert Path(seen["cwd"]).resolve() == folder.resolve()  # "its own folder"
