"""Shared code of the bundled bots: fast position code, evaluation, search and perfect play.

Pure like ``arena.rules`` (no I/O), and importing nothing of arena but ``arena.rules``, so that a
bot running in the sandbox (which sees the ``arena`` package read-only) imports it as it is. A
bundled bot (``bots/<name>/main.py``) takes its strategy's shared pieces from here and the
protocol from the bot author's kit, ``arena.bot``.
"""
