"""The cost of one bead: Gale-Church length, number/inline-code anchors, and (with a model) the
similarity of the source's machine translation to the target.  No torch here.

Gale & Church (1993): for a bead with text on both sides, with c = target characters per source character (of the two
texts) and s2 = 6.8 (their variance per character),
    delta = (l_t - l_s * c) / sqrt(s2 * (l_s + l_t / c) / 2)
    length cost = -log P(k-l bead) - log 2 * (1 - Phi(|delta|)).
Anchors: numbers (digit runs) and inline codes must appear on both sides:
    anchor cost = W_ANCHOR * |A xor B| / |A u B|  (0 when neither side has any).
Similarity: chrF (engine.align.chrf) of MT(src span) against the target span,
    similarity cost = W_SIM * (SIM_CENTRE - chrF): a bead whose MT resembles its target
    beats an equally long one whose MT does not (Bleualign, Sennrich & Volk 2010).
"""
from __future__ import annotations

import math
import re
from collections import Counter
from typing import Sequence

from engine.align import chrf
from engine.inline import strip_tags

#: P(bead): chosen on held-aside documents (benchmarks/align_docs.py, seed 2, 40 documents a corpus;
#: RESULTS.md): 1-0/0-1 at 0.05 each and 2-1/1-2 at 0.02 each with SKIP = 1 gave a mean F1 of
#: 0.979 against 0.970 with 0.03 / 0.045 and SKIP = 2 (Gale & Church had 0.0099 / 0.089 in all).
PRIORS = {(1, 1): 0.86, (1, 0): 0.05, (0, 1): 0.05, (2, 1): 0.02, (1, 2): 0.02}
S2 = 6.8
W_ANCHOR = 6.0
#: the weight and centre of the model's chrF, chosen with the demo model on held-aside documents
#: (benchmarks/align_docs.py --seed 2 --mt-cache; RESULTS.md): 4 and 0.2 gave F1 0.989 / 0.977 on
#: JRC / KDE en-de against 0.987 / 0.971 by length alone and 0.985 / 0.975 with 12 and 0.25
W_SIM = 4.0
SKIP = 1.0
SIM_CENTRE = 0.2   # chrF of an unrelated pair is below it, of a translation above it
_NUMBER = re.compile(r"\d+")
_CODE = re.compile("[\ue001-\uf8ff]")


def _tail(z: float) -> float:
    """-log 2*(1 - Phi(|z|)), the two-sided tail of a standard normal, floored to stay finite."""
    p = math.erfc(abs(z) / math.sqrt(2.0))
    return -math.log(max(p, 1e-12))


def anchors(text: str) -> Counter:
    """The numbers and inline codes of ``text`` (a code counts by its kind of presence, not its number)."""
    a: Counter = Counter(m.group(0).lstrip("0") or "0" for m in _NUMBER.finditer(text))
    codes = len(_CODE.findall(text))
    if codes:
        a["\ue000codes"] = codes
    return a


class BeadCost:
    """``cost(i, j, k, l)`` for src[i:i+k] / tgt[j:j+l]; ``mt``: per source sentence its translation, None
    for one not translated (a bead of such a sentence is scored by length and anchors only)."""

    def __init__(self, src: Sequence[str], tgt: Sequence[str], mt: Sequence[str | None] | None = None,
                 ratio: float | None = None):
        self.ls = [len(s) for s in src]
        self.lt = [len(t) for t in tgt]
        total_s, total_t = sum(self.ls), sum(self.lt)
        self.c = ratio or ((total_t / total_s) if total_s and total_t else 1.0)
        self.as_ = [anchors(s) for s in src]
        self.at = [anchors(t) for t in tgt]
        self.mt = [chrf.profile(x) if x is not None else None for x in mt] if mt is not None else None
        self.tp = [chrf.profile(strip_tags(t)) for t in tgt] if mt is not None else None  # MT has no codes

    def length(self, ls: int, lt: int, k: int, l_: int) -> float:
        if not (k and l_):
            # a sentence left out costs its prior and a fixed SKIP: Gale-Church's delta of a long
            # sentence against nothing is so unlikely that it would rather be glued to a neighbour
            return -math.log(PRIORS[(k, l_)]) + SKIP
        mean = (ls + lt / self.c) / 2.0
        delta = (lt - ls * self.c) / math.sqrt(S2 * max(mean, 1.0))
        return -math.log(PRIORS[(k, l_)]) + _tail(delta)

    def __call__(self, i: int, j: int, k: int, l_: int) -> float:
        ls = sum(self.ls[i:i + k])
        lt = sum(self.lt[j:j + l_])
        cost = self.length(ls, lt, k, l_)
        if k and l_:
            a = sum((self.as_[x] for x in range(i, i + k)), Counter())
            b = sum((self.at[y] for y in range(j, j + l_)), Counter())
            if a or b:
                union = sum((a | b).values())
                cost += W_ANCHOR * sum(((a - b) + (b - a)).values()) / union
            if self.mt is not None and all(self.mt[x] is not None for x in range(i, i + k)):
                hyp = chrf.merged([self.mt[x] for x in range(i, i + k)])
                ref = chrf.merged([self.tp[y] for y in range(j, j + l_)])
                cost += W_SIM * (SIM_CENTRE - chrf.score(hyp, ref))
        return cost
