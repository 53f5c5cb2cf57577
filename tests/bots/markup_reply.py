"""Fault fixture: plays 2 moves of each game, then answers its 3rd turn with HTML markup.

Why: what a bot writes reaches the report page (the fault's detail, in the faults table and the
game viewer); the page must show it as text, never run it. The reply is a malformed move that
would raise an alert, change the title and load an image if it were ever read as markup.
Moves: X in the first empty cell (two of them cannot make five).
"""

import sys

MARKUP = b"<img src=x onerror=alert(1)><script>document.title='owned'</script>&amp;"


def first_empty(board: bytes) -> bytes:
    """The move token for X in the first empty cell of a board string."""
    cell = board.index(b".")
    return f"{'abcdef'[cell % 6]}{cell // 6 + 1}X".encode()


def send(reply: bytes) -> None:
    """Write one line and flush it at once."""
    sys.stdout.buffer.write(reply + b"\n")
    sys.stdout.buffer.flush()


def main() -> None:
    """Play the protocol; exit on ``quit`` or end of input."""
    moves = 0
    for line in iter(sys.stdin.buffer.readline, b""):
        words = line.split() or [b""]
        if words[0] == b"arena":
            send(b"ready markup_reply")
        elif words[0] == b"game":
            moves = 0
        elif words[0] == b"turn":
            moves += 1
            send(MARKUP if moves == 3 else first_empty(words[1]))  # the fault on the 3rd
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
