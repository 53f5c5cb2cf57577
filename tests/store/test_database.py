"""Tests of arena.store.database on real SQLite files."""

from __future__ import annotations

import functools
import itertools
import json
import os
import selectors
import signal
import sqlite3
import stat
import subprocess
import sys
import time
from dataclasses import fields
from pathlib import Path

import pytest
from factories import make_record as shared_make_record
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import StoreError
from arena.records import GameRecord, Reason
from arena.rules import Role
from arena.store.database import (
    SCHEMA_VERSION,
    BotVersion,
    HarnessErrorRow,
    Store,
    VersionChange,
    versioned_name,
)
from arena.store.rows import COLUMNS
from arena.store.runlock import RunLock

STORE_ODDITIES: dict[str, object] = {
    "winner": Role.CHAOS,
    "reason": Reason.TIMEOUT,
    "moves": ["c4X", "a1O", "f6x"],
    "ms": [1.5, 99.25, 0.001],
    "detail": "no reply within 100 ms",
    "stderr_order": "warning: thinking\n",
    "stderr_chaos": "ünïcödé ✓\x00 tail\r\n",
    "seed": 2**63 - 1,
    "started_at": 1_700_000_000.123456,
    "finished_at": 1_700_000_001.654321,
    "opening": ["b2O", "e5X"],
}
"""What a store must keep exactly: every field set, with odd values (a lowercase move, NUL and
CRLF in stderr, the largest seed, microseconds)."""
make_record = functools.partial(shared_make_record, **STORE_ODDITIES)
"""The shared record (``factories.make_record``) with the store's odd values; ``changes`` still
replace any field."""


def bots(*specs: str) -> list[BotVersion]:
    """``bots("alpha:v1", "beta:v2")`` -> BotVersions named alpha and beta."""
    result = []
    for spec in specs:
        name, version = spec.split(":")
        result.append(BotVersion(name, version, ("python3", f"bots/{name}.py")))
    return result


@pytest.fixture
def store(tmp_path: Path):
    with Store.open(tmp_path / "results" / "t.sqlite") as opened:
        opened.register_bots(bots("alpha:alpha-v1", "beta:beta-v1"))
        yield opened


def other_files(directory: Path, *names: str) -> set[str]:
    return {p.name for p in directory.iterdir()} - set(names)


# --- round trip ----------------------------------------------------------------------------------
def test_game_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "dirs" / "t.sqlite"  # parent directories are created
    record = make_record()
    plain = make_record(
        "beta",
        "alpha",
        winner=Role.ORDER,
        reason=Reason.FIVE,
        moves=[],
        ms=[],
        detail="",
        stderr_order="",
        stderr_chaos="",
        seed=0,
        order_version="beta-v1",
        chaos_version="alpha-v1",
    )
    with Store.open(path) as store:
        store.register_bots(bots("alpha:alpha-v1", "beta:beta-v1"))
        assert store.add_game(record, 0) is True
        assert store.add_game(plain, 0) is True
        assert list(store.games()) == [record, plain]
    with Store.open(path, readonly=True) as store:
        assert list(store.games()) == [record, plain]
        assert [g.to_json() for g in store.games()] == [record.to_json(), plain.to_json()]
        assert store.count_games() == 2


def test_every_record_field_has_its_column(tmp_path: Path) -> None:
    """The column list is the one place a field is stored: the table has exactly those columns."""
    path = tmp_path / "t.sqlite"
    Store.open(path).close()
    conn = sqlite3.connect(path)
    columns = {row[1] for row in conn.execute("PRAGMA table_info(games)")}
    conn.close()
    assert columns == {"id"} | {column.name for column in COLUMNS}
    stored = {column.field for column in COLUMNS if column.field}
    assert stored == {f.name for f in fields(GameRecord)}
    assert {c.name for c in COLUMNS if not c.field} == {"slot", "cpu_ms"}  # cpu_ms: left NULL


def test_a_store_with_cpu_times_reads_and_exports_as_one_without(tmp_path: Path) -> None:
    """A file whose ``cpu_ms`` column holds times opens, and its games are those of the same
    file with the column NULL: the column is in no record."""
    exported = []
    for cpu_ms in ("'[0.5]'", "NULL"):
        path = schema_1_store(tmp_path / f"old-{len(exported)}.sqlite")
        conn = sqlite3.connect(path)
        conn.execute(f"UPDATE games SET cpu_ms = {cpu_ms}")
        conn.commit()
        conn.close()
        with Store.open(path) as store:
            store.add_game(make_record(), 1)
            exported.append([game.to_json() for game in store.games()])
    assert exported[0] == exported[1] and len(exported[0]) == 2
    assert "cpu_ms" not in exported[0][0]


texts = st.text(max_size=40)
floats = st.floats(allow_nan=False, width=64)
records = st.builds(
    GameRecord,
    order=texts,
    chaos=texts,
    winner=st.sampled_from(Role),
    reason=st.sampled_from(Reason),
    moves=st.lists(st.sampled_from(["a1X", "a1O", "f6X", "c4o"]), max_size=36),
    ms=st.lists(floats, max_size=36),
    detail=texts,
    stderr_order=texts,
    stderr_chaos=texts,
    seed=st.integers(-(2**63), 2**63 - 1),
    started_at=floats,
    finished_at=floats,
    order_version=texts,
    chaos_version=texts,
    opening=st.lists(st.sampled_from(["a1X", "b2O", "f6x"]), max_size=8),
)


def test_game_round_trip_property(tmp_path: Path) -> None:
    slots = itertools.count()
    with Store.open(tmp_path / "p.sqlite") as store:

        @settings(max_examples=60, deadline=None)
        @given(record=records)
        def check(record: GameRecord) -> None:
            assert store.add_game(record, next(slots))
            *_, last = store.games(include_inactive=True)
            assert last == record

        check()


def test_undecodable_text_is_stored_escaped(store: Store) -> None:
    record = make_record(stderr_order="bad byte: \udcff", detail="\ud800")
    assert store.add_game(record, 0)
    (stored,) = store.games()
    assert stored.stderr_order == "bad byte: \\udcff"
    assert stored.detail == "\\ud800"


def test_games_are_in_play_order_across_batches(store: Store) -> None:
    slots = list(range(600))  # more than one batch of games()
    for slot in reversed(slots):
        assert store.add_game(make_record(seed=slot), slot)
    assert [g.seed for g in store.games()] == list(reversed(slots))
    assert store.count_games() == 600


def test_bad_arguments(store: Store) -> None:
    with pytest.raises(ValueError):
        store.add_game(make_record(), -1)
    with pytest.raises(ValueError):
        store.add_game(make_record(seed=2**63), 0)
    with pytest.raises(ValueError, match="one version"):
        store.register_bots(bots("alpha:1", "alpha:2"))
    assert store.count_games(include_inactive=True) == 0


# --- slots ---------------------------------------------------------------------------------------
def test_slot_is_stored_once(store: Store) -> None:
    record = make_record()
    assert store.add_game(record, 3) is True
    assert store.add_game(make_record(seed=7), 3) is False  # same slot: not stored, no error
    assert store.count_games() == 1
    assert next(store.games()).seed == record.seed
    assert store.add_game(record, 4) is True
    # The other direction of the pairing is another pairing.
    assert (
        store.add_game(
            make_record("beta", "alpha", order_version="beta-v1", chaos_version="alpha-v1"), 3
        )
        is True
    )
    # Another version of a bot makes another pairing too.
    assert store.add_game(make_record(order_version="alpha-v2"), 3) is True
    assert store.completed_slots() == {
        ("alpha", "beta", 3),
        ("alpha", "beta", 4),
        ("beta", "alpha", 3),
    }
    assert store.count_games() == 3
    assert store.count_games(include_inactive=True) == 4


# --- versions ------------------------------------------------------------------------------------
def test_version_change_sets_old_games_aside(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    with Store.open(path) as store:
        assert store.register_bots(bots("alpha:a1", "beta:b1", "gamma:c1")) == []
        for slot in range(3):
            store.add_game(
                make_record("alpha", "beta", order_version="a1", chaos_version="b1"), slot
            )
            store.add_game(
                make_record("beta", "gamma", order_version="b1", chaos_version="c1"), slot
            )
        store.add_game(make_record("gamma", "alpha", order_version="c1", chaos_version="a1"), 0)
        assert len(store.completed_slots()) == 7
        assert store.set_aside_count("alpha") == 0

    with Store.open(path) as store:
        changes = store.register_bots(bots("alpha:a2", "beta:b1", "gamma:c1", "delta:d1"))
        assert changes == [VersionChange("alpha", "a1", "a2")]  # a new bot is not a change
        assert store.set_aside_count("alpha") == 4
        assert store.set_aside_count("beta") == 0  # its games against old alpha: alpha's version
        assert store.completed_slots() == {("beta", "gamma", s) for s in range(3)}
        assert store.count_games() == 3
        assert [(g.order, g.chaos) for g in store.games()] == [("beta", "gamma")] * 3
        assert store.count_games(include_inactive=True) == 7
        assert len(list(store.games(include_inactive=True))) == 7
        assert {b.name: b.version for b in store.active_bots()} == {
            "alpha": "a2",
            "beta": "b1",
            "gamma": "c1",
            "delta": "d1",
        }
        # Registering the same set again changes nothing.
        assert store.register_bots(bots("alpha:a2", "beta:b1", "gamma:c1", "delta:d1")) == []

        # Going back to the old version brings its games back (and is reported as a change).
        assert store.register_bots(bots("alpha:a1", "beta:b1", "gamma:c1")) == [
            VersionChange("alpha", "a2", "a1")
        ]
        assert store.count_games() == 7
        assert store.set_aside_count("alpha") == 0

        # A bot left out of a run is not active; when it returns, its change is still reported.
        assert store.register_bots(bots("alpha:a1", "beta:b1")) == []
        assert store.completed_slots() == {("alpha", "beta", s) for s in range(3)}
        assert store.set_aside_count("gamma") == 4
        assert store.register_bots(bots("alpha:a1", "beta:b1", "gamma:c9")) == [
            VersionChange("gamma", "c1", "c9")
        ]
        assert store.set_aside_count("gamma") == 4


def test_unregistered_versions_are_inactive(tmp_path: Path) -> None:
    with Store.open(tmp_path / "t.sqlite") as store:
        assert store.add_game(make_record(), 0)
        assert store.count_games() == 0
        assert store.completed_slots() == set()
        assert store.count_games(include_inactive=True) == 1
        store.register_bots(bots("alpha:alpha-v1", "beta:beta-v1"))
        assert store.completed_slots() == {("alpha", "beta", 0)}


def test_bot_commands_round_trip(tmp_path: Path) -> None:
    with Store.open(tmp_path / "t.sqlite") as store:
        store.register_bots(
            [BotVersion("a", "1", ("python3", "a b.py")), BotVersion("b", "2", "./b --fast")]
        )
        assert store.active_bots() == [
            BotVersion("a", "1", ("python3", "a b.py")),
            BotVersion("b", "2", "./b --fast"),
        ]


# --- meta, harness errors, reset -----------------------------------------------------------------
def test_meta_harness_errors_and_reset(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    with Store.open(path) as store:
        store.register_bots(bots("alpha:alpha-v1", "beta:beta-v1"))
        assert store.get_meta("name") is None
        store.set_meta("name", "league")
        store.set_meta("name", "league 2")
        store.set_meta("config", '{"games": 10}')
        with pytest.raises(TypeError):
            store.set_meta("seed", 3)  # type: ignore[arg-type]
        before = time.time()
        store.add_harness_error("alpha vs beta, game 2", "BrokenPipeError: [Errno 32]")
        store.add_harness_error("worker 3", "Traceback ...")
        for slot in range(3):
            store.add_game(make_record(), slot)
    with Store.open(path) as store:
        assert store.get_meta("name") == "league 2"
        assert store.get_meta("config") == '{"games": 10}'
        errors = store.harness_errors()
        assert [(e.description, e.error) for e in errors] == [
            ("alpha vs beta, game 2", "BrokenPipeError: [Errno 32]"),
            ("worker 3", "Traceback ..."),
        ]
        assert isinstance(errors[0], HarnessErrorRow)
        assert before - 1 <= errors[0].time <= time.time() + 1
        store.reset()
        assert store.count_games(include_inactive=True) == 0
        assert store.harness_errors() == []
        assert store.get_meta("name") == "league 2"  # meta and bots are kept
        assert store.completed_slots() == set()
        assert store.add_game(make_record(), 0)  # slots can be played again
        assert store.count_games() == 1


# --- opening, schema and errors ------------------------------------------------------------------
def test_new_store_layout(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    with Store.open(path) as store:
        store.add_game(make_record(), 0)
        conn = sqlite3.connect(path)  # a second connection while the writer is open
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        conn.close()
    # At rest (clean close, no other connection) the store is one file.
    assert other_files(tmp_path) == {"t.sqlite"}


def test_newer_schema_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE games (x)")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    for readonly in (False, True):
        with pytest.raises(StoreError) as caught:
            Store.open(path, readonly=readonly)
        message = str(caught.value)
        assert str(path) in message
        newer = f"schema {SCHEMA_VERSION + 1} > {SCHEMA_VERSION}"
        assert f"was written by a newer arena ({newer}); upgrade arena" in message
    assert path.read_bytes() == before
    assert other_files(tmp_path) == {"future.sqlite"}


@pytest.mark.parametrize("readonly", [False, True])
def test_not_a_database(tmp_path: Path, readonly: bool) -> None:
    path = tmp_path / "notes.sqlite"
    path.write_text("these are my notes, not a database\n" * 50)
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not an SQLite database") as caught:
        Store.open(path, readonly=readonly)
    assert str(path) in str(caught.value)
    assert path.read_bytes() == before


def test_foreign_database_is_not_touched(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE people (name)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not an arena store"):
        Store.open(path)
    assert path.read_bytes() == before


@pytest.mark.parametrize("readonly", [False, True])
def test_a_device_or_a_pipe_is_no_store_and_gets_no_journal(tmp_path: Path, readonly: bool) -> None:
    os.mkfifo(tmp_path / "pipe")
    for path in (Path("/dev/null"), tmp_path / "pipe"):
        journals = [Path(f"{path}{suffix}") for suffix in ("-journal", "-wal", "-shm")]
        assert not any(j.exists() for j in journals)
        with pytest.raises(StoreError, match="not a regular file") as caught:
            Store.open(path, readonly=readonly)
        (line,) = str(caught.value).splitlines()
        assert line.startswith(f"{path}: ")
        assert not any(j.exists() for j in journals)


@pytest.mark.parametrize("target", ["empty", "missing", "hardlink"])
def test_a_link_to_an_empty_file_is_not_made_a_store(tmp_path: Path, target: str) -> None:
    """A new store is made only at a path of its own: never through a link into another file."""
    other = tmp_path / "someone" / "notes.txt"
    other.parent.mkdir()
    if target != "missing":
        other.write_bytes(b"")
    link = tmp_path / "t.sqlite"
    if target == "hardlink":
        os.link(other, link)
    else:
        link.symlink_to(other)
    with pytest.raises(StoreError, match="link") as caught:
        Store.open(link)
    (line,) = str(caught.value).splitlines()
    assert line.startswith(f"{link}: ")
    assert (other.read_bytes() if other.exists() else None) == (
        None if target == "missing" else b""
    )
    assert other_files(other.parent) == ({"notes.txt"} if target != "missing" else set())
    assert other_files(tmp_path, "someone") == {"t.sqlite"}
    Store.open(tmp_path / "own.sqlite").close()  # a path of its own is made a store


def test_unusable_paths(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a directory"):
        Store.open(tmp_path)
    (tmp_path / "plain").write_text("x")
    with pytest.raises(StoreError, match="cannot create the directory") as caught:
        Store.open(tmp_path / "plain" / "t.sqlite")  # the "directory" is a file
    assert "t.sqlite" in str(caught.value)


def test_readonly_open_of_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "missing" / "t.sqlite"
    with pytest.raises(StoreError, match="no such store") as caught:
        Store.open(path, readonly=True)
    assert str(path) in str(caught.value)
    assert not (tmp_path / "missing").exists()


def test_readonly_empty_file_is_not_a_store(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite"
    path.touch()
    with pytest.raises(StoreError, match="not an arena store"):
        Store.open(path, readonly=True)
    assert path.read_bytes() == b""


def test_readonly_store_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    with Store.open(path) as store:
        store.register_bots(bots("alpha:alpha-v1", "beta:beta-v1"))
        store.add_game(make_record(), 0)
    before = path.read_bytes()
    with Store.open(path, readonly=True) as store:
        assert store.count_games() == 1
        assert store.get_meta("x") is None
        writes = [
            lambda: store.add_game(make_record(), 1),
            lambda: store.register_bots(bots("alpha:alpha-v2")),
            lambda: store.set_meta("x", "y"),
            lambda: store.add_harness_error("d", "e"),
            store.reset,
        ]
        for write in writes:
            with pytest.raises(StoreError, match="read-only") as caught:
                write()
            assert str(path) in str(caught.value)
        assert store.count_games() == 1
        assert other_files(tmp_path) == {"t.sqlite"}  # no -wal / -shm created
    assert path.read_bytes() == before


def test_read_only_directory(tmp_path: Path) -> None:
    directory = tmp_path / "ro"
    directory.mkdir()
    path = directory / "t.sqlite"
    with Store.open(path) as store:
        store.register_bots(bots("alpha:alpha-v1", "beta:beta-v1"))
        store.add_game(make_record(), 0)
    directory.chmod(stat.S_IRUSR | stat.S_IXUSR)
    path.chmod(stat.S_IRUSR)
    try:
        try:
            (directory / "probe").touch()
        except PermissionError:
            pass
        else:
            pytest.skip("permissions do not stop writes here (running as root?)")
        with pytest.raises(StoreError) as caught:
            Store.open(directory / "new.sqlite")
        assert "new.sqlite" in str(caught.value)
        assert "cannot open" in str(caught.value)
        with pytest.raises(StoreError) as caught:
            Store.open(path)
        assert str(path) in str(caught.value)
        assert "read-only" in str(caught.value) or "cannot open" in str(caught.value)
        with Store.open(path, readonly=True) as store:  # reading still works
            assert store.count_games() == 1
        assert other_files(directory) == {"t.sqlite"}
    finally:
        directory.chmod(stat.S_IRWXU)
        path.chmod(stat.S_IRUSR | stat.S_IWUSR)


def test_full_disk(store: Store) -> None:
    for slot in range(5):
        assert store.add_game(make_record(), slot)
    # Simulate a full disk: forbid the file to grow beyond its current size. The page limit is a
    # setting of one connection, so it must be the store's own (no public path sets it).
    conn = store._conn
    assert conn is not None
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(StoreError, match="disk is full") as caught:
        for slot in range(5, 100):
            store.add_game(make_record(stderr_order="x" * 16384), slot)
    assert str(store.path) in str(caught.value)
    stored = store.count_games()
    assert 5 <= stored < 100
    assert store.completed_slots() == {("alpha", "beta", s) for s in range(stored)}
    conn.execute("PRAGMA max_page_count = 1073741823")
    assert store.add_game(make_record(), 100)  # usable again once there is room


def test_closed_store(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "t.sqlite")
    store.close()
    store.close()  # idempotent
    with pytest.raises(StoreError, match="closed"):
        store.count_games()
    with pytest.raises(StoreError, match="closed"):
        store.add_game(make_record(), 0)


def test_reader_alongside_writer(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    with Store.open(path) as writer:
        writer.register_bots(bots("alpha:alpha-v1", "beta:beta-v1"))
        writer.add_game(make_record(), 0)
        with Store.open(path, readonly=True, busy_timeout=1) as reader:
            games = reader.games()
            assert next(games) == make_record()
            assert writer.add_game(make_record(), 1)  # a reader does not block the writer
            assert reader.count_games() == 2
            assert reader.completed_slots() == {("alpha", "beta", 0), ("alpha", "beta", 1)}
    with Store.open(path, readonly=True) as reader:
        assert reader.count_games() == 2
        writer = Store.open(path)
        writer.add_game(make_record(), 2)
        writer.close()  # while a reader is open: the file stays in WAL mode, nothing is lost
        assert reader.count_games() == 3
    with Store.open(path, readonly=True) as reader:
        assert reader.count_games() == 3


# --- crash safety --------------------------------------------------------------------------------
CHILD = r"""
import sys
from arena.records import GameRecord, Reason
from arena.rules import Role
from arena.store.database import BotVersion, Store

store = Store.open(sys.argv[1])
store.register_bots([BotVersion("a", "va", ("a",)), BotVersion("b", "vb", ("b",))])
done = store.completed_slots()
slot = 0
while True:
    if ("a", "b", slot) not in done:
        record = GameRecord(
            order="a", chaos="b", winner=Role.ORDER, reason=Reason.FIVE,
            moves=["a1X"] * 36, ms=[float(slot)] * 36, stderr_order="o" * 8000,
            stderr_chaos="c" * 8000, seed=slot, order_version="va", chaos_version="vb",
        )
        if store.add_game(record, slot):
            print(slot, flush=True)
    slot += 1
"""


def run_and_kill(path: Path, commits: int, timeout: float = 20.0) -> list[int]:
    """Run CHILD until it reports ``commits`` games, SIGKILL it; return the reported slots."""
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    reported: list[int] = []
    buffer = b""
    deadline = time.monotonic() + timeout
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(proc.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
            while len(reported) < commits:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    pytest.fail(f"the writer reported only {len(reported)} games in {timeout} s")
                if not selector.select(remaining):
                    continue
                chunk = os.read(proc.stdout.fileno(), 65536)  # type: ignore[union-attr]
                if not chunk:
                    proc.wait(timeout=timeout)
                    pytest.fail(f"the writer exited early: {proc.stderr.read().decode()}")  # type: ignore[union-attr]
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                reported += [int(line) for line in lines]
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=timeout)
        proc.stdout.close()  # type: ignore[union-attr]
        proc.stderr.close()  # type: ignore[union-attr]
    assert proc.returncode == -signal.SIGKILL
    return reported


def test_sigkill_loses_no_committed_game(tmp_path: Path) -> None:
    path = tmp_path / "crash.sqlite"
    reported: list[int] = []
    rounds = 3
    for _ in range(rounds):  # each round resumes where the killed one stopped
        reported += run_and_kill(path, commits=40)
        assert len(reported) == len(set(reported))

        conn = sqlite3.connect(path)
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        conn.close()
    with Store.open(path, readonly=True) as store:
        games = list(store.games())
        slots = [g.seed for g in games]
        assert len(slots) == len(set(slots)) == store.count_games()
        assert {slot for _, _, slot in store.completed_slots()} == set(slots)
        assert set(reported) <= set(slots)  # nothing reported is lost
        # At most the game being committed when each kill came is stored but not reported.
        assert len(set(slots) - set(reported)) <= rounds
        for game in games:  # and nothing is half-written
            assert game.moves == ["a1X"] * 36
            assert game.ms == [float(game.seed)] * 36
            assert game.stderr_order == "o" * 8000 and game.stderr_chaos == "c" * 8000
    with Store.open(path) as store:  # and the killed store is writable again
        assert store.count_games() == len(slots)


def test_add_games_reports_exactly_which_games_were_new(tmp_path: Path) -> None:
    """A batch with an already-stored slot stores the others and says which were new."""
    with Store.open(tmp_path / "batch.sqlite") as store:
        store.register_bots([BotVersion("a", "v1", ("a",)), BotVersion("b", "v1", ("b",))])
        record = GameRecord(
            "a", "b", Role.ORDER, Reason.FIVE, moves=["a1X"], ms=[1.0],
            order_version="v1", chaos_version="v1",
        )  # fmt: skip
        assert store.add_games([(record, 0), (record, 1)]) == [True, True]
        assert store.add_games([(record, 1), (record, 2), (record, 3)]) == [False, True, True]
        assert store.add_games([]) == []
        assert sorted(slot for _, _, slot in store.completed_slots()) == [0, 1, 2, 3]
        assert store.count_games() == 4


# --- migration of older files --------------------------------------------------------------------
SCHEMA_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE bots (
    name TEXT NOT NULL, version TEXT NOT NULL, command TEXT NOT NULL, first_seen REAL NOT NULL,
    active INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1)),
    last_run INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (name, version));
CREATE TABLE games (
    id INTEGER PRIMARY KEY AUTOINCREMENT, order_name TEXT NOT NULL, chaos_name TEXT NOT NULL,
    order_version TEXT NOT NULL, chaos_version TEXT NOT NULL,
    slot INTEGER NOT NULL CHECK (slot >= 0),
    winner TEXT NOT NULL CHECK (winner IN ('order', 'chaos')), reason TEXT NOT NULL,
    detail TEXT NOT NULL, moves TEXT NOT NULL, ms TEXT NOT NULL, cpu_ms TEXT,
    stderr_order TEXT NOT NULL, stderr_chaos TEXT NOT NULL, seed INTEGER NOT NULL,
    started_at REAL NOT NULL, finished_at REAL NOT NULL,
    UNIQUE (order_name, order_version, chaos_name, chaos_version, slot));
CREATE INDEX games_by_chaos ON games (chaos_name, chaos_version);
CREATE TABLE harness_errors (
    id INTEGER PRIMARY KEY AUTOINCREMENT, time REAL NOT NULL, description TEXT NOT NULL,
    error TEXT NOT NULL);
INSERT INTO bots VALUES ('alpha', 'alpha-v1', '[]', 0, 1, 1), ('beta', 'beta-v1', '[]', 0, 1, 1);
INSERT INTO games (order_name, chaos_name, order_version, chaos_version, slot, winner, reason,
    detail, moves, ms, cpu_ms, stderr_order, stderr_chaos, seed, started_at, finished_at)
    VALUES ('alpha', 'beta', 'alpha-v1', 'beta-v1', 0, 'chaos', 'timeout', 'late', '["c4X"]',
    '[1.5]', NULL, '', '', 5, 1.0, 2.0);
PRAGMA user_version = 1;
"""


def schema_1_store(path: Path) -> Path:
    """A store as arena wrote it before games had an opening (schema 1), with one game."""
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA_1)
    conn.close()
    return path


def test_schema_1_store_is_read_as_is_when_read_only(tmp_path: Path) -> None:
    path = schema_1_store(tmp_path / "old.sqlite")
    before = path.read_bytes()
    with Store.open(path, readonly=True) as store:
        (game,) = store.games()
    assert game.opening == [] and game.moves == ["c4X"] and game.seed == 5
    assert path.read_bytes() == before


def test_schema_1_store_is_migrated_when_opened_for_writing(tmp_path: Path) -> None:
    path = schema_1_store(tmp_path / "old.sqlite")
    with Store.open(path) as store:
        (game,) = store.games()
        assert game.opening == []
        assert store.add_game(make_record(opening=["a1X"]), 1)
        assert not store.add_game(make_record(), 0)  # the old game's slot is still taken
        assert [g.opening for g in store.games()] == [[], ["a1X"]]
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_a_clocked_game_keeps_its_clocks(store: Store) -> None:
    """Schema 4: how a game's time was measured and its clocks, stored and read back."""
    record = make_record(measure="cpu", clock_ms=[990.5, 1000.0, 5.0], clock_start_ms=1000)
    assert store.add_game(record, 0)
    (game,) = store.games()
    assert (game.measure, game.clock_ms, game.clock_start_ms) == ("cpu", [990.5, 1000.0, 5.0], 1000)


def schema_2_store(path: Path) -> Path:
    """A store as arena wrote it before games kept the bots' display names (schema 2)."""
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA_1.replace("PRAGMA user_version = 1;", ""))
    conn.execute("ALTER TABLE games ADD COLUMN opening TEXT NOT NULL DEFAULT '[]'")
    conn.execute("UPDATE games SET opening = '[\"a1X\"]'")
    conn.execute("PRAGMA user_version = 2")
    conn.commit()
    conn.close()
    return path


def test_schema_2_store_reads_without_display_names_and_migrates(tmp_path: Path) -> None:
    path = schema_2_store(tmp_path / "old.sqlite")
    before = path.read_bytes()
    with Store.open(path, readonly=True) as store:
        (game,) = store.games()
    assert (game.order_display, game.chaos_display, game.opening) == ("", "", ["a1X"])
    assert (game.measure, game.clock_ms, game.clock_start_ms) == ("wall", None, None)
    assert path.read_bytes() == before
    with Store.open(path) as store:
        assert store.add_game(make_record(order_display="Alpha 2.0", chaos_display="b"), 1)
        assert [(g.order_display, g.chaos_display) for g in store.games()] == [
            ("", ""),
            ("Alpha 2.0", "b"),
        ]
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


# --- claims: one tournament per store -----------------------------------------------------------
DEFINITION = {
    "name": "league",
    "seed": 1,
    "time_control": {"move_ms": 100, "startup_ms": 5000},
    "limits": {"memory_mb": 1024},
    "openings": None,
}


def test_a_store_refuses_another_tournaments_run(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    with Store.open(path) as store:
        store.claim(DEFINITION, 4)
        store.register_bots(bots("alpha:alpha-v1", "beta:beta-v1"))
        store.add_game(make_record(), 0)
    other = {**DEFINITION, "seed": 2, "time_control": {"move_ms": 200, "startup_ms": 5000}}
    with Store.open(path) as store:
        store.claim(DEFINITION, 4)  # the same tournament resumes
        with pytest.raises(StoreError) as caught:
            store.claim(other, 4)
        (line,) = str(caught.value).splitlines()
        assert line.startswith(f"{path}: holds the games of another tournament (")
        assert "seed: 1 in the store, 2 now" in line
        assert "time_control.move_ms: 100 in the store, 200 now" in line
        assert line.endswith("run with --fresh to discard them, or store this one in another file")
        assert "startup_ms" not in line and "name:" not in line
    with Store.open(path) as store:
        assert store.count_games() == 1
        with pytest.raises(StoreError, match="another tournament"):
            store.claim({**DEFINITION, "limits": {"memory_mb": 512, "tmp_mb": 64}}, 4)
        store.reset()  # --fresh: the games go, and the store takes the next definition
        store.claim(other, 4)
        assert store.count_games() == 0
    with Store.open(path) as store, pytest.raises(StoreError, match="seed: 2 in the store, 1 now"):
        store.claim(DEFINITION, 4)


def test_an_unset_entry_matches_a_missing_one(tmp_path: Path) -> None:
    with Store.open(tmp_path / "t.sqlite") as store:
        store.claim({"seed": 1}, 2)  # an older arena, that knew no openings or freeze_idle
        store.claim({"seed": 1, "openings": None, "freeze_idle": False, "extra": {}}, 2)
        with pytest.raises(StoreError, match=r"openings.random_plies: \(not set\) in the store, 4"):
            store.claim({"seed": 1, "openings": {"random_plies": 4}}, 2)
    with Store.open(tmp_path / "m.sqlite") as store:  # measure: wall is stored as null
        store.claim({"time_control": {"measure": "cpu"}}, 2)
        with pytest.raises(StoreError, match='measure: "cpu" in the store, \\(the default\\) now'):
            store.claim({"time_control": {"measure": None}}, 2)


def test_games_beyond_games_per_pairing_are_kept_but_do_not_count(tmp_path: Path) -> None:
    with Store.open(tmp_path / "t.sqlite") as store:
        store.claim(DEFINITION, 6)
        store.register_bots(bots("alpha:alpha-v1", "beta:beta-v1"))
        for slot in range(6):
            store.add_game(make_record(seed=slot), slot)
        assert store.count_games() == 6
        store.claim(DEFINITION, 2)  # a smaller tournament on the same store
        assert store.count_games() == 2
        assert [g.seed for g in store.games()] == [0, 1]
        assert store.count_games(include_inactive=True) == 6
        assert {slot for _, _, slot in store.completed_slots()} == set(range(6))  # not replayed
        store.claim(DEFINITION, 10)  # and back: every stored game counts again
        assert [g.seed for g in store.games()] == list(range(6))


def test_bad_claims(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    with Store.open(path) as store:
        with pytest.raises(ValueError):
            store.claim(DEFINITION, -1)
        with pytest.raises(TypeError):
            store.claim(DEFINITION, True)
        with pytest.raises(TypeError):
            store.claim({"x": object()}, 1)
    with Store.open(path, readonly=True) as store, pytest.raises(StoreError, match="read-only"):
        store.claim(DEFINITION, 1)


# --- the run lock -------------------------------------------------------------------------------
def test_one_run_at_a_time_and_workers_are_not_blocked(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    with Store.open(path) as first:
        first.claim(DEFINITION, 4)
        first.register_bots(bots("alpha:alpha-v1", "beta:beta-v1"))
        with Store.open(path) as second:
            for attempt in (lambda: second.claim(DEFINITION, 4), second.reset):
                with pytest.raises(StoreError) as caught:
                    attempt()
                (line,) = str(caught.value).splitlines()
                assert f"another run is using this store (pid {os.getpid()} on " in line
                assert str(path) in line
            assert second.add_game(make_record(), 0)  # a worker of the run records its games
        assert first.count_games() == 1
        first.claim(DEFINITION, 4)  # the holder may claim again
    with Store.open(path) as second:  # released on close
        second.claim(DEFINITION, 4)
    assert other_files(tmp_path) == {"t.sqlite"}  # and its file removed


def test_one_lock_however_the_store_is_reached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "real").mkdir()
    path = tmp_path / "real" / "t.sqlite"
    (tmp_path / "link.sqlite").symlink_to(path)
    monkeypatch.chdir(tmp_path)
    with Store.open(path) as first:
        first.claim(DEFINITION, 4)
        for spelling in ("link.sqlite", "real/../real/t.sqlite"):
            with Store.open(spelling) as second:
                for attempt in (lambda: second.claim(DEFINITION, 4), second.reset):
                    with pytest.raises(StoreError, match="another run"):
                        attempt()
        assert first.count_games() == 0
    assert other_files(tmp_path / "real") == {"t.sqlite"}  # no lock file left behind


def test_the_run_lock_is_the_files_own_whatever_its_name(tmp_path: Path) -> None:
    """A hard link is another name of the same file: the lock is taken on the file (its inode)."""
    path = tmp_path / "t.sqlite"
    with Store.open(path):
        pass
    os.link(path, tmp_path / "hard.sqlite")
    first = RunLock(path)
    first.acquire()
    try:
        with pytest.raises(StoreError, match="another run is using this store") as caught:
            RunLock(tmp_path / "hard.sqlite").acquire()
        assert "hard.sqlite" in str(caught.value)
    finally:
        first.release()
    second = RunLock(tmp_path / "hard.sqlite")
    second.acquire()  # released: free again
    second.release()
    assert other_files(tmp_path) == {"t.sqlite", "hard.sqlite"}  # and no file left behind


def test_a_forked_worker_shares_the_lock_without_releasing_it(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    with Store.open(path) as run:
        run.claim(DEFINITION, 4)
        run.register_bots(bots("alpha:alpha-v1", "beta:beta-v1"))
        pid = os.fork()
        if pid == 0:  # the worker: its own connection; closing the inherited store is harmless
            code = 1
            try:
                run.close()
                with Store.open(path) as worker:
                    code = 0 if worker.add_game(make_record(), 0) else 2
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        with Store.open(path) as other, pytest.raises(StoreError, match="another run"):
            other.claim(DEFINITION, 4)
        assert run.count_games() == 1


HOLDER = r"""
import sys, time
from arena.store.database import Store
store = Store.open(sys.argv[1])
store.claim({"seed": 1}, 2)
print("holding", flush=True)
time.sleep(60)
"""


def test_a_killed_run_releases_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        with Store.open(path) as store:
            with pytest.raises(StoreError, match=f"pid {holder.pid} on "):
                store.claim({"seed": 1}, 2)
            holder.kill()
            holder.wait(timeout=10)
            store.claim({"seed": 1}, 2)  # the kernel released the dead run's lock
    finally:
        holder.kill()
        holder.wait(timeout=10)
        assert holder.stdout is not None
        holder.stdout.close()


def test_all_versions_names_each_version_apart(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    with Store.open(path) as store:
        store.claim(DEFINITION, 1)
        store.register_bots(bots("alpha:1a2b3c4d5e6f", "beta:b1"))
        store.add_game(make_record(order_version="1a2b3c4d5e6f", chaos_version="b1"), 0)
        store.add_game(make_record(order_version="1a2b3c4d5e6f", chaos_version="b1"), 1)
        store.register_bots(bots("alpha:99ffeedd0011", "beta:b1"))
        store.add_game(make_record(order_version="99ffeedd0011", chaos_version="b1"), 0)
        store.add_game(make_record(order_version="", chaos_version="b1"), 0)  # version unknown
        assert store.count_games() == 1
        assert store.count_distinct_games() == 1
    with Store.open(path, readonly=True, all_versions=True) as store:
        assert store.count_games() == 4
        assert store.count_distinct_games() == 3  # slots 0 and 1 of one version play alike
        assert [(g.order, g.chaos) for g in store.games()] == [
            ("alpha@1a2b3c4d", "beta@b1"),
            ("alpha@1a2b3c4d", "beta@b1"),  # beyond games_per_pairing: there too
            ("alpha@99ffeedd", "beta@b1"),
            ("alpha", "beta@b1"),
        ]
    assert versioned_name("greedy", "") == "greedy"


def test_distinct_games_differ_in_players_opening_or_moves(store: Store) -> None:
    """The store's count (in SQL) agrees with hashing the records it gives back."""
    store.claim(DEFINITION, 9)
    variants = [
        {},
        {},  # the same game again
        {"moves": ["c4X", "a1O", "f6O"]},
        {"opening": ["b2O"]},
        {"opening": []},
        {"ms": [9.0, 9.0, 9.0], "seed": 3, "winner": Role.CHAOS},  # same moves: not distinct
    ]
    for slot, changes in enumerate(variants):
        store.add_game(make_record("alpha", "beta", **changes), slot)
    store.add_game(make_record("beta", "alpha"), 0)  # other players
    hashed = {(g.order, g.chaos, tuple(g.opening), tuple(g.moves)) for g in store.games()}
    assert store.count_distinct_games() == len(hashed) == 5


def test_reading_some_fields_of_the_games_leaves_the_others_at_their_defaults(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.sqlite"
    with Store.open(path) as store:
        store.claim(DEFINITION, 2)
        store.register_bots(bots("alpha:alpha-v1", "beta:beta-v1"))
        stored = make_record()
        store.add_game(stored, 0)
        (whole,) = store.games()
        (some,) = store.games(fields=["moves", "opening"])
        assert whole == stored
        assert (some.order, some.chaos, some.winner, some.reason) == (
            stored.order, stored.chaos, stored.winner, stored.reason,
        )  # fmt: skip
        assert (some.moves, some.opening) == (stored.moves, stored.opening)
        assert (some.ms, some.stderr_chaos, some.seed) == ([], "", 0)  # not read
        with pytest.raises(ValueError, match="not fields of a game record: colour"):
            list(store.games(fields=["colour"]))
    with Store.open(path, readonly=True, all_versions=True) as store:
        (some,) = store.games(fields=["moves"])
        assert (some.order, some.chaos) == ("alpha@alpha-v1", "beta@beta-v1")


_TOKEN = st.builds(
    "".join,
    st.tuples(st.sampled_from("abcdef"), st.sampled_from("123456"), st.sampled_from("XOxo")),
)


@given(tokens=st.lists(_TOKEN, max_size=36), spaced=st.booleans())
def test_stored_moves_read_back_as_written_however_they_are_spaced(
    tokens: list[str], spaced: bool
) -> None:
    """The column's text as arena writes it (split directly) and as a hand-made store may hold it
    (JSON with spaces) read back the same tokens."""
    from arena.store.rows import _dump_tokens, _load_tokens

    text = json.dumps(tokens) if spaced else _dump_tokens(tokens)
    assert _load_tokens(text) == tokens


@pytest.mark.parametrize(
    "text",
    ['["a1X","g1X"]', '["a1X","a1"]', '["a1X",3]', '{"a1X":1}', '"a1X"', '["a1X","b2O",]', "["],
)
def test_a_damaged_moves_column_is_refused(text: str) -> None:
    from arena.store.rows import _load_tokens

    with pytest.raises(ValueError):
        _load_tokens(text)


def _results_by_record(store: Store) -> list[tuple[object, ...]]:
    """What ``Store.results`` must give, worked out the long way: from each game's record."""
    from arena.ratings import GameResult

    return [(GameResult.from_record(g), g.order_display, g.chaos_display) for g in store.games()]


def _results(store: Store) -> list[tuple[object, ...]]:
    from arena.ratings import GameResult

    return [
        (GameResult.from_texts(*g[:7]), g.order_display, g.chaos_display) for g in store.results()
    ]


def test_results_read_as_text_give_what_the_records_give(tmp_path: Path) -> None:
    """The standings read each game's result and moves without building its record
    (``Store.results``): the same players, result, plies, display names and content key as
    the records give, over more than one batch, with every version apart or not."""
    path = tmp_path / "t.sqlite"
    with Store.open(path) as store:
        store.claim(DEFINITION, 400)
        store.register_bots(bots("alpha:alpha-v1", "beta:beta-v1"))
        for slot in range(300):  # more than a batch of rows
            store.add_game(
                make_record(
                    "alpha" if slot % 3 else "beta",
                    "beta" if slot % 3 else "alpha",
                    winner=Role.ORDER if slot % 2 else Role.CHAOS,
                    reason=Reason.FIVE if slot % 2 else Reason.FULL,
                    moves=["a1X", "b2O", "c3x"][: slot % 4],
                    opening=["f6O", "e5X"][: slot % 3],
                    order_display=f"A {slot}" if slot % 5 else "",
                ),
                slot,
            )
        expected = _results_by_record(store)
        assert _results(store) == expected
        assert {g[0].plies for g in expected} == {0, 1, 2, 3, 4, 5}
    with Store.open(path, readonly=True, all_versions=True) as store:
        assert _results(store) == _results_by_record(store)
        assert next(store.results()).order == "beta@beta-v1"


def test_results_of_an_older_store_read_its_defaults(tmp_path: Path) -> None:
    path = schema_1_store(tmp_path / "old.sqlite")
    with Store.open(path, readonly=True) as store:
        (game,) = store.results()
        assert game == ("alpha", "beta", "chaos", "timeout", "", "c4X", 1, "", "")
        assert _results(store) == _results_by_record(store)


@pytest.mark.parametrize(
    ("column", "value", "problem"),
    [
        ("moves", '["a1X","g7X"]', "is not a move"),
        ("opening", "3", "moves are a list"),
        ("winner_text", "draw", "is not a winner"),
        ("reason", "resigned", "is not a reason"),
        ("order_display", "7", "expected text"),
    ],
)
def test_results_name_a_game_that_cannot_be_read(
    tmp_path: Path, column: str, value: str, problem: str
) -> None:
    path = tmp_path / "t.sqlite"
    with Store.open(path) as store:
        store.claim(DEFINITION, 2)
        store.register_bots(bots("alpha:alpha-v1", "beta:beta-v1"))
        store.add_game(make_record(), 0)
        store.add_game(make_record(), 1)
    conn = sqlite3.connect(path)
    if column == "winner_text":  # past the CHECK constraint, as a hand-made store may be
        conn.execute("PRAGMA ignore_check_constraints = 1")
        column = "winner"
    stored: str | int | bytes = value
    if value.isdigit():  # a number, or in a text column a blob (a number would become text)
        stored = int(value) if column == "opening" else value.encode()
    conn.execute(f"UPDATE games SET {column} = ? WHERE slot = 1", (stored,))
    conn.commit()
    conn.close()
    with (
        Store.open(path, readonly=True) as store,
        pytest.raises(StoreError, match=f"game 2 cannot be read: .*{problem}"),
    ):
        list(store.results())


@given(tokens=st.lists(_TOKEN, max_size=36), spaced=st.booleans())
def test_stored_moves_joined_as_text_are_the_tokens_joined(tokens: list[str], spaced: bool) -> None:
    from arena.store.rows import _dump_tokens, joined_tokens

    text = json.dumps(tokens) if spaced else _dump_tokens(tokens)
    assert joined_tokens(text) == (" ".join(tokens), len(tokens))
