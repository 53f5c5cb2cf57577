"""The declaration of the tournament file's keys is the one the loader, the reference and the
plan follow: the reference's table says what it declares, and every key reaches the plan."""

from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path

import pytest
from conftest import REPO_ROOT

from arena.config import config_from_dict
from arena.config.bots import BOT_KEYS
from arena.config.build import build
from arena.config.folders import FOLDER_KEYS
from arena.config.keys import KEYS, TOP_KEYS, reference
from arena.config.model import TournamentConfig
from arena.limits import KeepBots
from arena.referee.match import MatchSettings
from arena.tournament.run import TournamentPlan

REFERENCE = REPO_ROOT / "docs" / "tournament-file.md"
CONFIG_ONLY = {"path", "notices", "force_workers"}
"""Fields of a config that no key of the file sets (the file itself, what it told, a flag)."""


def _rows(columns: int) -> dict[str, tuple[str, ...]]:
    """The reference's table rows of ``columns`` cells: key -> the cells after it."""
    cells = r" \| ".join([r"([^|]*?)"] * (columns - 1))
    pattern = rf"^\| `([a-z_.]+)` \| {cells} \|$"
    return {key: tuple(rest) for key, *rest in re.findall(pattern, REFERENCE.read_text(), re.M)}


def test_the_reference_shows_each_keys_declared_default_and_help() -> None:
    declared, written = reference(), _rows(3)
    assert set(written) == set(declared)
    wrong = [
        f"| `{key}` | {' | '.join(declared[key])} |"
        for key in declared
        if written[key] != declared[key]
    ]
    assert not wrong, "docs/tournament-file.md should read:\n" + "\n".join(wrong)


def test_the_reference_shows_each_bot_keys_declared_help() -> None:
    declared = {key: (help,) for key, help in {**BOT_KEYS, **FOLDER_KEYS}.items()}
    assert _rows(2) == declared


FIELD_OF_KEY = {"openings": "opening_plies"}
"""The keys whose ``TournamentConfig`` field has another name."""


def test_each_key_fills_a_config_field_and_each_field_has_its_key() -> None:
    fields = {f.name for f in dataclasses.fields(TournamentConfig)}
    filled = [FIELD_OF_KEY.get(key.name, key.name) for key in KEYS]
    assert len(filled) == len(set(filled)) == len(TOP_KEYS)
    assert set(filled) == fields - CONFIG_ONLY
    source = inspect.getsource(build)
    unfilled = [
        key.name
        for key, field in zip(KEYS, filled, strict=True)
        if f'{field}=keys.value("{key.name}")' not in source
    ]
    assert not unfilled, f"keys build() gives to no field: {unfilled}"


def test_every_field_of_the_config_reaches_the_plan_or_the_match_settings() -> None:
    targets = {f.name for f in dataclasses.fields(TournamentPlan)}
    targets |= {f.name for f in dataclasses.fields(MatchSettings)}
    lost = {f.name for f in dataclasses.fields(TournamentConfig)} - targets - {"path", "notices"}
    assert not lost, f"config fields the plan never sees: {lost}"


def test_the_plan_carries_each_setting_of_the_file(tmp_path: Path) -> None:
    config = config_from_dict(
        {
            "bots": ["random", "greedy"],
            "name": "carried",
            "games_per_pairing": 3,
            "workers": 2,
            "seed": 7,
            "sandbox": "none",
            "affinity": False,
            "freeze_idle": False,
            "executor": "inline",
            "trusted_bots": True,
            "keep_bots": False,
            "openings": {"random_plies": 2},
            "time_control": {"move_ms": 50},
            "limits": {"memory_mb": 512},
            "budget": {"games": 4},
        },
        base_dir=tmp_path,
    )
    plan = config.plan()
    for name in ("name", "games_per_pairing", "workers", "seed", "affinity", "executor"):
        assert getattr(plan, name) == getattr(config, name)
    assert (plan.trusted_bots, plan.opening_plies, plan.budget) == (True, 2, config.budget)
    assert plan.db == tmp_path / "results" / "carried.sqlite"
    assert plan.folder is None and plan.bots == config.bots
    settings = plan.settings
    assert (settings.freeze_idle, settings.keep_bots) == (False, KeepBots.OFF)
    assert (settings.time_control.move_ms, settings.limits.memory_mb) == (50, 512)
    assert settings.hidden == config.hidden_from_bots()


@pytest.mark.parametrize(
    ("written", "mode"),
    [(True, KeepBots.ALL), (False, KeepBots.OFF), ("auto", KeepBots.AUTO), ("true", KeepBots.ALL)],
)
def test_keep_bots_is_read_alike_by_the_file_and_the_match_settings(
    written: object, mode: KeepBots
) -> None:
    assert config_from_dict({"bots": ["random", "greedy"], "keep_bots": written}).keep_bots is mode
    assert MatchSettings(keep_bots=written).keep_bots is mode  # type: ignore[arg-type]
