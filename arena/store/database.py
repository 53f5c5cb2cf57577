"""The results store of a tournament: one embedded SQLite file (``Store``), stdlib ``sqlite3``.

Each game is committed in its own transaction (WAL, ``synchronous=NORMAL``): a SIGKILL loses no
game reported stored, and a UNIQUE slot key makes storing one twice impossible. Games count only
for the active versions of both bots, and only in the slots the last ``claim`` owes; ``claim``
locks the store for one run of one tournament. Every failure is a ``StoreError`` naming the file.
Usage, durability, versions and the layout in detail: ``docs/store.md``.
"""

from __future__ import annotations

import dataclasses
import json
import operator
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, TypedDict, Unpack

from arena.errors import StoreError
from arena.records import GameRecord, Reason
from arena.store import aside
from arena.store import rows as gamerows
from arena.store.rows import dumps, safe_text
from arena.store.runlock import RunLock, holder_info

SCHEMA_VERSION = 4
"""The layout of the file, kept in ``PRAGMA user_version`` (0 means a new, empty file).

1: the first layout; 2: games gain ``opening``; 3: games gain ``order_display`` and
``chaos_display`` (the names the bots gave with ``ready``); 4: games gain ``measure``,
``clock_ms`` and ``clock_start_ms`` (time controls with a game clock). An older file is
migrated when opened for writing; read-only, the columns it lacks read as their defaults (an
empty opening, no display names, wall time, no clock).
"""

DEFAULT_BUSY_TIMEOUT = 10.0
"""Seconds to wait for a lock held by another connection before giving up with a StoreError."""

_BATCH = 256  # rows fetched per query by _game_rows(): no statement stays open between batches

_TABLES = frozenset({"meta", "bots", "games", "harness_errors"})

_SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    )
    """,
    # One row per (name, version) ever registered. `active` marks the bots of the current run;
    # `last_run` is the number of the last register_bots call that included the row, so that the
    # version a bot had when it was last seen is known even if it sat out some runs.
    """
    CREATE TABLE IF NOT EXISTS bots (
        name TEXT NOT NULL,
        version TEXT NOT NULL,
        command TEXT NOT NULL,
        first_seen REAL NOT NULL,
        active INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1)),
        last_run INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (name, version)
    )
    """,
    gamerows.create_table(),
    "CREATE INDEX IF NOT EXISTS games_by_chaos ON games (chaos_name, chaos_version)",
    """
    CREATE TABLE IF NOT EXISTS harness_errors (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        time REAL NOT NULL,
        description TEXT NOT NULL,
        error TEXT NOT NULL
    )
    """,
)


def _active(role: str) -> str:
    """SQL: the version of ``games``' bot in ``role`` is active."""
    return (
        f"EXISTS (SELECT 1 FROM bots WHERE bots.active = 1 AND bots.name = games.{role}_name"
        f" AND bots.version = games.{role}_version)"
    )


_BOTH_ACTIVE = f"({_active('order')} AND {_active('chaos')})"

_OWED_SLOT = (
    "slot < COALESCE((SELECT CAST(value AS INTEGER) FROM meta"
    " WHERE key = 'games_per_pairing'), slot + 1)"
)
"""SQL: the game's slot is one the tournament owes (below the last claim's games_per_pairing)."""

_COUNTED = f"({_BOTH_ACTIVE} AND {_OWED_SLOT})"
"""SQL: the games that count: between active versions, in owed slots."""

_INSERT = gamerows.insert_statement()

_REQUIRED_FIELDS = ("order", "chaos", "winner", "reason")
"""The fields a ``GameRecord`` cannot do without: read whatever fields are asked for."""


def store_files(path: str | os.PathLike[str]) -> tuple[Path, ...]:
    """Every file a store at ``path`` may have (itself and SQLite's journals), named from
    ``path`` as given."""
    path = Path(path)
    return (path, *(path.with_name(path.name + suffix) for suffix in _SIDE_FILES))


def hidden_from_bots(path: str | os.PathLike[str]) -> tuple[str, ...]:
    """What no bot's sandbox may show of the store at ``path``: the store, every file SQLite (or
    an older arena's run lock) makes beside it, and its folder, where such files appear after a
    sandbox was made (a bot could read the games, or lock the store so that none is recorded)."""
    files = [str(file) for file in store_files(path)]
    return (*files, files[0] + ".lock", str(Path(path).parent))


def store_in_bot_folder(bot_folder: Path, path: str | os.PathLike[str]) -> bool:
    """Whether a bot's folder (which is shown to it) is the store's folder, where SQLite makes
    files during a run: no sandbox could cover them there."""
    return bot_folder.resolve() == Path(path).resolve().parent


def protected_files(path: str | os.PathLike[str]) -> tuple[Path, ...]:
    """Every file an output must never replace for the store named ``path``: ``store_files`` of
    the name as given and of the real file (symlinks resolved; SQLite names the journals after
    the real file). Compare them with ``files.same_file``, which also matches other names of one
    inode (a hard link to the store or to its existing journal)."""
    given = store_files(path)
    real = store_files(os.path.realpath(path))
    return given + tuple(p for p in real if p not in given)


_SIDE_FILES = ("-wal", "-shm", "-journal")

_RUN_HOLDER = "run_holder"
"""The meta entry in which the run holding the run lock says who it is (``runlock.holder_info``)."""


def versioned_name(name: str, version: str) -> str:
    """``greedy@1a2b3c4d``: a bot's name with (the start of) its version, or the name alone."""
    return f"{name}@{version[:8]}" if version else name


def _versions_apart(record: GameRecord) -> GameRecord:
    return dataclasses.replace(
        record,
        order=versioned_name(record.order, record.order_version),
        chaos=versioned_name(record.chaos, record.chaos_version),
    )


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}}`` -> ``{"a.b": 1}``: each entry of a definition under a dotted name."""
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, Mapping) and value:
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _differences(stored: Mapping[str, Any], wanted: Mapping[str, Any]) -> list[str]:
    """``key: stored, wanted`` for each entry that differs.

    An entry that one side lacks matches an unset value on the other (null, false, 0, empty):
    a setting added to arena later, off by default, does not make older stores another's.
    """
    old, new = _flatten(stored), _flatten(wanted)
    return [
        f"{key}: {_shown(old, key)} in the store, {_shown(new, key)} now"
        for key in sorted(old.keys() | new.keys())
        if old.get(key) != new.get(key) and (old.get(key) or new.get(key))
    ]


def _shown(entries: Mapping[str, Any], key: str) -> str:
    """An entry as the user wrote it; an unset one (null: a setting left at its default) as
    ``(the default)``, a missing one as ``(not set)``."""
    if key not in entries:
        return "(not set)"
    return "(the default)" if entries[key] is None else json.dumps(entries[key])


def _game_columns(conn: sqlite3.Connection) -> set[str]:
    """The columns the file's games table has (fewer than today's in an older schema)."""
    return {row[1] for row in conn.execute("PRAGMA table_info(games)")}


@dataclass(frozen=True)
class BotVersion:
    """One version of a bot, as registered for a run."""

    name: str
    """The bot's name in the tournament (unique among the bots of a run)."""
    version: str
    """Identity hash of the bot's program file and command, computed by the caller."""
    command: tuple[str, ...] | str
    """The command that starts the bot (argv, or one string); stored as JSON text."""


class CountingState(NamedTuple):
    """What decides which games count, read cheaply (``Store.counting_state``)."""

    active: str
    """The active versions (their row ids)."""
    owed: str
    """The games owed a pairing."""
    rows: int
    """How many games are stored."""
    highest: int
    """The highest game number (0: none)."""

    def only_added_since(self, before: CountingState) -> bool:
        """Whether, since ``before``, games were only added (none removed, nothing else
        changed): the games that count are then those counted before and those of the new
        ones that count (``count_games(numbers=...)``)."""
        same = (self.active, self.owed) == (before.active, before.owed)
        return same and self.rows - before.rows == self.highest - before.highest >= 0


class StoredResult(NamedTuple):
    """What the standings read of a stored game (``Store.results``): its players and result,
    and its moves as text; no ``GameRecord`` is built (for a large store, building one per game
    cost more than the standings' own arithmetic)."""

    order: str
    """The bot that played Order (``name@version`` when the store was opened ``all_versions``)."""
    chaos: str
    """The bot that played Chaos (likewise)."""
    winner: str
    """``"order"`` or ``"chaos"``."""
    reason: str
    """How the game ended: an ``arena.rules.Reason`` value."""
    opening: str
    """The opening's move tokens, joined by single spaces (empty: none)."""
    moves: str
    """The bots' move tokens, joined by single spaces."""
    plies: int
    """The number of tokens in ``opening`` and ``moves`` together."""
    order_display: str
    """The name the Order bot gave with ``ready`` (empty: none)."""
    chaos_display: str
    """The name the Chaos bot gave (empty: none)."""


_RESULT_FIELDS = (
    "order",
    "chaos",
    "order_version",
    "chaos_version",
    "winner",
    "reason",
    "opening",
    "moves",
    "order_display",
    "chaos_display",
)
"""The record fields ``Store.results`` reads, in the order it takes them from a row."""

_REASONS = frozenset(reason.value for reason in Reason)


@dataclass(frozen=True)
class VersionChange:
    """A bot whose version differs from the one it had when it was last registered."""

    name: str
    """The bot's name."""
    old_version: str
    """The version it had in the previous run that included it; its games are now set aside."""
    new_version: str
    """The version registered now."""


@dataclass(frozen=True)
class Reset:
    """What ``Store.reset`` discarded, and where it is kept."""

    games: int
    """Stored games it discarded (every version's)."""
    harness_errors: int
    """Recorded harness errors it discarded."""
    backup: Path | None
    """The copy of the store made before (None: it held nothing to keep)."""

    def describe(self) -> str:
        """One line for the user: how many games went, and the file that keeps them."""
        if self.backup is None:
            return "the store held no games: nothing to discard"
        games = f"{self.games} game{'' if self.games == 1 else 's'}"
        errors = self.harness_errors
        if errors:
            games += f" and {errors} harness error{'' if errors == 1 else 's'}"
        return f"{games} discarded, kept in {self.backup} (arena ratings and replay read it)"


def _contents(conn: sqlite3.Connection) -> tuple[int, ...]:
    """(games, their last number, harness errors, their last number, discarded games): what a
    reset must find unchanged after its copy, and the counts it reports."""
    games = conn.execute("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM games").fetchone()
    errors = conn.execute("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM harness_errors").fetchone()
    return (*games, *errors, len(aside.discarded_games(conn)))


@dataclass(frozen=True)
class HarnessErrorRow:
    """A recorded fault of the harness itself (never charged to a bot)."""

    time: float
    """Unix time when it was recorded."""
    description: str
    """What the harness was doing, e.g. which game of which pairing."""
    error: str
    """The error (message or traceback)."""


def _problem(exc: sqlite3.Error) -> str:
    """A plain-words description of an sqlite3 error."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc)
    low = text.lower()
    if name.startswith("SQLITE_READONLY") or "readonly database" in low:
        what = "the store is read-only (the file or its directory is not writable)"
    elif name.startswith("SQLITE_FULL") or "disk is full" in low:
        what = "the disk is full"
    elif name.startswith("SQLITE_CANTOPEN") or "unable to open" in low:
        what = "cannot open the file (missing, or its directory is not writable)"
    elif name.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")) or "not a database" in low:
        what = "not an arena store: the file is not an SQLite database, or is corrupt"
    elif "malformed" in low:
        what = "the file is corrupt"
    elif name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in low:
        what = "the store is locked by another process (timed out waiting)"
    elif name.startswith("SQLITE_IOERR") or "i/o error" in low:
        what = "input/output error"
    else:
        return text
    return f"{what} ({text})"


class _Options(TypedDict, total=False):
    """The keyword options of ``Store`` that ``Store.open`` passes on."""

    busy_timeout: float
    all_versions: bool


class Store:
    """The SQLite store of one tournament. See the module docstring.

    ``Store(path, readonly=False, busy_timeout=10.0)``: open the store at ``path``.

    - Writable (the default): creates the file, and its parent directories, if missing.
    - ``readonly=True``: opens an existing store without creating or changing anything (a
      ``file:...?mode=ro`` URI); a missing file is a StoreError. Writing methods then raise
      StoreError.

    - ``all_versions=True`` (for ``arena ratings``/``export --all-versions``): ``games`` and
      ``count_games`` see every stored game, of old versions and beyond ``games_per_pairing``
      too, each bot named apart by its version: ``greedy@1a2b3c4d`` (``name@`` and the first 8
      characters of the version). A view for readers, so that whatever reads the store (the
      standings, an export) sees the same games.

    A file with a newer schema version, a file that is not an arena store and an unusable file or
    directory are StoreErrors, raised before the file is changed in any way.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        readonly: bool = False,
        *,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        all_versions: bool = False,
    ) -> None:
        self.path = Path(path)
        """The store file."""
        self.readonly = readonly
        """Whether the store was opened read-only."""
        self.all_versions = all_versions
        """Whether ``games`` and ``count_games`` see every game, each version named apart."""
        self._lock = threading.RLock()
        self._pid = os.getpid()
        self._conn: sqlite3.Connection | None = None
        self._select = gamerows.select_list()
        self._present: set[str] | None = None  # the games table's columns, if an older schema's
        self._run_lock = RunLock(self.path)
        conn = self._connect(busy_timeout)
        try:
            with self._translate("cannot open the store"):
                self._prepare(conn)
        except BaseException:
            conn.close()
            raise
        self._conn = conn

    @classmethod
    def open(
        cls, path: str | os.PathLike[str], readonly: bool = False, **options: Unpack[_Options]
    ) -> Store:
        """Open (and, unless ``readonly``, create if needed) the store at ``path``; ``options``
        are the constructor's (``busy_timeout``, ``all_versions``), written once, there."""
        return cls(path, readonly, **options)

    # --- opening -------------------------------------------------------------------------------
    def _fail(self, problem: str) -> StoreError:
        return StoreError(f"{self.path}: {problem}")

    def _connect(self, busy_timeout: float) -> sqlite3.Connection:
        path = self.path
        if path.is_dir():
            raise self._fail("is a directory, not a store file")
        self._check_file()
        if self.readonly:
            if not path.exists():
                raise self._fail("no such store (the file does not exist)")
            target, uri = path.absolute().as_uri() + "?mode=ro", True
        else:
            try:
                path.absolute().parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise self._fail(
                    f"cannot create the directory {path.parent}: {exc.strerror or exc}"
                ) from None
            target, uri = str(path), False
        with self._translate("cannot open the store"):
            return sqlite3.connect(
                target,
                timeout=busy_timeout,
                isolation_level=None,  # autocommit: transactions are explicit (BEGIN IMMEDIATE)
                check_same_thread=False,  # thread-agnostic; calls are serialised by self._lock
                uri=uri,
            )

    def _check_file(self) -> None:
        """Refuse, before SQLite opens (and so creates or writes) anything, a path that is no
        place for a store.

        - Not a regular file (``/dev/null``, a pipe): SQLite would make ``/dev/null-journal``.
        - Opened for writing, a link (symbolic, or another name of a file) to an empty file or
          to nothing: SQLite would make a store of someone else's file. A new store is made only
          at a path of its own; an existing store may be reached through a link.
        """
        path = self.path
        try:
            info = os.stat(path)
        except (FileNotFoundError, NotADirectoryError):  # the latter: said when it is made
            if not self.readonly and path.is_symlink():
                raise self._fail(
                    f"is a symbolic link to a file that does not exist ({os.readlink(path)}):"
                    " arena makes a new store only at a path of its own, not through a link"
                ) from None
            return
        except OSError as exc:
            raise self._fail(f"cannot open the store: {exc.strerror or exc}") from None
        if not stat.S_ISREG(info.st_mode):
            raise self._fail("is not a regular file (a device, a pipe or a socket), not a store")
        if self.readonly or info.st_size > 0:
            return
        if path.is_symlink():
            raise self._fail(
                f"is a symbolic link to an empty file ({os.path.realpath(path)}): arena makes a"
                " new store only at a path of its own, never of another file"
            )
        if info.st_nlink > 1:
            raise self._fail(
                f"is an empty file with {info.st_nlink} names (hard links): arena makes a new"
                " store only at a path of its own, never of another file"
            )

    def _prepare(self, conn: sqlite3.Connection) -> None:
        """Check what the file is, then (when writable) set it up. Reads before any write."""
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise self._fail(
                f"was written by a newer arena (schema {version} > {SCHEMA_VERSION}); upgrade arena"
            )
        tables = {
            row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        if version == 0 and tables - {"sqlite_sequence"}:
            raise self._fail("not an arena store (an SQLite database with other tables)")
        if version > 0 and not tables >= _TABLES:
            missing = ", ".join(sorted(_TABLES - tables))
            raise self._fail(f"not an arena store (no table {missing})")
        if self.readonly:
            if version == 0:
                raise self._fail("not an arena store (an empty database)")
            # An older file cannot be migrated here: its missing columns read as their defaults.
            self._present = _game_columns(conn)
            self._select = gamerows.select_list(self._present)
            return
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        with self._transaction(conn):
            if conn.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                for statement in _SCHEMA:  # a new file: every table; an older one: none
                    conn.execute(statement)
                for column in gamerows.missing_columns(_game_columns(conn)):
                    conn.execute(f"ALTER TABLE games ADD COLUMN {column.name} {column.decl}")
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            else:
                # A no-op write: a read-only file fails here, at open, not at the first game.
                conn.execute("DELETE FROM meta WHERE 0")

    # --- plumbing ------------------------------------------------------------------------------
    @contextmanager
    def _translate(self, action: str) -> Iterator[None]:
        """Turn any sqlite3 error into a StoreError naming the file, the action and the problem."""
        try:
            yield
        except sqlite3.Error as exc:
            problem = _problem(exc)
            if self.readonly and getattr(exc, "sqlite_errorname", "").startswith("SQLITE_READONLY"):
                problem = "the store was opened read-only"
            raise StoreError(f"{self.path}: {action}: {problem}") from exc

    @staticmethod
    @contextmanager
    def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
        """One write transaction: committed if the block succeeds, rolled back otherwise."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                # SQLite may have rolled back already (e.g. after SQLITE_FULL): nothing to undo
                with suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            raise

    @contextmanager
    def _reading(self, action: str) -> Iterator[sqlite3.Connection]:
        with self._lock, self._translate(action):
            yield self._connection()

    @contextmanager
    def _writing(self, action: str) -> Iterator[sqlite3.Connection]:
        with self._lock, self._translate(action):
            conn = self._connection()
            with self._transaction(conn):
                yield conn

    def _connection(self) -> sqlite3.Connection:
        if self._pid != os.getpid():
            raise self._fail(
                f"the store was opened by process {self._pid}; open it again in this process"
            )
        if self._conn is None:
            raise self._fail("the store is closed")
        return self._conn

    # --- bots ----------------------------------------------------------------------------------
    def register_bots(self, bots: Sequence[BotVersion]) -> list[VersionChange]:
        """Record the bots of the current run and make them the active set (and only them).

        Returns, in the order of ``bots``, a VersionChange for each bot whose version differs from
        the one it had the last time it was registered; a new bot is not a change. The games of a
        version that is not active are set aside (kept, but not counted).
        """
        bots = list(bots)
        names = [bot.name for bot in bots]
        if len(set(names)) != len(names):
            duplicated = sorted({n for n in names if names.count(n) > 1})
            raise ValueError(f"a bot can have only one version in a run: {', '.join(duplicated)}")
        changes: list[VersionChange] = []
        now = time.time()
        with self._writing("cannot register the bots") as conn:
            last = dict(
                conn.execute(
                    "SELECT name, version FROM bots AS b"
                    " WHERE last_run = (SELECT MAX(last_run) FROM bots WHERE name = b.name)"
                )
            )
            run = conn.execute("SELECT COALESCE(MAX(last_run), 0) + 1 FROM bots").fetchone()[0]
            conn.execute("UPDATE bots SET active = 0 WHERE active = 1")
            for bot in bots:
                command = bot.command if isinstance(bot.command, str) else list(bot.command)
                conn.execute(
                    "INSERT INTO bots (name, version, command, first_seen, active, last_run)"
                    " VALUES (?, ?, ?, ?, 1, ?)"
                    " ON CONFLICT (name, version) DO UPDATE"
                    " SET command = excluded.command, active = 1, last_run = excluded.last_run",
                    (bot.name, bot.version, dumps(command), now, run),
                )
                old = last.get(bot.name)
                if old is not None and old != bot.version:
                    changes.append(VersionChange(bot.name, old, bot.version))
        return changes

    def active_bots(self) -> list[BotVersion]:
        """The bots registered by the last ``register_bots``, by name."""
        with self._reading("cannot read the bots") as conn:
            rows = conn.execute(
                "SELECT name, version, command FROM bots WHERE active = 1 ORDER BY name"
            ).fetchall()
        result = []
        for name, version, command in rows:
            value = json.loads(command)
            result.append(
                BotVersion(name, version, value if isinstance(value, str) else tuple(value))
            )
        return result

    def set_aside_count(self, name: str) -> int:
        """How many stored games involve a version of bot ``name`` that is not active."""
        with self._reading("cannot count games") as conn:
            (count,) = conn.execute(
                "SELECT COUNT(*) FROM games WHERE"
                f" (order_name = :name AND NOT {_active('order')})"
                f" OR (chaos_name = :name AND NOT {_active('chaos')})",
                {"name": name},
            ).fetchone()
        return int(count)

    # --- games ---------------------------------------------------------------------------------
    def add_game(self, record: GameRecord, slot: int) -> bool:
        """Store a finished game as game ``slot`` of its ordered pairing, in its own transaction.

        The pairing is (order, order_version, chaos, chaos_version), taken from the record. Returns
        True once the game is committed, False (storing nothing) if that slot is already stored.
        """
        return self.add_games([(record, slot)])[0]

    def add_games(self, games: Sequence[tuple[GameRecord, int]]) -> list[bool]:
        """Store several finished games in one transaction (all or none), as ``add_game`` does.

        For a parallel tournament of fast bots: one commit for the games that arrived together
        costs the same as one commit per game. Returns, per game, whether it was new.
        """
        rows = [gamerows.row_from_record(record, slot) for record, slot in games]
        insert = _INSERT
        if not rows:
            return []
        with self._writing("cannot record a game") as conn:
            if len(rows) == 1:
                return [conn.execute(insert, rows[0]).rowcount == 1]
            # The usual case, every game new, in one C loop; otherwise (a replayed job whose
            # slot is stored already) the same transaction finds out which, row by row.
            conn.execute("SAVEPOINT batch")
            if conn.executemany(insert, rows).rowcount == len(rows):
                conn.execute("RELEASE batch")
                return [True] * len(rows)
            conn.execute("ROLLBACK TO batch")
            conn.execute("RELEASE batch")
            return [conn.execute(insert, row).rowcount == 1 for row in rows]

    def games(
        self, include_inactive: bool = False, fields: Collection[str] | None = None
    ) -> Iterator[GameRecord]:
        """The games that count, in play order; with ``include_inactive``, every stored game.

        The games that count are those between active versions, in the slots the last claim
        owes (a store whose ``games_per_pairing`` was lowered keeps the games beyond it, but
        they are not rated). Rows are read in batches, each by a short query, so iterating
        slowly holds no lock and no snapshot; games committed meanwhile may appear at the end.
        ``fields``: read only these fields of each record (the others keep their defaults):
        standings of many games need eight of its twenty, and parsing the move times costs most.
        """
        for _game_id, record in self.numbered_games(include_inactive, fields):
            yield record

    def numbered_games(
        self, include_inactive: bool = False, fields: Collection[str] | None = None
    ) -> Iterator[tuple[int, GameRecord]]:
        """``games``, each with its number in the store (the id ``arena replay DB GAME`` takes)."""
        select = self._select
        if fields is not None:  # a frozenset: its columns are worked out once (``gamerows``)
            versions = ("order_version", "chaos_version") if self.all_versions else ()
            fields = frozenset((*fields, *_REQUIRED_FIELDS, *versions))  # names carry versions
            select = gamerows.select_list(self._present, fields)
        for row in self._game_rows(select, include_inactive):
            record = self._record(row, fields)
            yield row[0], _versions_apart(record) if self.all_versions else record

    def results(self) -> Iterator[StoredResult]:
        """The players, result and moves of every game that counts (see ``games``), in play
        order: what the standings need, read without building a record per game (a
        ``StoreError`` names a game that cannot be read)."""
        wanted = frozenset(_RESULT_FIELDS)
        selected = gamerows.read_order(wanted)
        arrange = operator.itemgetter(*(selected.index(f) + 1 for f in _RESULT_FIELDS))
        for row in self._game_rows(gamerows.select_list(self._present, wanted)):
            try:
                yield self._result(arrange(row))
            except (ValueError, TypeError) as exc:
                raise self._fail(f"game {row[0]} cannot be read: {exc}") from None

    def _game_rows(self, select: str, include_inactive: bool = False) -> Iterator[Any]:
        """``SELECT id, <select>`` of the games the reads take (``_counted``), in play order,
        fetched ``_BATCH`` rows at a time, each batch by a short query of its own."""
        query = (
            f"SELECT id, {select} FROM games WHERE id > ? AND {self._counted(include_inactive)}"
            " ORDER BY id LIMIT ?"
        )
        last_id = -1
        while True:
            with self._reading("cannot read the games") as conn:
                rows = conn.execute(query, (last_id, _BATCH)).fetchall()
            yield from rows
            if len(rows) < _BATCH:
                return
            last_id = rows[-1][0]

    def _result(self, fields: tuple[Any, ...]) -> StoredResult:
        """One ``results`` row, checked as ``record_from_row`` checks a record's fields."""
        order, chaos, order_version, chaos_version, winner, reason, opening, moves, *shown = fields
        for text in (order, chaos, order_version, chaos_version, *shown):
            if type(text) is not str:
                raise ValueError(f"expected text, not {str(text)[:40]!r}")
        if winner not in ("order", "chaos"):
            raise ValueError(f"{str(winner)[:40]!r} is not a winner")
        if reason not in _REASONS:
            raise ValueError(f"{str(reason)[:40]!r} is not a reason")
        opening, opened = gamerows.joined_tokens(opening)
        moves, moved = gamerows.joined_tokens(moves)
        if self.all_versions:
            order = versioned_name(order, order_version)
            chaos = versioned_name(chaos, chaos_version)
        return StoredResult(order, chaos, winner, reason, opening, moves, opened + moved, *shown)

    def game(self, game_id: int) -> GameRecord | None:
        """The stored game numbered ``game_id`` (any version, counted or not), or None."""
        with self._reading("cannot read the games") as conn:
            row = conn.execute(
                f"SELECT id, {self._select} FROM games WHERE id = ?", (game_id,)
            ).fetchone()
        if row is None:
            return None
        record = self._record(row)
        return _versions_apart(record) if self.all_versions else record

    def game_numbers(self) -> tuple[int, int] | tuple[None, None]:
        """The lowest and highest game numbers in the store (any version), or Nones if empty."""
        with self._reading("cannot read the games") as conn:
            low, high = conn.execute("SELECT MIN(id), MAX(id) FROM games").fetchone()
        return (None, None) if low is None else (int(low), int(high))

    def data_version(self) -> int:
        """A number that changes whenever another connection commits to the store (SQLite's
        ``data_version``): a reader that keeps the store open learns cheaply whether to read."""
        with self._reading("cannot read the store") as conn:
            return int(conn.execute("PRAGMA data_version").fetchone()[0])

    def game_id(
        self, order: str, order_version: str, chaos: str, chaos_version: str, slot: int
    ) -> int | None:
        """The number of the game stored in this slot of this ordered pairing, or None."""
        with self._reading("cannot read the games") as conn:
            row = conn.execute(
                "SELECT id FROM games WHERE order_name = ? AND order_version = ?"
                " AND chaos_name = ? AND chaos_version = ? AND slot = ?",
                (order, order_version, chaos, chaos_version, slot),
            ).fetchone()
        return None if row is None else int(row[0])

    def next_slot(self, order: str, order_version: str, chaos: str, chaos_version: str) -> int:
        """The first slot after every stored game of this ordered pairing (0 for a new one):
        where a game played outside a tournament (``arena play``) can be added."""
        with self._reading("cannot read the games") as conn:
            (top,) = conn.execute(
                "SELECT MAX(slot) FROM games WHERE order_name = ? AND order_version = ?"
                " AND chaos_name = ? AND chaos_version = ?",
                (order, order_version, chaos, chaos_version),
            ).fetchone()
        return 0 if top is None else int(top) + 1

    def _record(self, row: Sequence[Any], fields: Collection[str] | None = None) -> GameRecord:
        try:
            return gamerows.record_from_row(row[1:], fields)
        except (ValueError, TypeError) as exc:
            raise self._fail(f"game {row[0]} cannot be read: {exc}") from None

    def completed_slots(self) -> set[tuple[str, str, int]]:
        """(order, chaos, slot) of every stored game between active versions, in any slot."""
        with self._reading("cannot read the games") as conn:
            return {
                (order, chaos, slot)
                for order, chaos, slot in conn.execute(
                    f"SELECT order_name, chaos_name, slot FROM games WHERE {_BOTH_ACTIVE}"
                )
            }

    def slot_winners(self) -> dict[tuple[str, str, int], bool]:
        """(order, chaos, slot) -> whether Order won, of every stored game between active
        versions: what a course's next round is decided from."""
        with self._reading("cannot read the games") as conn:
            return {
                (order, chaos, slot): winner == "order"
                for order, chaos, slot, winner in conn.execute(
                    f"SELECT order_name, chaos_name, slot, winner FROM games WHERE {_BOTH_ACTIVE}"
                )
            }

    def _counted(self, include_inactive: bool = False) -> str:
        """SQL: which games the reads take: those that count (``games``), or, with
        ``include_inactive`` or ``all_versions``, every one."""
        return "1" if include_inactive or self.all_versions else _COUNTED

    def counted_numbers(self) -> set[int]:
        """The numbers of the games that count (see ``games``): what the standings take."""
        with self._reading("cannot read the games") as conn:
            return {int(n) for (n,) in conn.execute(f"SELECT id FROM games WHERE {_COUNTED}")}

    def counted_by_pairing(self) -> dict[tuple[str, str], int]:
        """(Order bot, Chaos bot) -> how many of its games count (see ``games``): what a
        tournament still owes is its games per pairing less these, counted in one query."""
        with self._reading("cannot count games") as conn:
            rows = conn.execute(
                f"SELECT order_name, chaos_name, COUNT(*) FROM games WHERE {_COUNTED}"
                " GROUP BY order_name, chaos_name"
            ).fetchall()
        return {(order, chaos): int(count) for order, chaos, count in rows}

    def count_games(
        self, include_inactive: bool = False, numbers: tuple[int, int] = (0, 2**63 - 1)
    ) -> int:
        """The number of games that count (see ``games``), or of every stored game; of those
        numbered above ``numbers[0]`` and up to ``numbers[1]``."""
        with self._reading("cannot count games") as conn:
            counted = self._counted(include_inactive)
            (count,) = conn.execute(
                f"SELECT COUNT(*) FROM games WHERE {counted} AND id > ? AND id <= ?", numbers
            ).fetchone()
        return int(count)

    def counting_state(self) -> CountingState:
        """What decides which games count, read in one cheap query."""
        with self._reading("cannot read the games") as conn:
            active, owed, rows, highest = conn.execute(
                "SELECT (SELECT group_concat(rowid) FROM bots WHERE active = 1),"
                " (SELECT value FROM meta WHERE key = 'games_per_pairing'),"
                " (SELECT COUNT(*) FROM games), (SELECT MAX(id) FROM games)"
            ).fetchone()
        return CountingState(str(active), str(owed), int(rows), int(highest or 0))

    def count_distinct_games(self) -> int:
        """How many of the games that count (see ``games``) differ in players, opening or moves.

        Counted in SQL: reading every record back to hash it cost a tournament's parent about
        0.1 ms a game after the last one, serial work that no worker shares."""
        players = "order_name, chaos_name"
        if self.all_versions:
            players += ", order_version, chaos_version"
        with self._reading("cannot count games") as conn:
            distinct = (
                f"SELECT DISTINCT {players}, opening, moves FROM games WHERE {self._counted()}"
            )
            (count,) = conn.execute(f"SELECT COUNT(*) FROM ({distinct})").fetchone()
        return int(count)

    # --- harness errors --------------------------------------------------------------------------
    def add_harness_error(self, description: str, error: str) -> None:
        """Record a fault of the harness (committed at once)."""
        with self._writing("cannot record a harness error") as conn:
            conn.execute(
                "INSERT INTO harness_errors (time, description, error) VALUES (?, ?, ?)",
                (time.time(), safe_text(description), safe_text(error)),
            )

    def harness_errors(self) -> list[HarnessErrorRow]:
        """The recorded harness errors, oldest first."""
        with self._reading("cannot read the harness errors") as conn:
            rows = conn.execute(
                "SELECT time, description, error FROM harness_errors ORDER BY id"
            ).fetchall()
        return [HarnessErrorRow(*row) for row in rows]

    # --- meta ----------------------------------------------------------------------------------
    def set_meta(self, key: str, value: str) -> None:
        """Set a text entry (tournament name, config snapshot, seed, ...)."""
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError("meta keys and values are str")
        with self._writing("cannot write meta data") as conn:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, safe_text(value)),
            )

    def get_meta(self, key: str) -> str | None:
        """The entry ``key``, or None."""
        with self._reading("cannot read meta data") as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    # --- whole store ---------------------------------------------------------------------------
    def claim(self, definition: Mapping[str, Any], games_per_pairing: int) -> None:
        """Take the store for a tournament run defined by ``definition``, or raise StoreError.

        First the run lock (``arena.store.runlock``): a store that another run is using is refused,
        naming that run. Then the definition: the plain data that makes two runs' games
        comparable (time control, limits, openings, seed, ...; JSON-ready). The first claim of a
        store records it; a later claim whose definition differs in any entry is refused with
        one line naming each difference (an entry one side lacks matches an unset one: null,
        false, 0 or empty), so that the games of another tournament are never mixed in.
        ``games_per_pairing`` is not part of the definition: it may change between runs, and
        only the slots below it count (``games``). The lock is held until ``close``; ``reset``
        frees the store for another definition.
        """
        if isinstance(games_per_pairing, bool) or not isinstance(games_per_pairing, int):
            raise TypeError(f"games_per_pairing is an int, not {games_per_pairing!r}")
        if games_per_pairing < 0:
            raise ValueError(f"games_per_pairing is >= 0, not {games_per_pairing}")
        wanted = json.loads(json.dumps(definition, sort_keys=True))
        if not isinstance(wanted, dict):
            raise TypeError("a store's definition is a mapping")
        self._take_run_lock()
        with self._writing("cannot claim the store") as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'definition'").fetchone()
            if row is not None:
                differences = _differences(json.loads(row[0]), wanted)
                if differences:
                    raise self._fail(
                        f"holds the games of another tournament ({'; '.join(differences)}): "
                        "run with --fresh to discard them, or store this one in another file"
                    )
            for key, value in (
                ("definition", json.dumps(wanted, sort_keys=True)),
                ("games_per_pairing", str(games_per_pairing)),
                (_RUN_HOLDER, holder_info()),  # who holds the lock, for a run refused meanwhile
            ):
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES (?, ?)"
                    " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (key, value),
                )

    def _take_run_lock(self) -> None:
        if self.readonly:
            raise self._fail("the store was opened read-only")
        with self._lock:
            self._connection()  # a closed store, or one opened by another process, fails here
            if self._run_lock.held:
                return
            self._run_lock.acquire(self._run_holder)

    def _run_holder(self) -> str | None:
        """What the run holding the lock recorded about itself (None if it cannot be read)."""
        try:
            return self.get_meta(_RUN_HOLDER)
        except StoreError:
            return None

    def reset(self) -> Reset:
        """Empty the store for ``--fresh``, keeping what it held in a copy beside it.

        Every game, harness error and discarded game goes, in one transaction, once a copy of
        the whole file is made (``aside.new_backup_path``; none when there is nothing to keep).
        Bots and meta entries are kept, but not the definition of the tournament: the next
        ``claim`` records its own. A reset takes the run lock first (held until ``close``): a
        store that another run is using is never emptied under it. Should anything be written
        between the copy and the reset, nothing is deleted (StoreError).
        """
        self._take_run_lock()
        with self._reading("cannot read the store") as conn:
            before = _contents(conn)
        backup = self._backup() if any(before[::2]) else None
        with self._writing("cannot reset the store") as conn:
            if _contents(conn) != before:
                raise self._fail(
                    "the store changed while it was copied; nothing was discarded (run again)"
                )
            conn.execute("DELETE FROM meta WHERE key = 'definition'")
            conn.execute("DELETE FROM games")
            conn.execute("DELETE FROM harness_errors")
            aside.clear_discarded(conn)
            conn.execute("DELETE FROM sqlite_sequence WHERE name IN ('games', 'harness_errors')")
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (_RUN_HOLDER, holder_info()),
            )
        return Reset(games=before[0], harness_errors=before[2], backup=backup)

    def _backup(self) -> Path:
        """A copy of the store in a new file beside it (``aside``); a StoreError when it cannot
        be made, and no partial copy left."""
        try:
            target = aside.new_backup_path(self.path)
        except OSError as exc:
            raise self._fail(f"cannot make a backup beside it: {exc.strerror or exc}") from None
        try:
            with self._reading("cannot copy the store") as conn:
                aside.copy_store(conn, target)
        except BaseException:
            target.unlink(missing_ok=True)
            raise
        return target

    def discard(self, numbers: Collection[int]) -> list[int]:
        """Move the games ``numbers`` aside (``arena discard``): kept, listed by ``discarded``,
        no longer counted, and their slots owed again. Every number must be a stored game
        (StoreError naming those that are not, and nothing moved); takes the run lock, so that
        no run is under way. Returns the numbers discarded, sorted."""
        wanted = sorted(set(numbers))
        if not wanted:
            return []
        self._take_run_lock()
        with self._writing("cannot discard games") as conn:
            stored = {
                int(n)
                for (n,) in conn.execute(
                    f"SELECT id FROM games WHERE id IN ({', '.join('?' * len(wanted))})", wanted
                )
            }
            absent = [n for n in wanted if n not in stored]
            if absent:
                low, high = conn.execute("SELECT MIN(id), MAX(id) FROM games").fetchone()
                held = "no games" if low is None else f"games {low} to {high}"
                raise self._fail(
                    f"no game {', '.join(map(str, absent))} (it holds {held}, less any discarded:"
                    " arena replay lists them); nothing was discarded"
                )
            aside.discard_games(conn, wanted, time.time())
        return wanted

    def discarded(self) -> list[aside.DiscardedGame]:
        """The games ``discard`` kept aside, in the order they were discarded."""
        with self._reading("cannot read the discarded games") as conn:
            return aside.discarded_games(conn)

    def close(self) -> None:
        """Close the store (idempotent).

        A writer that is the last connection to the file checkpoints it and leaves it in rollback
        journal mode (a single file); if others have it open it stays in WAL mode.
        """
        with self._lock:
            conn, self._conn = self._conn, None
            if conn is None:
                return
            if self._pid != os.getpid():
                _FORKED_LEFTOVERS.append(conn)  # never close a parent's connection in a child
                return
            try:
                if not self.readonly:
                    conn.execute("PRAGMA busy_timeout = 0")
                    conn.execute("PRAGMA journal_mode = DELETE")
            except sqlite3.Error:
                pass  # another connection has the file open: it stays in WAL mode, which is fine
            finally:
                try:
                    conn.close()
                except sqlite3.Error as exc:
                    raise self._fail(f"cannot close the store: {_problem(exc)}") from exc
                finally:
                    self._run_lock.release()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._conn is None else "read-only" if self.readonly else "open"
        return f"<Store {str(self.path)!r} {state}>"


_FORKED_LEFTOVERS: list[sqlite3.Connection] = []
