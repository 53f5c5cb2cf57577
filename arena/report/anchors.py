"""The page's anchors: one per bot (``#bot-NAME``) and one per game (``#game-N``), and the
links to them, so that a link to one bot's section can be sent to its author.

A bot's name may hold anything (spaces, quotes, markup, non-ASCII), and its anchor must still
be one word a mail client keeps whole: letters, digits, ``-`` and ``.`` stay, every other
character is written ``_HEX_`` (``_`` too, so that two names never share an anchor).
"""

from __future__ import annotations

import html
import string

_KEPT = frozenset(string.ascii_letters + string.digits + "-.")


def e(text: object) -> str:
    """HTML-escaped text (quotes too: safe in an attribute)."""
    return html.escape(str(text), quote=True)


def bot_anchor(name: str) -> str:
    """The id of ``name``'s section: ``bot-alice``, ``bot-my_20_bot`` for ``my bot``."""
    return "bot-" + "".join(c if c in _KEPT else f"_{ord(c):x}_" for c in name)


def game_anchor(number: int) -> str:
    """The id of game ``number``'s row in the games table."""
    return f"game-{number}"


def bot_link(name: str, label: str | None = None) -> str:
    """A link to ``name``'s section showing ``label`` (default: the name), escaped."""
    return f'<a href="#{bot_anchor(name)}">{e(name if label is None else label)}</a>'


def game_link(number: int, css: str = "") -> str:
    """A link to game ``number``'s row (of class ``css``)."""
    kind = f' class="{css}"' if css else ""
    return f'<a{kind} href="#{game_anchor(number)}">{number}</a>'
