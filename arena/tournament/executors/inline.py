"""The inline executor: matches one after another in the calling process.

For library use, debugging (a breakpoint in a bot's referee just works) and machines where
forking workers is not wanted. The caller records every game (there is no worker to do it).
"""

from __future__ import annotations

import traceback
from collections.abc import Iterator, Sequence

from arena.referee.match import MatchSettings
from arena.tournament.executors.base import (
    Event,
    ExecutorSetup,
    JobFailed,
    close_keeper,
    play_job,
)
from arena.tournament.schedule import MatchJob


class InlineExecutor:
    """Plays jobs one after another in this process; each job's events come as one batch."""

    def __init__(self, settings: MatchSettings) -> None:
        self.settings = settings

    def execute(self, jobs: Sequence[MatchJob]) -> Iterator[list[Event]]:
        """Play the jobs in order; the bots kept between them (``keep_bots``) are stopped when
        the last is done, or when the caller stops iterating."""
        try:
            for job in jobs:
                events: list[Event] = []
                try:
                    play_job(job, self.settings, events.append)
                except Exception:
                    events.append(JobFailed(job.key, traceback.format_exc(limit=8)))
                yield events
        finally:
            close_keeper()

    def close(self) -> None:
        """Nothing runs between two calls of ``execute`` (its kept bots stop with it); stop
        them anyway, in case an ``execute`` was left unfinished and not closed."""
        close_keeper()


def make_inline(setup: ExecutorSetup) -> InlineExecutor:
    """The registry's factory: ``workers``, ``affinity`` and the sink do not apply."""
    return InlineExecutor(setup.settings)
