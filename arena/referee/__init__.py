"""The referee: games between two bot processes (``Match``), or a person and a bot.

``match`` plays the games, ``seat`` asks each player for its moves and judges them, ``clock`` times
them, ``verdicts`` words a fault for people.
"""

from arena.referee.match import Match, MatchSettings, play_match, play_person

__all__ = ["Match", "MatchSettings", "play_match", "play_person"]
