"""chrF (Popovic 2015) as sacrebleu 2.x computes it by default (character 1..6-grams, whitespace
removed, beta = 2, precision and recall averaged over the orders both sides have), on n-gram
profiles computed once per sentence.

Why not ``sacrebleu.sentence_chrf`` itself: the aligner scores every sentence against some
20 neighbours and their pairs, and sacrebleu extracts the n-grams of both strings on each call;
a profile made once and merged for 2-1 beads gives the same number
(tests/align/test_chrf.py) without re-reading the text per cell.
"""
from __future__ import annotations

from collections import Counter
from typing import Sequence

ORDER = 6
BETA2 = 4.0
Profile = tuple[Counter, ...]


def profile(text: str) -> Profile:
    """Per order n = 1..6 the counts of the character n-grams of ``text`` without whitespace."""
    s = "".join(text.split())
    return tuple(Counter(s[i:i + n] for i in range(len(s) - n + 1)) for n in range(1, ORDER + 1))


def merged(profiles: Sequence[Profile]) -> Profile:
    """The profile of several sentences together (n-grams across their join are not counted)."""
    if len(profiles) == 1:
        return profiles[0]
    return tuple(sum((p[n] for p in profiles), Counter()) for n in range(ORDER))


def score(hyp: Profile, ref: Profile) -> float:
    """chrF in [0, 1] of a hypothesis profile against a reference profile."""
    avg_p = avg_r = 0.0
    orders = 0
    for h, r in zip(hyp, ref):
        nh, nr = sum(h.values()), sum(r.values())
        if not nh or not nr:
            continue
        small, big = (h, r) if len(h) <= len(r) else (r, h)
        match = sum(min(c, big[g]) for g, c in small.items() if g in big)
        avg_p += match / nh
        avg_r += match / nr
        orders += 1
    if not orders:
        return 0.0
    avg_p /= orders
    avg_r /= orders
    if not avg_p + avg_r:
        return 0.0
    return (1 + BETA2) * avg_p * avg_r / (BETA2 * avg_p + avg_r)
