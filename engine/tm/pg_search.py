"""Searching a shared TM on the server (no replica, or before its first sync):
the database finds the candidates -- units sharing an occurrence term with the
query (GIN ``&&``), ordered by the same upper bound of the fuzzy score as the
local candidate stage, at most the local verification limit -- and the rows
are handed to the unchanged candidate / re-rank / scoring / selection pipeline
(:class:`RowsLeaf` is a candidate-stage leaf over them).  A mixin of
:class:`engine.tm.pg.PgTranslationMemory`.
"""
from __future__ import annotations

import hashlib
import re
import time
from array import array
from typing import Sequence

import numpy as np
import psycopg
import psycopg.conninfo
from psycopg import errors as pgerrors

from engine.errors import TMError
from engine.inline import TaggedText, strip_tags
from engine.langs import same_language
from engine.tm import memory_search as _local
from engine.tm import store
from engine.tm.candidates import CandidateStage
from engine.tm.memory import (
    _WORD,
    COVERAGE_POOL,
    TranslationMemory,
    _any_lang,
    _pair_filter,
)
from engine.tm.model import ConcordanceHit, Match, TMEntry
from engine.tm.pg_access import _offline
from engine.tm.rerank import verify
from engine.tm.scoring import Encoded, char_score, core_tokens, edit_ops
from engine.tm.select import coverage_select
from engine.tm.tokens import TAG, analyse, occurrence_terms, tokenize

#: Units the database may read per search through the GIN index (estimated from its statistics):
#: the query's terms are taken rarest first while their units stay within this.
CANDIDATE_BUDGET = 40_000


def _hashes(terms: Sequence[str]) -> list[int]:
    """32-bit hashes of source terms (``src_h``): the database counts shared terms on
    integers (intarray's ``&`` when installed).  A collision can only raise a
    candidate's bound (never hide one), and the re-rank uses the terms themselves."""
    return sorted({int.from_bytes(hashlib.blake2b(t.encode("utf-8", "surrogatepass"), digest_size=4).digest(),
                                  "little", signed=True) for t in terms})


def _db_token(t: str) -> str:
    """A vocabulary token as stored (PostgreSQL text holds no NUL: the tag token has one)."""
    return t.replace("\\", "\\\\").replace("\x00", "\\0")


def _py_token(t: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\x00" if m.group(1) == "0" else m.group(1), t)


def _newest_first(ranked: list[tuple[float, int]], entries: dict[int, TMEntry]) -> list[tuple[float, int]]:
    """The local TM's order (score, then unit id), except that units with the same
    score and the same source -- two translators' translations of one segment --
    come newest first, in the place of the first of them."""
    first: dict[tuple[float, str], int] = {}
    for i, (s, u) in enumerate(ranked):
        first.setdefault((s, entries[u].source.text), i)
    return sorted(ranked, key=lambda x: (first[(x[0], entries[x[1]].source.text)], -x[1]))


class RowsLeaf:
    """A candidate-stage leaf (:class:`engine.tm.candidates.Leaf`) over rows
    fetched from the database: (id, n, enc, senc, penc, terms)."""

    overlay = True

    def __init__(self, rows: Sequence[tuple], field: str = "src", want: Sequence[str] | None = None):
        """``want``: the only terms whose postings are asked for (the query's)."""
        self.base = 0
        self.deleted: frozenset = frozenset()
        self.uids = array("q", [r[0] for r in rows])
        self._lengths = np.array([min(65535, r[1]) for r in rows], dtype=np.uint16)
        self._enc = {"e": [r[2] for r in rows], "x": [f"{r[3] or ''}\x01{r[4] or ''}" for r in rows]}
        self._post: dict[str, list[int]] = {}
        keep = set(want) if want is not None else None
        for d, r in enumerate(rows):
            for t in r[5]:
                if keep is None or t in keep:
                    self._post.setdefault(t, []).append(d)
        self.field = field

    @property
    def count(self) -> int:
        return len(self.uids)

    def lengths(self) -> np.ndarray:
        return self._lengths

    def postings(self, field: str, term: str) -> np.ndarray:
        return np.array(self._post.get(term, ()) if field == self.field else (), dtype=np.int32)

    def doc_frequency(self, field: str, term: str) -> int:
        return len(self._post.get(term, ())) if field == self.field else 0

    def terms(self, field: str) -> list[str]:
        return list(self._post) if field == self.field else []

    def encodings(self, local: np.ndarray, column: str = "e") -> list[str]:
        col = self._enc[column]
        return [col[d] for d in local.tolist()]

    def local_of(self, uids: Sequence[int]) -> np.ndarray:
        pos = {u: i for i, u in enumerate(self.uids)}
        return np.array([pos[u] for u in uids if u in pos], dtype=np.int64)


class PgSearch:
    """Search and concordance on the server (see the module)."""

    def search_pair(self, src_lang: str | None = None, tgt_lang: str | None = None) -> tuple[str, str]:
        out = []
        for given, mine, declared in ((src_lang, self._want[0], self.src_lang),
                                      (tgt_lang, self._want[1], self.tgt_lang)):
            out.append(_any_lang(given) if given is not None else (mine or declared))
        return out[0], out[1]

    def _lps(self, pair: tuple[str, str]):
        """(predicate on language-pair terms, the known pairs it rejects) for a
        search of ``pair``; (None, []) when any pair will do.  The known pairs are
        re-read every few seconds: the query leaves out the rejected ones and the
        rows are checked again, so a pair another client adds meanwhile is never
        returned wrongly, nor missed."""
        accept = _pair_filter(*pair)
        if accept is None:
            return None, []
        lps = self._cached("pairs", lambda: [r[0] for r in self._read(self._q("SELECT lp FROM {s}.pairs"))], 5.0)
        return accept, [lp for lp in lps if not accept(lp)]

    def _encode_known(self, tokens) -> str:
        missing = [t for t in set(tokens) if t not in self._vocab]
        if missing:
            for tok, i in self._read(self._q("SELECT token, id FROM {s}.vocab WHERE token = ANY(%s)"),
                                     ([_db_token(t) for t in missing],)):
                self._vocab[_py_token(tok)] = i
        if len(self._vocab) > 500_000:
            keep = {t: self._vocab[t] for t in tokens if t in self._vocab}
            self._vocab = keep
        return store.encode_with(tokens, self._vocab)

    # ------------------------------------------------------------ search
    def _same_source(self, text: str, k: int, pair: tuple[str, str]) -> list[Match]:
        rows = self._read(self._q("SELECT id FROM {s}.units WHERE md5(source) = md5(%s) AND source = %s "
                                  "ORDER BY id DESC"), (text, text))
        out = []
        for e in self._entries([r[0] for r in rows]).values():
            if all(not want or want == "*" or same_language(have, want)
                   for have, want in ((e.src_lang, pair[0]), (e.tgt_lang, pair[1]))):
                out.append(Match(e, 1.0, 1.0, []))
        return sorted(out, key=lambda m: -m.entry.id)[:k]

    def _cached(self, key: str, fn, ttl: float = 30.0):
        """``fn()``, remembered for ``ttl`` seconds (counts, pairs, statistics that change slowly)."""
        now = time.monotonic()
        hit = self._cache.get(key)
        if hit is not None and now - hit[0] < ttl:
            return hit[1]
        val = fn()
        self._cache[key] = (now, val)
        return val

    def _term_freqs(self) -> tuple[dict[str, float], float]:
        """(share of units holding each frequent source term, the share below which the
        rest lie) from PostgreSQL's own statistics of ``src_terms`` (kept by ANALYZE)."""
        def read():
            rows = self._read("SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_stats "
                              "WHERE schemaname = %s AND tablename = 'units' AND attname = 'src_terms'",
                              (self.schema,))
            if not rows or rows[0][0] is None:
                return {}, 0.0
            elems, freqs = rows[0]
            return dict(zip(elems, freqs)), float(freqs[len(elems)]) if len(freqs) > len(elems) else 0.0
        return self._cached("freqs", read, 300.0)

    def _candidates(self, core: tuple[str, ...], pair: tuple[str, str], limit: int,
                    min_bound: float, total: int) -> tuple[list[tuple], float]:
        """(rows (id, n, enc, senc, penc, src_terms) of the ``limit`` units with
        the best upper bound of the fuzzy score -- as the local candidate stage
        computes it --, the bound of every unit left out for lack of a shared
        term read).  Terms are read rarest first (by the server's statistics)
        while their units stay within ``CANDIDATE_BUDGET``; the rarest is always
        read, and the GIN index finds the units holding any of them."""
        terms = occurrence_terms(core)
        if not terms:
            return [], 0.0
        tags = sum(1 for t in core if t == TAG)
        accept, rejected = self._lps(pair)
        read = terms
        if total > CANDIDATE_BUDGET:
            freqs, floor = self._term_freqs()
            est = {t: freqs.get(t, floor) * total for t in terms}
            order = sorted(terms, key=lambda t: (est[t], t))
            read, used = [], 0.0
            for t in order:
                if read and used + est[t] > CANDIDATE_BUDGET:
                    break
                read.append(t)
                used += est[t]
        skipped = len(terms) - len(read)
        rest = min(skipped + tags, len(core)) / len(core) if skipped else 0.0
        shared = ("icount(src_h & %(t)s::integer[])" if self._intarray else
                  "(SELECT count(*) FROM unnest(src_h) x WHERE x = ANY(%(t)s::integer[]))")
        q = ("SELECT id, n, enc, senc, penc, src_terms, lp FROM ("
             "SELECT id, n, enc, senc, penc, src_terms, lp, "
             f"least({shared} + %(u)s, least(n, %(q)s))::real"
             " / greatest(n, %(q)s, 1) AS bound FROM {s}.units WHERE src_h OPERATOR(pg_catalog.&&) %(r)s::integer[]"
             + (" AND NOT (lp = ANY(%(rej)s))" if rejected else "") +
             " OFFSET 0) c WHERE bound >= %(mb)s ORDER BY bound DESC, id LIMIT %(lim)s")
        # (OFFSET 0: the bound is computed once a row; no sequential scan: the planner sometimes
        # takes one for a long list of terms, 40 times slower than the GIN index on 100k units)
        params = {"t": _hashes(terms), "r": _hashes(read), "u": tags, "q": len(core), "rej": rejected,
                  "mb": float(min_bound) - 1e-6, "lim": limit}
        for attempt in (0, 1):
            try:
                with self._c().transaction() as tx:
                    tx.connection.execute("SET LOCAL enable_seqscan = off")
                    rows = tx.connection.execute(self._q(q), params).fetchall()
                break
            except pgerrors.InsufficientPrivilege as e:
                raise self._refused(e) from None
            except (psycopg.OperationalError, psycopg.InterfaceError) as e:
                if attempt or not self._stale():
                    raise _offline(e, self.folder) from None
        if accept is not None:
            ok = {lp: accept(lp) for lp in {r[6] for r in rows}}
            rows = [r for r in rows if ok[r[6]]]
        return rows, rest

    def _total(self) -> int:
        """Units in the TM, as the planner estimates (exact under 10 000)."""
        def count():
            rows = self._read("SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass(%s)",
                              (f"{self.schema}.units",))
            est = int(rows[0][0]) if rows and rows[0][0] is not None else -1
            return est if est >= 10_000 else len(self)
        return self._cached("total", count, 30.0)

    def search(self, query: str | TaggedText, k: int = 5, min_score: float = 0.0,
               coverage: bool = False, src_lang: str | None = None,
               tgt_lang: str | None = None) -> list[Match]:
        """As :meth:`TranslationMemory.search`; of two units with the same
        score the newer comes first."""
        text = query.text if isinstance(query, TaggedText) else str(query)
        qa = analyse(text)
        if k <= 0:
            return []
        pair = self.search_pair(src_lang, tgt_lang)
        if not _WORD.search(strip_tags(text)):
            return self._same_source(text, k, pair) if text.strip() else []
        if not qa.core:
            return []
        lo, hi = _local.VERIFY_LIMIT
        limit = max(lo, min(hi, self._total() // _local.VERIFY_PER))
        rows, rest = self._candidates(qa.core, pair, limit, min_score, self._total())
        if not rows:
            self.last_search = {"candidates": 0, "verified": 0, "postings": 0, "exact": True}
            return []
        qe = Encoded(self._encode_known(qa.core), self._encode_known(qa.surface),
                     self._encode_known(qa.punct))
        stage = CandidateStage([RowsLeaf(rows, want=occurrence_terms(qa.core))], field="src")
        r = stage.retrieve(qa.core, limit=len(rows), budget=1 << 62, min_bound=min_score)
        r.rest = max(r.rest, rest)
        if len(rows) >= limit and len(r.bounds):  # the database left out units bounded by the last row's
            r.rest = max(r.rest, float(r.bounds[-1]))
        v = verify(stage, r, qe.core, k, len(rows))
        self.last_search = {"candidates": len(rows), "verified": len(v.keys), "postings": r.postings,
                            "exact": v.exact}
        need = max(k, COVERAGE_POOL) if coverage else k
        ranked = TranslationMemory._full_scores(self, qe, stage, v, need, min_score)  # type: ignore[arg-type]
        if not coverage and len(ranked) > k:  # keep the ties of the k-th (see _newest_first)
            ranked = [x for i, x in enumerate(ranked) if i < k or x[0] == ranked[k - 1][0]]
        entries = self._entries([u for _, u in ranked])
        ranked = _newest_first([(s, u) for s, u in ranked if u in entries], entries)
        if not coverage:
            ranked = ranked[:k]
        qt = core_tokens(text)
        matches = [Match(entries[u], s, char_score(text, entries[u].source.text),
                         edit_ops(qt, entries[u].source.text))
                   for s, u in ranked]
        if coverage:
            return coverage_select(qa.core, matches, lambda m: analyse(m.source.text).core)
        return matches

    # ------------------------------------------------------------ concordance
    def concordance(self, phrase: str, side: str = "source", limit: int = 50,
                    max_checked: int = 20_000, src_lang: str | None = None,
                    tgt_lang: str | None = None) -> list[ConcordanceHit]:
        if side not in ("source", "target"):
            raise TMError(f"concordance side must be 'source' or 'target', not {side!r}")
        words = [t.norm for t in tokenize(phrase) if t.kind in ("word", "cjk")]
        if not words:
            return []
        accept, rejected = self._lps(self.search_pair(src_lang, tgt_lang))
        col = "src_terms" if side == "source" else "tgt_terms"
        q = (f"SELECT id, lp FROM {{s}}.units WHERE {col} @> %(t)s"
             + (" AND NOT (lp = ANY(%(rej)s))" if rejected else "") + " ORDER BY id LIMIT %(m)s")
        uids = [r[0] for r in self._read(self._q(q), {"t": sorted(set(words)), "rej": rejected, "m": max_checked})
                if accept is None or accept(r[1])]
        return _local.phrase_hits(self._entries(uids).values(), side, words, limit)
