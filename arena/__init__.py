"""arena: run, referee, store and rate tournaments between Order and Chaos bots.

The library is six layers, each importing only those below it: the game model (``arena.rules``,
``arena.botlib``), bots and their processes (``arena.protocol``, ``arena.bot``, ``arena.launch``),
the referee, the store with ratings and exports, the tournament, and the interface (``arena.cli``,
the only module that knows Typer, ``arena.config``, ``arena.commands``, ``arena.report``). Every
module, its layer and its job: ``docs/architecture.md`` (checked by ``tests/test_layers.py``).
The public names, each with an example: ``docs/api.md``; only their modules declare ``__all__``.
"""

__version__ = "0.1.0"
