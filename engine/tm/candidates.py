"""Candidate stage: which TM units are worth re-ranking for a query.

The stage reads the posting lists of the query's terms from *leaves* -- the
segments of the Whoosh index (:class:`engine.tm.whoosh_index.LeafView`) and
the in-memory overlay of units added since the last index commit
(:class:`MemoryLeaf`) -- and counts, for every document, how many query
tokens it shares.  Source terms are *occurrence terms*
(:func:`engine.tm.tokens.occurrence_terms`: the second ``the`` of a segment
is its own term), so the count is the exact multiset overlap of core tokens.
It scores nothing the re-rank redoes; the overlap gives an **upper bound**
of the fuzzy score (Eq. 3 of Gu et al. 2018), since every token the edit
script keeps is shared::

    s(X, X') <= min(shared + unread, |X|, |X'|) / max(|X|, |X'|)

where ``unread`` counts query tokens whose postings were not read (tags,
which are not indexed, and terms past the postings budget).  Candidates come
out best bound first, with the bound of everything left out, so the re-rank
can stop as soon as its k-th score beats the next bound (then the top k is
exact) or at its verification limit.

Everything Whoosh-specific sits behind the small :class:`Leaf` protocol.
"""
from __future__ import annotations

import math
from array import array
from dataclasses import dataclass
from typing import Callable, Protocol, Sequence

import numpy as np

from engine.tm import postfile
from engine.tm.tokens import TAG, index_terms, occurrence_terms


#: documents kept for the bound computation, per candidate asked for (see ``retrieve``)
OVERSHOOT = 4
#: with ``by_dice``, 1 / BOUND_SHARE of the candidates are the best bounds (752k TM, 200 held-out
#: queries, 2,000 candidates: 134 searches proven exact instead of 126, the same recall)
BOUND_SHARE = 4


class Leaf(Protocol):
    """One searchable slice of the TM (an index segment or the overlay)."""

    base: int            # first global document key of this leaf
    count: int           # documents in this leaf (keys base .. base+count-1)
    uids: array          # local doc -> unit id
    deleted: frozenset   # local docs deleted in this leaf
    overlay: bool        # True for the in-memory overlay (not subject to ``dead_uids``)

    def lengths(self) -> np.ndarray:
        """Local doc -> core-token count of the source (uint16)."""

    def postings(self, field: str, term: str) -> np.ndarray:
        """Local doc numbers containing ``term`` in ``field`` (int32)."""

    def doc_frequency(self, field: str, term: str) -> int:
        ...

    def terms(self, field: str) -> list[str]:
        """Every term of ``field`` (used for the few language-pair terms)."""

    def encodings(self, local: np.ndarray, column: str = "e") -> list[str]:
        """Stored encodings of local docs: core tokens (``e``, one character
        per token) or surface tokens and punctuation (``x``: ``senc\x01penc``)."""

    def local_of(self, uids: Sequence[int]) -> np.ndarray:
        """Local doc numbers of the given unit ids (those present)."""


class MemoryLeaf:
    """Units added since the last index commit, held in memory."""

    overlay = True

    def __init__(self, base: int = 0):
        self.base = base
        self.uids = array("I")
        self._lengths = array("H")
        self._enc: dict[str, list[str]] = {"e": [], "x": []}
        self.deleted: set[int] = set()
        self._local: dict[int, int] = {}
        self._post: dict[str, dict[str, list[int]]] = {"src": {}, "tgt": {}, "lp": {}}

    @property
    def count(self) -> int:
        return len(self.uids)

    def add(self, uid: int, source: str, target: str, encs: tuple[str, str, str],
            core: Sequence[str], pair: str = "|") -> None:
        """Add a unit: its texts, stored encodings ``encs`` (core, surface,
        punctuation), normalised core tokens ``core`` and language-pair term
        ``pair`` (``src|tgt``)."""
        self.remove(uid)
        d = len(self.uids)
        self._local[uid] = d
        self.uids.append(uid)
        self._lengths.append(min(65535, len(encs[0])))
        self._enc["e"].append(encs[0])
        self._enc["x"].append(f"{encs[1]}\x01{encs[2]}")
        for field, terms in (("src", occurrence_terms(core)), ("tgt", index_terms(target)),
                             ("lp", [pair])):
            post = self._post[field]
            for t in terms:
                post.setdefault(t, []).append(d)

    def remove(self, uid: int) -> None:
        """Forget ``uid`` (deleted, or about to be re-added with new text)."""
        d = self._local.pop(uid, None)
        if d is not None:
            self.deleted.add(d)

    def lengths(self) -> np.ndarray:
        return np.frombuffer(self._lengths, dtype=np.uint16) if len(self._lengths) \
            else np.zeros(0, np.uint16)

    def postings(self, field: str, term: str) -> np.ndarray:
        return np.array(self._post[field].get(term, ()), dtype=np.int32)

    def doc_frequency(self, field: str, term: str) -> int:
        return len(self._post[field].get(term, ()))

    def terms(self, field: str) -> list[str]:
        return list(self._post[field])

    def encodings(self, local: np.ndarray, column: str = "e") -> list[str]:
        col = self._enc[column]
        return [col[d] for d in local.tolist()]

    def local_of(self, uids: Sequence[int]) -> np.ndarray:
        return np.array([self._local[u] for u in uids if u in self._local], dtype=np.int64)


@dataclass
class Retrieval:
    """What the candidate stage found.

    ``keys``: candidate document keys, best bound first, and ``bounds`` their
    upper bounds of the fuzzy score; ``rest``: no document left out can score
    above this; ``postings``: how many postings were read; ``complete``: every
    query term's postings were read.
    """

    keys: np.ndarray
    bounds: np.ndarray
    rest: float
    postings: int
    complete: bool
    _tail: np.ndarray | None = None

    def next_bound(self, verified: int) -> float:
        """Best score any document after the first ``verified`` can reach."""
        if verified < len(self.keys):
            if self._tail is None:  # the best bound from each position on (keys need not be in bound order)
                self._tail = np.maximum.accumulate(self.bounds[::-1])[::-1]
            return max(float(self._tail[verified]), self.rest)
        return self.rest


def _empty(rest: float, postings: int = 0, complete: bool = True) -> Retrieval:
    return Retrieval(np.zeros(0, np.int64), np.zeros(0, np.float32), rest, postings, complete)


class CandidateStage:
    """Candidate retrieval over a fixed set of leaves."""

    def __init__(self, leaves: Sequence[Leaf], dead_uids: set[int] | frozenset = frozenset(),
                 field: str = "src", accept_pair: Callable[[str], bool] | None = None):
        """``dead_uids``: units whose index documents are stale (changed or
        deleted since the index commit); ``accept_pair``: which language-pair
        terms (``src|tgt``) to keep (None: every unit)."""
        self.leaves = list(leaves)
        self.dead = dead_uids
        self.field = field
        self.accept_pair = accept_pair
        self.bases = np.array([leaf.base for leaf in self.leaves], dtype=np.int64)
        self.total = sum(leaf.count for leaf in self.leaves)
        self._lengths: np.ndarray | None = None
        self._alive: np.ndarray | None = None
        self._all_alive = False
        self._df_cache: dict[str, int] = {}

    # ------------------------------------------------------------ per-stage arrays
    def lengths(self) -> np.ndarray:
        """Core-token count of every document (float32, by key)."""
        if self._lengths is None:
            parts = [leaf.lengths() for leaf in self.leaves]
            self._lengths = (np.concatenate(parts) if parts else np.zeros(0, np.uint16)
                             ).astype(np.float32)
        return self._lengths

    def alive(self) -> np.ndarray | None:
        """Boolean mask of the documents a search may return (not deleted, not
        stale, of an accepted language pair); None when all are."""
        if self._alive is not None or self._all_alive:
            return self._alive
        mask = np.ones(self.total, dtype=bool)
        pairs_ok = True
        for leaf in self.leaves:
            seg = mask[leaf.base:leaf.base + leaf.count]
            if leaf.deleted:
                seg[np.fromiter(leaf.deleted, dtype=np.int64, count=len(leaf.deleted))] = False
            if not leaf.overlay and self.dead:
                seg[leaf.local_of(list(self.dead))] = False
            if self.accept_pair is not None:
                terms = leaf.terms("lp")
                bad = [t for t in terms if not self.accept_pair(t)]
                if bad:
                    pairs_ok = False
                    for t in bad:
                        seg[leaf.postings("lp", t)] = False
        if pairs_ok and mask.all():
            self._all_alive = True
            return None
        self._alive = mask
        return mask

    def accepts(self, leaf: Leaf, local: int) -> bool:
        """True when document ``local`` of ``leaf`` may be returned."""
        mask = self.alive()
        return mask is None or bool(mask[leaf.base + local])

    def _postfile(self, leaf):
        """The leaf's memory-mapped posting file (:mod:`engine.tm.postfile`), for source searches."""
        return getattr(leaf, "postfile", None) if self.field == "src" else None

    def doc_frequency(self, term: str) -> int:
        """Documents holding ``term`` (by the leaves' postings: a retrieval with posting files
        reads their counts from :func:`postfile.term_spans` instead)."""
        df = self._df_cache.get(term)
        if df is None:
            df = sum(leaf.doc_frequency(self.field, term) for leaf in self.leaves)
            if len(self._df_cache) > 100_000:
                self._df_cache.clear()
            self._df_cache[term] = df
        return df

    # ------------------------------------------------------------ lookups by key
    def _split(self, keys: np.ndarray):
        """(leaf, positions in ``keys``, local docs) for each leaf the keys touch."""
        which = np.searchsorted(self.bases, keys, side="right") - 1
        for li in np.unique(which).tolist():
            pos = np.flatnonzero(which == li)
            leaf = self.leaves[li]
            yield leaf, pos, keys[pos] - leaf.base

    def encodings(self, keys: np.ndarray, column: str = "e") -> list[str]:
        """Stored encodings (see :meth:`Leaf.encodings`) of the documents ``keys``."""
        if len(self.leaves) == 1 or (len(keys) and keys.max() < self.leaves[0].count):
            return self.leaves[0].encodings(keys - self.leaves[0].base, column)
        out: list[str] = [""] * len(keys)
        for leaf, pos, local in self._split(keys):
            for p, e in zip(pos.tolist(), leaf.encodings(local, column)):
                out[p] = e
        return out

    def uids(self, keys: np.ndarray) -> list[int]:
        """Unit ids of the documents ``keys``."""
        out = np.zeros(len(keys), np.int64)
        for leaf, pos, local in self._split(keys):  # (the overlay's array grows: no view of it is made)
            out[pos] = [leaf.uids[d] for d in local.tolist()] if leaf.overlay else np.asarray(leaf.uids)[local]
        return out.tolist()

    def units_with_all(self, words: Sequence[str]) -> list[int]:
        """Unit ids of the documents holding the rarest three of ``words`` (the concordance's
        candidates), by leaf and document order."""
        terms = sorted(set(words), key=self.doc_frequency)
        if not terms or self.doc_frequency(terms[0]) == 0:
            return []
        uids: list[int] = []
        for leaf in self.leaves:
            docs = set(leaf.postings(self.field, terms[0]).tolist())
            for t in terms[1:3]:
                if not docs:
                    break
                docs &= set(leaf.postings(self.field, t).tolist())
            for d in sorted(docs):
                if d in leaf.deleted or not self.accepts(leaf, d):
                    continue
                uid = leaf.uids[d]
                if leaf.overlay or uid not in self.dead:
                    uids.append(uid)
        return uids

    def _bounds(self, acc: np.ndarray, docs: np.ndarray, unread: int, q: np.float32) -> np.ndarray:
        """min(shared + unread, L, q) / max(L, q) of the documents ``docs`` (float32)."""
        ln = self.lengths()[docs]
        return np.minimum(acc[docs].astype(np.float32) + np.float32(unread), np.minimum(ln, q)) / np.maximum(ln, q)

    # ------------------------------------------------------------ retrieval
    def retrieve(self, core: Sequence[str], limit: int = 4000, budget: int = 4_000_000,
                 min_bound: float = 0.0, by_dice: bool = False, enc: str = "") -> Retrieval:
        """Up to ``limit`` candidates for a query given as its core tokens,
        best bound first, leaving out bounds below ``min_bound``.  ``by_dice``: the
        ``limit`` best by the Dice overlap 2 shared / (|X| + |X'|) instead, in that order;
        with ``enc`` (the query's core encoding) and posting files, shared word bigrams
        count too (:func:`_order_key`).

        Postings are read rarest term first while the total stays within
        ``budget`` (the rarest term is always read); the rest count as unread.
        """
        qlen = len(core)
        terms = occurrence_terms(core)
        if qlen == 0 or not terms or self.total == 0:
            return _empty(1.0 if qlen and self.total else 0.0, complete=not terms)
        unread = sum(1 for t in core if t == TAG)
        codes = postfile.occurrence_codes(core, enc) if len(enc) == qlen else {}
        spans = postfile.term_spans(self, codes)
        at = {t: i for i, t in enumerate(codes)}
        if spans:
            dfs = {t: sum(spans[li][1][at[t]] - spans[li][0][at[t]] if li in spans and t in at
                          else leaf.doc_frequency(self.field, t) for li, leaf in enumerate(self.leaves)) for t in terms}
        else:
            dfs = {t: self.doc_frequency(t) for t in terms}  # no posting file (or no encoding) to read
        terms.sort(key=lambda t: (dfs[t], t))
        # a document's count is at most the number of terms: one byte a document where that fits (752k TM: the
        # count array's passes over 0.75 instead of 1.5 MB)
        acc = np.zeros(self.total, dtype=np.uint8 if len(terms) < 256 else np.uint16)
        read = 0
        complete = True
        for i, t in enumerate(terms):
            df = dfs[t]
            if df == 0:
                continue  # no document has it: shared by none
            if read + df > budget and i > 0:
                unread += len(terms) - i - sum(1 for u in terms[i:] if dfs[u] == 0)
                complete = False
                break
            for li, leaf in enumerate(self.leaves):
                sp = spans.get(li)
                if sp is not None and t in at:
                    ids = leaf.postfile.docs[sp[0][at[t]]:sp[1][at[t]]].astype(np.intp)  # (an int index array: 4.3 against 6.1 ms uint32)
                else:
                    ids = leaf.postings(self.field, t)
                if len(ids):
                    if leaf.base:
                        acc[ids + leaf.base] += 1
                    else:
                        acc[ids] += 1
            read += df
        q = np.float32(qlen)
        rest_unseen = min(float(unread), float(qlen)) / qlen
        mask = self.alive()
        if mask is not None:
            acc[~mask] = 0
        # Bounds first for the documents sharing most tokens (at least ``least``: OVERSHOOT x limit
        # of them), then for those sharing fewer that can still beat the limit-th bound ``beta``
        # found so far: s <= (shared + unread) / q.  The bounds of every sharing document were
        # 35 % of a 752k TM's search (a frequent word is shared by half the TM).
        docs = np.flatnonzero(acc > 0)  # (on a bool array: several times faster)
        if len(docs) > OVERSHOOT * limit:
            shared = acc[docs]
            # the (OVERSHOOT x limit)-th largest count, the largest a that at least that many share, by bisection:
            # 752k TM, 121 queries sharing with > 8,000 documents: 0.03 ms (at most 0.1) against 0.31 for the
            # histogram (np.bincount) and 0.62 (up to 2.5: a few counts repeated 100,000 times) for np.partition
            least, hi = 1, int(shared.max())
            while least < hi:
                mid = (least + hi + 1) // 2
                least, hi = (mid, hi) if np.count_nonzero(shared >= mid) >= OVERSHOOT * limit else (least, mid - 1)
            top = docs[shared >= least]
            bounds = self._bounds(acc, top, unread, q)
            beta = float(np.partition(bounds, len(bounds) - limit)[len(bounds) - limit]) if len(bounds) >= limit else 0.0
            need = max(1, math.ceil(beta * qlen - unread - 1e-6))  # sharing fewer: bound < beta
            if need < least:
                more = docs[(shared >= need) & (shared < least)]
                top, bounds = np.concatenate([top, more]), np.concatenate([bounds, self._bounds(acc, more, unread, q)])
            least = min(least, need)  # every document sharing fewer is left out
            rest_unseen = max(rest_unseen, min(float(least - 1 + unread), float(qlen)) / qlen)
            docs = top
        else:
            bounds = self._bounds(acc, docs, unread, q)
        if not len(docs):
            return _empty(rest_unseen, read, complete)
        if min_bound > 0.0:
            keep = bounds >= np.float32(min_bound) - np.float32(1e-6)
            docs, bounds = docs[keep], bounds[keep]
        rest = rest_unseen
        # Dice ranks long queries' true best match earlier than the bound does (752k TM, 200
        # held-out queries: best-match recall 0.98 / 0.99 within the first 1,000 / 1,500, against
        # 0.95 / 0.98 by the bound), shared bigrams earlier still (postfile.order_key); the bounds
        # still decide when the top k is exact.
        key = (2.0 * acc[docs] / (self.lengths()[docs] + q)).astype(np.float32) if by_dice else bounds
        if by_dice and len(docs) > limit and codes and qlen >= postfile.BIGRAM_MIN_LEN:
            key = postfile.order_key(self, acc, docs, core, enc, q)
        if len(docs) > limit:
            if by_dice and limit >= BOUND_SHARE:  # a share to the best bounds: what is left out bounds lower
                key[np.argpartition(-bounds, limit // BOUND_SHARE - 1)[:limit // BOUND_SHARE]] = np.float32(9.0)
            part = np.argpartition(-key, limit - 1)
            rest = max(rest, float(bounds[part[limit:]].max()))
            part = part[:limit]
            docs, bounds, key = docs[part], bounds[part], key[part]
        order = np.lexsort((-bounds, -key)) if by_dice else np.argsort(-bounds, kind="stable")
        return Retrieval(docs[order].astype(np.int64), bounds[order], rest, read, complete)

