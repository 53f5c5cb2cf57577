"""The referee: games between two bot processes (``Match``), or a person and a bot.

``match`` plays and judges the games, ``position`` is its fast position (protocol bytes beside the
bitboards), ``verdicts`` words a fault for people.
"""

from arena.referee.match import Match, MatchSettings, play_match, play_person

__all__ = ["Match", "MatchSettings", "play_match", "play_person"]
