"""Cut a segment longer than anything the model was trained on into pieces it can read.

Training drops pairs of ``data.max_len`` subwords or more, so a longer source
is a length the model has never seen; an attention RNN on it drifts
(repeated phrases, dropped clauses).  JRC-Acquis segments often hold two
sentences or a chain of ``whereas ...; whereas ...`` clauses.  The translator
therefore cuts such a segment first at its sentence ends (the segmenter's
rules for the source language), then at clause marks (``;``, then ``:``) --
each time at the mark nearest the middle -- until every piece fits, and
translates the pieces one by one.  A piece without such a mark stays as it is.

Loss-free: ``"".join(p + g for p, g in zip(pieces, gaps))`` is the segment.
Pure Python (no torch).
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from engine.nmt.results import Term

__all__ = ["split_long", "terms_of_pieces", "CLAUSE_MARKS"]

CLAUSE_MARKS = (";", ":")


def split_long(text: str, fits: Callable[[str], bool], lang: str,
               marks: tuple[str, ...] = CLAUSE_MARKS) -> tuple[list[str], list[str]]:
    """``(pieces, gaps)``: ``text`` cut until each piece ``fits`` (or has no cut left).

    ``gaps[i]`` is the whitespace after ``pieces[i]`` (the last gap is ``""``
    unless ``text`` ends with whitespace).  A text that fits is one piece.

    >>> split_long("One two. Three four.", lambda s: len(s.split()) <= 2, "en")
    (['One two.', 'Three four.'], [' ', ''])
    """
    if fits(text):
        return [text], [""]
    from engine.segmentation import segment_text

    seg = segment_text(text, lang)
    pieces: list[str] = []
    gaps: list[str] = []
    if not seg.sentences:
        return [text], [""]
    lead = seg.gaps[0]
    for n, s in enumerate(seg.sentences):
        ps, gs = _cut_clauses(s, fits, marks)
        if n == 0 and lead:
            ps[0] = lead + ps[0]
        gs[-1] = seg.gaps[n + 1]
        pieces += ps
        gaps += gs
    return pieces, gaps


def _cut_clauses(text: str, fits: Callable[[str], bool], marks: tuple[str, ...]) -> tuple[list[str], list[str]]:
    if fits(text):
        return [text], [""]
    for mark in marks:
        cuts = [m.end() for m in re.finditer(re.escape(mark) + r"\s+", text) if m.end() < len(text)]
        if not cuts:
            continue
        mid = len(text) / 2
        end = min(cuts, key=lambda c: abs(c - mid))
        start = len(text[:end].rstrip())
        left, gap, right = text[:start], text[start:end], text[end:]
        lp, lg = _cut_clauses(left, fits, marks)
        rp, rg = _cut_clauses(right, fits, marks)
        lg[-1] = gap
        return lp + rp, lg + rg
    return [text], [""]


def terms_of_pieces(text: str, plan: tuple[list[str], list[str]], terms: list[Term]
                     ) -> tuple[tuple[list[str], list[str]], list[list[Term]]]:
    """A long sentence's cut (pieces, gaps) and each piece's terms, their spans made relative to the
    piece; the sentence kept whole where a term's source spans two pieces (or a piece is not found)."""
    parts, _ = plan
    offs, pos = [], 0
    for p in parts:
        k = text.find(p, pos)
        if k < 0:
            return ([text], [""]), [terms]
        offs.append(k)
        pos = k + len(p)
    out: list[list[Term]] = [[] for _ in parts]
    for t in terms:
        a, b = t.span  # type: ignore[misc]
        j = next((j for j, o in enumerate(offs) if o <= a < o + len(parts[j])), None)
        if j is None or b > offs[j] + len(parts[j]):
            return ([text], [""]), [terms]
        out[j].append(replace(t, span=(a - offs[j], b - offs[j])))
    return plan, out
