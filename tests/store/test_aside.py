"""Games kept aside, never lost: ``Store.reset`` (``--fresh``) copies the store beside it first, and
``Store.discard`` moves games to a table of their own, from which their slots are owed again."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from factories import make_record

from arena.errors import StoreError
from arena.store import aside
from arena.store.database import BotVersion, Store

BOTS = [BotVersion("alpha", "alpha-v1", ("a",)), BotVersion("beta", "beta-v1", ("b",))]


def filled(path: Path, games: int = 3) -> None:
    with Store.open(path) as store:
        store.claim({"name": "t"}, games)
        store.register_bots(BOTS)
        for slot in range(games):
            store.add_game(make_record(seed=slot), slot)
        store.add_harness_error("alpha~beta#0", "worker died")


def rows(path: Path, table: str = "games") -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as conn:
        return conn.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()


def test_a_reset_keeps_every_game_in_a_copy_beside_the_store(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    filled(path)
    games = rows(path)
    with Store.open(path) as store:
        store.discard([2])
        reset = store.reset()
        assert store.count_games(include_inactive=True) == 0 and store.discarded() == []
    assert (reset.games, reset.harness_errors) == (2, 1)
    assert reset.backup is not None and reset.backup.parent == tmp_path
    assert reset.backup.name.startswith("t.before-fresh-") and reset.backup.suffix == ".sqlite"
    assert str(reset.backup) in reset.describe() and "2 games and 1 harness error" in (
        reset.describe()
    )
    assert rows(reset.backup) == [games[0], games[2]]
    with Store.open(reset.backup, readonly=True) as copy:  # an arena store, read as any other
        assert copy.count_games() == 2 and len(copy.harness_errors()) == 1
        assert [g.number for g in copy.discarded()] == [2]


def test_resets_in_one_second_never_share_a_backup(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    made = [aside.new_backup_path(path, now=1_800_000_000) for _ in range(3)]
    assert len(set(made)) == 3 and all(p.exists() and p.stat().st_size == 0 for p in made)
    assert [p.name for p in made] == [
        "t.before-fresh-20270115-080000.sqlite",
        "t.before-fresh-20270115-080000-2.sqlite",
        "t.before-fresh-20270115-080000-3.sqlite",
    ]


def test_an_empty_store_is_reset_without_a_backup(tmp_path: Path) -> None:
    with Store.open(tmp_path / "t.sqlite") as store:
        reset = store.reset()
    assert reset.backup is None and reset.games == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.sqlite"]


def test_a_game_stored_during_the_copy_stops_the_reset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another connection (a game added by ``arena play``) writes between the copy and the
    reset: that game is in no copy, so nothing is deleted."""
    path = tmp_path / "t.sqlite"
    filled(path)
    copy = aside.copy_store

    def copy_then_write(conn: sqlite3.Connection, target: Path) -> None:
        copy(conn, target)
        with Store.open(path) as other:
            other.add_game(make_record(), 7)

    monkeypatch.setattr(aside, "copy_store", copy_then_write)
    with Store.open(path) as store, pytest.raises(StoreError, match="nothing was discarded"):
        store.reset()
    assert len(rows(path)) == 4


def test_discarded_games_are_kept_and_their_slots_owed_again(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    filled(path, games=4)
    before = rows(path)
    with Store.open(path) as store:
        assert store.discard([3, 1]) == [1, 3]
        assert store.completed_slots() == {("alpha", "beta", 1), ("alpha", "beta", 3)}
        assert store.count_games() == 2 and store.counted_by_pairing() == {("alpha", "beta"): 2}
        listed = store.discarded()
        assert [(g.number, g.order, g.chaos, g.slot) for g in listed] == [
            (1, "alpha", "beta", 0),
            (3, "alpha", "beta", 2),
        ]
        assert store.add_game(make_record(), 0)  # the slot can be played again
    assert rows(path)[:2] == [before[1], before[3]]  # the others untouched, row for row
    kept = rows(path, aside.DISCARDED)
    assert [row[0] for row in kept] == [1, 3]
    assert [row[2:] for row in kept] == [before[0][1:], before[2][1:]]  # each row as it was


def test_a_number_not_stored_discards_nothing(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    filled(path)
    with Store.open(path) as store:
        with pytest.raises(StoreError, match=r"no game 9 \(it holds games 1 to 3.*nothing was"):
            store.discard([2, 9])
        assert store.count_games() == 3 and store.discarded() == []


def test_discard_waits_for_no_run(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    filled(path)
    with Store.open(path) as running:
        running.claim({"name": "t"}, 3)
        with Store.open(path) as other, pytest.raises(StoreError, match="another run"):
            other.discard([1])
    assert len(rows(path)) == 3
