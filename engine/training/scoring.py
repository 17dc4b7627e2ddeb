"""Before/after scores on the held-aside test documents, by fuzzy band.

Three systems, as the translator meets them: the TM copy (the target of the
best match, what a CAT tool offers without MT), the model alone, and the
model reading the TM's pairs (its memory: ``auto`` picks the one the model's
calibration chose).  The TM is the training pairs (never a test document's
own sentences); pairs are retrieved as the editor retrieves them (top 2 at
the memory's minimum match).  BLEU and chrF (sacrebleu) overall and per band
of the best match's score.
"""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

from engine.training.data import Pair

#: sentences translated between two progress reports and cancel checks (a chunk of 16 on the
#: CPU with beam 5 takes about a second for a small model: the run hears a cancel within it)
CHUNK = 16
ProgressFn = Callable[[dict], None]


class Cancelled(Exception):
    """The run was asked to stop while scoring."""


def retrieved_pairs(folder: Path, files: dict, train: list[Pair], test: list[Pair], src_lang: str,
                    tgt_lang: str, *, k: int = 2) -> tuple[list[list], list[float]]:
    """Per test sentence: the pairs the memory reads, and the best match's score (0: none)."""
    from engine.nmt.retrieval import MEMORY_MIN_SCORE, TrainingRetrieval

    r = TrainingRetrieval(folder / "memory", files["train.src"], files["train.tgt"],
                          [p.source for p in train], [p.target for p in train], k=k,
                          src_lang=src_lang, tgt_lang=tgt_lang)
    try:
        found = [r.pairs(n) for n in r.query([p.source for p in test], k=k)]
    finally:
        r.close()
    best = [f[0].score if f else 0.0 for f in found]
    return [[p for p in f if p.score >= MEMORY_MIN_SCORE] for f in found], best


def band_table(systems: dict[str, list[str]], refs: list[str], best: list[float]) -> dict:
    """``{"overall": {...}, "bands": [...]}`` with BLEU and chrF of every system."""
    from sacrebleu.metrics import CHRF

    from engine.nmt.retrieval import FUZZY_BANDS, bleu_by_band

    out = bleu_by_band(systems, refs, best)

    def chrf(idx: list[int]) -> dict:
        r = [refs[i] for i in idx]
        return {n: round(CHRF().corpus_score([h[i] for i in idx], [r]).score, 2) for n, h in systems.items()}

    out["overall"]["chrf"] = chrf(list(range(len(refs))))
    for row in out["bands"]:
        lo, hi = next((lo, hi) for lo, hi, name in FUZZY_BANDS if name == row["band"])
        row["chrf"] = chrf([i for i, s in enumerate(best) if lo <= s < hi])
    return out


def _translate(tr, srcs: list[str], system: str, progress: ProgressFn, cancel: threading.Event | None,
               **kw) -> list[str]:
    """``tr.translate`` chunk by chunk: ``progress`` after each, :class:`Cancelled` when ``cancel`` is set."""
    memories = kw.pop("memories", None)
    out: list[str] = []
    for k in range(0, len(srcs), CHUNK):
        if cancel is not None and cancel.is_set():
            raise Cancelled(system)
        more = {"memories": memories[k:k + CHUNK]} if memories is not None else {}
        out += [r.text for r in tr.translate(srcs[k:k + CHUNK], **kw, **more)]
        progress({"system": system, "done": len(out), "total": len(srcs)})
    return out


def score_model(model_dir: str | Path | None, test: list[Pair], memories: list[list], best: list[float], *,
                beam: int = 5, device: str = "cpu", progress: ProgressFn | None = None,
                cancel: threading.Event | None = None) -> dict:
    """The band table of the TM copy, and of the model alone and with its memory (when a model is given).
    ``progress({"system", "done", "total"})`` after each chunk of translations; :class:`Cancelled` is
    raised at the next chunk once ``cancel`` is set."""
    progress = progress or (lambda ev: None)
    refs = [p.target for p in test]
    # the TM copy: the best match from the editor's minimum match up (the pairs the memory reads)
    systems = {"tm_copy": [m[0].target if m else "" for m in memories]}
    memory = "none"
    if model_dir is not None:
        from engine.nmt.translator import Translator

        tr = Translator.load(model_dir, device=device)
        srcs = [p.source for p in test]
        systems["model"] = _translate(tr, srcs, "model", progress, cancel, beam=beam)
        memory = tr.memory_kind("auto")
        if memory != "none":
            systems["model_memory"] = _translate(tr, srcs, "model_memory", progress, cancel, beam=beam,
                                                 memories=memories, memory_mode=memory)
    table = band_table(systems, refs, best)
    table["memory"] = memory
    table["beam"] = beam
    return table
