"""The model side of alignment: the source sentences translated by the project's model (or the one
named), through engine.nmt's public Translator, imported only here and only when a model serves the
pair -- the length aligner never loads torch."""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from engine.inline import strip_tags

BATCH = 64


def find_model(src_lang: str, tgt_lang: str, folder: str | Path | None = None) -> tuple[Path | None, str]:
    """(model folder, "") when a model translates src_lang -> tgt_lang, else (None, why in one line)."""
    from engine.langs import pair_text
    from engine.resources import model_choice, model_pair, pair_served

    if folder is not None:
        cands = [Path(folder)]
    else:
        choice = model_choice(None)
        cands = [choice.folder] if choice.folder is not None else []
    for c in cands:
        pair = model_pair(c)
        if pair_served(pair, src_lang, tgt_lang):
            return c, ""
        if pair is not None:
            return None, f"the model {c.name} translates {pair_text(*pair)}, not {pair_text(src_lang, tgt_lang)}"
    return None, "no model found"


def translate(sentences: Sequence[str], folder: Path, *, progress: Callable[[int, int], bool] | None = None,
              threads: int | None = 0) -> list[str] | None:
    """Greedy translations of ``sentences`` (tags dropped: the similarity is over words);
    None when ``progress`` returned False (cancelled)."""
    from engine.nmt.translator import Translator

    tr = Translator.load(folder, threads=threads)
    plain = [strip_tags(s) for s in sentences]
    # Longest first: a batch of similar lengths decodes in as many steps as its longest sentence.
    order = sorted(range(len(plain)), key=lambda i: -len(plain[i]))
    out: list[str] = [""] * len(plain)
    for b in range(0, len(order), BATCH):
        idx = order[b:b + BATCH]
        for i, r in zip(idx, tr.translate([plain[i] for i in idx], beam=1, batch_size=BATCH)):
            out[i] = r.text
        if progress is not None and progress(min(b + BATCH, len(order)), len(order)) is False:
            return None
    return out
