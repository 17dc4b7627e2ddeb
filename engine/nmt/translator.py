"""Translate, score and align with a model folder: the API the CLI and the editor use.

Everything here speaks words and text; subwords stay inside.  A result
carries, per output word, its source alignment (attention summed over the
source word's subwords, averaged over the target word's subwords) and the
context-gate value (mean over the gate's dimensions, averaged likewise).
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from engine.errors import ModelError
from engine.nmt import casing
from engine.nmt.checkpoint import LoadedModel, load_model
from engine.nmt.completion import TypedWord, complete, split_typed
from engine.nmt.copyreport import annotate, trace_copies, traces_of
from engine.nmt.data import pad_sources
from engine.nmt.forcing import forced_results
from engine.nmt.knn import KNN_FILE, MEMORY_MODES, KnnInput
from engine.nmt.loading import FilledFromFile, for_inference
from engine.nmt.longsplit import terms_of_pieces
from engine.nmt.memory import memory_source
from engine.nmt.model import count_parameters
from engine.nmt.pairs import as_pairs, encode_pairs, pack_memory
from engine.nmt.prefixmemo import memo_for
from engine.nmt.results import Term, TranslationRequest, TranslationResult, join_parts, words_result  # noqa: F401 - TranslationRequest: the API's
from engine.nmt.search import Hypothesis, beam_search
from engine.nmt.suggesting import EditorRequests
from engine.nmt.termforms import TermForms
from engine.nmt.threads import use as use_threads
from engine.nmt.vocab import EOS


class Translator(EditorRequests):
    """A loaded model with text-level methods (and the editor's requests: :mod:`engine.nmt.suggesting`)."""

    def __init__(self, loaded: LoadedModel, *, quantize: bool = False):
        self.loaded = loaded
        self.model = for_inference(loaded.model, quantize)
        self.quantized = quantize
        self.device = next(loaded.model.parameters()).device
        self.knn = loaded.knn     # the nearest-neighbour memory's calibration (None: not calibrated)
        self._doc_cache = None  # sentence summaries of document context (built on first use)
        self.forms = TermForms(loaded)  # glossary terms' token forms, the vocabulary's word starts

    @classmethod
    def load(cls, folder: str | Path, *, device: str = "cpu", quantize: bool = False,
             threads: int | None = 0) -> "Translator":
        """``threads``: CPU threads for translating (0: :mod:`engine.nmt.threads` decides; None: as set)."""
        if threads is not None:
            use_threads(threads)
        with FilledFromFile():  # every tensor comes from the file: no random initialisation
            loaded = load_model(folder, device=device)
        return cls(loaded, quantize=quantize)

    # ---------------------------------------------------------------- info
    def info(self) -> dict:
        cfg = self.loaded.cfg
        man = self.loaded.manifest
        return {
            "src_lang": cfg.data.src_lang, "tgt_lang": cfg.data.tgt_lang,
            "options": cfg.to_dict()["model"],
            "parameters": count_parameters(self.loaded.model),
            "vocab": {"joint": cfg.data.joint_vocab, "src": len(self.loaded.src_vocab),
                      "tgt": len(self.loaded.tgt_vocab)},
            "best_checkpoint": man.get("best"), "best_step": man.get("best_step"),
            "best_dev_bleu": man.get("best_dev_bleu"), "folder": str(self.loaded.folder),
        }

    # ---------------------------------------------------------------- memory
    def memory_kind(self, mode: str = "auto") -> str:
        """The memory a translation with retrieved pairs reads: ``knn``, ``learned`` or ``none``.

        ``auto``: the learned memory for a model trained with one where its calibration measured
        it better on the model's dev set (``knn.json``, ``auto``), otherwise the nearest-neighbour
        memory; a model with neither reads no pairs.  Naming a memory the model lacks is a
        :class:`~engine.errors.ModelError`."""
        if mode not in MEMORY_MODES:
            raise ValueError(f"memory mode {mode!r}: expected one of {', '.join(MEMORY_MODES)}")
        learned = memory_source(self.model) is not None
        if mode == "learned" and not learned:
            raise ModelError(f"{self.loaded.folder}: this model has no learned memory (model.memory = none); "
                             "use --memory knn")
        if mode == "knn" and self.knn is None:
            raise ModelError(f"{self.loaded.folder}: the nearest-neighbour memory is not calibrated for this model "
                             f"(no {KNN_FILE}); run `verso knn calibrate`")
        if mode != "auto":
            return mode
        if self.knn is not None and not (learned and self.knn.auto == "learned"):
            return "knn"
        return "learned" if learned else "none"

    def memory_in_effect(self, mode: str = "auto") -> str:
        """:meth:`memory_kind`, falling back to ``auto`` where the model lacks the memory named."""
        try:
            return self.memory_kind(mode)
        except ModelError:
            return self.memory_kind("auto")

    # ---------------------------------------------------------------- translate
    def _src_ids(self, text: str) -> list[int]:
        return self.loaded.src_vocab.encode(text) + [EOS]

    def translate(self, texts: list[str], *, beam: int = 5, alpha: float = 1.0, max_ratio: float = 3.0,
                  prefixes: list[str] | None = None, batch_size: int = 32, memories: list | None = None,
                  tm=None, k: int = 4, coverage: bool = False, min_score: float = 0.0,
                  context: list[list[str]] | None = None,
                  split_long: int | None = None, exact_matches: bool = False,
                  terms: list[list] | None = None, terms_mode: str = "enforce",
                  memory_mode: str = "auto", knn_k: int | None = None, stop=None,
                  best_of_both: bool = True) -> list[TranslationResult]:
        """Translate sentences.  ``prefixes``: per sentence the start of the
        translation the user typed ("" for none); the result begins with it.
        ``memories`` gives per sentence the retrieved pairs the model's memory
        reads ((source, target) tuples, TM matches or RetrievedPairs), or ``tm``
        (a TranslationMemory) is searched for them (top-``k``, or Algorithm 1
        with ``coverage``; pairs scoring below ``min_score`` are then left out
        -- see ``retrieval.MEMORY_MIN_SCORE``); ``memory_mode`` says which
        memory reads them (:meth:`memory_kind`: the nearest-neighbour memory,
        ``knn_k`` nearest slots, or the learned one; ``none``: the pairs are
        not read).  A sentence without pairs is translated exactly as without
        a memory.
        Document-context models: ``context`` gives per sentence the sources of
        the previous segments of its document, oldest first (``[]`` at a
        document start; the last ``doc_k`` are used); other models ignore it.
        An all-caps sentence is read in sentence case and its translation
        written in capitals (:mod:`engine.nmt.casing`), unless the typed prefix
        has lower-case letters; ``tokens`` keep the pieces the model saw.
        A sentence of ``split_long`` subwords or more (default: the training
        length limit ``data.max_len``; 0: never) without a typed prefix is cut
        at sentence ends and clause marks (:mod:`engine.nmt.longsplit`) and
        its pieces translated one by one, each with the sentence's memory
        pairs and context; the result joins them (``tokens`` then hold one
        ``</s>`` per piece).
        ``exact_matches``: a sentence (without a typed prefix) whose memory
        holds a 100 % match (score 1.0: same words, case and punctuation)
        gets that pair's target verbatim, as CAT tools pre-translate; the
        model reads it teacher-forced, with the memory, for the alignment,
        gates and copy report, and ``exact_match`` names the pair.
        ``terms``: per sentence the terms its translation must contain (glossary terms, lexically
        constrained beam search, :mod:`engine.nmt.search`; ``terms_mode="prefer"``: a bonus
        instead of a rule), each a target string, a :class:`Term` or a glossary ``TermHit``: a
        term with a source span is written where the attention is on the source term, one with
        several targets (or ``inflect``) is met by any of its forms; a long sentence with terms is
        cut into pieces only when every term has a span (each piece gets the terms in it).
        ``stop``: a function the searches ask before every step; once it says True they end with
        :class:`~engine.nmt.search.Stopped` (the editor's answer nobody waits for any more)."""
        if prefixes and any(prefixes) and best_of_both:  # never worse than the suggestion (engine.nmt.completion)
            return complete(self, texts, **{k: v for k, v in locals().items() if k not in ("self", "texts", "best_of_both")})
        memory = memories
        kind = self.memory_kind(memory_mode) if (memory is not None or tm is not None) else "none"
        if kind == "none":
            if memory_mode == "auto" and (memory is not None or tm is not None) and memory_source(self.model) is None:
                raise ModelError(f"{self.loaded.folder}: this model reads no TM pairs (no learned memory, and the "
                                 f"nearest-neighbour memory is not calibrated: no {KNN_FILE}); run `verso knn "
                                 "calibrate`, or translate without a TM")
            memory = tm = None
        if tm is not None and memory is None:
            from engine.nmt.retrieval import readable, retrieve

            memory = [readable(retrieve(tm, t, k=k, coverage=coverage), min_score) for t in texts]
        if memory is not None and len(memory) != len(texts):
            raise ValueError(f"{len(texts)} sentences but {len(memory)} memory lists")
        if exact_matches and memory is not None:
            exact = {i: j for i, m in enumerate(memory)
                     if not (prefixes and prefixes[i]) and (j := _exact_index(m)) is not None}
            if exact:
                return self._with_exact(texts, exact, beam=beam, alpha=alpha, max_ratio=max_ratio,
                                        prefixes=prefixes, batch_size=batch_size, memory=memory,
                                        context=context, split_long=split_long, memory_mode=kind, knn_k=knn_k,
                                        stop=stop)
        limit = self.loaded.cfg.data.max_len if split_long is None else split_long
        kw = dict(beam=beam, alpha=alpha, max_ratio=max_ratio, batch_size=batch_size, kind=kind, knn_k=knn_k,
                  stop=stop)
        if terms is not None:
            if len(terms) != len(texts):
                raise ValueError(f"{len(texts)} sentences but {len(terms)} term lists")
            if any(terms):
                terms = [[Term.of(x) for x in ts] for ts in terms]
                if not limit or any(t.span is None for ts in terms for t in ts):  # not known where: kept whole
                    return self._translate(texts, prefixes=prefixes, memory=memory, context=context, terms=terms,
                                           terms_mode=terms_mode, **kw)
            else:
                terms = None
        if limit:
            plans = [self._cut(t, limit) if not (prefixes and prefixes[i]) else ([t], [""])
                     for i, t in enumerate(texts)]
            piece_terms = None
            if terms is not None:
                plans, piece_terms = zip(*(terms_of_pieces(t, plan, ts) for t, plan, ts in zip(texts, plans, terms)))
            if any(len(p) > 1 for p, _ in plans):
                owner = [i for i, (p, _) in enumerate(plans) for _ in p]
                flat = [x for p, _ in plans for x in p]
                out = self._translate(
                    flat, prefixes=[prefixes[i] for i in owner] if prefixes else None,
                    memory=[memory[i] for i in owner] if memory is not None else None,
                    context=[context[i] for i in owner] if context is not None else None,
                    terms=[ts for pt in piece_terms for ts in pt] if piece_terms else None, terms_mode=terms_mode,
                    **kw)
                results, n = [], 0
                for parts, gaps in plans:
                    results.append(out[n] if len(parts) == 1 else join_parts(out[n:n + len(parts)], gaps))
                    n += len(parts)
                return results
        return self._translate(texts, prefixes=prefixes, memory=memory, context=context, terms=terms,
                               terms_mode=terms_mode, **kw)

    def _with_exact(self, texts: list[str], exact: dict[int, int], *, memory: list,
                    prefixes: list[str] | None, context: list[list[str]] | None, **kw) -> list[TranslationResult]:
        """:meth:`translate` where the sentences ``exact`` (index -> its 100 % pair) take their pair's target."""
        rest = [i for i in range(len(texts)) if i not in exact]
        out: list[TranslationResult | None] = [None] * len(texts)
        if rest:
            for i, r in zip(rest, self.translate(
                    [texts[i] for i in rest], memories=[memory[i] for i in rest],
                    prefixes=[prefixes[i] for i in rest] if prefixes else None,
                    context=[context[i] for i in rest] if context is not None else None, **kw)):
                out[i] = r
        rows = sorted(exact)
        targets = [as_pairs(memory[i])[exact[i]].target for i in rows]
        forced = self._translate([texts[i] for i in rows], beam=1, alpha=kw["alpha"], max_ratio=kw["max_ratio"],
                                 prefixes=targets, batch_size=kw["batch_size"], memory=[memory[i] for i in rows],
                                 context=[context[i] for i in rows] if context is not None else None,
                                 close_prefixes=True, kind=kw["memory_mode"], knn_k=kw["knn_k"], stop=kw["stop"])
        for i, target, r in zip(rows, targets, forced):
            r.text, r.exact_match = target, exact[i]
            out[i] = r
        return out  # type: ignore[return-value]

    def _cut(self, text: str, limit: int) -> tuple[list[str], list[str]]:
        """(pieces, gaps) of ``text`` such that each piece is under ``limit`` subwords where it can be."""
        from engine.nmt.longsplit import split_long

        sv = self.loaded.src_vocab
        return split_long(text, lambda s: len(sv.encode(casing.fold_if_caps(s))) < limit,
                          self.loaded.cfg.data.src_lang)

    def _translate(self, texts: list[str], *, beam: int, alpha: float, max_ratio: float,
                   prefixes: list[str] | None, batch_size: int, memory: list | None,
                   context: list[list[str]] | None, close_prefixes: bool = False,
                   terms: list[list] | None = None, terms_mode: str = "enforce",
                   kind: str = "none", knn_k: int | None = None, stop=None) -> list[TranslationResult]:
        """:meth:`translate` of sentences as they are (retrieval done, no cutting), ``memory``
        read by the memory ``kind`` (``knn``, ``learned``; ``none``: not read).
        ``close_prefixes``: each prefix is the whole translation (``</s>`` forced after it)."""
        if kind == "none":
            memory = None
        caps = [casing.is_all_caps(t) and not (prefixes and prefixes[i] and any(c.islower() for c in prefixes[i]))
                for i, t in enumerate(texts)]
        if any(caps):
            texts = [casing.fold(t) if c else t for t, c in zip(texts, caps)]
            if prefixes:
                prefixes = [casing.fold(p) if c and p else p for p, c in zip(prefixes, caps)]
        if context is not None:  # every all-caps context sentence, whatever the sentence it precedes
            context = [[casing.fold_if_caps(x) for x in ctx] for ctx in context]
        if memory is not None:
            memory = [as_pairs(m) for m in memory]
            read = [[replace(p, source=casing.fold_if_caps(p.source), target=casing.fold_if_caps(p.target))
                     for p in m] if c else m for m, c in zip(memory, caps)]
            mem_ids = [encode_pairs(m, self.loaded.src_vocab, self.loaded.tgt_vocab) for m in read]
        results: list[TranslationResult | None] = [None] * len(texts)
        todo = []
        for i, t in enumerate(texts):
            if t.strip():
                todo.append(i)
            else:
                results[i] = TranslationResult("", 0.0)
        ids = {i: self._src_ids(texts[i]) for i in todo}
        typed = {i: ((prefixes[i], "") if close_prefixes else split_typed(prefixes[i])) if prefixes and prefixes[i]
                 else ("", "") for i in todo}  # (whole words, the word typed half way)
        pre = {i: (self.loaded.tgt_vocab.encode(typed[i][0]) + ([EOS] if close_prefixes else [])
                   if typed[i][0] else []) for i in todo}
        cons = {i: self.forms.constraints(texts[i], ids[i], terms[i], caps[i]) if terms and terms[i] else ([], [])
                for i in todo}
        todo.sort(key=lambda i: len(ids[i]))
        for k in range(0, len(todo), batch_size):
            chunk = todo[k:k + batch_size]
            src, mask = pad_sources([ids[i] for i in chunk])
            src, mask = src.to(self.device), mask.to(self.device)
            pfx = [pre[i] for i in chunk] if any(pre[i] for i in chunk) else None
            mb = (pack_memory([mem_ids[i] for i in chunk], self.device, with_eos=kind == "knn",
                              scores=[[p.score for p in memory[i]] for i in chunk]) if memory is not None else None)
            kw = {}
            if mb is not None:
                kw = {"knn": KnnInput(mb, self.knn.with_k(knn_k))} if kind == "knn" else {"memory": mb}
            kw.update(self._doc_inputs(context, chunk))
            con = [cons[i][0] for i in chunk] if any(cons[i][0] for i in chunk) else None
            starts, glue, same_word = self.forms.word_starts()
            parts, one = [typed[i][1] for i in chunk], chunk[0]
            memo = memo_for(self, (ids[one], beam, kind, knn_k, context and context[one], memory and (
                mem_ids[one], [p.score for p in memory[one]]))) if len(chunk) == 1 else None  # refreshes reuse
            hyps = beam_search(self.model, src, mask, beam=max(1, beam), alpha=alpha, max_ratio=max_ratio,
                               prefixes=pfx, constraints=con, constraint_mode=terms_mode,
                               constraint_spans=[cons[i][1] for i in chunk] if con else None,
                               word_starts=starts, glue=glue if con else frozenset(), same_word=same_word,
                               rules=[TypedWord(parts, self.forms.piece_texts())] if any(parts) else None,
                               stop=stop, memo=memo, **kw)
            for i, h in zip(chunk, hyps):
                results[i] = self._result(ids[i], h)
            if memory is not None:
                traces = ((traces_of(hyps) or trace_copies(self.model, src, mask, [h.tokens for h in hyps], **kw))
                          if mb is not None else [None] * len(hyps))
                annotate([results[i] for i in chunk], traces, [memory[i] for i in chunk],
                         [mem_ids[i] for i in chunk], self.loaded.tgt_vocab)
                for i in chunk:
                    results[i].memory_kind = kind
        for i, c in enumerate(caps):
            if c and results[i] is not None:
                r = results[i]
                r.text, r.words = casing.restore(r.text), [casing.restore(w) for w in r.words]
                r.src_words = [casing.restore(w) for w in r.src_words]
                if r.memory:
                    r.memory = [replace(ref, word=casing.restore(ref.word))
                                if ref is not None and casing.is_all_caps(memory[i][ref.entry_index].target) else ref
                                for ref in r.memory]
        return results  # type: ignore[return-value]

    def _doc_inputs(self, context: list[list[str]] | None, rows: list[int]) -> dict:
        """``{"doc": DocBatch}`` of the sentences ``rows`` for a document-context model, else ``{}``."""
        if context is None:
            return {}
        if self._doc_cache is None:
            from engine.nmt.doccontext import SummaryCache, find_doc_context

            source = find_doc_context(self.model)
            if source is None:
                return {}
            self._doc_cache = SummaryCache(source, self.loaded.src_vocab)
        return {"doc": self._doc_cache.doc_batch([context[i] for i in rows], self.device)}

    def translate_document(self, texts: list[str], doc_ids: list[str] | None = None,
                           **kw) -> list[TranslationResult]:
        """Translate sentences in document order; each one's context is the previous
        sentences of its document (``doc_ids``: one per sentence; None: one document)."""
        from engine.nmt.documents import context_texts

        k = self.loaded.cfg.model.doc_k
        ctx = context_texts(texts, doc_ids if doc_ids is not None else [""] * len(texts), k)
        return self.translate(texts, context=ctx, **kw)

    def _result(self, src_ids: list[int], h: Hypothesis) -> TranslationResult:
        sv, tv = self.loaded.src_vocab, self.loaded.tgt_vocab
        src_pieces = sv.pieces(src_ids[:-1]) + ["</s>"]
        tgt_ids = [t for t in h.tokens if t != EOS]
        tgt_pieces = tv.pieces(tgt_ids) + (["</s>"] if h.tokens and h.tokens[-1] == EOS else [])
        return words_result(src_pieces, tgt_pieces, tv.decode(tgt_ids), h.score, h.attn, h.gates)

    # ---------------------------------------------------------------- forced decoding
    def forced(self, srcs: list[str], tgts: list[str], *, batch_size: int = 32,
               context: list[list[str]] | None = None, memories: list | None = None,
               memory_mode: str = "auto") -> list[TranslationResult]:
        """Teacher-forced "translations" of given targets (:func:`engine.nmt.forcing.forced_results`)."""
        return forced_results(self, srcs, tgts, batch_size=batch_size, context=context, memories=memories,
                              memory_mode=memory_mode)

    def score(self, srcs: list[str], tgts: list[str], *, context: list[list[str]] | None = None,
              memories: list | None = None, memory_mode: str = "auto") -> list[float]:
        """Total log-probability of each target given its source (and document context, and
        retrieved pairs read by a memory)."""
        return [r.score for r in self.forced(srcs, tgts, context=context, memories=memories,
                                             memory_mode=memory_mode)]

    def align(self, srcs: list[str], tgts: list[str]) -> list[list[tuple[int, int]]]:
        """Word alignments (source index, target index), 0-based, one link per
        target word to its most-attended source word (by forced decoding).
        Words are whitespace-separated tokens of the given texts."""
        links = []
        for s, t, r in zip(srcs, tgts, self.forced(srcs, tgts)):
            n_src, n_tgt = len(s.split()), len(t.split())
            pairs = [(j, i) for i, j in enumerate(r.links) if i < n_tgt and j < n_src]
            links.append(pairs)
        return links


def _exact_index(pairs) -> int | None:
    """Index of the first 100 % match (score 1.0) with a non-empty target among retrieved ``pairs``."""
    for j, p in enumerate(as_pairs(pairs)):
        if p.score >= 1.0 - 1e-9 and p.target.strip():
            return j
    return None
