"""Re-rank stage, bulk part: the core fuzzy score (Eq. 3 without penalties)
of candidate documents, many at a time in rapidfuzz's C++ loop.

Candidates come best bound first (:class:`engine.tm.candidates.Retrieval`);
they are scored in growing batches until the k-th best core score, less the
largest penalty (:data:`engine.tm.scoring.PENALTY_CAP`), reaches the bound
of every document not yet scored -- then the top k is exact -- or until
``limit`` documents were scored.  :func:`full_scores` then adds the penalties
to the few whose core score can still reach the top.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from engine.tm.candidates import CandidateStage, Retrieval
from engine.tm.scoring import PENALTY_CAP, Encoded, score_many

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
    dist: np.ndarray | None = None  # core edit distances D (int32), in ``keys`` order

    def encodings(self, i: int, j: int) -> list[str]:
        e = self._encs
        return [e[p] for p in self._order[i:j].tolist()]


def core_distances(query_core: str, encodings: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(Eq. 3 scores 1 - D / max(|X|, |X'|) as float32, D as int32) of ``query_core``
    against each encoding: D is kept so the penalties need no second core distance."""
    if not encodings:
        return np.zeros(0, np.float32), np.zeros(0, np.int32)
    d = process.cdist([query_core], encodings, scorer=Levenshtein.distance, dtype=np.int32)[0]
    n = np.maximum(np.fromiter(map(len, encodings), np.float64, len(encodings)), len(query_core))
    return (1.0 - d / np.maximum(n, 1.0)).astype(np.float32), d


def verify(stage: CandidateStage, r: Retrieval, query_core: str, k: int,
           limit: int) -> Verified:
    """Score the candidates of ``r`` for a query encoded as ``query_core``."""
    keys_parts: list[np.ndarray] = []
    score_parts: list[np.ndarray] = []
    dist_parts: list[np.ndarray] = []
    encs: list[str] = []
    pos, batch, n = 0, FIRST_BATCH, min(len(r.keys), limit)
    exact = n == len(r.keys) and r.rest <= 0.0
    best = np.zeros(0, np.float32)  # the k best core scores so far
    while pos < n:
        sl = r.keys[pos:min(n, pos + batch)]
        got = stage.encodings(sl)
        encs += got
        sc, d = core_distances(query_core, got)
        keys_parts.append(sl)
        score_parts.append(sc)
        dist_parts.append(d)
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
                        np.zeros(0, np.int64), np.zeros(0, np.int32))
    keys = np.concatenate(keys_parts)
    core = np.concatenate(score_parts)
    order = np.lexsort((keys, -core))
    return Verified(keys[order], core[order], exact, encs, order, np.concatenate(dist_parts)[order])


def full_scores(qe: Encoded, stage: CandidateStage, v: Verified, need: int,
                min_score: float) -> list[tuple[float, int]]:
    """(score, uid) of the ``need`` best verified candidates by the full token score (with
    penalties), best first.  The full score lies in [core - PENALTY_CAP, core], so after the
    first batch only the candidates whose core score is above the ``need``-th full score so far
    can still enter, and they are scored in one more batch (growing batches x4 had scored
    1,344 of 3,957 candidates of a long query whose best match scores 0.1: 752k TM)."""
    n = int(np.count_nonzero((v.core > 0.0)
                             & (v.core >= np.float32(min_score) - np.float32(1e-6))))
    parts: list[np.ndarray] = []
    pos = 0
    while pos < n:  # the core scores are sorted: the qualifying ones come first
        end = min(n, max(4 * need, 64)) if not pos else n
        if parts and pos >= need:
            done = np.concatenate(parts)
            floor = float(np.partition(done, len(done) - need)[len(done) - need])
            end = pos + int(np.count_nonzero(v.core[pos:n] > np.float32(floor + 1e-6)))
            if end <= pos:
                break  # no one left can beat the need-th full score
        puncts, surfaces = extras(stage, v.keys[pos:end])
        d = v.dist[pos:end] if v.dist is not None else None
        parts.append(score_many(qe, v.encodings(pos, end), surfaces, puncts, d))
        pos = end
    if not parts:
        return []
    full = np.concatenate(parts)
    uids = stage.uids(v.keys[:len(full)])
    return sorted(((float(sc), u) for sc, u in zip(full.tolist(), uids)
                   if sc > 0.0 and sc >= min_score), key=lambda x: (-x[0], x[1]))


def extras(stage: CandidateStage, keys: np.ndarray) -> tuple[list[str], Callable[[list[int]], list[str]]]:
    """(the punctuation encodings of the documents ``keys``, a function giving the surface encodings of
    those at the given positions): the ``x`` column (``senc`` U+0001 ``penc``) is read as bytes and a
    surface part -- as long as the core -- decoded only where :func:`score_many` asks (752k TM, the 7
    slowest long queries: the punctuation of nearly every candidate scored in full reaches the penalty
    cap alone; reading the column 0.84 -> 0.4 ms)."""
    if not len(keys):
        return [], lambda idx: []
    first = stage.leaves[0]
    if getattr(first, "encoding_bytes", None) is None or int(keys.max()) >= first.base + first.count \
            or int(keys.min()) < first.base:  # (the overlay, a shared TM's rows: decoded already)
        texts = "\x01".join(stage.encodings(keys, "x")).split("\x01")
        return texts[1::2], lambda idx: [texts[2 * i] for i in idx]
    parts = b"\x01".join(first.encoding_bytes(keys - first.base, "x")).split(b"\x01")  # surface, punct, ...
    puncts = b"\x00".join(parts[1::2]).decode("utf-8").split("\x00")

    def surfaces(idx: list[int]) -> list[str]:
        return b"\x00".join([parts[2 * i] for i in idx]).decode("utf-8").split("\x00") if idx else []
    return puncts, surfaces
