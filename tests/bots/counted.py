"""Test bot: runs a Python bot (its second argument) after appending a line to a log file (its
first): ``start <pid> <ARENA_SEED>``.

Why: how many processes served a bot, for any bot, bundled ones included (``keep_bots``).
"""

import os
import runpy
import sys

log, bot = sys.argv[1], sys.argv[2]
with open(log, "a") as file:
    file.write(f"start {os.getpid()} {os.environ.get('ARENA_SEED', '')}\n")
sys.argv = [bot]
runpy.run_path(bot, run_name="__main__")
