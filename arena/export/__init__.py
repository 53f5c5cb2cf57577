"""Stored games out: JSONL, CSV and PGN (``formats``, ``pgn``), written through ``files``, which
writes a file whole or not at all and never over the store."""

from arena.export.formats import FORMATS, export_games

__all__ = ["FORMATS", "export_games"]
