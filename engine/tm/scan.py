"""Search without the index: every unit of the language pair scored straight
from SQLite, for the minutes a rebuild of the index runs in the background.

The core score (Eq. 3: 1 - token edit distance / longer length) of the query
against every stored ``enc`` is rapidfuzz's normalised Levenshtein similarity
on the one-character-per-token strings, computed in C++ over the whole TM
(:func:`rapidfuzz.process.extract`); the best are scored again with the
penalties (:func:`engine.tm.scoring.score_many`), as the indexed search does.
The ``enc`` column is read once and kept while the rebuild runs.
"""
from __future__ import annotations

import sqlite3

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from engine.tm.scoring import Encoded, score_many
from engine.tm.whoosh_index import pair_term


class ScanSearch:
    """The units of one language-pair filter, as encodings, scored by brute force."""

    def __init__(self, conn: sqlite3.Connection, accept_pair):
        self.accept_pair = accept_pair
        self.ids: list[int] = []
        self.cores: list[str] = []
        self.extra: list[tuple[str, str]] = []
        self._pos: dict[int, int] = {}
        self._take(conn.execute("SELECT id, src_lang, tgt_lang, enc, senc, penc FROM units ORDER BY id"))

    def _take(self, rows) -> None:
        for uid, sl, tl, enc, senc, penc in rows:
            if self.accept_pair(pair_term(sl or "", tl or "")):
                self._pos[uid] = len(self.ids)
                self.ids.append(uid)
                self.cores.append(enc)
                self.extra.append((senc or "", penc or ""))

    def update(self, conn: sqlite3.Connection, uids: list[int]) -> None:
        """Take in units changed since (added, edited or deleted)."""
        for uid in uids:
            i = self._pos.pop(uid, None)
            if i is not None:
                self.cores[i] = ""  # scores 0: never returned
        for i in range(0, len(uids), 500):
            part = uids[i:i + 500]
            self._take(conn.execute("SELECT id, src_lang, tgt_lang, enc, senc, penc FROM units "
                                    "WHERE id IN (%s) ORDER BY id" % ",".join("?" * len(part)), part))

    def best(self, qe: Encoded, need: int, min_score: float) -> list[tuple[float, int]]:
        """(score, uid) of the ``need`` best units by the full score, best first."""
        if not self.ids or not qe.core:
            return []
        pool = process.extract(qe.core, self.cores, scorer=Levenshtein.normalized_similarity,
                               limit=max(4 * need, 64), score_cutoff=max(0.0, min_score - 1e-6))
        if not pool:
            return []
        idx = [i for _, _, i in pool]
        full = score_many(qe, [self.cores[i] for i in idx], [self.extra[i][0] for i in idx],
                          [self.extra[i][1] for i in idx])
        out = [(float(s), self.ids[i]) for s, i in zip(np.asarray(full).tolist(), idx)
               if s > 0.0 and s >= min_score]
        return sorted(out, key=lambda x: (-x[0], x[1]))[:need]


__all__ = ["ScanSearch"]
