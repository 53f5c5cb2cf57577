"""``arena discard DB GAME...``: games set aside by number, kept and listed, and the next run of
the same tournament plays exactly their slots again, every other row untouched."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from conftest import run_arena
from factories import bot_entries, copy_bot, write_config

from arena.store.aside import DISCARDED


def rows(db: Path, table: str = "games") -> dict[int, tuple[object, ...]]:
    with sqlite3.connect(f"{db.absolute().as_uri()}?mode=ro", uri=True) as conn:
        found = conn.execute(f"SELECT * FROM {table}").fetchall()
    conn.close()
    return {int(row[0]): tuple(row[1:]) for row in found}


def test_discarded_games_are_played_again_and_nothing_else(tmp_path: Path) -> None:
    """``seeded.py`` keeps one generator across a chunk's games: a redone slot plays its game
    again only when the chunk's games before it are replayed first (unstored), as a resume
    does. One worker: game 5 is the fifth of its chunk of 8, game 9 the first of the next."""
    seeded = copy_bot(tmp_path / "bots", "seeded.py", executable=True)
    bots = [{"name": name, "command": [str(seeded)]} for name in ("s1", "s2", "s3")]
    config = write_config(tmp_path, bots, games_per_pairing=4, workers=1)
    db = tmp_path / "t.sqlite"
    assert run_arena("tournament", config, "--quiet").returncode == 0
    before = rows(db)
    assert len(before) == 24 and {row[6] for row in before.values()} <= {"five", "full"}
    assert len({row[8] for row in before.values()}) > 12  # the games differ

    done = run_arena("discard", db, "5", "9")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"discarded games 5, 9 of {db}: kept aside")
    listed = run_arena("discard", db, "--list")
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()[2:]] == ["5", "9"]
    kept = {number: row[1:] for number, row in rows(db, DISCARDED).items()}  # after the time
    assert kept == {5: before[5], 9: before[9]}

    owed = " ".join(run_arena("ratings", db).stdout.split())
    assert "INCOMPLETE: 2 games are still owed, in " in owed
    assert "not played yet: the run stopped, is still going, or games were discarded" in owed

    again = run_arena("tournament", config)
    assert again.returncode == 0, again.stderr
    assert "2 games played this run, 22 resumed" in again.stdout
    assert "INCOMPLETE" not in again.stdout
    after = rows(db)
    assert {n: after[n] for n in before if n not in (5, 9)} == {
        n: row for n, row in before.items() if n not in (5, 9)
    }
    redone = {n: row for n, row in after.items() if n not in before}
    assert sorted(redone) == [25, 26]

    def game(row: tuple[object, ...]) -> tuple[object, ...]:  # players, slot, result, moves
        return row[:9]

    assert sorted(map(game, redone.values())) == sorted(game(before[n]) for n in (5, 9))


def test_a_game_not_stored_is_one_line_and_nothing_is_discarded(tmp_path: Path) -> None:
    config = write_config(tmp_path, bot_entries(tmp_path, ["instant", "paced"]))
    db = tmp_path / "t.sqlite"
    assert run_arena("tournament", config, "--quiet").returncode == 0
    before = rows(db)
    refused = run_arena("discard", db, "2", "40")
    assert refused.returncode == 2
    assert refused.stderr.splitlines() == [
        f"arena: error: {db}: no game 40 (it holds games 1 to 4, less any discarded: arena"
        " replay lists them); nothing was discarded"
    ]
    assert rows(db) == before
    assert run_arena("discard", db, "--list").stdout == f"no games discarded from {db}\n"
    for args, said in (
        ([], "give the numbers of the games to discard (arena replay DB lists them)"),
        (["3", "--list"], "--list: lists the discarded games; give no game numbers with it"),
    ):
        wrong = run_arena("discard", db, *args)
        assert wrong.returncode == 2 and wrong.stderr == f"arena: error: {said}\n", wrong.stderr
    assert rows(db) == before
