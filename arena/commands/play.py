"""``arena play BOT --as order|chaos``: a person plays a bot on the terminal.

The game itself is ``referee.play_person``: the bot is started, timed and judged as in a
tournament. This module is only the person's side: it draws the board (``arena.boardview``, the
same drawing as ``arena replay``), reads typed moves, explains a bad one and asks again, and
stores the finished game so that ``arena replay`` shows it move for move.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from arena import boardview
from arena.commands.stopping import exit_code, stopped_like_ctrl_c, wait_readable
from arena.errors import ArenaError
from arena.limits import Measure, SandboxMode, TimeControl
from arena.records import GameRecord
from arena.rules import Board, Move, Reason, Role, cell_name

if TYPE_CHECKING:
    from arena.botspec import BotSpec
    from arena.referee.settings import MatchSettings
    from arena.store.database import Store


PERSON = "human"
"""The name a person's games are stored under."""
QUIT_WORDS = frozenset({"q", "quit", "exit"})


class _Abandoned(Exception):
    """The person left the game (``q``, or the end of input): nothing is stored."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def result_text(record: GameRecord, person_role: Role, frame: boardview.Frame) -> str:
    """The end of the game from the person's side: who won, and how."""
    who = "You win" if record.winner is person_role else f"{record.winner_name} wins"
    if record.reason is Reason.FIVE:
        return f"{who}: five in a line " + " ".join(cell_name(c) for c in frame.five)
    if record.reason is Reason.FULL:
        return f"{who}: full board"
    from arena.referee.verdicts import DETAIL_WIDTH, shown_detail

    detail = shown_detail(record.detail, DETAIL_WIDTH)
    return f"{who}: {record.loser_name} lost by {record.reason.value}" + (
        f": {detail}" if detail else ""
    )


class _Terminal:
    """The person's side of the game: draws positions, reads moves."""

    def __init__(self, bot: str, person_role: Role) -> None:
        self.bot = bot
        self.person_role = person_role
        self.styled = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        self.moves: list[str] = []
        self._typed = b""  # read from stdin, not yet taken as a line

    def draw(self, line: str) -> boardview.Frame:
        frame = boardview.frames(self.moves)[-1]
        if self.styled:
            from rich.console import Console

            console = Console(highlight=False, force_terminal=True, soft_wrap=True)
            console.print(boardview.render_rich(frame))
        else:
            print(boardview.render(frame))
        print(line, flush=True)
        return frame

    def ask(self, board: Board) -> Move:
        role = self.person_role.value.capitalize()
        while True:
            print(f"your move ({role}, e.g. c4X; q quits): ", end="", flush=True)
            typed = self._read_line()
            if not typed:
                print()
                raise _Abandoned("end of input")
            if typed.strip().lower() in QUIT_WORDS:
                raise _Abandoned("you quit")
            try:
                return boardview.typed_move(typed, board)
            except ValueError as exc:
                print(f"  {exc}", flush=True)

    def _read_line(self) -> str:
        """The next line typed ("" at the end of input), read so that a stop signal is acted on
        at once while the person thinks (``wait_readable``; ``sys.stdin.readline`` could miss
        one for as long as nothing is typed)."""
        try:
            fd = sys.stdin.fileno()
        except (AttributeError, ValueError, OSError):  # no stdin at all
            return ""
        while b"\n" not in self._typed:
            wait_readable(fd)
            data = os.read(fd, 4096)
            if not data:  # the end of input (Ctrl-D)
                break
            self._typed += data
        line, newline, self._typed = self._typed.partition(b"\n")
        return (line + newline).decode("utf-8", "replace")

    def moved(self, move: Move, role: Role, ms: float) -> None:
        self.moves.append(move.token)
        if role is self.person_role:
            line = f"ply {len(self.moves)}: you ({role.value.capitalize()}) played {move.token}"
        else:
            line = (
                f"ply {len(self.moves)}: {self.bot} ({role.value.capitalize()}) played"
                f" {move.token} in {ms:.1f} ms"
            )
        print()
        self.draw(line)


def _time_text(tc: TimeControl) -> str:
    """``100 ms a move`` for the plain time control, else its whole description."""
    plain = tc.clock_ms is None and tc.measure is Measure.CPU and not tc.margin_ms
    return f"{tc.move_ms} ms a move" if plain else tc.describe()


def play_command(
    bot: str,
    person_role: Role,
    *,
    move_ms: int,
    db: Path | None,
    seed: int,
    sandbox: SandboxMode,
    time_control: TimeControl | None = None,
) -> None:
    """Play one game of a person against ``bot``, and store it in ``db`` if given
    (``time_control``: a clock, measure or margin for the bot; ``move_ms`` alone when None)."""
    from arena.commands.start import (
        check_store_outside_bots,
        match_settings,
        resolve_bot,
        sandbox_for,
        start_harness,
    )
    from arena.store import Store, hidden_from_bots, store_files

    spec = resolve_bot(bot)
    person = PERSON if spec.name != PERSON else PERSON + "-2"
    mode = sandbox_for(sandbox)
    from arena.launch.sandbox import check_launchable

    check_launchable(spec, mode)  # a bot this machine cannot start: one line, before the board
    tc = time_control or TimeControl(move_ms=move_ms)
    settings = match_settings(tc, mode, hidden=() if db is None else hidden_from_bots(db))
    created = db is not None and not db.exists()  # removed again if the game is not stored
    store = Store.open(db) if db is not None else None  # a bad path fails before the game
    stored = False
    start_harness()
    try:
        if db is not None:  # its files are made: the finally removes a new one
            check_store_outside_bots(db, mode, (spec,))
        record = _play_on_terminal(spec, person, person_role, tc, settings, seed)
        frame = boardview.frames(record.moves)[-1]
        print(result_text(record, person_role, frame))
        if store is not None:
            _store(store, record)
            stored = True
    finally:
        if store is not None:
            store.close()
            if created and not stored:  # an abandoned game leaves no empty store behind
                assert db is not None
                for leftover in store_files(db):
                    leftover.unlink(missing_ok=True)


def _play_on_terminal(
    spec: BotSpec,
    person: str,
    person_role: Role,
    tc: TimeControl,
    settings: MatchSettings,
    seed: int,
) -> GameRecord:
    """The game on the terminal, to its end; ``SystemExit`` when it was abandoned or the bot
    could not start (nothing to store)."""
    from arena.referee import play_person

    term = _Terminal(spec.name, person_role)
    print(
        f"You play {person_role.value.capitalize()} against {spec.name}"
        f" ({person_role.other.value.capitalize()}, {_time_text(tc)}). Order moves first;"
        " five in a line wins for Order, a full board for Chaos."
    )
    term.draw("ply 0: the empty board")
    try:
        with stopped_like_ctrl_c():  # a closed terminal (SIGHUP) stops the bot as Ctrl-C does
            record = play_person(
                spec,
                person_role.other,
                term.ask,
                settings=settings,
                seed=seed,
                person=person,
                on_move=term.moved,
            )
    except _Abandoned as left:
        print(f"game abandoned ({left.why}): not stored")
        raise SystemExit(0 if left.why == "you quit" else 1) from None
    except KeyboardInterrupt as stop:  # the bot is stopped by now (play_person's finally)
        code, name = exit_code(stop)
        print(f"\ngame abandoned (interrupted by {name}): not stored", file=sys.stderr)
        raise SystemExit(code) from None
    if record.reason is Reason.STARTUP:  # no game was played: nothing to store or replay
        print(f"{spec.name} could not start: {record.detail}; nothing stored", file=sys.stderr)
        raise SystemExit(1)
    return record


def _store(store: Store, record: GameRecord) -> None:
    """Add the game to the store (a slot after the pairing's last) and say how to replay it."""
    key = (record.order, record.order_version, record.chaos, record.chaos_version)
    slot = store.next_slot(*key)
    if not store.add_game(record, slot):
        raise ArenaError(f"{store.path}: the game could not be stored (slot {slot} taken)")
    number = store.game_id(*key, slot)
    print(f"stored as game {number} in {store.path}: arena replay {store.path} {number}")
