"""The summary of ``bench.py``: each figure against its target, as a console table or as the
README's performance table (``--markdown``), which says "missed" where a target is missed.

A figure without a threshold (the floor, the ceiling, a figure measured beside a target) is a
row with no verdict; a figure not measured in this run says "not run" and why.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from support import say


@dataclass
class Target:
    """One row of the summary."""

    what: str
    """What is measured, as the README says it (Markdown backquotes allowed)."""
    target: str
    """The threshold (``>= 0.80``); empty for a figure shown beside the targets."""
    value: str
    """The figure measured, with what it is made of; "not run (why)" when skipped."""
    ok: bool | None = None
    """Whether the target is met; None without a target or when not run."""

    @property
    def verdict(self) -> str:
        if self.value.startswith("not run"):
            return "not run"
        if self.ok is None:
            return "-"
        return "PASS" if self.ok else "MISS"


def summary_report(targets: Sequence[Target], others: Sequence[Target]) -> None:
    """Every target with PASS or MISS, then the other figures of the run, one block each (the
    measured figures are too long for a table's column)."""
    for title, rows in (
        (
            "Summary: issue 24's targets, with the floor and the ceiling measured beside them",
            targets,
        ),
        ("Other figures of this run", others),
    ):
        say(title)
        for t in rows:
            say(f"  {t.verdict:7s}  {t.what.replace('`', '')}")
            text = f"{'target ' + t.target + '; ' if t.target else ''}measured {t.value}"
            say(textwrap.fill(text, 100, initial_indent=" " * 11, subsequent_indent=" " * 11))


def markdown(targets: Sequence[Target], others: Sequence[Target]) -> str:
    """The README's performance table: the targets, then the other figures (in the README's
    typography: µs, ≥, ≤)."""
    lines = ["| what | measured | target |", "|---|---|---|"]
    for t in [*targets, *others]:
        value = t.value.replace("|", "\\|")
        if t.ok is False:
            value += " (**missed**)"
        lines.append(f"| {t.what} | {value} | {t.target} |")
    return typography("\n".join(lines))


SIGNS = {"us": "µs", ">=": "≥", "<=": "≤", "x": "×"}
TYPOGRAPHY = re.compile(r"\bus\b|>=|<=|(?<=\d)x\b|(?<= )x(?= )")


def typography(text: str) -> str:
    """µs, ≥, ≤ and × (after a number, or between spaces) as the README writes them."""
    return TYPOGRAPHY.sub(lambda m: SIGNS[m.group()], text)
