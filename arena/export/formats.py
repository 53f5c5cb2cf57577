"""Exporting stored games: JSONL (the fields of ``arena match --record``), CSV, and PGN.

Every format carries each game's number in the store (JSONL's and CSV's ``game``, PGN's
``Round``): the number ``arena replay DB GAME``, ``arena faults`` and the report show.

PGN carries one game per record with ``[White "<order bot>"] [Black "<chaos bot>"]`` and ``[Result
"1-0"]`` when Order won, ``"0-1"`` when Chaos did, so that Ordo and BayesElo can rate the same
games; ``arena.export.pgn`` writes it so that nothing a bot wrote can change it. Harness errors are
never exported: they are not games.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from arena.errors import ArenaError
from arena.export.files import atomic_write, refuse_same_file
from arena.export.pgn import game_text
from arena.protocol import shown
from arena.records import GameRecord

if TYPE_CHECKING:
    from arena.store.database import Store


FORMATS = ("jsonl", "csv", "pgn")
CSV_FIELDS = (
    "game", "order", "chaos", "winner", "reason", "detail", "moves", "ms", "seed",
    "started_at", "finished_at", "order_version", "chaos_version", "opening",
    "order_display", "chaos_display",
)  # fmt: skip


def write_jsonl(records: Iterable[GameRecord], out: TextIO) -> int:
    """``write_numbered_jsonl`` of ``records`` numbered 1, 2...; the count written."""
    return write_numbered_jsonl(enumerate(records, 1), out)


def write_numbered_jsonl(games: Iterable[tuple[int, GameRecord]], out: TextIO) -> int:
    """One JSON object per ``(number, record)`` and line: ``game`` (the number) first, then the
    fields of ``arena match --record``; the count written.

    ``json.dumps`` escapes every control character and (``ensure_ascii``) every non-ASCII one,
    so a line holds exactly one record whatever the bots wrote.
    """
    count = 0
    for number, record in games:
        data = {"game": number, **record.to_json()}
        out.write(json.dumps(data, separators=(",", ":")) + "\n")
        count += 1
    return count


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet takes for the start of a formula (or strips before one) in a CSV cell."""
_FORMULA_AFTER_SEMICOLON = re.compile(r";(?=[=+\-@\t\r])")
"""A ``;`` before a formula's start: where a spreadsheet splits cells on ``;`` (its list
separator in many locales), what follows it would begin a cell of its own."""


def csv_cell(value: object) -> object:
    """``value`` as a CSV cell that no spreadsheet evaluates and no terminal obeys: text passes
    through ``protocol.shown`` (control bytes such as ESC become visible escapes), and text that
    would start a formula (``=``, ``+``, ``-``, ``@``: a bot's fault detail or name such as
    ``=HYPERLINK(...)``) is written with a ``'`` in front, which spreadsheets read as "this is
    text", and so is such a start after a ``;`` (``x;'=cmd``), for spreadsheets that split cells
    there; numbers are written as they are."""
    if not isinstance(value, str):
        return value
    value = _FORMULA_AFTER_SEMICOLON.sub(";'", shown(value))
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def write_csv(records: Iterable[GameRecord], out: TextIO) -> int:
    """``write_numbered_csv`` of ``records`` numbered 1, 2...; the count written."""
    return write_numbered_csv(enumerate(records, 1), out)


def write_numbered_csv(games: Iterable[tuple[int, GameRecord]], out: TextIO) -> int:
    """A header and one row per ``(number, record)``: ``game`` (the number) first, moves,
    times and opening space-separated; the count.

    The ``csv`` module quotes any field holding a comma, a quote or a line break, and a text
    cell goes through ``csv_cell``: opened in a spreadsheet, nothing a bot wrote runs as a
    formula; shown on a terminal, nothing stored moves the cursor.
    """
    writer = csv.writer(out)
    writer.writerow(CSV_FIELDS)
    count = 0
    for number, record in games:
        count += 1
        data = record.to_json()
        data["game"] = number
        data["moves"] = " ".join(record.moves)
        data["ms"] = " ".join(f"{t:g}" for t in record.ms)
        data["opening"] = " ".join(record.opening)
        writer.writerow([csv_cell(data[name]) for name in CSV_FIELDS])
    return count


def write_pgn(records: Iterable[GameRecord], out: TextIO, event: str = "arena") -> int:
    """One PGN game per record (see ``arena.export.pgn``), numbered 1, 2...; ``event`` is the
    tournament's name."""
    return write_numbered_pgn(enumerate(records, 1), out, event)


def write_numbered_pgn(games: Iterable[tuple[int, GameRecord]], out: TextIO, event: str) -> int:
    """One PGN game per ``(number, record)``, the number as its ``Round`` tag: the export gives
    each game's number in the store, the one ``arena replay DB GAME`` takes."""
    count = 0
    for number, record in games:
        out.write(game_text(record, number, event))
        out.write("\n")
        count += 1
    return count


_WRITERS: dict[str, Callable[[Iterable[tuple[int, GameRecord]], TextIO, str], int]] = {
    "jsonl": lambda games, out, _event: write_numbered_jsonl(games, out),
    "csv": lambda games, out, _event: write_numbered_csv(games, out),
    "pgn": write_numbered_pgn,
}


def export_games(
    db: Path, format: str, out_path: Path | None = None, *, all_versions: bool = False
) -> int:
    """Write the games that count in the store at ``db`` as ``format`` to ``out_path`` or stdout.

    ``all_versions``: every stored game instead, each bot named apart by its version
    (``greedy@1a2b3c4d``, see ``Store``). The output file is written whole or not at all (a
    temporary file renamed into place), and never over the store or one of its files.
    """
    from arena.store.database import Store, protected_files

    if format not in _WRITERS:
        raise ArenaError(f"unknown export format {format!r}; expected one of {', '.join(FORMATS)}")
    if out_path is not None:
        refuse_same_file(
            out_path, protected_files(db), "the store being exported or one of its files"
        )
    with Store.open(db, readonly=True, all_versions=all_versions) as store:
        event = store.get_meta("name") or "arena"
        if out_path is None:
            return _write(format, store, sys.stdout, event)
        with atomic_write(out_path) as out:
            return _write(format, store, out, event)


def _write(format: str, store: Store, out: TextIO, event: str) -> int:
    return _WRITERS[format](store.numbered_games(), out, event)
