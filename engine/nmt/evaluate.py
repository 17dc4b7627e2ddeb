"""Scores with sacrebleu: BLEU (default: detokenised, cased, 13a), chrF, TER.

``lowercase_bleu`` is BLEU the way Multi30k papers report it (lower-cased,
13a-tokenised).  ``bleu_by_length`` splits the test set by source length in
words.
:func:`paired_bootstrap` (:mod:`engine.nmt.significance`) says whether a
difference between two systems is more than the test set's noise.
"""
from __future__ import annotations

from sacrebleu.metrics import BLEU, CHRF, TER

from engine.nmt.significance import paired_bootstrap, table as significance_table  # noqa: F401

LENGTH_BINS = ((1, 10), (11, 20), (21, 30), (31, 40), (41, 10**9))


def bleu(hyps: list[str], refs: list[str], *, lowercase: bool = False) -> float:
    return BLEU(lowercase=lowercase).corpus_score(hyps, [refs]).score


def score_all(hyps: list[str], refs: list[str], srcs: list[str] | None = None) -> dict:
    """BLEU, lower-cased BLEU, chrF, TER, sacrebleu signatures and BLEU by source-length bin."""
    if len(hyps) != len(refs):
        raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} references")
    b, bl, c, t = BLEU(), BLEU(lowercase=True), CHRF(), TER()
    bs = b.corpus_score(hyps, [refs])
    out = {
        "sentences": len(hyps),
        "bleu": round(bs.score, 2),
        "bleu_lowercase": round(bl.corpus_score(hyps, [refs]).score, 2),
        "chrf": round(c.corpus_score(hyps, [refs]).score, 2),
        "ter": round(t.corpus_score(hyps, [refs]).score, 2),
        "bp": round(bs.bp, 3),
        "signature": {"bleu": str(b.get_signature()), "bleu_lowercase": str(bl.get_signature()),
                      "chrf": str(c.get_signature()), "ter": str(t.get_signature())},
    }
    if srcs is not None:
        out["bleu_by_source_length"] = bleu_by_length(hyps, refs, srcs)
    return out


def bleu_by_length(hyps: list[str], refs: list[str], srcs: list[str]) -> list[dict]:
    """BLEU of each source-length bin (words), empty bins left out."""
    res = []
    for lo, hi in LENGTH_BINS:
        idx = [i for i, s in enumerate(srcs) if lo <= len(s.split()) <= hi]
        if not idx:
            continue
        name = f"{lo}-{hi}" if hi < 10**9 else f"{lo}+"
        res.append({"bin": name, "sentences": len(idx),
                    "bleu": round(bleu([hyps[i] for i in idx], [refs[i] for i in idx]), 2)})
    return res
