"""Two files to an alignment, the whole way (what ``verso align-docs`` and File ▸ Align Documents run)."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from engine.align.aligner import Alignment, align_documents
from engine.align.docs import read_for_alignment


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
            if stop is not None and stop():
                return None
            mt = translate([s.text for s in src.sentences], folder, progress=progress)
            if mt is None:
                return None
    if stop is not None and stop():
        return None
    al = align_documents(src, tgt, mt=mt, why=why, stop=stop)
    return None if stop is not None and stop() else al
