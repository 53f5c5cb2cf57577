"""The results store: one SQLite file of bots, versions and games, one run at a time.

``database`` (``Store``), ``rows`` (the ``games`` columns, written once) and ``runlock``.
"""

from arena.store.database import BotVersion, Store, VersionChange
from arena.store.database import hidden_from_bots as hidden_from_bots
from arena.store.database import store_files as store_files

__all__ = ["BotVersion", "Store", "VersionChange"]
