"""Exporting stored games: JSONL (the fields of ``arena match --record``), CSV, and PGN.

PGN carries one game per record with ``[White "<order bot>"] [Black "<chaos bot>"]`` and
``[Result "1-0"]`` when Order won, ``"0-1"`` when Chaos did, so that Ordo and BayesElo can rate
the same games. Harness errors are never exported: they are not games.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from arena.errors import ArenaError
from arena.files import atomic_write, refuse_same_file
from arena.records import GameRecord
from arena.rules import Role

__all__ = ["FORMATS", "write_jsonl", "write_csv", "write_pgn", "export_games"]

FORMATS = ("jsonl", "csv", "pgn")
CSV_FIELDS = (
    "order", "chaos", "winner", "reason", "detail", "moves", "ms", "seed",
    "started_at", "finished_at", "order_version", "chaos_version",
)  # fmt: skip


def write_jsonl(records: Iterable[GameRecord], out: TextIO) -> int:
    count = 0
    for record in records:
        out.write(json.dumps(record.to_json(), separators=(",", ":")) + "\n")
        count += 1
    return count


def write_csv(records: Iterable[GameRecord], out: TextIO) -> int:
    writer = csv.writer(out)
    writer.writerow(CSV_FIELDS)
    count = 0
    for record in records:
        count += 1
        data = record.to_json()
        data["moves"] = " ".join(record.moves)
        data["ms"] = " ".join(f"{t:g}" for t in record.ms)
        writer.writerow([data[name] for name in CSV_FIELDS])
    return count


def _pgn_tag(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def write_pgn(records: Iterable[GameRecord], out: TextIO, event: str = "arena") -> int:
    count = 0
    for count, record in enumerate(records, 1):
        when = datetime.fromtimestamp(record.started_at or 0, UTC)
        result = "1-0" if record.winner is Role.ORDER else "0-1"
        tags = (
            ("Event", event),
            ("Site", "arena"),
            ("Date", when.strftime("%Y.%m.%d")),
            ("Round", str(count)),
            ("White", record.order),
            ("Black", record.chaos),
            ("Result", result),
            ("Termination", record.reason.value),
        )
        for name, value in tags:
            out.write(f'[{name} "{_pgn_tag(value)}"]\n')
        moves = []
        for ply, token in enumerate(record.moves):
            moves.append(f"{ply // 2 + 1}. {token}" if ply % 2 == 0 else token)
        comment = f" {{{record.reason.value}: {record.detail}}}" if record.detail else ""
        out.write("\n" + " ".join([*moves, result]) + comment + "\n\n")
    return count


_WRITERS = {"jsonl": write_jsonl, "csv": write_csv, "pgn": write_pgn}


def export_games(db: Path, format: str, out_path: Path | None = None) -> int:
    """Write every active game of the store at ``db`` in ``format`` to ``out_path`` or stdout.

    The output file is written whole or not at all (a temporary file renamed into place), and
    never over the store or one of its files.
    """
    from arena.store import Store, store_files

    if format not in _WRITERS:
        raise ArenaError(f"unknown export format {format!r}; expected one of {', '.join(FORMATS)}")
    if out_path is not None:
        refuse_same_file(out_path, store_files(db), "the store being exported or one of its files")
    with Store.open(db, readonly=True) as store:
        records = store.games()
        if out_path is None:
            return _WRITERS[format](records, sys.stdout)
        with atomic_write(out_path) as out:
            return _WRITERS[format](records, out)
