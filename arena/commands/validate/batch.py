"""``arena validate`` of several bots (or a folder of them): one table, a row per bot.

An organiser checks a class's submissions before the tournament. Each bot is checked as
``arena validate BOT`` checks it, several at once but no more than the machine runs fairly (a
check keeps about one core busy, as a match does), so that their move times stay fair. The batch
has a time bound: a bot not started by then is reported as not checked; the checks in progress
end within their own bounds (every wait of a check has one).
"""

from __future__ import annotations

import concurrent.futures
import json
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from arena.botfolder import scan_folder
from arena.botspec import BotSpec, bare_name
from arena.commands.validate.report import Report, folded
from arena.errors import ArenaError


@dataclass(frozen=True)
class Row:
    """One bot's line of the table."""

    bot: str
    status: str
    """``PASS``, ``FAIL``, ``ERROR`` (the check itself could not run) or ``not checked``."""
    check: str = ""
    """The first failing check's title (or what stopped the check)."""
    reason: str = ""
    report: Report | None = None

    @classmethod
    def of(cls, report: Report) -> Row:
        failures = report.failures()
        if not failures:
            return cls(report.bot, "PASS", report=report)
        first = failures[0]
        return cls(report.bot, "FAIL", first.title, first.detail, report)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"bot": self.bot, "status": self.status}
        data.update(check=self.check or None, reason=self.reason or None)
        data["validation"] = None if self.report is None else self.report.to_json()
        return data


def is_folder_of_bots(arg: str) -> bool:
    """Whether ``arg`` names a folder that is no bot's own (so: a folder of bots). A folder with
    a ``main`` of any kind is a bot's, perhaps not executable or not built yet: the bot's own
    check says so."""
    path = Path(arg).expanduser()
    if bare_name(arg, Path.cwd()) or not path.is_dir():
        return False
    return not any(entry.stem == "main" for entry in path.iterdir())


def bots_to_check(
    args: Sequence[str], resolve: Callable[[str], BotSpec], say: Callable[[str], None]
) -> list[BotSpec]:
    """The bots the arguments name, a folder of bots standing for each of its bots (what was
    found and skipped in it is said); ``resolve`` looks up any other argument."""
    specs: list[BotSpec] = []
    for arg in args:
        if not is_folder_of_bots(arg):
            specs.append(resolve(arg))
            continue
        scan = scan_folder(Path(arg).expanduser(), arg)
        say(scan.summary())
        specs += [BotSpec.from_path(path, name) for name, path in scan.bots]
    if not specs:
        raise ArenaError(f"no bot to check in {', '.join(args)}")
    return specs


def validate_many(
    specs: Sequence[BotSpec],
    check: Callable[[BotSpec], Report],
    *,
    workers: int,
    total_s: float,
    progress: Callable[[Row], None] | None = None,
) -> list[Row]:
    """Each bot checked by ``check``, ``workers`` at a time; the rows in the bots' order. A bot
    not started within ``total_s`` seconds is not checked."""
    deadline = time.monotonic() + total_s

    def one(spec: BotSpec) -> Row:
        if time.monotonic() > deadline:
            return Row(spec.name, "not checked", f"the batch's {total_s:g} s were used up")
        try:
            row = Row.of(check(spec))
        except ArenaError as exc:
            row = Row(spec.name, "ERROR", "the check could not run", str(exc))
        if progress is not None:
            progress(row)
        return row

    pool = concurrent.futures.ThreadPoolExecutor(max(1, workers), "arena-validate")
    try:
        return list(pool.map(one, specs))
    finally:  # on Ctrl-C: none started any more; those in progress end within their bounds
        pool.shutdown(wait=True, cancel_futures=True)


def print_table(rows: Sequence[Row], out: TextIO | None = None) -> None:
    """The table, a row per bot (a failure's reason folded below it when the line is too long),
    then the count of bots that did not pass."""
    out = out or sys.stdout
    columns = shutil.get_terminal_size().columns
    name_w = max(len("bot"), *(len(row.bot) for row in rows))
    status_w = max(len("result"), *(len(row.status) for row in rows))
    check_w = max(len("first failing check"), *(len(row.check) for row in rows))
    head = f"{'bot':<{name_w}}  {'result':<{status_w}}  "
    print(f"{head}{'first failing check':<{check_w}}  reason".rstrip(), file=out)
    for row in rows:
        line = f"{row.bot:<{name_w}}  {row.status:<{status_w}}  {row.check:<{check_w}}  "
        if len(line) + len(row.reason) <= columns:
            print((line + row.reason).rstrip(), file=out)
        else:
            print(line.rstrip(), file=out)
            print(folded(row.reason, "    ", columns), file=out)
    failed = [row.bot for row in rows if row.status != "PASS"]
    if failed:
        print(
            f"FAIL: {len(failed)} of {len(rows)} bots did not pass: {', '.join(failed)}", file=out
        )
    else:
        print(f"OK: all {len(rows)} bots pass", file=out)


def print_json(rows: Sequence[Row], out: TextIO | None = None) -> None:
    ok = all(row.status == "PASS" for row in rows)
    data = {"ok": ok, "bots": [row.to_json() for row in rows]}
    print(json.dumps(data, indent=2), file=out or sys.stdout)
