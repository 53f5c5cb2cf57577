"""``arena validate``: a conformance check of one bot, to run before entering it anywhere.

Like fastchess's ``--compliance`` for UCI engines, it drives the bot through the protocol and
prints a checklist; each failure comes with what the bot wrote and a hint. Two sessions:

1. **A probe** (``probe``), one process driven line by line: ``arena 1`` (start-up time,
   ``ready``), then ``game chaos`` and a silence expected, one ``turn`` (a single well-formed,
   legal reply in time) and silence again, ``end win timeout`` and silence, and ``quit``: the
   process must exit by itself, with status 0, within ``QUIT_GRACE_S``.
2. **Games** (``games``) against the bundled ``random`` bot, ``games`` in each role, in one process
   (the bot resets its state at each ``game``), refereed by the real referee
   (``arena.referee.match.Match``), so that every verdict is the one a tournament would give.

Both run under the sandbox when bubblewrap works here; if the bot fails there, it is checked once
more without it, to tell a bot that reads or writes outside its folder from a broken one.

What a failure says comes from ``arena.referee.verdicts``, as in a tournament's records: the
referee's details, and ``faults.advice`` for the check a fault fails and the hint for it. The
transcript (``--transcript``, ``transcript``) shows every line both ways, timestamped, as
cutechess-cli's ``-debug`` does, through the ``tap`` hook of ``BotProcess`` and ``Match``.

The modules: ``report`` (the checklist and its output), ``transcript``, ``probe``, ``games``,
``check`` (the whole check and the command).
"""

from __future__ import annotations

from arena.commands.validate.check import run_validate, validate_bot
from arena.commands.validate.report import CHECKS, Check, Report, print_report

__all__ = ["CHECKS", "Check", "Report", "print_report", "run_validate", "validate_bot"]
