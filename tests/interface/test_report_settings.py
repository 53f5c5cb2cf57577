"""The report's header counts the games a tournament owes as its format plays them: a course its
rounds (or its budget), a round robin every pairing within its budget. Read from a real store's
description of its run, as the report reads it."""

from __future__ import annotations

import json
from pathlib import Path

from arena.report.settings import TournamentSettings, read_settings
from arena.store import Store


def settings_of(tmp_path: Path, **described: object) -> TournamentSettings:
    """The settings of a run of 40 bots described as ``described`` says."""
    run = {
        "format": "round-robin",
        "games_per_pairing": 2,
        "time_control": "100 ms/move (cpu)",
        "seed": 1,
        "bots": [f"b{i:02d}" for i in range(40)],
        **described,
    }
    with Store.open(tmp_path / f"{len(list(tmp_path.iterdir()))}.sqlite") as store:
        store.set_meta("config", json.dumps(run))
        settings = read_settings(store)
    assert settings is not None
    return settings


def owed(tmp_path: Path, **described: object) -> int:
    return settings_of(tmp_path, **described).owed


def test_a_course_owes_its_rounds_not_a_round_robin(tmp_path: Path) -> None:
    assert owed(tmp_path) == 2 * 2 * 40 * 39 // 2
    assert owed(tmp_path, format="swiss", rounds=None) == 10 * 2 * 20  # its default 10 rounds
    assert owed(tmp_path, format="swiss", rounds=4, budget=None) == 4 * 2 * 20
    assert owed(tmp_path, format="swiss", rounds=4, budget={"games": 100}) == 100
    assert owed(tmp_path, format="contested", budget={"games": 500}) == 500
    assert owed(tmp_path, format="contested") == 40 * 39  # by default a round robin's games


def test_a_budget_caps_what_a_round_robin_owes(tmp_path: Path) -> None:
    assert owed(tmp_path, budget={"games": 300}) == 300
    assert owed(tmp_path, budget={"games": 10_000}) == 2 * 2 * 40 * 39 // 2


def test_the_header_says_a_course_is_played_in_rounds(tmp_path: Path) -> None:
    assert settings_of(tmp_path).pairing == "2 games per ordered pairing"
    assert settings_of(tmp_path, games_per_pairing=1).pairing == "1 game per ordered pairing"
    assert settings_of(tmp_path, format="swiss", rounds=None).pairing == "10 Swiss rounds"
    contested = settings_of(tmp_path, format="contested", rounds=1).pairing
    assert contested == "1 Swiss round, then rounds for the top"
