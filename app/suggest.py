"""Machine suggestions off the UI thread, and the one adapter from the
engine's :class:`~engine.nmt.translator.TranslationResult` to what the
Suggestion and Alignment panels draw.

The engine's memories (the nearest-neighbour memory every model has, the learned one of
search-engine guided models) report, per output word, its copy weight and the TM entry/word it
came from (:class:`~engine.nmt.copyreport.CopiedWord`); :func:`view_of` is the only place that
reads it.  :func:`call_translator` is the one place that asks the translator, with a typed
:class:`~engine.nmt.translator.TranslationRequest`; a segment with a 100 % TM match gets that
match's translation (as pre-translation fills it), with the model's alignment over it.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from PySide6.QtCore import QObject, QThreadPool, QTimer, Signal

from app.suggest_ahead import AheadBatch, exact_match, memory_pairs, request_of  # noqa: F401 - memory_pairs: the flow's
from app.workers import Cancelled, LatestOnly, Worker, start
from engine.nmt.editorbeam import ahead_beam, suggestion_beam

if TYPE_CHECKING:
    from engine.glossary.model import TermHit


@dataclass
class MemoryRef:
    """Where a copied word came from."""

    weight: float                 # ζ·p_copy in [0, 1]
    entry_index: int
    token_index: int
    entry_source: str = ""
    entry_target: str = ""
    word: str = ""
    entry_id: int | None = None
    tm: str = ""

    def tooltip(self) -> str:
        head = f"from your translation memory (copy weight {self.weight:.2f})"
        where = f"TM entry {self.entry_index + 1}" + (f" (#{self.entry_id}, {self.tm})" if self.entry_id else "")
        lines = [head, f"{where}, word {self.token_index + 1}: “{self.word}”"]
        if self.entry_source:
            lines += [f"source: {self.entry_source}", f"target: {self.entry_target}"]
        return "\n".join(lines)


@dataclass
class SuggestionView:
    """What the panels show for one segment."""

    source: str
    text: str
    words: list[str]
    src_words: list[str]
    alignment: list[list[float]]
    gates: list[float] | None
    memory: list[MemoryRef | None] | None = None
    score: float = 0.0
    forced: bool = False
    used_memory: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def has_memory(self) -> bool:
        return self.memory is not None and any(m is not None for m in self.memory)


def view_of(source: str, result, memories: Sequence | None = None, *, forced: bool = False) -> SuggestionView:
    """Map an engine result (plus the TM pairs it read, :class:`~app.tmservice.FoundMatch`) to the panels."""
    memory: list[MemoryRef | None] | None = None
    if result.memory is not None:
        memory = []
        for item in result.memory:
            if item is None:
                memory.append(None)
                continue
            ei, ti = item.entry_index, item.token_index
            ref = MemoryRef(float(item.weight), ei, ti)
            if memories and 0 <= ei < len(memories):
                fm = memories[ei]
                m = getattr(fm, "match", fm)
                ref.entry_source = m.source.display()
                ref.entry_target = m.target.display()
                ref.entry_id = getattr(getattr(m, "entry", None), "id", None)
                ref.tm = getattr(fm, "tm", "")
                tw = m.target.display().split()
                ref.word = tw[ti] if 0 <= ti < len(tw) else ""
            memory.append(ref)
    return SuggestionView(source=source, text=result.text, words=list(result.words),
                          src_words=list(result.src_words), alignment=[list(r) for r in result.alignment],
                          gates=list(result.gates) if result.gates is not None else None,
                          memory=memory, score=float(result.score), forced=forced,
                          used_memory=len(memories or ()) if result.memory_kind else 0,
                          extra=({"memory_kind": result.memory_kind} if result.memory_kind else {})
                          | ({"origin": "tm"} if getattr(result, "exact_match", None) is not None else {}))


#: the beam of a completion (asked at each keystroke).  Demo model, held-out KDE manuals, one thread, 2-core
#: VM (benchmarks/RESULTS.md, issue 47 item 2): beam 2 against 5, 18-20 against 25-28 ms of CPU a completion
#: (97 prefixes, two rounds), KSR 0.218 against 0.223 (73 sentences, completion_keystrokes.py char protocol)
COMPLETION_BEAM = 2

#: what the editor calls each memory
MEMORY_NAMES = {"knn": "nearest-neighbour memory", "learned": "learned memory (SEG-NMT)", "none": "no memory"}


def call_translator(translator, text: str, memories: Sequence | None, *, beam: int = 5, prefix: str = "",
                    context: Sequence[str] | None = None, terms: Sequence[TermHit] = (), terms_mode: str = "off",
                    memory_mode: str = "auto", stop=None):
    """Translate one sentence: the TM matches (:class:`~app.tmservice.FoundMatch`) read by the
    memory ``memory_mode`` names (or the one the model has), the previous sources of the
    document when the model reads them, the glossary's target ``terms`` (``terms_mode``: off,
    prefer or enforce; of the hits, those :func:`~engine.glossary.suggest_terms.suggestion_terms` keeps).
    ``stop``: asked before every decoding step; True ends the search (engine ``Stopped``)."""
    exact = None if prefix else exact_match(memories)
    if exact is not None:  # the translator's own translation of this very source, not a machine guess
        target = memories[exact].match.target.text
        res = translator.forced([text], [target])[0]  # one pass: nothing to stop
        res.text, res.exact_match = target, exact
        return res
    req = request_of(text, memories, context, prefix, terms, terms_mode)
    return translator.suggest(req, beam=beam, memory_mode=memory_mode, terms_mode=terms_mode, stop=stop)


def _term_key(hit: TermHit) -> str:
    """What of a glossary hit changes the suggestion: where it is, whether it may inflect, its targets."""
    return f"{hit.start}:{hit.end}:{int(hit.entry.inflect)}:" + "|".join(hit.entry.targets)


class NMTService(AheadBatch, QObject):
    """Loads a model in the background and answers suggestion requests.

    ``suggest(key, text, memories)`` answers with ``ready(key, SuggestionView)``
    (newest request only); ``prefetch(text, memories)`` fills a small cache
    so the next segments' suggestions are there when they are entered.

    One translation at a time (one pool thread: two would share the same two cores).  A
    request starts before any waiting prefetch (priority), a running prefetch that is not the
    one requested is stopped for it (its decoding asks ``control.cancelled`` before every step,
    and is asked again later), and so is a request superseded by a newer one -- so a
    translator who moves on never waits for the rest of a long sentence nobody reads.
    """

    loaded = Signal(str)        # model folder
    unavailable = Signal(str)   # why there is no suggestion
    ready = Signal(object, object)
    forced_ready = Signal(object, object)
    completion_ready = Signal(object, object)  # key, SuggestionView beginning with the typed prefix
    failed = Signal(object, str)

    def __init__(self, model_dir: Path | None, parent=None, *, beam: int = 5, threads: int = 0,
                 quantize: bool = False, terms_mode: str = "off", memory_mode: str = "auto"):
        super().__init__(parent)
        self.quantize = quantize  # dynamic int8 (CPU only; ignored on a GPU)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self.pool.setExpiryTimeout(-1)
        self.model_dir = model_dir
        self.beam = beam
        self.terms_mode = terms_mode  # glossary terms in suggestions: off, prefer or enforce
        self.memory_mode = memory_mode  # which memory reads the TM matches: auto, knn, learned, none
        self.threads = threads
        self.translator = None
        self.error: str | None = None
        self.cache: dict[str, SuggestionView] = {}
        self._latest = LatestOnly(self.pool, self)
        self._latest.ready.connect(self._on_ready)
        self._latest.failed.connect(self.failed.emit)
        self._complete = LatestOnly(self.pool, self)
        self._complete.ready.connect(self.completion_ready.emit)
        self._complete.failed.connect(self.failed.emit)
        self._forced = LatestOnly(self.pool, self)
        self._forced.ready.connect(self.forced_ready.emit)
        self._forced.failed.connect(self.failed.emit)
        self._keep: set[Worker] = set()
        # Prefetches running (cache key -> args), and a suggestion waiting for one of them:
        # entering the segment being prefetched waits for that translation instead of
        # queueing a second identical one behind it (which doubled the wait).
        self._inflight: dict[str, tuple] = {}
        self._waiting: tuple | None = None  # (generation, request key, cache key)
        self._running: tuple | None = None  # (cache keys, Control) of the prefetch(es) translating now
        self._closed = False
        self._init_ahead()
        # how each suggestion was served: "ready" (translated ahead), "waited" (for a prefetch under
        # way), "translated" (on request); "refined": rows ahead redone with the editor's beam before
        # being entered -- benchmarks/ui_latency.py reports it
        self.served: Counter[str] = Counter()
        if model_dir is None:
            self.error = "No NMT model: choose one in Settings, or fine-tune one (Tools ▸ Fine-tune)."
            QTimer.singleShot(0, lambda: self.unavailable.emit(self.error))
        else:
            w = Worker(self._load)
            w.signals.result.connect(self._on_loaded)
            w.signals.error.connect(self._on_load_error)
            start(w, self.pool)

    @property
    def dropped(self) -> int:
        return self._latest.dropped

    def _load(self, control):
        from engine.nmt.remote import RemoteTranslator

        # the engine in a process of its own (engine/nmt/server.py: decoding off this process's
        # interpreter lock); threads 0: engine/nmt/threads.py decides there
        self.translator = RemoteTranslator(self.model_dir, quantize=self.quantize, threads=self.threads)
        # (assigned at once: jobs queued behind the load see it)
        return self.translator

    def _on_loaded(self, tr) -> None:
        self.translator = tr
        self.loaded.emit(str(self.model_dir))

    def _on_load_error(self, msg: str) -> None:
        self.error = f"The model could not be loaded: {msg}"
        self.unavailable.emit(self.error)

    # -- requests ----------------------------------------------------------------
    def _key(self, text: str, memories, context=(), terms=()) -> str:
        return "\x00".join([text, *(m.match.target.text for m in (memories or ())),
                             "\x01", *(context or ()), "\x02", self.terms_mode, self.memory_mode,
                             *map(_term_key, terms)])

    def suggest(self, key, text: str, memories: Sequence | None = None,
                context: Sequence[str] | None = None, terms: Sequence[TermHit] = ()) -> None:
        """``context``: the sources of the previous segments of the document, oldest first;
        ``terms``: the glossary's hits in this source (used as ``terms_mode`` says)."""
        if self.error and self.translator is None:
            return
        ck = self._key(text, memories, context, terms)
        self._entered(ck)
        hit = self.cache.get(ck)
        if hit is not None:
            self.served["ready"] += 1
            self._latest.invalidate()
            QTimer.singleShot(0, lambda: self.ready.emit(key, hit))
            return
        if ck in self._inflight:  # being prefetched: its answer is this one's
            self.served["waited"] += 1
            self._latest.invalidate()
            self._waiting = (self._latest.generation, key, ck)
            return
        running = self._running
        if running is not None and ck not in running[0]:  # the thread is this one's: the prefetch is asked again later
            running[1].cancel()  # its Control
        self.served["translated"] += 1
        self._latest.request(key, self._translate, text, list(memories or ()), list(context or ()), "",
                             tuple(terms))

    def prefetch(self, text: str, memories: Sequence | None = None, context: Sequence[str] | None = None,
                 terms: Sequence[TermHit] = (), wanted=None) -> None:
        """Translate ``text`` ahead (kept in the cache; runs after every request waiting, never
        cancels one).  ``wanted()`` (asked on the pool thread before it starts and before every
        decoding step): False once nobody will read it (the translator went elsewhere)."""
        ck = self._key(text, memories, context, terms)
        if self.error or not text.strip() or ck in self.cache or ck in self._inflight:
            return
        args = (text, list(memories or ()), list(context or ()), "", tuple(terms))
        self._inflight[ck] = args
        self._stop_refining()
        w = Worker(self._ahead, ck, wanted, *args, beam=ahead_beam(text, self.beam))
        w.signals.result.connect(lambda view, ck=ck, a=args, wanted=wanted: (self._prefetched(ck, view),
                                                                              self._refine_later(ck, a, wanted)))
        w.signals.error.connect(lambda _msg, ck=ck: self._prefetched(ck, None))
        w.signals.cancelled.connect(lambda ck=ck: self._prefetched(ck, None))
        start(w, self.pool, priority=-1)

    def _prefetched(self, ck: str, view: SuggestionView | None) -> None:
        args = self._inflight.pop(ck, None)
        if view is not None:
            self._store(view)
        waiting = self._waiting
        if waiting is None or waiting[2] != ck:
            return  # nobody waits for this one
        self._waiting = None
        if waiting[0] != self._latest.generation:
            return  # the translator has moved on since
        if view is not None:
            self.ready.emit(waiting[1], view)
        elif args is not None:  # the prefetch failed: translate it as an ordinary request
            self._latest.request(waiting[1], self._translate, *args)

    def complete(self, key, text: str, prefix: str, memories: Sequence | None = None,
                 context: Sequence[str] | None = None, terms: Sequence[TermHit] = ()) -> None:
        """Interactive translation: the rest of the translation after what the
        translator typed (prefix-constrained decoding); answers ``completion_ready``.  Asked at each
        keystroke: a newer one stops the one under way (LatestOnly) and a running prefetch (asked again
        by the flow once the completion is shown), so the translator never waits behind either."""
        if self.translator is None or not prefix:
            return
        self._browsed()  # typing is not reading: the rows ahead wait to be redone
        if self._running is not None:
            self._running[1].cancel()
        shown = self.cache.get(self._key(text, memories, context, terms))
        # greedy where the suggestion shown came greedy: it continues that one, whose search the engine reuses
        beam = 1 if shown is not None and shown.extra.get("beam") == 1 else None
        self._complete.request(key, self._translate, text, list(memories or ()), list(context or ()), prefix,
                               tuple(terms), None, beam)

    def _translate(self, control, text: str, memories: list, context: list | None = None, prefix: str = "",
                   terms: tuple = (), wanted=None, beam: int | None = None):
        from engine.nmt.results import Stopped

        control.check()
        if self.translator is None:  # loading failed after the request was queued
            raise RuntimeError(self.error or "no model")

        def stop() -> bool:
            return control.cancelled or (wanted is not None and not wanted())

        # long: a smaller beam, half the CPU; a completion (asked at each keystroke): COMPLETION_BEAM
        if beam is None:
            beam = min(self.beam, COMPLETION_BEAM) if prefix else suggestion_beam(text, self.beam)
        try:
            res = call_translator(self.translator, text, memories, beam=beam, context=context, prefix=prefix,
                                  terms=terms, terms_mode=self.terms_mode, memory_mode=self.memory_mode, stop=stop)
        except Stopped:
            raise Cancelled() from None
        return self._view(text, res, memories, context, prefix, terms, beam)

    def _view(self, text: str, res, memories: list, context, prefix: str, terms: tuple,
              beam: int | None = None) -> SuggestionView:
        """The panels' view of the result ``res`` of this request (searched with ``beam``), its cache key
        and beam in ``extra``."""
        view = view_of(text, res, memories)
        if "origin" not in view.extra:  # (a TM's own translation is not searched)
            view.extra["beam"] = beam
        if terms and self.terms_mode != "off":
            # the glossary terms the suggestion holds (any accepted target of each)
            view.extra["terms"] = [x for t in terms for x in t.entry.targets if x in view.text]
            # where each sits in the source: the panel keeps a term apart from its neighbours as the source does
            view.extra["term_spans"] = [(t.start, t.end, tuple(t.entry.targets)) for t in terms]
        view.extra["key"] = self._key(text, memories, context, terms)
        if prefix:
            view.extra["prefix"] = prefix
        return view

    def memory_in_use(self) -> str:
        """What reads the TM matches now, in words ("" before the model is loaded)."""
        if self.translator is None:
            return ""
        return MEMORY_NAMES[self.translator.memory_in_effect(self.memory_mode)]

    def set_modes(self, *, memory_mode: str, terms_mode: str) -> None:
        """New settings apply to the next suggestion (cached ones were made with the old ones)."""
        if (memory_mode, terms_mode) != (self.memory_mode, self.terms_mode):
            self.memory_mode, self.terms_mode = memory_mode, terms_mode
            self.cache.clear()
            self._forget_ahead()
            self._latest.invalidate()

    def _store(self, view: SuggestionView) -> None:
        self.cache[view.extra.get("key", view.source)] = view
        if len(self.cache) > 500:
            self.cache.pop(next(iter(self.cache)))

    def _on_ready(self, key, view: SuggestionView) -> None:
        self._store(view)
        self.ready.emit(key, view)

    def score_target(self, key, source: str, target: str) -> None:
        """Forced decoding of the translator's own target (second alignment view)."""
        if self.translator is None or not target.strip():
            return

        def job(control):
            control.check()
            res = self.translator.forced([source], [target])[0]
            return view_of(source, res, None, forced=True)

        self._forced.request(key, job)

    def close(self) -> None:
        """Stop what runs, and end the engine process."""
        self._closed = True  # (a job stopped now queues nothing more)
        self._reading.stop()
        self._latest.invalidate()
        self._forced.invalidate()
        if self.translator is not None:  # what runs stops at its next step, what waits is refused
            self.translator.close()
        self.pool.waitForDone(10_000)
        if self.translator is not None:  # loaded meanwhile
            self.translator.close()
