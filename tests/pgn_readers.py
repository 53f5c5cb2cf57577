"""Independent PGN readers for the tests of exports: what a PGN reader, and Ordo, take from a file.

``read_pgn`` reads by the standard's tokens and fails on anything it does not expect (a tag in the
movetext, a comment after the result token); ``read_pgn_lines`` reads as Ordo does, line by line,
which is how a forged ``[Result "1-0"]`` in a comment would shift every later game's result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass
class PgnGame:
    tags: dict[str, str] = field(default_factory=dict)
    tag_order: list[str] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    result: str | None = None


_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | \[\s*(?P<tag>[A-Za-z0-9_]+)\s+"(?P<value>(?:[^"\\]|\\.)*)"\s*\]
  | \{(?P<comment>[^}]*)\}
  | ;(?P<line_comment>[^\n]*)
  | (?P<result>1-0|0-1|1/2-1/2|\*)(?![^\s\[{;])
  | (?P<number>\d+\.(?:\.\.)?)
  | (?P<symbol>[A-Za-z0-9][A-Za-z0-9_+#=:-]*)
    """,
    re.VERBOSE,
)


def read_pgn(text: str) -> list[PgnGame]:
    """Games by the standard's tokens; raises AssertionError on anything it does not expect."""
    games: list[PgnGame] = []
    game = PgnGame()
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        assert match is not None, f"unexpected PGN text at {pos}: {text[pos : pos + 40]!r}"
        pos = match.end()
        kind = match.lastgroup
        if kind == "tag" or match.group("tag"):
            assert not game.moves and game.result is None, "a tag inside the movetext"
            name = match.group("tag")
            assert name not in game.tags, f"tag {name} twice in one game"
            game.tags[name] = re.sub(r"\\(.)", r"\1", match.group("value"))
            game.tag_order.append(name)
        elif kind == "comment":
            assert game.result is None, "a comment after the result token"
            game.comments.append(match.group("comment"))
        elif kind == "line_comment":
            raise AssertionError("no ; comments are written")
        elif kind == "result":
            game.result = match.group("result")
            games.append(game)
            game = PgnGame()
        elif kind == "symbol":
            assert game.result is None
            game.moves.append(match.group("symbol"))
    assert not game.tags and not game.moves, "a game without a result token"
    return games


def read_pgn_lines(text: str) -> list[tuple[str, str, str]]:
    """(White, Black, Result) of each game as Ordo reads them (``pgnget.c``): in each line,
    ``strstr`` for ``[White "``, ``[Black "`` and ``[Result "``, each up to the next ``"]``,
    wherever they are in the line; a game is complete once the three were seen."""
    games: list[tuple[str, str, str]] = []
    seen: dict[str, str] = {}
    for line in text.splitlines(keepends=True):  # fgets: lines end at \n only
        for tag in ("White", "Black", "Result"):
            start = line.find(f'[{tag} "')
            if start >= 0:
                value = line[start + len(tag) + 3 :]
                end = value.find('"]')
                assert end >= 0, f"Ordo stops with a parsing error at {line!r}"
                seen[tag] = value[:end]
        if len(seen) == 3:
            games.append((seen["White"], seen["Black"], seen["Result"]))
            seen = {}
    return games
