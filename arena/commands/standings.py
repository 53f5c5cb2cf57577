"""Standings tables (ratings, per-role results, cross-table) for the terminal."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from arena.records import GameRecord

if TYPE_CHECKING:
    from rich.console import Console, JustifyMethod
    from rich.table import Table

    from arena.store import Store

__all__ = ["standings_json", "print_standings"]


def standings_json(records: list[GameRecord]) -> dict[str, Any]:
    """The standings of these games as plain data (what ``arena ratings --json`` prints)."""
    from arena.ratings import GameResult, compute_all

    results = [GameResult.from_record(r) for r in records]
    return compute_all(results).to_json()


def _num(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _elo(value: float | None, ci: float | None) -> str:
    return "-" if value is None else f"{value:.0f} ± {_num(ci)}"


def print_standings(console: Console, store: Store) -> None:
    """Rank, bot, games, wins by role, Elo (ML fit, 95%) overall and per role, cross-table."""
    from rich.table import Table

    records = list(store.games())
    if not records:
        console.print("no games stored yet")
        return
    data = standings_json(records)
    table = Table(title="Standings", title_justify="left")
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("#", "right"), ("bot", "left"), ("games", "right"), ("wins", "right"),
        ("as Order", "right"), ("as Chaos", "right"), ("Elo (95%)", "right"),
        ("Elo as Order", "right"), ("Elo as Chaos", "right"), ("seq. Elo", "right"),
    )  # fmt: skip
    for column, justify in columns:
        table.add_column(column, justify=justify)
    for rank, bot in enumerate(data["bots"], 1):
        table.add_row(
            str(rank),
            bot["name"],
            str(bot["games"]),
            str(bot["wins"]),
            f"{bot['wins_order']}/{bot['games_order']}",
            f"{bot['wins_chaos']}/{bot['games_chaos']}",
            _elo(bot["elo"], bot["elo_ci95"]),
            _elo(bot["elo_order"], bot["elo_order_ci95"]),
            _elo(bot["elo_chaos"], bot["elo_chaos_ci95"]),
            _num(bot["elo_sequential"]),
        )
    console.print(table)
    rate = data.get("order_win_rate")
    advantage = _elo(data.get("role_advantage"), data.get("role_advantage_ci95"))
    console.print(
        f"Order wins {_num(None if rate is None else rate * 100, 1)}% of games; "
        f"role advantage (Order) {advantage} Elo"
    )
    names = [bot["name"] for bot in data["bots"]]

    def results(row: str, col: str) -> str:
        cell = data["cross_table"].get(row, {}).get(col)
        if cell is None:
            return ""
        return (
            f"{cell['order_wins']}/{cell['order_games']} | "
            f"{cell['chaos_wins']}/{cell['chaos_games']}"
        )

    def superiority(row: str, col: str) -> str:
        return _num(_percent(data["los"].get(row, {}).get(col)), 0)

    console.print(
        _bot_matrix(
            "Cross-table: row bot's wins vs column bot (as Order | as Chaos)", names, results,
            "center",
        )
    )  # fmt: skip
    if len(names) <= MAX_LOS_BOTS:
        console.print(
            _bot_matrix(
                "Likelihood of superiority (%): row bot stronger than column bot",
                names,
                superiority,
                "right",
            )
        )
    errors = store.harness_errors()
    if errors:
        from rich.markup import escape

        console.print(
            f"{len(errors)} harness errors (not counted against any bot; their games were "
            "replayed). The last: " + escape(errors[-1].error.strip().splitlines()[-1])
        )


MAX_LOS_BOTS = 16


def _bot_matrix(
    title: str, names: list[str], cell: Callable[[str, str], str], justify: JustifyMethod
) -> Table:
    """A bot-by-bot table: ``cell(row, col)`` for each pair, blank on the diagonal."""
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    table.add_column("")
    for name in names:
        table.add_column(name, justify=justify)
    for row in names:
        table.add_row(row, *("" if col == row else cell(row, col) for col in names))
    return table


def _percent(value: float | None) -> float | None:
    return None if value is None else value * 100
