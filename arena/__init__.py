"""arena: run, referee, store and rate tournaments between Order and Chaos bots.

The library is layered, each layer importing only those below it:

- ``arena.rules``: the game model (pure, no I/O); ``arena.botlib``: shared code of the bundled
  bots (pure, on ``rules`` only);
- ``arena.protocol``, ``arena.botspec``, ``arena.launch.sandbox``, ``arena.launch.process``,
  ``arena.launch.procfs``, ``arena.limits``: the "arena 1" line protocol, what a bot is, and its
  process;
- ``arena.referee.match``: playing games between two bot processes (``Match``);
- ``arena.tournament.schedule``, ``arena.tournament.executors``: which games a tournament owes, and
  where they run;
- ``arena.store.database``, ``arena.ratings``, ``arena.export.formats``, ``arena.tournament.run``:
  results, ratings, exports, and running a tournament;
- ``arena.config``, ``arena.cli``, ``arena.commands``, ``arena.report``: the ``arena`` command,
  its YAML config and the HTML report (only ``arena.cli`` knows Typer).

``arena.bot``, the bot author's kit, sits on ``rules`` and ``protocol`` only. Every module, its
layer and its job: ``docs/architecture.md`` (checked by ``tests/test_layers.py``).
"""

__version__ = "0.1.0"
