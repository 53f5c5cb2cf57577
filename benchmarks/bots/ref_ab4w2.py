"""ref_ab4w2: a reference opponent, alpha-beta to a fixed 4 plies, windows weighted ``2**marks``.

Written from the rules alone (``refkit``, ``refab``: standard library, no ``arena``), for
``benchmarks/ladder_vs_refs.py``. Plain alpha-beta over every legal move to depth 4, X and O
windows counted apart (see ``refab``); untimed (fixed depth), ties drawn from ``ARENA_SEED``.
Run it with a long move time:
``arena match alphabeta benchmarks/bots/ref_ab4w2.py --move-ms 3000``.
"""

from __future__ import annotations

from refab import make_chooser
from refkit import serve

choose = make_chooser(depth=4, base=2)

if __name__ == "__main__":
    serve(choose, "ref_ab4w2")
