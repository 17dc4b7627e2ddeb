"""Re-rank stage, bulk part: the core fuzzy score (Eq. 3 without penalties)
of candidate documents, many at a time in rapidfuzz's C++ loop.

Candidates come best bound first (:class:`engine.tm.candidates.Retrieval`);
they are scored in growing batches until the k-th best core score, less the
largest penalty (:data:`engine.tm.scoring.PENALTY_CAP`), reaches the bound
of every document not yet scored -- then the top k is exact -- or until
``limit`` documents were scored.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from engine.tm.candidates import CandidateStage, Retrieval
from engine.tm.scoring import PENALTY_CAP

FIRST_BATCH = 256


@dataclass
class Verified:
    """Scored candidates: document ``keys`` and their ``core`` scores, best
    first; ``exact``: no other document can enter the top k.  ``encodings(i, j)``
    gives the core encodings of the i-th to j-th (no second read)."""

    keys: np.ndarray
    core: np.ndarray
    exact: bool
    _encs: list[str]
    _order: np.ndarray

    def encodings(self, i: int, j: int) -> list[str]:
        e = self._encs
        return [e[p] for p in self._order[i:j].tolist()]


def core_scores(query_core: str, encodings: list[str]) -> np.ndarray:
    """Eq. 3 of ``query_core`` against each encoding (1 - D / max length)."""
    if not encodings:
        return np.zeros(0, np.float32)
    return process.cdist([query_core], encodings, scorer=Levenshtein.normalized_similarity,
                         dtype=np.float32)[0]


def verify(stage: CandidateStage, r: Retrieval, query_core: str, k: int,
           limit: int) -> Verified:
    """Score the candidates of ``r`` for a query encoded as ``query_core``."""
    keys_parts: list[np.ndarray] = []
    score_parts: list[np.ndarray] = []
    encs: list[str] = []
    pos, batch, n = 0, FIRST_BATCH, min(len(r.keys), limit)
    exact = n == len(r.keys) and r.rest <= 0.0
    best = np.zeros(0, np.float32)  # the k best core scores so far
    while pos < n:
        sl = r.keys[pos:min(n, pos + batch)]
        got = stage.encodings(sl)
        encs += got
        sc = core_scores(query_core, got)
        keys_parts.append(sl)
        score_parts.append(sc)
        pos += len(sl)
        best = np.concatenate([best, sc])
        if len(best) > k:
            best = np.partition(best, len(best) - k)[-k:]
        if len(best) >= k and float(best.min()) - PENALTY_CAP >= r.next_bound(pos) - 1e-6:
            exact = True
            break
        batch *= 2
    if not keys_parts:
        return Verified(np.zeros(0, np.int64), np.zeros(0, np.float32), exact, [],
                        np.zeros(0, np.int64))
    keys = np.concatenate(keys_parts)
    core = np.concatenate(score_parts)
    order = np.lexsort((keys, -core))
    return Verified(keys[order], core[order], exact, encs, order)
