"""``arena submit``: a validated bot is added to the file as text (the rest kept byte for byte),
plays only its own games, and is placed in the standings; a failing bot is not added."""

from __future__ import annotations

import difflib
import functools
import json
import os
import shutil
import signal
from pathlib import Path

import pytest
import yaml
from conftest import TEST_BOTS_DIR, run_arena, start_arena, stored_game_count, wait_until

from arena.commands.new_bot import create_bot
from arena.commands.submit import add_bot_entry, placing
from arena.config import load_config
from arena.errors import ArenaError
from arena.records import GameRecord
from arena.rules import Reason, Role
from arena.store.database import Store

ENTRY = {"name": "mine", "path": "mine/main.py"}

BLOCK = """\
# my ladder
name: ladder
bots:
  - random        # the baseline
  - name: greedy-v2
    command: [python3, g.py]   # trailing comment

# the format, below
format: round-robin
"""

CASES = {
    "block": BLOCK,
    "no indent": "bots:\n- random\n- greedy\nseed: 1\n",
    "deep indent and no final newline": "seed: 1\nbots:\n    -   random\n    -   greedy",
    "crlf": "bots:\r\n  - random\r\n  - greedy\r\n# end\r\n",
    "flow": "bots: [random, greedy]  # two\nseed: 2\n",
    "literal last": "bots:\n  - random\n  - name: x\n    command: |\n      python3 x.py\nseed: 3\n",
}


@pytest.mark.parametrize("text", CASES.values(), ids=CASES.keys())
@pytest.mark.parametrize("entry", [ENTRY, "greedy"], ids=["mapping", "bundled"])
def test_entry_is_appended_and_nothing_else_changes(text: str, entry: dict[str, str] | str) -> None:
    updated = add_bot_entry(text, entry)
    before, after = yaml.safe_load(text), yaml.safe_load(updated)
    assert after["bots"] == before["bots"] + [entry]
    assert {k: v for k, v in after.items() if k != "bots"} == {
        k: v for k, v in before.items() if k != "bots"
    }
    if "[" not in text:  # block style: only whole lines inserted, the old ones untouched
        old = (text if text.endswith("\n") else text + "\n").splitlines(keepends=True)
        new = updated.splitlines(keepends=True)
        opcodes = difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
        assert {op for op, *_ in opcodes} == {"equal", "insert"}
        assert len(new) - len(old) == (2 if isinstance(entry, dict) else 1)


def test_block_insertion_keeps_comments_in_place() -> None:
    updated = add_bot_entry(BLOCK, ENTRY)
    assert updated == BLOCK.replace(
        "# trailing comment\n", "# trailing comment\n  - name: mine\n    path: mine/main.py\n"
    )


def test_odd_names_are_quoted() -> None:
    updated = add_bot_entry("bots: [a, b]\n", {"name": "x", "path": "my bots/true: yes.py"})
    assert yaml.safe_load(updated)["bots"][-1] == {"name": "x", "path": "my bots/true: yes.py"}


@pytest.mark.parametrize("name", ["NULL", "yes", "No", "off", "1e3", "12", "0x1F", "2001-01-01"])
@pytest.mark.parametrize("text", [BLOCK, CASES["flow"]], ids=["block", "flow"])
def test_a_name_yaml_would_read_as_another_type_reads_back_as_that_name(
    tmp_path: Path, text: str, name: str
) -> None:
    """A valid bot name that plain YAML reads as null, a boolean, a number or a date is written
    quoted: the tournament loader gives back that name, not "got null"."""
    (tmp_path / "mine").mkdir()
    shutil.copy(TEST_BOTS_DIR / "instant.py", tmp_path / "mine" / "main.py")
    (tmp_path / "g.py").write_text("")
    config = tmp_path / "t.yaml"
    config.write_text(add_bot_entry(text, {"name": name, "path": "mine/main.py"}))
    assert load_config(config).bots[-1].name == name


@pytest.mark.parametrize("text", ["seed: 1\n", "bots: 3\n", "bots: []\n", "- a\n"])
def test_no_bots_list(text: str) -> None:
    with pytest.raises(ArenaError, match="no `bots:` list"):
        add_bot_entry(text, ENTRY, "t.yaml")


_arena = functools.partial(run_arena, timeout=300)  # many games


def test_submit_end_to_end(no_leftover_processes: Path) -> None:
    root = no_leftover_processes
    config = root / "ladder.yaml"
    text = (
        "# a small ladder\n"
        "bots:\n"
        "  - random   # baseline\n"
        "  - greedy\n"
        "\n"
        "# two games per ordered pair\n"
        "games_per_pairing: 2\n"
        "time_control: {move_ms: 500}\n"
        "workers: 1\n"
    )
    config.write_text(text)
    first = _arena("tournament", "ladder.yaml", "--quiet", cwd=root)
    assert first.returncode == 0, first.stderr
    create_bot("mine", "python", root)
    shutil.copy(TEST_BOTS_DIR / "not_a_move.py", root / "broken.py")

    refused = _arena("submit", "broken.py", "ladder.yaml", cwd=root)
    assert refused.returncode == 1
    assert "broken was not added to ladder.yaml: it failed validation (format)" in refused.stdout
    assert config.read_text() == text

    added = _arena("submit", "mine", "ladder.yaml", "--json", cwd=root)
    assert added.returncode == 0, added.stderr
    result = json.loads(added.stdout)
    assert result["added"] and result["complete"] and result["name"] == "mine"
    assert 1 <= result["rank"] <= 3 and result["bots"] == 3 and result["games"] == 8
    assert result["elo_order_ci95"] > 0 and result["elo_chaos_ci95"] > 0
    assert config.read_text() == text.replace(
        "  - greedy\n", "  - greedy\n  - name: mine\n    path: mine/main.py\n"
    )
    with Store.open(root / "results" / "ladder.sqlite", readonly=True) as store:
        games = list(store.games())
    assert len(games) == 12  # 4 before, and the new bot's 8: nothing replayed
    assert sum("mine" in (g.order, g.chaos) for g in games) == 8

    again = _arena("submit", "mine", "ladder.yaml", cwd=root)
    assert again.returncode == 2 and "already in the tournament" in again.stderr


def test_sigterm_stops_submit_like_ctrl_c(no_leftover_processes: Path) -> None:
    """SIGTERM while the new bot's games run: 128 + 15, the bots stopped, the bot left in the
    file and its games stored, and the message says how to finish them. The file held one bot
    (not a tournament alone): it is judged with the new one in it."""
    root = no_leftover_processes
    create_bot("mine", "python", root)
    config = root / "ladder.yaml"
    text = "bots:\n  - random  # baseline, alone: a ladder to start\ngames_per_pairing: 500\n"
    config.write_text(text)
    process = start_arena("submit", "mine", "ladder.yaml", "--quiet", cwd=root)
    db = root / "results" / "ladder.sqlite"
    try:
        wait_until(lambda: stored_game_count(db) >= 1 or process.poll() is not None, 60)
        assert process.poll() is None, process.communicate()
        assert stored_game_count(db) >= 1, "no game stored in time"
        process.send_signal(signal.SIGTERM)
        _out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
    assert process.returncode == 128 + signal.SIGTERM, err
    assert "interrupted (SIGTERM): mine is in ladder.yaml" in err and "Traceback" not in err
    assert "arena tournament ladder.yaml" in err
    assert config.read_text() == text.replace(
        "start\n", "start\n  - name: mine\n    path: mine/main.py\n"
    )
    assert 0 < stored_game_count(db) < 1000


def test_a_place_that_is_a_bound_is_shown_as_one() -> None:
    """A bot that won every game as Order has a bound there, not an interval: its place is
    shown as the standings show it (it once stopped ``arena submit`` with a TypeError)."""
    records = []
    for _ in range(4):
        records.append(GameRecord("new", "old", Role.ORDER, Reason.FIVE))
        records.append(GameRecord("old", "new", Role.CHAOS, Reason.FULL))
    place = placing(records, "new")
    assert place.rank == 1
    assert "as Order >" in place.describe() and "as Chaos >" in place.describe()
    data = json.loads(json.dumps(place.to_json()))
    assert data["order"]["bound"] == ">" and data["elo_order_ci95"] is None
    assert [row["name"] for row in data["standings"]] == ["new", "old"]
