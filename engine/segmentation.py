"""Sentence segmentation with per-language rules, loss-free.

The rules come from pysbd (the Golden Rules segmenter: abbreviations such as
``Dr.`` or ``z. B.``, numbers such as ``3.50`` or ``3. Mai``, quotations such
as ``« ... »``); a language pysbd does not know is segmented with its English
rules.

Segmentation never loses a character.  :func:`segment_text` returns the
sentences *and* the whitespace around them, so that::

    seg = segment_text(text, "en")
    seg.join() == text          # always

and a writer that replaces sentences by their translations keeps the original
spacing.  Protected inline codes (one private-use character each, see
:mod:`engine.inline`) are never lost; a code right after a sentence end
(``two.</b> Next``) stays with the sentence it closes, and when the tag table
is given, no break falls between an opening code and its closing code.

This module is pure Python (no torch, no Qt).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from engine.inline import Tag, tag_number
from engine.langs import primary

__all__ = ["Segmentation", "segment_text", "split_sentences", "segmenter_language"]


@dataclass(frozen=True)
class Segmentation:
    """Sentences of a text and the whitespace between them.

    ``gaps`` has one more item than ``sentences``: ``gaps[0]`` is the leading
    whitespace, ``gaps[i]`` the whitespace after ``sentences[i - 1]``, so
    ``gaps[0] + sentences[0] + gaps[1] + ... + sentences[-1] + gaps[-1]`` is
    the original text.  A text of whitespace only has no sentence and one gap.
    """

    sentences: tuple[str, ...]
    gaps: tuple[str, ...]

    def join(self, sentences: Sequence[str] | None = None) -> str:
        """The text rebuilt, optionally with other sentences (e.g. translations)
        in place of the original ones, keeping the original whitespace."""
        sents = self.sentences if sentences is None else tuple(sentences)
        if len(sents) != len(self.sentences):
            raise ValueError(f"expected {len(self.sentences)} sentences, got {len(sents)}")
        out = [self.gaps[0]]
        for s, g in zip(sents, self.gaps[1:]):
            out.append(s)
            out.append(g)
        return "".join(out)


def segmenter_language(lang: str | None) -> str:
    """The pysbd rule set used for ``lang`` (its primary subtag, or ``en``)."""
    from pysbd.languages import LANGUAGE_CODES

    code = primary(lang)
    return code if code in LANGUAGE_CODES else "en"


@lru_cache(maxsize=32)
def _segmenter(code: str):
    import pysbd

    return pysbd.Segmenter(language=code, clean=False)


def split_sentences(text: str, lang: str, tags: Sequence[Tag] = ()) -> list[str]:
    """The sentences of ``text`` (without surrounding whitespace).

    ``tags``: the tag table of ``text`` when it holds protected codes; with
    it no sentence break separates an opening code from its closing code.
    Use :func:`segment_text` to keep the whitespace between sentences.
    """
    return list(segment_text(text, lang, tags).sentences)


def segment_text(text: str, lang: str, tags: Sequence[Tag] = ()) -> Segmentation:
    """Split ``text`` into sentences with the rules of ``lang``; loss-free."""
    if not text or text.isspace():
        return Segmentation((), (text,))
    cuts = _pysbd_cuts(text, segmenter_language(lang))
    cuts = [_after_trailing_codes(text, c) for c in cuts]
    if tags:
        cuts = [c for c in cuts if not _inside_pair(text, c, tags)]
    return _pieces(text, cuts)


# ------------------------------------------------------------------ internals
def _pysbd_cuts(text: str, code: str) -> list[int]:
    """Offsets in ``text`` where pysbd starts a new sentence (first excluded).

    pysbd treats a line break as a sentence end; inside a paragraph a line
    break is only layout (hard-wrapped text), so it sees spaces instead.  The
    probe has the same length as ``text``, so offsets carry over.
    """
    probe = text.replace("\r", " ").replace("\n", " ")
    pieces = _segmenter(code).segment(probe)
    cuts: list[int] = []
    pos = 0
    for piece in pieces:
        core = piece.strip()
        if not core:
            continue
        at = probe.find(core, pos)
        if at < 0:  # pysbd changed the text: keep the rest as one sentence
            break
        if at > 0:
            cuts.append(at)
        pos = at + len(core)
    return sorted(set(cuts))


def _after_trailing_codes(text: str, cut: int) -> int:
    """Move a break that falls just before codes closing the previous sentence
    (``two.</b> Next``) to after those codes and the whitespace that follows."""
    if cut <= 0 or text[cut - 1].isspace():
        return cut
    j = cut
    while j < len(text) and tag_number(text[j]) is not None:
        j += 1
    if j == cut or (j < len(text) and not text[j].isspace()):
        return cut
    while j < len(text) and text[j].isspace():
        j += 1
    return j


def _inside_pair(text: str, cut: int, tags: Sequence[Tag]) -> bool:
    """True when an opening code before ``cut`` is closed after it."""
    by_n = {t.n: t for t in tags}
    open_pairs: set[str] = set()
    for ch in text[:cut]:
        n = tag_number(ch)
        t = by_n.get(n) if n is not None else None
        if t is None or not t.pair:
            continue
        if t.kind == "open":
            open_pairs.add(t.pair)
        elif t.kind == "close":
            open_pairs.discard(t.pair)
    if not open_pairs:
        return False
    for ch in text[cut:]:
        n = tag_number(ch)
        t = by_n.get(n) if n is not None else None
        if t is not None and t.kind == "close" and t.pair in open_pairs:
            return True
    return False


def _pieces(text: str, cuts: list[int]) -> Segmentation:
    """Cut ``text`` at ``cuts``; each piece's surrounding whitespace goes to the gaps."""
    lead = len(text) - len(text.lstrip())
    bounds = [lead] + sorted({c for c in cuts if lead < c < len(text)}) + [len(text)]
    sentences: list[str] = []
    gaps: list[str] = [text[:lead]]
    for a, b in zip(bounds, bounds[1:]):
        piece = text[a:b]
        core = piece.rstrip()
        if not core:  # whitespace only: belongs to the previous gap
            gaps[-1] += piece
            continue
        if piece[: len(piece) - len(piece.lstrip())]:  # cut before whitespace
            ws = piece[: len(piece) - len(piece.lstrip())]
            gaps[-1] += ws
            core = core[len(ws):]
        sentences.append(core)
        gaps.append(piece[len(piece.rstrip()):])
    return Segmentation(tuple(sentences), tuple(gaps))
