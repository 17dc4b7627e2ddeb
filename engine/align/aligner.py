"""Align two documents' sentences: paragraphs as hard anchors where both have as many, the bead
lattice of engine.align.dp inside, costs from engine.align.scoring.  No torch here: the model's
translations (engine.align.model) come in as plain strings, or not at all (length and anchors)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from engine.align.docs import AlignDoc
from engine.errors import VersoError
from engine.align.dp import Link, TooLarge, align
from engine.align.scoring import BeadCost


@dataclass
class Alignment:
    """The links of ``src`` to ``tgt``; ``method``: "model" (MT similarity + length + anchors) or
    "length" (Gale-Church + anchors); ``why``: why no model was used ("" when one was)."""

    src: AlignDoc
    tgt: AlignDoc
    links: list[Link] = field(default_factory=list)
    method: str = "length"
    why: str = ""

    def pairs(self) -> list[Link]:
        """The links with a sentence on both sides (1-0 and 0-1 have nothing to store)."""
        return [x for x in self.links if x.src and x.tgt]


def _groups(paragraphs: Sequence[int]) -> list[range]:
    out: list[range] = []
    start = 0
    for i in range(1, len(paragraphs) + 1):
        if i == len(paragraphs) or paragraphs[i] != paragraphs[i - 1]:
            out.append(range(start, i))
            start = i
    return out


def _paragraph_links(src: Sequence[str], tgt: Sequence[str], gs: list[range], gt: list[range],
                     ratio: float) -> tuple[list[range], list[range], float]:
    """Paragraphs of different counts aligned as wholes: per link the source and target sentence ranges,
    and the length ratio found.
    Aligned twice: a paragraph missing from one side skews the length ratio of the two texts, so the
    second pass uses the ratio of the paragraphs the first pass linked 1-1."""
    ps = [" ".join(src[i] for i in r) for r in gs]
    pt = [" ".join(tgt[j] for j in r) for r in gt]
    links = align(len(gs), len(gt), BeadCost(ps, pt, ratio=ratio))
    one = [x for x in links if len(x.src) == 1 and len(x.tgt) == 1]
    ls, lt = sum(len(ps[x.src[0]]) for x in one), sum(len(pt[x.tgt[0]]) for x in one)
    if ls and lt and abs(lt / ls - ratio) > 0.05 * ratio:
        ratio = lt / ls
        links = align(len(gs), len(gt), BeadCost(ps, pt, ratio=ratio))
    out_s: list[range] = []
    out_t: list[range] = []
    for x in links:
        out_s.append(range(gs[x.src[0]].start, gs[x.src[-1]].stop) if x.src else range(0))
        out_t.append(range(gt[x.tgt[0]].start, gt[x.tgt[-1]].stop) if x.tgt else range(0))
    return out_s, out_t, ratio


def align_texts(src: Sequence[str], tgt: Sequence[str], *, mt: Sequence[str] | None = None,
                src_paragraphs: Sequence[int] | None = None, tgt_paragraphs: Sequence[int] | None = None,
                stop: Callable[[], bool] | None = None) -> list[Link]:
    """Links of ``src`` to ``tgt`` sentences (texts with protected codes), each with a confidence.

    With paragraph numbers for both and the same number of paragraphs, paragraph p of one is
    aligned only with paragraph p of the other (a hard anchor); with different numbers the
    paragraphs are aligned first (the same beads and costs, a paragraph as one text) and the
    sentences inside each paragraph link; without paragraphs, the whole texts at once.
    ``mt``: the source sentences' machine translations (None: length and anchors only).
    ``stop``: asked between paragraphs; True ends the work (returns the links so far).
    """
    ratio = (sum(map(len, tgt)) / sum(map(len, src))) if sum(map(len, src)) and sum(map(len, tgt)) else 1.0
    gs = _groups(src_paragraphs) if src_paragraphs is not None else [range(len(src))]
    gt = _groups(tgt_paragraphs) if tgt_paragraphs is not None else [range(len(tgt))]
    if len(gs) != len(gt):
        gs, gt, ratio = _paragraph_links(src, tgt, gs, gt, ratio)
    links: list[Link] = []
    for rs, rt in zip(gs, gt):
        if stop is not None and stop():
            break
        cost = BeadCost([src[i] for i in rs], [tgt[j] for j in rt],
                        [mt[i] for i in rs] if mt is not None else None, ratio=ratio)
        for x in align(len(rs), len(rt), cost):
            links.append(Link(tuple(rs[i] for i in x.src), tuple(rt[j] for j in x.tgt), x.confidence))
    return links


def align_documents(src: AlignDoc, tgt: AlignDoc, *, mt: Sequence[str] | None = None, why: str = "",
                    stop: Callable[[], bool] | None = None) -> Alignment:
    """Align two read documents (engine.align.docs.read_for_alignment); a pair too large or too unlike
    to align in bounded memory is refused in one line naming both."""
    try:
        links = align_texts([s.text for s in src.sentences], [t.text for t in tgt.sentences], mt=mt,
                            src_paragraphs=src.paragraphs, tgt_paragraphs=tgt.paragraphs, stop=stop)
    except TooLarge as e:
        raise VersoError(f"{src.path} and {tgt.path}: too large or too unlike to align ({e}); "
                         "split them into matching parts") from None
    return Alignment(src, tgt, links, "model" if mt is not None else "length", why)
