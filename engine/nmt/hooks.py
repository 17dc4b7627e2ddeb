"""The rules a search applies while it decodes, behind one interface the search loop calls.

:func:`engine.nmt.search.beam_search` knows nothing of prefixes, terms or repeats: it calls each
:class:`Rule` it is given at fixed points of its loop, in the order given, and the rule changes the
step's log-probabilities or the candidates the beam takes:

    start(batch)                 once, before the first step: the sentences (:class:`Batch`); a rule
                                 may widen ``batch.max_lens`` (room for the terms)
    adjust(lp, view)             every step, in place on lp (B, K, V): forbid, force, add a bonus
    candidates(b, ranked, view)  every step, per live sentence: the (score, k*V + token) candidates in
                                 the order the beam takes them (given: the best 2K)
    advance(rows, toks)          after the pick: new row r continues old row ``rows[r]`` with ``toks[r]``
    ended(b, row, step)          a hypothesis of sentence b ended at ``step``: a key ranked before its
                                 normalised score when the best of the sentence is chosen

The rules of the one search definition (:mod:`engine.nmt.search`'s module doc): :class:`Limits`
(specials, a forced prefix, the length limit), :class:`engine.nmt.repeats.NoStutter` (no word written
twice) and :class:`engine.nmt.constraints.Terms` (glossary terms).  The model's own inputs (memory, kNN memory, document context) are not rules: the model
reads them in ``encode``/``step``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from torch import Tensor

from engine.nmt.vocab import BOS, EOS, PAD

NEG_INF = float("-inf")
#: the least log-probability of a typed (forced) token: finite, so its hypothesis goes on
FORCED_FLOOR = -1e4


@dataclass
class Batch:
    """The sentences of one search.  ``src``: per sentence its real source ids; ``K``: the beam;
    ``max_lens``: per sentence the most tokens it may have (``</s>`` included); ``prefixes``: per
    sentence the target tokens forced first (None: none)."""

    src: list[list[int]]
    K: int
    max_lens: list[int]
    prefixes: list[list[int]] | None = None
    lens: list[int] = field(default_factory=list)

    def __post_init__(self):
        self.lens = [len(s) for s in self.src]

    def in_prefix(self, b: int, step: int) -> bool:
        """Whether sentence ``b`` is still writing its forced prefix at ``step``."""
        return bool(self.prefixes) and step < len(self.prefixes[b])


@dataclass
class StepView:
    """What a rule may read at one step (rows are b * K + k): ``step``; ``seqs`` (B*K, t) the tokens
    written; ``attn_hist`` (B*K, t, S) their attention; ``attn_now`` (B*K, S) this step's attention
    (the one the next token is written with); ``prev`` (B*K,) the last tokens; ``scores`` (B, K) the
    rows' total log-probabilities; ``done``: per sentence, whether it has ended."""

    step: int
    seqs: Tensor
    attn_hist: Tensor
    attn_now: Tensor
    prev: Tensor
    scores: Tensor
    done: list[bool]


class Rule:
    """A decoding rule; every method does nothing by default (see the module doc)."""

    def start(self, batch: Batch) -> None:
        self.batch = batch

    def adjust(self, lp: Tensor, view: StepView) -> None:
        pass

    def candidates(self, b: int, ranked: list[tuple[float, int]], view: StepView) -> list[tuple[float, int]]:
        return ranked

    def advance(self, rows: list[int], toks: list[int]) -> None:
        pass

    def ended(self, b: int, row: int, step: int) -> tuple:
        return ()


def max_lens(src_lens: list[int], max_ratio: float, prefixes: list[list[int]] | None) -> list[int]:
    """The length limit per sentence: ``ceil(max_ratio * source length)`` (at least 2), and room for
    the prefix and ``</s>``."""
    out = [max(2, int(math.ceil(max_ratio * n))) for n in src_lens]
    if prefixes:
        out = [max(m, len(p) + 1) for m, p in zip(out, prefixes)]
    return out


def limit_step(lp: Tensor, step: int, max_len: int, prefix: list[int] | None) -> None:
    """In place on one sentence's log-probs (..., V): forbid specials; force the prefix token; force
    ``</s>`` at the length limit."""
    lp[..., PAD] = NEG_INF
    lp[..., BOS] = NEG_INF
    if prefix is not None and step < len(prefix):
        # the translator's own words: never lost, even where the model (or a confident kNN memory)
        # gives them probability 0 -- an -inf row let the search end the sentence on whatever it had
        keep = lp[..., prefix[step]].clamp(min=FORCED_FLOOR)
        lp.fill_(NEG_INF)
        lp[..., prefix[step]] = keep
    elif step + 1 >= max_len:
        keep = lp[..., EOS].clone()
        lp.fill_(NEG_INF)
        lp[..., EOS] = keep


class Limits(Rule):
    """No ``<pad>`` or ``<s>``; the prefix forced token by token; only ``</s>`` at the length limit."""

    def adjust(self, lp: Tensor, view: StepView) -> None:
        bt = self.batch
        for b in range(lp.size(0)):
            limit_step(lp[b], view.step, bt.max_lens[b], bt.prefixes[b] if bt.prefixes else None)
