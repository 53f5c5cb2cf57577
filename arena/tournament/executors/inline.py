"""The inline executor: chunks one after another in the calling process.

For library use, debugging (a breakpoint in a bot's referee just works) and machines where
forking workers is not wanted. The caller records every game (there is no worker to do it).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from arena.referee.match import MatchSettings
from arena.tournament.executors.base import (
    ChunkPlayer,
    Event,
    ExecutorSetup,
    GameDone,
    JobFailed,
    close_keeper,
)
from arena.tournament.executors.placement import Placement
from arena.tournament.schedule import MatchJob


class InlineExecutor:
    """Plays chunks one after another in this process; each chunk's events come as one batch."""

    def __init__(self, settings: MatchSettings) -> None:
        self.settings = settings

    def execute(self, jobs: Sequence[MatchJob]) -> Iterator[list[Event]]:
        """Play the chunks in order (a failed one again, next); the bots kept between them
        (``keep_bots``) are stopped when the last is done, or when the caller stops iterating."""
        placement = Placement(keeps=False)
        placement.fill(jobs)
        player = ChunkPlayer(self.settings)
        try:
            while placement.queue:
                chain = placement.take(None)
                for i, job in enumerate(chain):
                    events: list[Event] = []
                    try:
                        player.play(job, events.append, ends_match=i == len(chain) - 1)
                    except Exception as error:
                        played = {job.slot_key(e.slot) for e in events if isinstance(e, GameDone)}
                        placement.failed(job, played, chain[i + 1 :])
                        yield [*events, JobFailed.of(job.key, error)]
                        break
                    yield events
        finally:
            player.end()
            close_keeper()

    def close(self) -> None:
        """Nothing runs between two calls of ``execute`` (its kept bots stop with it); stop
        them anyway, in case an ``execute`` was left unfinished and not closed."""
        close_keeper()


def make_inline(setup: ExecutorSetup) -> InlineExecutor:
    """The registry's factory: ``workers``, ``affinity`` and the sink do not apply."""
    return InlineExecutor(setup.settings)
