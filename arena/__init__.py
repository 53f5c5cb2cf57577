"""arena: run, referee, store and rate tournaments between Order and Chaos bots.

The library is layered, each layer knowing only those below it:

- ``arena.rules``: the game model (pure, no I/O);
- ``arena.protocol``, ``arena.process``, ``arena.sandbox``, ``arena.botspec``: the "arena 1" line
  protocol and bot processes;
- ``arena.referee`` / ``arena.match``: playing games between two bot processes;
- ``arena.schedule``, ``arena.executors``, ``arena.tournament``: scheduling matches on workers;
- ``arena.store``, ``arena.ratings``, ``arena.export``: results and ratings;
- ``arena.cli``: the thin ``arena`` command.
"""

__version__ = "0.1.0"
