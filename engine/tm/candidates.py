"""Candidate stage: which TM units are worth re-ranking for a query.

The stage reads posting lists of the query's terms from *leaves* -- the
segments of the Whoosh index (:class:`engine.tm.whoosh_index.LeafView`) and
the in-memory overlay of units added since the last index commit
(:class:`MemoryLeaf`) -- rarest term first, until a budget of postings is
spent.  It scores nothing the re-rank redoes: for each document seen it
keeps only the *mass* of query tokens it is known to share, and ranks by an
**upper bound** of the fuzzy score (Eq. 3 of Gu et al. 2018)::

    s(X, X') <= (shared + unread) / max(|X|, |X'|)

where ``unread`` is the mass of query tokens whose postings were not read
(and of tags, which are not indexed).  The same bound for a document never
seen is ``unread / |X|``; when the k-th re-ranked score beats both bounds,
the top k are exact (prefix filtering), and the search says so.

Everything Whoosh-specific sits behind the small :class:`Leaf` protocol.
"""
from __future__ import annotations

from array import array
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Protocol, Sequence

import numpy as np

from engine.tm.tokens import TAG, index_terms


class Leaf(Protocol):
    """One searchable slice of the TM (an index segment or the overlay)."""

    base: int            # first global document key of this leaf
    count: int           # documents in this leaf (keys base .. base+count-1)
    uids: array          # local doc -> unit id
    lengths: array       # local doc -> core-token count of the source (capped at 255)
    deleted: frozenset   # local docs deleted in this leaf
    overlay: bool        # True for the in-memory overlay (not subject to ``dead_uids``)

    def postings(self, field: str, term: str) -> array:
        """Local doc numbers containing ``term`` in ``field``."""

    def doc_frequency(self, field: str, term: str) -> int:
        ...

    def terms(self, field: str) -> list[str]:
        """Every term of ``field`` (used for the few language-pair terms)."""


class MemoryLeaf:
    """Units added since the last index commit, held in memory."""

    overlay = True

    def __init__(self, base: int = 0):
        self.base = base
        self.uids = array("I")
        self.lengths = array("B")
        self.deleted: set[int] = set()
        self._local: dict[int, int] = {}
        self._post: dict[str, dict[str, array]] = {"src": {}, "tgt": {}, "lp": {}}

    @property
    def count(self) -> int:
        return len(self.uids)

    def add(self, uid: int, source: str, target: str, length: int, pair: str = "|") -> None:
        """Add a unit; ``pair`` is its language-pair term (``src|tgt``)."""
        self.remove(uid)
        d = len(self.uids)
        self._local[uid] = d
        self.uids.append(uid)
        self.lengths.append(min(255, length))
        for field, terms in (("src", index_terms(source)), ("tgt", index_terms(target)),
                             ("lp", [pair])):
            post = self._post[field]
            for t in terms:
                lst = post.get(t)
                if lst is None:
                    post[t] = array("I", [d])
                else:
                    lst.append(d)

    def remove(self, uid: int) -> None:
        """Forget ``uid`` (deleted, or about to be re-added with new text)."""
        d = self._local.pop(uid, None)
        if d is not None:
            self.deleted.add(d)

    def postings(self, field: str, term: str) -> array:
        return self._post[field].get(term) or array("I")

    def doc_frequency(self, field: str, term: str) -> int:
        return len(self._post[field].get(term, ()))

    def terms(self, field: str) -> list[str]:
        return list(self._post[field])


@dataclass
class Retrieval:
    """What the candidate stage found.

    ``uids``: candidate unit ids, best bound first.
    ``bound_unseen``: no document outside ``uids`` and never seen can score
    above this; ``bound_rest``: the best bound among seen documents left out.
    ``postings``: how many postings were read.
    """

    uids: list[int]
    bound_unseen: float
    bound_rest: float
    postings: int
    complete: bool  # every query term's postings were read

    def proves(self, kth_score: float) -> bool:
        """True when a k-th best re-ranked score of ``kth_score`` is exact."""
        return kth_score > max(self.bound_unseen, self.bound_rest) - 1e-9


class CandidateStage:
    """Candidate retrieval over a fixed set of leaves."""

    def __init__(self, leaves: Sequence[Leaf], dead_uids: set[int] | frozenset = frozenset(),
                 field: str = "src", accept_pair: Callable[[str], bool] | None = None):
        """``accept_pair``: which language-pair terms (``src|tgt``) to keep
        (None: every unit)."""
        self.leaves = list(leaves)
        self.dead = dead_uids
        self.field = field
        self.total = sum(leaf.count for leaf in self.leaves)
        self.accept_pair = accept_pair
        self._lengths = None
        self._mask: np.ndarray | None = None
        self._mask_done = accept_pair is None
        self._df_cache: dict[str, int] = {}

    def pair_mask(self) -> np.ndarray | None:
        """Boolean mask over document keys of the accepted language pairs, or
        None when every document is accepted (the usual one-pair TM)."""
        if self._mask_done:
            return self._mask
        wanted: list[tuple[Leaf, list[str]]] = []
        every = True
        for leaf in self.leaves:
            terms = leaf.terms("lp")
            ok = [t for t in terms if self.accept_pair(t)]
            every = every and len(ok) == len(terms)
            wanted.append((leaf, ok))
        if not every:
            mask = np.zeros(self.total, dtype=bool)
            for leaf, ok in wanted:
                for t in ok:
                    ids = np.frombuffer(leaf.postings("lp", t), dtype=np.uint32)
                    mask[ids.astype(np.int64) + leaf.base] = True
            self._mask = mask
        self._mask_done = True
        return self._mask

    def accepts(self, leaf: Leaf, local: int) -> bool:
        """True when document ``local`` of ``leaf`` is of an accepted pair."""
        mask = self.pair_mask()
        return mask is None or bool(mask[leaf.base + local])

    def _all_lengths(self) -> np.ndarray:
        if self._lengths is None:
            parts = [np.frombuffer(leaf.lengths, dtype=np.uint8) if len(leaf.lengths)
                     else np.zeros(0, np.uint8) for leaf in self.leaves]
            self._lengths = (np.concatenate(parts) if parts else np.zeros(0, np.uint8)
                             ).astype(np.float32)
        return self._lengths

    def doc_frequency(self, term: str) -> int:
        df = self._df_cache.get(term)
        if df is None:
            df = sum(leaf.doc_frequency(self.field, term) for leaf in self.leaves)
            if len(self._df_cache) > 100_000:
                self._df_cache.clear()
            self._df_cache[term] = df
        return df

    def retrieve(self, core: Sequence[str], limit: int = 100, budget: int = 60_000,
                 min_terms: int = 1) -> Retrieval:
        """Up to ``limit`` candidates for a query given as its core tokens.

        Postings are read rarest term first while the total stays within
        ``budget`` (at least ``min_terms`` terms are always read).
        """
        qlen = len(core)
        counts = Counter(t for t in core if t != TAG)
        if qlen == 0 or not counts or self.total == 0:
            return Retrieval([], 1.0 if qlen else 0.0, 0.0, 0, not counts)
        terms = sorted(counts, key=lambda t: (self.doc_frequency(t), t))
        unread = float(qlen)
        read = 0
        keys: list[np.ndarray] = []
        weights: list[np.ndarray] = []
        n_read_terms = 0
        for t in terms:
            df = self.doc_frequency(t)
            if df == 0:
                unread -= counts[t]  # no document has it: it can be shared by none
                n_read_terms += 1
                continue
            if read + df > budget and n_read_terms >= min_terms:
                break
            c = counts[t]
            for leaf in self.leaves:
                ids = leaf.postings(self.field, t)
                if len(ids):
                    a = np.frombuffer(ids, dtype=np.uint32).astype(np.int64)
                    if leaf.base:
                        a += leaf.base
                    keys.append(a)
                    weights.append(np.full(len(a), c, dtype=np.float32))
            read += df
            unread -= c
            n_read_terms += 1
        complete = n_read_terms == len(terms)
        # expected shared mass of the unread terms for an average document
        expect = sum(counts[t] * min(1.0, self.doc_frequency(t) / self.total)
                     for t in terms[n_read_terms:])
        bound_unseen = unread / qlen
        if not keys:
            return Retrieval([], bound_unseen, 0.0, read, complete)
        k = np.concatenate(keys)
        w = np.concatenate(weights)
        if len(k) * 8 > self.total:  # dense: count over the whole key space
            acc = np.bincount(k, weights=w, minlength=self.total)
            docs = np.flatnonzero(acc)
            shared = acc[docs].astype(np.float32)
        else:
            docs, inv = np.unique(k, return_inverse=True)
            shared = np.bincount(inv, weights=w).astype(np.float32)
        mask = self.pair_mask()
        if mask is not None:  # other language pairs are no candidates
            keep = mask[docs]
            docs, shared = docs[keep], shared[keep]
            if not len(docs):
                return Retrieval([], bound_unseen, 0.0, read, complete)
        lengths = self._all_lengths()[docs]
        denom = np.maximum(lengths, np.float32(qlen))
        bound = np.minimum(shared + np.float32(unread), np.minimum(lengths, np.float32(qlen))) / denom
        # rank by the expected score, best first (the bound proves, it does not rank well)
        est = np.minimum(shared + np.float32(expect), np.minimum(lengths, np.float32(qlen))) / denom
        m = len(docs)
        take = min(m, 2 * limit + 64)
        if take < m:  # partial selection: sorting every seen document costs too much
            part = np.argpartition(-est, take - 1)[:take]
        else:
            part = np.arange(m)
        order = part[np.lexsort((-shared[part], -est[part]))]
        out: list[int] = []
        chosen = np.zeros(m, dtype=bool)
        leaves = self.leaves
        bases = [leaf.base for leaf in leaves]
        for pos in order:
            if len(out) >= limit:
                break
            key = int(docs[pos])
            leaf = leaves[_leaf_of(bases, key)]
            local = key - leaf.base
            chosen[pos] = True  # deleted documents are "chosen" too: they need no bound
            if local in leaf.deleted:
                continue
            uid = leaf.uids[local]
            if not leaf.overlay and uid in self.dead:
                continue
            out.append(uid)
        if len(out) < limit and take < m:  # many deletions: fall back to a full sort
            return self._retrieve_sorted(docs, bound, est, shared, limit, bound_unseen, read,
                                         complete)
        left = bound[~chosen]
        rest = float(left.max()) if len(left) else 0.0
        return Retrieval(out, bound_unseen, rest, read, complete)

    def _retrieve_sorted(self, docs, bound, est, shared, limit, bound_unseen, read, complete):
        order = np.lexsort((-shared, -est))
        out: list[int] = []
        rest = 0.0
        bases = [leaf.base for leaf in self.leaves]
        for pos in order:
            key = int(docs[pos])
            leaf = self.leaves[_leaf_of(bases, key)]
            local = key - leaf.base
            if local in leaf.deleted:
                continue
            uid = leaf.uids[local]
            if not leaf.overlay and uid in self.dead:
                continue
            if len(out) >= limit:
                rest = max(rest, float(bound[pos]))
                continue
            out.append(uid)
        return Retrieval(out, bound_unseen, rest, read, complete)


def _leaf_of(bases: list[int], key: int) -> int:
    lo, hi = 0, len(bases) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if bases[mid] <= key:
            lo = mid
        else:
            hi = mid - 1
    return lo
