"""``arena validate``: a conformance check of one bot, to run before entering it anywhere.

Like fastchess's ``--compliance``, it drives the bot and prints a checklist, each failure with what
the bot wrote and a hint. Two sessions: a probe (``probe``: one process driven line by line) and
games against ``random`` refereed by the real ``Match``, so every verdict is a tournament's. Both
run under the sandbox when bubblewrap works; a bot that fails there is checked again without it.
Modules: ``report``, ``transcript``, ``probe``, ``games``, ``check``. Details: ``docs/validate.md``.
"""

from __future__ import annotations

from arena.commands.validate.check import run_validate as run_validate
from arena.commands.validate.check import validate_bot as validate_bot
from arena.commands.validate.report import CHECKS as CHECKS
from arena.commands.validate.report import print_report as print_report
