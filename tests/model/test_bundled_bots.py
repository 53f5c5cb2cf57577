"""Finding bundled bots by bare name: single files and folders, in the checkout and the wheel.

The look-up is tested on folders made here (it takes the bundled folders as a parameter), so
these tests do not depend on which bots ship; one test checks the real folders' defaults.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import arena
from arena import botspec
from arena.botspec import BotSpec, bundled_bot_names, bundled_bot_path, bundled_dirs
from arena.config import load_config
from arena.errors import ConfigError


@pytest.fixture
def bundled(tmp_path: Path) -> tuple[Path, Path]:
    """A checkout's ``bots/`` and a wheel's ``_bundled_bots/``, with bots of both kinds."""
    checkout, wheel = tmp_path / "repo_bots", tmp_path / "_bundled_bots"
    checkout.mkdir()
    wheel.mkdir()
    (checkout / "random_bot.py").write_text("print('random')\n")
    (wheel / "greedy_bot.py").write_text("print('greedy')\n")
    (wheel / "random_bot.py").write_text("print('shadowed')\n")
    (checkout / "mcts").mkdir()
    (checkout / "mcts" / "main.py").write_text("print('mcts')\n")
    (checkout / "mcts" / "book.txt").write_text("data\n")
    (wheel / "native").mkdir()
    native = wheel / "native" / "main"
    native.write_text("#!/bin/sh\n")
    native.chmod(0o755)
    (checkout / "notabot").mkdir()  # a folder without a main
    (checkout / "notabot" / "helper.py").write_text("")
    return checkout, wheel


@pytest.fixture
def bundled_in_use(
    bundled: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, Path]:
    """``bundled``, as the folders in which the config and the command line look bots up."""
    monkeypatch.setattr(botspec, "bundled_dirs", lambda: bundled)
    return bundled


def config_error(config: Path, text: str) -> ConfigError:
    """The error of loading ``text`` written to ``config``."""
    config.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(config)
    return info.value


def test_single_files_and_folders(bundled: tuple[Path, Path]) -> None:
    checkout, wheel = bundled
    assert bundled_bot_path("random", bundled) == checkout / "random_bot.py"  # checkout first
    assert bundled_bot_path("greedy", bundled) == wheel / "greedy_bot.py"
    assert bundled_bot_path("mcts", bundled) == checkout / "mcts" / "main.py"
    assert bundled_bot_path("native", bundled) == wheel / "native" / "main"
    assert bundled_bot_path("notabot", bundled) is None
    assert bundled_bot_path("nope", bundled) is None
    assert bundled_bot_path("../repo_bots/random", bundled) is None
    assert bundled_bot_names(bundled) == ["greedy", "mcts", "native", "random"]


def test_a_folder_bot_has_its_folder(bundled: tuple[Path, Path]) -> None:
    checkout, wheel = bundled
    mcts = BotSpec.resolve("mcts", bundled)
    assert (mcts.name, mcts.dir) == ("mcts", checkout / "mcts")
    assert mcts.program == checkout / "mcts" / "main.py"
    native = BotSpec.resolve("native", bundled)
    assert native.launch_argv() == [str(wheel / "native" / "main")]
    single = BotSpec.resolve("random", bundled)
    assert single.dir == checkout
    assert (mcts.own_dir, native.own_dir, single.own_dir) == (True, True, False)
    before = mcts.version()
    (checkout / "mcts" / "book.txt").write_text("other data\n")
    assert mcts.version() != before  # all of its files


def test_the_default_folders_and_the_shipped_bots() -> None:
    package = Path(arena.__file__).resolve().parent
    assert bundled_dirs() == (package.parent / "bots", package / "_bundled_bots")
    for name in bundled_bot_names():  # whichever ship: each is found and can be described
        assert BotSpec.resolve(name).name == name


def test_the_config_finds_bundled_bots_by_bare_name(
    tmp_path: Path, bundled_in_use: tuple[Path, Path]
) -> None:
    checkout, _wheel = bundled_in_use
    config = tmp_path / "t.yaml"
    config.write_text("bots: [random, mcts]\n")
    random, mcts = load_config(config).bots
    assert random == BotSpec.bundled("random", bundled_in_use)
    assert random.own_dir is False  # bots/ holds the other bundled bots: only its file counts
    assert (mcts.dir, mcts.own_dir) == (checkout / "mcts", True)
    error = config_error(config, "bots:\n  - random\n  - randon\n")
    assert error.key == "bots[1]" and error.line == 3
    assert "unknown bundled bot 'randon' (did you mean 'random'?)" in str(error)
    assert "bundled bots: mcts, native, random" not in str(error)  # all four are listed
    assert "greedy, mcts, native, random" in str(error)


@pytest.mark.usefixtures("bundled_in_use")
def test_a_bundled_name_hint_when_path_is_missing(tmp_path: Path) -> None:
    config = tmp_path / "t.yaml"
    error = config_error(config, "bots:\n  - name: random\n  - greedy\n")
    assert (error.key, error.line) == ("bots[0]", 2)
    assert "expected exactly one of 'path' or 'command'" in str(error)
    assert "'- random'" in str(error)


def test_a_mapping_names_a_bundled_bot_by_its_bare_name(
    tmp_path: Path, bundled_in_use: tuple[Path, Path]
) -> None:
    """``{name: baseline, path: random}`` is the bundled ``random`` under another name, as
    ``arena match random`` is; a file of that name beside the config is the bot instead."""
    config = tmp_path / "t.yaml"
    config.write_text("bots:\n  - {name: baseline, path: random}\n  - {name: m2, path: mcts}\n")
    baseline, m2 = load_config(config).bots
    spec = BotSpec.bundled("random", bundled_in_use)
    assert spec is not None and baseline == spec.renamed("baseline")
    assert (m2.name, m2.program, m2.own_dir) == ("m2", bundled_in_use[0] / "mcts" / "main.py", True)
    (tmp_path / "random").write_text("#!/bin/sh\n")
    (tmp_path / "random").chmod(0o755)
    baseline, _ = load_config(config).bots
    assert baseline.program == tmp_path / "random"


@pytest.mark.usefixtures("bundled_in_use")
def test_a_mapping_s_bare_name_errors_name_the_key(tmp_path: Path) -> None:
    config = tmp_path / "t.yaml"
    error = config_error(config, "bots:\n  - random\n  - name: x\n    path: randon\n")
    assert (error.key, error.line) == ("bots[1].path", 4)
    assert "nor a bundled bot's name (did you mean 'random'?)" in str(error)
    error = config_error(config, "bots:\n  - random\n  - name: x\n    path: greedy\n    dir: .\n")
    assert (error.key, error.line) == ("bots[1].dir", 5)
    assert "expected no 'dir' for the bundled bot 'greedy'" in str(error)
    (tmp_path / "folder").mkdir()  # found, but not a bot: no bundled hint
    error = config_error(config, "bots:\n  - random\n  - name: x\n    path: folder\n")
    assert "bundled" not in str(error)
