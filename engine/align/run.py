"""Two files to an alignment, the whole way (what ``verso align-docs`` and File ▸ Align Documents run)."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from engine.align.aligner import Alignment, align_documents
from engine.align.docs import read_for_alignment
from engine.align.dp import Link

#: a length-only link below this confidence is looked at again with the model's translations
UNSURE = 0.9
#: ... together with this many source sentences either side (the errors of a misplaced link spread)
AROUND = 1


def unsure_sentences(links: list[Link], n: int, unsure: float = UNSURE, around: int = AROUND) -> list[int]:
    """The source sentences to translate: those near a link the length aligner is not sure of.
    A link with no source sentence counts at the source position it sits at."""
    want: set[int] = set()
    pos = 0
    for x in links:
        if x.src:
            pos = x.src[0]
        if x.confidence < unsure:
            last = x.src[-1] if x.src else pos
            want.update(range(max(0, pos - around), min(n, last + around + 1)))
    return sorted(want)


def align_files(src_path: str | Path, tgt_path: str | Path, src_lang: str, tgt_lang: str, *, use_model: bool = True,
                model: str | Path | None = None, progress: Callable[[int, int], bool] | None = None,
                stop: Callable[[], bool] | None = None) -> Alignment | None:
    """Read, translate (where a model serves the pair and ``use_model``), align.

    ``progress(done, total)``: source sentences translated so far; returning False cancels.
    ``stop()``: asked between steps; True cancels.  None when cancelled."""
    src = read_for_alignment(src_path, src_lang)
    tgt = read_for_alignment(tgt_path, tgt_lang)
    mt, why = None, "model not used"
    if use_model:
        from engine.align.model import find_model, translate

        folder, why = find_model(src_lang, tgt_lang, model)
        if folder is not None:
            # The length aligner first; the model translates only the sentences around its unsure
            # links (the greedy translation is the slow part: benchmarks/RESULTS.md).
            first = align_documents(src, tgt, stop=stop)
            todo = unsure_sentences(first.links, len(src.sentences))
            if stop is not None and stop():
                return None
            done = translate([src.sentences[i].text for i in todo], folder, progress=progress) if todo else []
            if done is None:
                return None
            mt = [None] * len(src.sentences)
            for i, t in zip(todo, done):
                mt[i] = t
    if stop is not None and stop():
        return None
    al = align_documents(src, tgt, mt=mt, why=why, stop=stop)
    return None if stop is not None and stop() else al
