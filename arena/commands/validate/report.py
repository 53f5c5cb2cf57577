"""The checklist of ``arena validate``: its items, the report, and how it is printed."""

from __future__ import annotations

import shutil
import statistics
import sys
import textwrap
from dataclasses import asdict, dataclass, field
from typing import Any, TextIO

from arena.limits import TimeControl

CHECKS: dict[str, str] = {
    "startup": "starts and answers `arena 1` with `ready`",
    "format": "every reply is one well-formed move line",
    "legal": "every move is legal",
    "time": "every move in time",
    "silence": "no output when none is due",
    "crash": "stays up: no exit or closed stdout mid-game",
    "quit": "exits cleanly on `quit`",
    "stderr": "stderr volume within what is kept",
    "reuse": "after `match S`, plays as a fresh start seeded S",
    "sandbox": "works under the sandbox",
}
"""Every check, by key, with its title (in the order printed)."""


@dataclass
class Check:
    """One item of the checklist."""

    key: str
    """One of ``CHECKS``."""
    status: str = "pass"
    """``pass``, ``fail`` or ``skip`` (not judged: an earlier failure, or no bubblewrap)."""
    summary: str = ""
    """What was measured, e.g. ``ready in 41 ms``."""
    detail: str = ""
    """On a failure: where, and what the bot wrote (escaped, as in a game's record)."""
    hint: str = ""
    """On a failure: what to do about it (``arena.referee.verdicts.HINTS``)."""
    failures: int = 0
    """How many times it failed (the first is described)."""

    @property
    def title(self) -> str:
        return CHECKS[self.key]

    def fail(self, detail: str, hint: str) -> None:
        """Record a failure; the first one is described, the others counted."""
        if self.status != "fail":
            self.status, self.detail, self.hint = "fail", detail, hint
        self.failures += 1

    def skip(self, summary: str) -> None:
        """Mark a check that has not failed as not judged, saying why."""
        if self.status == "pass":
            self.status, self.summary = "skip", summary


@dataclass
class Report:
    """The result of ``validate_bot``."""

    bot: str
    """The bot's name."""
    command: list[str]
    """The command that runs it, with this machine's paths."""
    move_ms: int
    """The time per move it was given."""
    startup_ms: int
    """Its start-up allowance."""
    sandbox: str
    """The sandbox it ran under (``bwrap`` or ``none``)."""
    checks: dict[str, Check] = field(default_factory=lambda: {k: Check(k) for k in CHECKS})
    """Every check of ``CHECKS``, in its order."""
    games: list[dict[str, Any]] = field(default_factory=list)
    """One entry per game against ``random``: its number, the bot's role, whether it won, the
    reason and detail, and the moves played."""
    move_times_ms: list[float] = field(default_factory=list)
    """The time of each of the bot's moves in those games (as the referee measured it)."""
    time_control: TimeControl = field(default_factory=TimeControl)
    """The whole time control (``move_ms`` is its time per move, or the clock at the start)."""
    clocks_left_ms: list[float] = field(default_factory=list)
    """Under a clock, the bot's clock left at the end of each game it finished."""

    @property
    def ok(self) -> bool:
        """Whether every check passed (a skipped one does not count against the bot)."""
        return all(check.status != "fail" for check in self.checks.values())

    def failures(self) -> list[Check]:
        return [check for check in self.checks.values() if check.status == "fail"]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["ok"] = self.ok
        data["checks"] = [{"title": c.title, **asdict(c)} for c in self.checks.values()]
        data.pop("move_times_ms")
        data["time_control"] = self.time_control.describe()
        times = self.move_times_ms
        data["move_ms_median"] = statistics.median(times) if times else None
        data["move_ms_max"] = max(times) if times else None
        left = self.clocks_left_ms
        data["clock_left_ms_least"] = min(left) if left else None
        data.pop("clocks_left_ms")
        return data


_MARK = {"pass": "PASS", "fail": "FAIL", "skip": "skip"}


def folded(text: str, indent: str, columns: int) -> str:
    """``text`` folded to ``columns`` (at least 40 characters a line), each line indented."""
    width = max(40, columns - len(indent))
    lines = textwrap.wrap(text, width, break_on_hyphens=False) or [""]
    return "\n".join(indent + line for line in lines)


def print_report(report: Report, out: TextIO | None = None) -> None:
    """The checklist, for people."""
    out = out or sys.stdout
    print(
        f"validate {report.bot}: {' '.join(report.command)}\n"
        f"  {report.time_control.describe()}, sandbox {report.sandbox}, "
        f"{len(report.games)} games against random",
        file=out,
    )
    width = max(len(check.title) for check in report.checks.values())
    columns = shutil.get_terminal_size().columns  # COLUMNS, the terminal's, or 80 in a pipe
    rows = []
    for check in report.checks.values():
        text = check.detail if check.status == "fail" else check.summary
        if check.failures > 1:
            text += f" (and {check.failures - 1} more)"
        rows.append((f"  {_MARK[check.status]}  {check.title:<{width}}  ", text, check))
    # One line a check when every one fits; else each check's text on lines of its own.
    one_line = all(len(head) + len(text) <= columns for head, text, _check in rows)
    for head, text, check in rows:
        if one_line:
            print((head + text).rstrip(), file=out)
        else:
            print(head.rstrip(), file=out)
            if text:
                print(folded(text, "        ", columns), file=out)
        if check.status == "fail" and check.hint:
            print(folded("hint: " + check.hint, "        ", columns), file=out)
    failures = report.failures()
    if failures:
        print(f"FAIL: {len(failures)} of {len(report.checks)} checks failed", file=out)
    else:
        print(f"OK: {report.bot} speaks arena 1 correctly", file=out)
