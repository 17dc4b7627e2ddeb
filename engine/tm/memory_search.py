"""The search of a TM folder (:class:`SearchMixin` of :class:`engine.tm.memory.TranslationMemory`):
fuzzy matches through the candidate stage, the verification and the full scores, or the scan while
the index is rebuilt; and the concordance."""
from __future__ import annotations

import re

from engine.errors import TMError
from engine.inline import TaggedText, strip_tags
from engine.langs import same_language
from engine.tm import limits
from engine.tm.candidates import CandidateStage
from engine.tm.model import ConcordanceHit, Match
from engine.tm.pairs import any_lang as _any_lang, pair_filter as _pair_filter
from engine.tm.rerank import Verified, full_scores, verify
from engine.tm.scoring import Encoded, char_score, core_tokens, edit_ops
from engine.tm.select import coverage_select
from engine.tm.tokens import analyse, tokenize
from engine.tm.whoosh_index import pair_term

#: Most candidates scored per search (in batches; fewer when the top k is proven
#: exact sooner): one per ``VERIFY_PER`` units of the TM, within VERIFY_LIMIT
#: (more units, more near-ties in the bound); postings read per search; and
#: candidates the coverage selection (Algorithm 1) chooses from.
VERIFY_LIMIT = (1500, 2000)  # 752k TM, 200 held-out queries: recall 0.99 at 2,000 (shared bigrams in the order)
VERIFY_PER = 190
POSTINGS_BUDGET = 500_000  # 752k TM, 200 held-out queries, paired runs: CPU p95 12.7 -> 11.9 ms (1M), recall 0.99 both
COVERAGE_POOL = 100
_WORD = re.compile(r"\w")


class SearchMixin:
    """Fuzzy search and concordance (``self``: a TranslationMemory)."""

    def search_pair(self, src_lang: str | None = None,
                    tgt_lang: str | None = None) -> tuple[str, str]:
        """The (source, target) languages a search keeps ("" = any): the
        given ones, else this handle's, else the TM's own pair; ``*`` = any."""
        out = []
        for given, mine, declared in ((src_lang, self._want[0], self.src_lang),
                                      (tgt_lang, self._want[1], self.tgt_lang)):
            out.append(_any_lang(given) if given is not None else (mine or declared))
        return out[0], out[1]

    def _stage(self, field: str = "src", pair: tuple[str, str] = ("", "")) -> CandidateStage:
        key = (field, *pair)
        stage = self._stages.get(key)
        if stage is not None:
            return stage
        leaves = list(self.index.leaves())
        self._overlay.base = sum(leaf.count for leaf in leaves)
        stage = CandidateStage(leaves + [self._overlay], self._dead, field=field,
                               accept_pair=_pair_filter(*pair))
        if len(self._stages) > 8:
            self._stages.clear()
        self._stages[key] = stage
        return stage

    def _same_source(self, text: str, k: int, pair: tuple[str, str]) -> list[Match]:
        """Units whose source is ``text`` exactly (of the language pair), as 100 % matches."""
        uids = [r[0] for r in self.conn.execute("SELECT id FROM units WHERE source = ? ORDER BY id DESC", (text,))]
        out = []
        for e in self._entries(uids).values():
            if all(not want or want == "*" or same_language(have, want)
                   for have, want in ((e.src_lang, pair[0]), (e.tgt_lang, pair[1]))):
                out.append(Match(e, 1.0, 1.0, []))
        return sorted(out, key=lambda m: -m.entry.id)[:k]
    def search(self, query: str | TaggedText, k: int = 5, min_score: float = 0.0,
               coverage: bool = False, src_lang: str | None = None,
               tgt_lang: str | None = None) -> list[Match]:
        """The best ``k`` fuzzy matches of ``query`` (score >= ``min_score``),
        best first; with ``coverage`` the pairs Algorithm 1 selects from all
        re-ranked candidates instead.

        Only units of the language pair :meth:`search_pair` gives for
        ``src_lang`` / ``tgt_lang`` are returned (loose: ``en`` ~ ``en-US``).
        """
        text = query.text if isinstance(query, TaggedText) else str(query)
        qa = analyse(text)
        if k <= 0:
            return []
        if not _WORD.search(strip_tags(text)):
            # No word to find candidates by (a segment of tags only, or punctuation): the same
            # text is still a 100 % match -- KDE manuals hold such segments, and the command
            # line's recall on queries with markup was 97 % without this.
            return self._same_source(text, k, self.search_pair(src_lang, tgt_lang)) if text.strip() else []
        if not qa.core:
            return []
        self._catch_up()
        enc = self.vocab.encode_known
        qe = Encoded(enc(qa.core), enc(qa.surface), enc(qa.punct))
        if self._bg is not None:
            return self._scan_search(text, qa, qe, k, min_score, coverage,
                                     self.search_pair(src_lang, tgt_lang))
        self.index.postfiles.poll()
        stage = self._stage("src", self.search_pair(src_lang, tgt_lang))
        limit = max(VERIFY_LIMIT[0], min(VERIFY_LIMIT[1], stage.total // VERIFY_PER))
        r = stage.retrieve(qa.core, limit, POSTINGS_BUDGET, min_score, by_dice=True, enc=qe.core)
        v = verify(stage, r, qe.core, k, limit)
        self.last_search = {"candidates": len(r.keys), "verified": len(v.keys),
                            "postings": r.postings, "exact": v.exact}
        need = max(k, COVERAGE_POOL) if coverage else k
        ranked = self._full_scores(qe, stage, v, need, min_score)
        if not coverage:
            ranked = ranked[:k]
        return self._matches(text, qa, ranked, coverage)

    def _matches(self, text: str, qa, ranked: list[tuple[float, int]], coverage: bool) -> list[Match]:
        entries = self._entries([u for _, u in ranked])
        qt = core_tokens(text)
        matches = [Match(entries[u], s, char_score(text, entries[u].source.text),
                         edit_ops(qt, entries[u].source.text))
                   for s, u in ranked if u in entries]
        if coverage:
            return coverage_select(qa.core, matches, lambda m: analyse(m.source.text).core)
        return matches

    def _scan_search(self, text: str, qa, qe: Encoded, k: int, min_score: float, coverage: bool,
                     pair: tuple[str, str]) -> list[Match]:
        """The search while the index is rebuilt: the units of the pair, from SQLite, in the scan's process."""
        ranked, info = self._scan.best(qe, max(k, COVERAGE_POOL) if coverage else k, min_score, pair)
        self.last_search = {"candidates": info["scanned"], "verified": info["scanned"], "postings": 0,
                            "exact": info["exact"], "scan": True, "scan_pid": info["pid"]}
        return self._matches(text, qa, ranked if coverage else ranked[:k], coverage)

    def _full_scores(self, qe: Encoded, stage: CandidateStage, v: Verified, need: int,
                     min_score: float) -> list[tuple[float, int]]:
        return full_scores(qe, stage, v, need, min_score)  # (pg_search's too)

    # ------------------------------------------------------------ concordance
    def concordance(self, phrase: str, side: str = "source", limit: int = 50,
                    max_checked: int = 20_000, src_lang: str | None = None,
                    tgt_lang: str | None = None) -> list[ConcordanceHit]:
        """Units whose ``side`` (``source``/``target``) contains ``phrase``
        (case-insensitive, punctuation ignored), most occurrences first, then
        shorter texts; each with the character spans of the occurrences.
        Units of other language pairs are left out, as in :meth:`search`."""
        if side not in ("source", "target"):
            raise TMError(f"concordance side must be 'source' or 'target', not {side!r}")
        words = [t.norm for t in tokenize(phrase) if t.kind in ("word", "cjk")]
        if not words:
            return []
        self._catch_up()
        if self._bg is not None:  # the index is being rebuilt: the units from SQLite
            accept = _pair_filter(*self.search_pair(src_lang, tgt_lang))
            uids = [r[0] for r in self.conn.execute(
                f"SELECT id FROM units WHERE {limits.FITS} AND {side} LIKE ? LIMIT ?", (f"%{words[0]}%", max_checked))]
            entries = (e for chunk in _chunks(uids, 500) for e in self._entries(chunk).values()
                       if accept(pair_term(e.src_lang, e.tgt_lang)))
            return phrase_hits(entries, side, words, limit)
        stage = self._stage("src" if side == "source" else "tgt",
                            self.search_pair(src_lang, tgt_lang))
        uids = stage.units_with_all(words)[:max_checked]
        entries = (e for chunk in _chunks(uids, 500) for e in self._entries(chunk).values())
        return phrase_hits(entries, side, words, limit)


def phrase_hits(entries, side: str, words: list[str], limit: int) -> list[ConcordanceHit]:
    """The ``entries`` whose ``side`` holds the normalised word sequence ``words``, with the spans of
    each occurrence; most occurrences first, then shorter texts, then newer entries (every backend)."""
    hits: list[ConcordanceHit] = []
    n = len(words)
    for e in entries:
        text = (e.source if side == "source" else e.target).text
        toks = [t for t in tokenize(text) if t.kind in ("word", "cjk")]
        norms = [t.norm for t in toks]
        spans = [(toks[i].start, toks[i + n - 1].end) for i in range(len(toks) - n + 1) if norms[i:i + n] == words]
        if spans:
            hits.append(ConcordanceHit(e, side, spans))
    hits.sort(key=lambda h: (-len(h.spans), len(h.text.text), -h.entry.id))
    return hits[:limit]


def _chunks(seq: list, n: int):
    for i in range(0, len(seq), n):
        yield seq[i:i + n]
