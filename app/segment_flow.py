"""The segment flow: what happens between entering a segment and confirming it, without any
widget.  The window calls :meth:`SegmentFlow.enter` when the translator enters a row, and
the panels connect to the signals:

    enter(row) ──► termsReady(row, hits)   glossary terms of the source (TermIndex, in memory: sub-ms)
               ──► searching(row) ─► TM lookup (tmservice, one thread) ─► matchesReady(row, source, found)
                                                         │
                   translating(row) ◄────────────────────┘ the matches a memory-guided model reads
                         │                                (preferences: how many, minimum score)
                         ▼
                   suggestion (suggest.NMTService, off the UI thread) ─► suggestionReady(row, view, tags)
                   + the next LOOKAHEAD rows looked up and translated ahead (the nearest alone, those
                     after it in one batch: NMTService.prefetch_many), each only while still ahead of the translator
    keystroke ────► complete(prefix) ─► completionReady(row, view, tags)   (only while the prefix is typed;
                    a newer prefix stops the older one's search; the rows ahead are then prefetched again)
    own target ───► forced decoding ──► forcedReady(row, view)

Every answer carries the key it was asked for -- (document, row[, prefix]) -- and one for a
row the translator has left is dropped here, so no panel ever shows another segment's
result.  Qt-only for its signals; no widgets.
"""
from __future__ import annotations

import time
from typing import Callable

from PySide6.QtCore import QObject, Signal

from engine.nmt.retrieval import readable
from app.preferences import preferences
from app.suggest import memory_pairs

CONTEXT_SENTENCES = 8  # previous sources a document-context model may read
# Rows translated ahead of the one entered.  Entering a row costs a TM lookup and, unless its
# suggestion is ready, a beam search: 130-290 ms of CPU for a 37-75-word sentence on this 2-core
# VM (benchmarks/RESULTS.md, issue 37; browsing without a pause, p95 258-345 ms even so).  A
# translator who spends a few seconds on a segment finds the next ones translated; three keep
# ahead of a fast pace without spending the CPU on rows a jump leaves behind (those stop).
LOOKAHEAD = 3
#: A row's matches looked up ahead less than this long ago are shown as it is entered, without a
#: second search: browsing a received TM while its index is rebuilt, each search is a scan of the
#: units in the scan process (1.3 s of its CPU in 5.4 s of 40 Ctrl+Down at load 7, beside the
#: engine's 1.6), and with the index each one holds the interpreter lock on the TM thread.
AHEAD_FRESH_S = 10.0


class SegmentFlow(QObject):
    searching = Signal(int)
    translating = Signal(int)
    matchesReady = Signal(int, object, object)      # row, source TaggedText, [FoundMatch]
    suggestionReady = Signal(int, object, object)   # row, SuggestionView, source tags
    completionReady = Signal(int, object, object)   # row, SuggestionView, source tags
    forcedReady = Signal(int, object)               # row, SuggestionView of the own target
    termsReady = Signal(int, object)                # row, [TermHit] of its source (empty: none / no glossary)

    def __init__(self, typed: Callable[[], str | None], parent=None):
        """``typed()``: what the open target box holds now (None when none is open)."""
        super().__init__(parent)
        self.typed = typed
        self.model = None
        self.tm = None
        self.nmt = None
        self.terms = None                  # the project's engine.glossary.TermIndex (None: none, or not loaded yet)
        self.row: int | None = None
        self.found: dict[int, list] = {}   # row -> the TM matches its suggestion read
        self._ahead: dict[int, list] = {}  # row -> its TM matches, looked up ahead (until the TM changes)
        self._ahead_at: dict[int, tuple] = {}  # row -> (time.monotonic of the answer, TM jobs queued before, k)
        self._asked: tuple | None = None   # (row, pairs) of the suggestion asked for since the row was entered
        self._completing: tuple | None = None  # (row, prefix) of the completion asked for last
        self._last_hits: tuple = (None, [])
        # (key, generation, TM openings) of the lookup asked and not answered yet: entering its row
        # again (the TMs opened, the model loaded) waits for it -- asked again, the first answer was
        # dropped and the first segment's matches of a new TM came a search later (0.17-0.19 s)
        self._looking: tuple | None = None

    # -- the services ------------------------------------------------------------------
    def set_model(self, model) -> None:
        self.model, self.row = model, None
        self.found.clear()
        self._ahead.clear()
        self._ahead_at.clear()
        self._last_hits = (None, [])

    def set_tm(self, tm) -> None:
        self.tm, self._looking = tm, None
        self._ahead.clear()
        if tm is not None:
            tm.lookups.ready.connect(self._on_matches)
            tm.lookups.failed.connect(lambda *_: setattr(self, "_looking", None))
            tm.added.connect(lambda _id: self._ahead.clear())  # a confirmed unit may be the next rows' match

    def set_nmt(self, nmt) -> None:
        self.nmt = nmt
        if nmt is not None:
            nmt.ready.connect(self._on_suggestion)
            nmt.forced_ready.connect(self._on_forced)
            nmt.completion_ready.connect(self._on_completion)

    def set_terms(self, index) -> None:
        """The project's term index (built off the UI thread); the current row is looked up again."""
        self.terms = index
        if self.model is not None and self.row is not None:
            self.look_up_terms(self.row)

    def _hits(self, row: int) -> list:
        """The glossary hits of ``row``'s source (the last row's kept: entering a row asks for them
        for the panel and again for the suggestion)."""
        if self.terms is None or self.model is None:
            return []
        if self._last_hits[0] != (id(self.terms), row):
            self._last_hits = ((id(self.terms), row), self.terms.find(self.model.segment(row).source.text))
        return self._last_hits[1]

    def suggestion_terms(self, row: int) -> list:
        """The glossary hits of ``row``'s source the suggestion uses (as the preference *Use glossary
        terms in suggestions* says), one per entry: each carries its entry's accepted targets and the
        source span, so the search writes the term where the attention is on it."""
        seen: set = set()
        out = []
        for h in self._hits(row):
            key = tuple(h.entry.targets)
            if key and key not in seen:
                seen.add(key)
                out.append(h)
        return out

    def look_up_terms(self, row: int) -> None:
        """The glossary terms of ``row``'s source: on the UI thread, as the index is in memory."""
        if self.model is None or not (0 <= row < self.model.rowCount()):
            return
        hits = self._hits(row)
        self.termsReady.emit(row, hits)

    def _key(self, row: int) -> tuple:
        return (self.model.document_id, row)

    def _current(self, key) -> bool:
        return self.model is not None and tuple(key[:2]) == (self.model.document_id, self.row)

    # -- entering a row ----------------------------------------------------------------
    def enter(self, row: int) -> None:
        if self.model is None or not (0 <= row < self.model.rowCount()):
            return
        self.row, self._asked, self._completing = row, None, None
        seg = self.model.segment(row)
        self.look_up_terms(row)
        if self.nmt is not None and self.nmt.translator is not None:
            self.translating.emit(row)  # the last segment's suggestion and completion go at once
        if self.tm is not None and self.tm.infos and self._fresh_ahead(row):
            self._request_suggestion(row, self._ahead[row])  # the engine first: the panel is UI-thread work
            self.matchesReady.emit(row, seg.source, self._ahead[row])
        elif self.tm is not None and self.tm.infos:
            self.searching.emit(row)
            asked = (self._key(row), self.tm.lookups.generation, self.tm.opens)
            if asked != self._looking:  # not the same row's lookup under way, queued after every TM's opening
                self.tm.lookup(self._key(row), seg.source, k=preferences().tm_matches)
                self._looking = (self._key(row), self.tm.lookups.generation, self.tm.opens)
            if row in self._ahead:  # looked up ahead, the TM unchanged since: its suggestion need not wait
                self._request_suggestion(row, self._ahead[row])
        else:
            self._request_suggestion(row, [])
        self.score_own_target()

    def _fresh_ahead(self, row: int) -> bool:
        """``row``'s matches were looked up ahead moments ago and no TM job was queued since (a
        confirm's write, an import, a TM opened); a shared TM changes without telling: searched again."""
        at, queued, k = self._ahead_at.get(row, (float("-inf"), None, None))
        return (row in self._ahead and time.monotonic() - at < AHEAD_FRESH_S and queued == self.tm.queued
                and k == preferences().tm_matches and not any(info.shared for info in self.tm.infos))

    def look_up_first(self, document_id: int, first) -> None:
        """Ask the TM for the row a document opens on (``first``: (row, Segment) from
        engine.store.first_row, or None) before its rows are loaded: the TM thread searches while
        the UI thread loads the document (0.2-0.7 s for 2,000 segments at load 5-12), and
        :meth:`enter` on that row waits for this answer instead of asking again."""
        if first is None or self.tm is None or not self.tm.infos:
            return
        key = (document_id, first[0])
        self.tm.lookup(key, first[1].source, k=preferences().tm_matches)
        self._looking = (key, self.tm.lookups.generation, self.tm.opens)

    def _on_matches(self, key, found) -> None:
        self._looking = None
        if not self._current(key):
            return
        row = key[1]
        self.matchesReady.emit(row, self.model.segment(row).source, found)
        if self._asked != (row, memory_pairs(self.memory_reads(found))):  # not asked with these on entering
            self._request_suggestion(row, found)  # (a shared TM changes without telling)

    @staticmethod
    def memory_reads(found: list) -> list:
        """The TM matches a memory-guided model reads: the best ``memory_pairs`` of those scoring
        at least ``memory_min_score`` (preferences); the TM panel still shows the lower ones."""
        prefs = preferences()
        return readable(found, prefs.memory_min_score / 100)[:max(1, prefs.memory_pairs)]

    def context(self, row: int, k: int = CONTEXT_SENTENCES) -> list[str]:
        """Sources of the ``k`` segments before ``row``, oldest first (what a document-context
        model reads; other models ignore it)."""
        return [self.model.segment(r).source.text for r in range(max(0, row - k), row)]

    def _request_suggestion(self, row: int, found) -> None:
        if self.nmt is None or self.nmt.error:
            return
        seg = self.model.segment(row)
        memories = self.memory_reads(found)
        self.found[row] = memories
        self._asked = (row, memory_pairs(memories))
        self.nmt.suggest(self._key(row), seg.source.text, memories, self.context(row), self.suggestion_terms(row))
        self._prefetch_after(row)

    def ahead(self, row: int) -> bool:
        """Whether ``row`` is the row entered or one of the LOOKAHEAD after it (read on worker threads:
        work for a row that is no longer ahead stops)."""
        model, current = self.model, self.row
        return model is not None and current is not None and current <= row <= current + LOOKAHEAD

    def _prefetch_after(self, row: int) -> None:
        """Look the LOOKAHEAD rows after ``row`` up in the TM (each once until the TM changes, in the
        background) and translate those not cached (NMTService.prefetch_many: the ones after the nearest
        in one batch), each only while it stays ahead of the translator."""
        rows = [r for r in range(row + 1, min(row + 1 + LOOKAHEAD, self.model.rowCount()))
                if self.model.segment(r).source.text.strip()]
        if not rows or self.nmt is None:
            return
        doc = self.model.document_id
        src = {r: self.model.segment(r).source for r in rows}
        extra = {r: (self.context(r), self.suggestion_terms(r)) for r in rows}

        def wanted_of(r: int):
            return lambda: self.model is not None and self.model.document_id == doc and self.ahead(r)

        def translate(found: dict | None) -> None:
            if found is None or self.nmt is None:
                return
            items = []
            for r in rows:
                wanted = wanted_of(r)
                if found.get(r) is not None and wanted():
                    self._ahead[r] = found[r]
                    items.append((src[r].text, self.memory_reads(found[r]), *extra[r], wanted))
            self.nmt.prefetch_many(items)

        if self.tm is None or not self.tm.infos:
            return translate({r: [] for r in rows})
        found = {r: self._ahead[r] for r in rows if r in self._ahead}
        if len(found) == len(rows):
            return translate(found)
        k, tm = preferences().tm_matches, self.tm
        queued = tm.queued  # a job queued after this may change what these lookups would find

        def got(matches, r: int) -> None:  # (None: left behind before its lookup, or its lookup failed)
            found[r] = matches
            self._ahead_at[r] = (time.monotonic(), queued, k)
            if len(found) == len(rows):
                translate(found)

        def failed(msg: str, r: int) -> None:  # said as any TM error; the other rows go ahead without it
            tm.failed.emit(msg)
            got(None, r)

        for r in rows:  # one lookup a job: the row entered next waits for one at most on the TM thread
            if r not in found:
                tm.run(lambda c, r=r: tm.search_now(c, src[r], k) if wanted_of(r)() else None,
                       on_result=lambda m, r=r: got(m, r), on_error=lambda msg, r=r: failed(msg, r), priority=-1)

    def _on_suggestion(self, key, view) -> None:
        if not self._current(key):
            return
        self.suggestionReady.emit(key[1], view, self.model.segment(key[1]).source.tags)
        self.score_own_target()

    # -- completing what is typed -------------------------------------------------------
    def complete(self, current_suggestion=None) -> None:
        """Ask for the rest of the translation after what is typed (when the preference is on
        and the suggestion shown does not already continue it)."""
        if (self.nmt is None or self.nmt.translator is None or self.model is None or self.row is None
                or not preferences().complete):
            return
        prefix = self.typed() or ""
        if not prefix.strip():
            return
        cur = current_suggestion
        if cur is not None and cur.text.startswith(prefix) and len(cur.text) > len(prefix):
            return
        row = self.row
        if self._completing == (row, prefix):  # asked already (a keystroke, then the typing pause)
            return
        self._completing = (row, prefix)
        self.nmt.complete((self.model.document_id, row, prefix), self.model.segment(row).source.text, prefix,
                          self.found.get(row, []), self.context(row), self.suggestion_terms(row))

    def _on_completion(self, key, view) -> None:
        if not self._current(key) or self.typed() != key[2]:
            return  # another row, or the translator typed on: a newer request is under way
        self.completionReady.emit(key[1], view, self.model.segment(key[1]).source.tags)
        self._prefetch_after(key[1])  # (a completion stops a prefetch under way: asked again, cached ones skipped)

    # -- the translator's own target ----------------------------------------------------
    def score_own_target(self) -> None:
        """Second alignment view: the translator's own target, scored by forced decoding."""
        if self.nmt is None or self.nmt.translator is None or self.model is None or self.row is None:
            return
        seg = self.model.segment(self.row)
        if seg.target.text.strip():
            self.nmt.score_target(self._key(self.row), seg.source.text, seg.target.text)

    def _on_forced(self, key, view) -> None:
        if self._current(key):
            self.forcedReady.emit(key[1], view)
