"""The results store: one SQLite file of bots, versions and games, one run at a time.

``database`` (``Store``), ``rows`` (the ``games`` columns, written once) and ``runlock``.
"""

from arena.store.database import (
    BotVersion,
    Store,
    VersionChange,
    hidden_from_bots,
    store_files,
    store_in_bot_folder,
)

__all__ = [
    "BotVersion",
    "Store",
    "VersionChange",
    "hidden_from_bots",
    "store_files",
    "store_in_bot_folder",
]
