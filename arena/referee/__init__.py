"""The referee: games between two bot processes (``Match``), or a person and a bot.

``match`` plays the games, ``seat`` asks each player for its moves and judges them, ``clock`` times
them, ``verdicts`` words a fault for people.
"""

from arena.referee.match import Match, play_match, play_person
from arena.referee.settings import MatchSettings

__all__ = ["Match", "MatchSettings", "play_match", "play_person"]
