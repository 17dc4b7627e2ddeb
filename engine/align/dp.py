"""Sentence alignment by dynamic programming over beads (Gale & Church 1993).

A *bead* links ``k`` source sentences to ``l`` target sentences, (k, l) in
:data:`BEADS`: 1-1, 1-0, 0-1, 2-1, 1-2.  ``cost(i, j, k, l)`` is the bead's
negative log-probability covering src[i:i+k] and tgt[j:j+l] (lower = likelier).

The lattice is banded around the diagonal j ~ i*m/n with half-width
``band`` (at least |n - m| plus a margin, so every path that deletes the
surplus sentences fits): cells and back-pointers are O(n * band), linear
in the document length for a bounded band, kept as C doubles (:data:`MAX_CELLS` bounds them).

Each chosen bead gets a confidence: its posterior probability
P(bead | both texts) = exp(F[i,j] - cost + B[i+k,j+l] - F[n,m]) from the
forward (F) and backward (B) sums over every banded path, in [0, 1].
"""
from __future__ import annotations

import math
from array import array
from dataclasses import dataclass
from typing import Callable

BEADS: tuple[tuple[int, int], ...] = ((1, 1), (1, 0), (0, 1), (2, 1), (1, 2))
NEG = -math.inf
Cost = Callable[[int, int, int, int], float]


@dataclass(frozen=True)
class Link:
    """Source sentences ``src`` (indices) aligned to target sentences ``tgt``; 1-0 / 0-1 have one side empty."""

    src: tuple[int, ...]
    tgt: tuple[int, ...]
    confidence: float


def _lse(a: float, b: float) -> float:
    """log(exp(a) + exp(b)) without overflow."""
    if a == NEG:
        return b
    if b == NEG:
        return a
    hi, lo = (a, b) if a > b else (b, a)
    return hi + math.log1p(math.exp(lo - hi))


class _Band:
    """Per source row i the target columns [lo[i], hi[i]] the lattice keeps."""

    def __init__(self, n: int, m: int, band: int):
        w = max(band, abs(n - m) + 3)
        self.lo = [max(0, math.floor(i * m / n) - w) if n else 0 for i in range(n + 1)]
        self.hi = [min(m, math.ceil(i * m / n) + w) if n else m for i in range(n + 1)]

    def inside(self, i: int, j: int) -> bool:
        return self.lo[i] <= j <= self.hi[i]


#: cells of one lattice at most (about 70 bytes each: three scores and five bead costs as C doubles):
#: 4 million is some 300 MB, e.g. 20,000 sentences against 18,000 in one piece
MAX_CELLS = 4_000_000


class TooLarge(ValueError):
    """The lattice would hold more than :data:`MAX_CELLS` cells."""


def align(n: int, m: int, cost: Cost, *, band: int = 12) -> list[Link]:
    """The best bead sequence covering src[0:n] and tgt[0:m], each bead with its posterior confidence."""
    if n == 0 or m == 0:
        return [Link((i,), (), 1.0) for i in range(n)] + [Link((), (j,), 1.0) for j in range(m)]
    bd = _Band(n, m, band)
    cells = sum(bd.hi[i] - bd.lo[i] + 1 for i in range(n + 1))
    if cells > MAX_CELLS:
        raise TooLarge(f"{n:,} sentences against {m:,}: {cells:,} lattice cells, more than {MAX_CELLS:,}")
    nb = len(BEADS)
    # costs[i][(j - lo[i]) * nb + b]: the cost of bead b starting at (i, j); NaN until computed
    costs = [array("d", [math.nan]) * ((bd.hi[i] - bd.lo[i] + 1) * nb) for i in range(n + 1)]

    def c(i: int, j: int, b: int) -> float:
        row, at = costs[i], (j - bd.lo[i]) * nb + b
        v = row[at]
        if v != v:  # NaN: not computed yet
            k, l_ = BEADS[b]
            v = row[at] = cost(i, j, k, l_)
        return v

    def grid() -> list[array]:
        return [array("d", [NEG]) * (bd.hi[i] - bd.lo[i] + 1) for i in range(n + 1)]

    fwd, vit, bwd = grid(), grid(), grid()   # F: log-sum over paths to (i, j); best path; B: from (i, j) on
    back = [array("b", [-1]) * (bd.hi[i] - bd.lo[i] + 1) for i in range(n + 1)]
    fwd[0][0] = vit[0][0] = 0.0
    for i in range(n + 1):
        lo, hi = bd.lo[i], bd.hi[i]
        for j in range(lo, hi + 1):
            if i == 0 and j == 0:
                continue
            f, v, bp = NEG, NEG, -1
            for b, (k, l_) in enumerate(BEADS):
                pi, pj = i - k, j - l_
                if pi < 0 or pj < 0 or not bd.inside(pi, pj):
                    continue
                pv = vit[pi][pj - bd.lo[pi]]
                if pv == NEG:
                    continue
                x = c(pi, pj, b)
                f = _lse(f, fwd[pi][pj - bd.lo[pi]] - x)
                if pv - x > v:
                    v, bp = pv - x, b
            fwd[i][j - lo], vit[i][j - lo], back[i][j - lo] = f, v, bp
    bwd[n][m - bd.lo[n]] = 0.0
    for i in range(n, -1, -1):
        for j in range(bd.hi[i], bd.lo[i] - 1, -1):
            if i == n and j == m:
                continue
            acc = NEG
            for b, (k, l_) in enumerate(BEADS):
                ni, nj = i + k, j + l_
                if ni > n or nj > m or not bd.inside(ni, nj):
                    continue
                after = bwd[ni][nj - bd.lo[ni]]
                if after != NEG:
                    acc = _lse(acc, after - c(i, j, b))
            bwd[i][j - bd.lo[i]] = acc
    total = fwd[n][m - bd.lo[n]]
    links: list[Link] = []
    i, j = n, m
    while i or j:
        b = back[i][j - bd.lo[i]]
        k, l_ = BEADS[b]
        pi, pj = i - k, j - l_
        post = math.exp(min(0.0, fwd[pi][pj - bd.lo[pi]] - c(pi, pj, b) + bwd[i][j - bd.lo[i]] - total))
        links.append(Link(tuple(range(pi, i)), tuple(range(pj, j)), post))
        i, j = pi, pj
    links.reverse()
    return links
