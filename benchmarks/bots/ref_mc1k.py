"""ref_mc1k: a reference opponent, flat Monte Carlo with 1000 random playouts a move.

Written from the rules alone (``refkit``, ``refmc``: standard library, no ``arena``), for
``benchmarks/ladder_vs_refs.py``: every legal move gets an equal share of the 1000 playouts
(random fills of the empty cells), Order plays the best share of fives, Chaos the worst (see
``refmc``). Fixed work, whatever the move time; ties and playouts drawn from ``ARENA_SEED``.
"""

from __future__ import annotations

from refkit import serve
from refmc import make_chooser

choose = make_chooser(playouts=1000)

if __name__ == "__main__":
    serve(choose, "ref_mc1k")
