"""The rows ahead of the translator translated in one batch (mixed into
:class:`~app.suggest.NMTService`): of the rows a lookahead finds not cached, the nearest goes alone
and first (the row entered next), those after it to the engine as one ``suggest_many`` request
(engine/nmt/suggesting.py), each the :func:`request_of` its single prefetch sends.
Demo model, one thread, 2-core VM (benchmarks/nmt_speed.py): a sentence alone costs 40-47 ms of CPU,
one more in a batch ~20 ms.

Each result is cached under the key its single prefetch would have (same view: the same request
per sentence); the batch stops once none of its rows is wanted, and a request for a row outside
it stops it (the row entered goes first, as for a single prefetch)."""
from __future__ import annotations

import time
from typing import Sequence

from PySide6.QtCore import QTimer

from app.workers import Cancelled, Worker, start
from engine.nmt.editorbeam import ahead_beam, suggestion_beam


def memory_pairs(memories: Sequence | None) -> tuple:
    """The (source, target, score) of each TM match (:class:`~app.tmservice.FoundMatch`) a memory reads:
    what the engine is sent, and what tells two suggestion requests apart."""
    return tuple((fm.match.source.text, fm.match.target.text, fm.match.score) for fm in memories or ())


def exact_match(memories: Sequence | None) -> int | None:
    """Index of the first 100 % match with a translation among the TM matches (as pre-translation
    and ``verso translate --exact-matches`` take it), or None."""
    for j, fm in enumerate(memories or ()):
        if fm.match.score >= 1.0 - 1e-9 and fm.match.target.text.strip():
            return j
    return None


def request_of(text: str, memories: Sequence | None, context: Sequence[str] | None = None, prefix: str = "",
               terms: Sequence = (), terms_mode: str = "off"):
    """The engine's :class:`~engine.nmt.results.TranslationRequest` for one row, alone or in a batch:
    its TM matches' pairs, the previous sources of its document, the glossary hits written as the
    glossary writes them, one a span (of the hits, those
    :func:`~engine.glossary.suggest_terms.suggestion_terms` keeps; none when ``terms_mode`` is off)."""
    from engine.nmt.results import TranslationRequest

    if terms and terms_mode != "off":
        from engine.glossary.suggest_terms import suggestion_terms

        terms = suggestion_terms(text, terms)
    return TranslationRequest(text, prefix, memory_pairs(memories), tuple(context) if context is not None else None,
                              tuple(terms))


#: how long the translator stays on a row before the rows ahead translated greedily are redone with the
#: editor's beam: browsing without a pause, a step took 40-150 ms at load <= 1 (benchmarks/RESULTS.md
#: issue 46 item 3), so a redo never takes the engine from the rows the translator browses to
REFINE_AFTER_MS = 500

#: how many rows asked for are remembered as seen (eight times the suggestion cache; a key holds the row's
#: source and the sources before it, so a long session keeps bounded memory)
SEEN_KEPT = 4000


class AheadBatch:
    """``prefetch_many`` for :class:`~app.suggest.NMTService` (its cache, pool, ``_inflight`` and ``_running``),
    and the rows ahead redone with the editor's beam."""

    def _init_ahead(self) -> None:
        self._refining = None  # the Control of a row ahead being redone with the editor's beam, while one is
        # the cache keys of the rows asked for, oldest first (the last SEEN_KEPT): their suggestions are never redone
        self._seen: dict[str, None] = {}
        self._to_refine: dict[str, tuple] = {}  # rows ahead to redo with the editor's beam: key -> (args, wanted)
        self._reading = QTimer(self, singleShot=True, timeout=self._refine)
        self._browsed_at = time.monotonic()  # when a row was last entered

    def _entered(self, ck: str) -> None:
        """The row of cache key ``ck`` asked for: what it is served is seen, and stays what it shows."""
        self._seen.pop(ck, None)
        self._seen[ck] = None
        if len(self._seen) > SEEN_KEPT:
            self._seen.pop(next(iter(self._seen)))
        self._to_refine.pop(ck, None)
        self._browsed()

    def prefetch_many(self, items: Sequence[tuple]) -> None:
        """``items``: (text, memories, context, terms, wanted) of the rows ahead, nearest first.  Of those
        not cached nor under way the nearest goes alone (:meth:`prefetch`), and so does one with a 100 %
        match (forced decoding, one pass) or the last; two or more after the nearest go together."""
        todo, keys = [], set()
        for text, memories, context, terms, wanted in items:
            ck = self._key(text, memories, context, terms)
            if self.error or not text.strip() or ck in self.cache or ck in self._inflight or ck in keys:
                continue
            if exact_match(memories) is not None:
                self.prefetch(text, memories, context, terms, wanted=wanted)
                continue
            keys.add(ck)
            todo.append((ck, wanted, (text, list(memories or ()), list(context or ()), "", tuple(terms))))
        # the nearest alone, first: the row the translator enters next never waits for the others (at dwell 0
        # in one batch with them: suggestion p50 66-68 -> 98-99 ms, benchmarks/RESULTS.md issue 46 Y2)
        alone = todo if len(todo) <= 2 else todo[:1]
        for _ck, wanted, (text, memories, context, _prefix, terms) in alone:
            self.prefetch(text, memories, context, terms, wanted=wanted)
        todo = todo[len(alone):]
        if not todo:
            return
        for ck, _wanted, args in todo:
            self._inflight[ck] = args
        cks = [ck for ck, _w, _a in todo]

        def failed(*_args, cks=cks) -> None:
            for ck in cks:
                self._prefetched(ck, None)

        self._stop_refining()
        w = Worker(self._ahead_many, todo)
        w.signals.result.connect(lambda views, todo=todo: [(self._prefetched(ck, v), self._refine_later(ck, a, wanted))
                                                           for (ck, wanted, a), v in zip(todo, views)])
        w.signals.error.connect(failed)
        w.signals.cancelled.connect(failed)
        start(w, self.pool, priority=-1)

    def _refine_later(self, ck: str, args: tuple, wanted) -> None:
        """A row ahead translated greedily (:func:`~engine.nmt.editorbeam.ahead_beam`), cached: redone
        with the editor's beam once the translator has stayed on a row :data:`REFINE_AFTER_MS` (reading,
        not browsing) and the engine has nothing else to do (below every prefetch; a new one stops it,
        and it waits again), kept only while the row is ahead and was never asked for -- a suggestion
        once seen never changes (Down, Up, Down shows the same), a translator who reads gets the full beam's."""
        text = args[0]
        if (ahead_beam(text, self.beam) >= suggestion_beam(text, self.beam) or ck not in self.cache
                or exact_match(args[1]) is not None  # a TM's own translation: no search to redo
                or ck in self._seen or self.translator is None or self._closed):
            return
        self._to_refine[ck] = (args, wanted)
        if not self._reading.isActive():
            self._reading.start(REFINE_AFTER_MS)

    def _forget_ahead(self) -> None:
        """New settings: the cached suggestions are gone, what was seen of them, and what waits to be redone."""
        self._seen.clear()
        self._to_refine.clear()

    def _browsed(self) -> None:
        """A row entered or typed on: the rows ahead wait to be redone until the translator stays (a redo under
        way or queued stops at its next decoding step, :meth:`_refine`, and waits again)."""
        self._browsed_at = time.monotonic()
        self._reading.start(REFINE_AFTER_MS)

    def _dwelt(self) -> float:
        """Seconds the translator is still to stay on the row before the rows ahead are redone (<= 0: done)."""
        return REFINE_AFTER_MS / 1000 - (time.monotonic() - self._browsed_at)

    def _refine(self) -> None:
        if self._dwelt() > 0:  # (a timer may fire a little early)
            self._reading.start(int(self._dwelt() * 1000) + 1)
            return
        todo, self._to_refine = self._to_refine, {}
        for ck, (args, wanted) in todo.items():
            def kept(ck=ck, wanted=wanted) -> bool:  # ahead, never seen, its greedy suggestion still cached
                return ck not in self._seen and ck in self.cache and (wanted is None or wanted())

            def still(kept=kept) -> bool:  # and the translator stays (asked before every decoding step)
                return kept() and self._dwelt() <= 0

            def done(view, ck=ck, kept=kept) -> None:
                if view is not None and kept():
                    self._store(view)
                    self.served["refined"] += 1

            if not still():
                continue
            w = Worker(self._ahead, ck, still, *args, beam=suggestion_beam(args[0], self.beam), refine=True)
            w.signals.result.connect(done)
            w.signals.cancelled.connect(lambda ck=ck, a=args, wanted=wanted: self._refine_later(ck, a, wanted))
            start(w, self.pool, priority=-2)

    def _ahead(self, control, ck: str, wanted, *args, beam: int | None = None, refine: bool = False):
        """A prefetch on the pool thread (``refine``: one redone with the editor's beam): stopped when
        cancelled or no longer ``wanted``."""
        if wanted is not None and not wanted():
            raise Cancelled()
        # a redo says so before it says it runs: a prefetch asked meanwhile (:meth:`_stop_refining`) stops it
        self._refining = control if refine else None
        self._running = ((ck,), control)
        try:
            return self._translate(control, *args, wanted=wanted, beam=beam)
        finally:
            self._running = self._refining = None

    def _stop_refining(self) -> None:
        """A row ahead to translate goes before any redone with the editor's beam."""
        control = self._refining
        if control is not None:
            control.cancel()

    def _ahead_many(self, control, todo: list) -> list:
        """The batch on the pool thread: the rows still wanted, translated together (None for the others)."""
        live = [t for t in todo if t[1] is None or t[1]()]
        if not live:
            raise Cancelled()
        self._running = (tuple(ck for ck, _w, _a in live), control)
        try:
            views = self._translate_many(control, live)
        finally:
            self._running = None
        got = {ck: v for (ck, _w, _a), v in zip(live, views)}
        return [got.get(ck) for ck, _w, _a in todo]

    def _translate_many(self, control, live: list) -> list:
        from engine.nmt.results import Stopped

        control.check()
        if self.translator is None:  # loading failed after the batch was queued
            raise RuntimeError(self.error or "no model")
        wanted = [w for _ck, w, _a in live]

        def stop() -> bool:  # nobody will read any of them any more
            return control.cancelled or not any(w is None or w() for w in wanted)

        reqs = [request_of(text, memories, context, prefix, terms, self.terms_mode)
                for _ck, _w, (text, memories, context, prefix, terms) in live]
        beams = [ahead_beam(r.source, self.beam) for r in reqs]
        try:
            results = self.translator.suggest_many(reqs, beams=beams, memory_mode=self.memory_mode,
                                                   terms_mode=self.terms_mode, stop=stop)
        except Stopped:
            raise Cancelled() from None
        return [self._view(a[0], res, a[1], a[2], "", a[4], b) for (_ck, _w, a), res, b in zip(live, results, beams)]
