"""The editor's requests of a :class:`~engine.nmt.translator.Translator` (mixed into it): ``suggest``
(one :class:`~engine.nmt.results.TranslationRequest`) and ``suggest_many`` (the rows ahead of the
translator, one batch).  The engine process (engine/nmt/server.py) and
:class:`~engine.nmt.remote.RemoteTranslator` speak the same two methods."""
from __future__ import annotations

from engine.nmt.completion import remember_plain
from engine.nmt.results import TranslationRequest, TranslationResult

#: what ``suggest`` passes one list per sentence of (the rest is shared by a batch)
_PER_SENTENCE = ("terms", "prefixes", "memories", "context")


class EditorRequests:
    """``suggest`` and ``suggest_many`` for :class:`~engine.nmt.translator.Translator`."""

    def _options(self, req: TranslationRequest, beam: int, memory_mode: str, terms_mode: str, doc: bool,
                 stop) -> dict:
        return req.options(beam=beam, memory_kind=self.memory_in_effect(memory_mode) if req.pairs else "none",
                           terms_mode=terms_mode, reads_context=doc, stop=stop)

    def suggest(self, req: TranslationRequest, *, beam: int = 5, memory_mode: str = "auto",
                terms_mode: str = "off", stop=None) -> TranslationResult:
        """The suggestion for one :class:`TranslationRequest`: the pairs read by the memory
        ``memory_mode`` names (or the one the model has), the document context when the model
        reads it, the glossary terms as ``terms_mode`` says (off, prefer, enforce); ``stop``: see
        :meth:`~engine.nmt.translator.Translator.translate`."""
        from engine.nmt.doccontext import find_doc_context

        kw = self._options(req, beam, memory_mode, terms_mode, find_doc_context(self.model) is not None, stop)
        return remember_plain(self, req.source, kw, self.translate([req.source], **kw)[0])  # completions reuse it

    def suggest_many(self, reqs: list[TranslationRequest], *, beams: list[int], memory_mode: str = "auto",
                     terms_mode: str = "off", stop=None) -> list[TranslationResult]:
        """:meth:`suggest` of each request (its own beam), those asking the same search (beam, memory,
        terms mode, inputs) in one batched ``translate``: the demo model on the 2-core VM, one thread,
        a sentence alone costs 40-47 ms of CPU, one more in a batch ~20 ms (benchmarks/nmt_speed.py).
        Each result is remembered for completions as its own ``suggest`` would remember it."""
        from engine.nmt.doccontext import find_doc_context

        doc = find_doc_context(self.model) is not None
        groups: dict[tuple, list[tuple[int, dict]]] = {}
        for i, (req, beam) in enumerate(zip(reqs, beams, strict=True)):
            kw = self._options(req, beam, memory_mode, terms_mode, doc, stop)
            shared = tuple(sorted((k, v) for k, v in kw.items() if k not in _PER_SENTENCE and k != "stop"))
            groups.setdefault((shared, tuple(k for k in _PER_SENTENCE if k in kw)), []).append((i, kw))
        out: list = [None] * len(reqs)
        for members in groups.values():
            kw = {k: (v if k not in _PER_SENTENCE else [x for _i, m in members for x in m[k]])
                  for k, v in members[0][1].items()}
            for (i, one), res in zip(members, self.translate([reqs[i].source for i, _ in members], **kw)):
                out[i] = remember_plain(self, reqs[i].source, one, res)
        return out
