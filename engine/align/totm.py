"""Aligned pairs into a TM, through its public import (one transaction, as ``verso tm import``):
origin "aligned", and as TMX-style props the two documents' names and the link's confidence."""
from __future__ import annotations

from typing import Iterable

from engine.align.aligner import Alignment
from engine.align.docs import join
from engine.align.dp import Link
from engine.formats.base import TMUnit

ORIGIN = "aligned"


def units(al: Alignment, links: Iterable[Link], src_lang: str, tgt_lang: str) -> list[TMUnit]:
    """One TM unit per link with sentences on both sides."""
    out = []
    for x in links:
        if not (x.src and x.tgt):
            continue
        s = join([al.src.sentences[i] for i in x.src])
        t = join([al.tgt.sentences[j] for j in x.tgt])
        props = [["x-aligned-source", al.src.name], ["x-aligned-target", al.tgt.name],
                 ["x-align-confidence", f"{x.confidence:.3f}"], ["x-align-method", al.method]]
        out.append(TMUnit({src_lang: s, tgt_lang: t}, {"origin": ORIGIN, "props": props}))
    return out


def above(al: Alignment, min_confidence: float) -> list[Link]:
    """The links worth storing: both sides present and a confidence of at least ``min_confidence``."""
    return [x for x in al.pairs() if x.confidence >= min_confidence]


def add_to_tm(tm, al: Alignment, links: Iterable[Link], src_lang: str, tgt_lang: str):
    """Add ``links`` of ``al`` to ``tm`` (a TranslationMemory) as one import; its ImportResult."""
    return tm.import_units(units(al, links, src_lang, tgt_lang), src_lang=src_lang, tgt_lang=tgt_lang,
                           origin=ORIGIN)
