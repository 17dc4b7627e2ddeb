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
is given, a closing code never starts a sentence (``two. </b> Next``) and no
break falls between an opening code and its closing code.

A very long paragraph (over :data:`LONG_TEXT` characters: a whole file on
one line) is first cut at safe points -- a sentence end, else white space,
else anywhere -- into pieces of at most :data:`PIECE` characters, and each
piece is segmented on its own: pysbd's time grows with the square of its
input, so this keeps segmentation linear in the length of the text.  A
break always falls at such a cut.

This module is pure Python (no torch, no Qt).
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from engine.inline import Tag, tag_number
from engine.langs import primary

__all__ = ["Segmentation", "safe_cuts", "segment_text", "split_sentences", "segmenter_language"]

#: A text longer than this (characters) is cut into pieces before pysbd sees it.
LONG_TEXT = 10_000
#: The longest piece pysbd is given when a text is cut.
PIECE = 4_000

_SENTENCE_END = re.compile(r"[.!?\u2026][\"'\u00bb\u201d\u2019)\]]*\s+|[\u3002\uff01\uff1f][\u300d\u300f\u201d\u2019\uff09]*\s*")
_SPACE = re.compile(r"\s+")


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
    code = segmenter_language(lang)
    cuts: list[int] = []
    start = 0
    for end in safe_cuts(text) + [len(text)]:
        cuts += [start + c for c in _pysbd_cuts(text[start:end], code)]
        if end < len(text):
            cuts.append(end)
        start = end
    closing = frozenset(t.n for t in tags if t.kind == "close")
    cuts = [_after_trailing_codes(text, c, closing) for c in cuts]
    if tags:
        spans = _pair_spans(text, tags)
        cuts = [c for c in cuts if not _inside(spans, c)]
    return _pieces(text, cuts)


# ------------------------------------------------------------------ internals
def safe_cuts(text: str) -> list[int]:
    """Where to cut a text longer than :data:`LONG_TEXT` into pieces of at
    most :data:`PIECE` characters: in the second half of each window, after
    the last sentence end, else after the last white space, else at the
    window's end.  No cut for a shorter text."""
    if len(text) <= LONG_TEXT:
        return []
    cuts: list[int] = []
    start = 0
    while len(text) - start > PIECE:
        lo, hi = start + PIECE // 2, start + PIECE
        cut = _last_end(_SENTENCE_END, text, lo, hi) or _last_end(_SPACE, text, lo, hi) or hi
        cuts.append(cut)
        start = cut
    return cuts


def _last_end(pattern: re.Pattern, text: str, lo: int, hi: int) -> int:
    end = 0
    for m in pattern.finditer(text, lo, hi):
        end = m.end()
    return end


def _pysbd_cuts(text: str, code: str) -> list[int]:
    """Offsets in ``text`` where pysbd starts a new sentence (first excluded).

    pysbd treats a line break as a sentence end; inside a paragraph a line
    break is only layout (hard-wrapped text), so it sees spaces instead.  The
    probe has the same length as ``text``, so offsets carry over.

    pysbd costs about 13 s a megabyte (issue 35: a 10 MB text file took 134 s;
    half of it recompiling the patterns it builds per abbreviation, which
    overflow ``re``'s cache), so it only sees what needs its rules: the text is
    first cut at the breaks every rule set agrees on (:func:`_sure_breaks`),
    and a piece without any other sentence mark (:data:`_NEEDS_RULES`) is one
    sentence without asking pysbd.
    """
    if not text.strip():
        return []
    probe = text.replace("\r", " ").replace("\n", " ")
    cuts: list[int] = []
    start = 0
    for end in _sure_breaks(probe, code) + [len(probe)]:
        piece = probe[start:end].rstrip()
        if piece[-1:] in _END_MARKS:
            piece = piece[:-1]
        if _NEEDS_RULES.search(piece) or piece[-1:].isdigit():
            cuts += [start + c for c in _rule_cuts(probe[start:end], code)]
        if end < len(probe):
            cuts.append(end)
        start = end
    return cuts


_END_MARKS = (".", "!", "?")
#: Marks that may end a sentence, number a list or open a quotation: a piece holding one
#: (apart from its final punctuation) goes to pysbd.
#: A digit alone needs no rules: every rule of pysbd that reads digits also reads a full stop or
#: a bracket next to them (lists ``1.`` ``2)``, numbers ``3.5``, references ``end.12``), so only
#: a digit before the final mark sends a piece to pysbd.
_NEEDS_RULES = re.compile(r"[.!?\u2026\u3002\uff01\uff1f\u203c\u2047-\u2049:;()\[\]{}<>\"\u00ab\u00bb"
                          r"\u201c-\u201f\u2018\u2039\u203a\u2022*\u2013\u2014\u00b7\u30fb|/\\@#%&=+~^`_]|\s'|'\s")
#: ``word. Next``: a lower-case word of two letters or more after white space, one full stop,
#: question or exclamation mark, spaces, a capital letter (after inline codes: ``word. <b>Next``,
#: where pysbd breaks as before a bare capital).
_SURE = re.compile(r"(?:(?<=\s)|^)([a-z]{2,})[.!?] +(?=[\ue001-\uf8ff]*[A-Z][a-z])")
#: ``1.``, ``2)``, ``a)``, ``iv.``, bullets: list items, whose rules in pysbd read the whole text.
_LIST_MARK = re.compile(r"\d[.)]|(?:^|\s)(?:[A-Za-z]|[ivxIVX]{1,4})[.)](?=\s|$)|[\u2022\u25cf\u25aa*]|(?:^|\s)[-\u2013]\s")
_OPENERS = re.compile(r"[(\[{\"\u00ab\u201c\u201e\u2018\u2039<]|(?:^|\s)'")


@lru_cache(maxsize=32)
def _abbreviations(code: str) -> frozenset[str]:
    from pysbd.languages import Language

    lang = Language.get_language_code(code)
    words = set(lang.Abbreviation.ABBREVIATIONS)
    for extra in ("PREPOSITIVE_ABBREVIATIONS", "NUMBER_ABBREVIATIONS"):
        words.update(getattr(lang.Abbreviation, extra, ()))
    return frozenset(w.lower().rstrip(".") for w in words)


def _sure_breaks(probe: str, code: str) -> list[int]:
    """Starts of sentences that pysbd starts whatever the rules around them: after
    ``word. Next`` where the word is no abbreviation of the language and nothing since the
    previous such break opened a bracket or a quotation (pysbd keeps a quotation whole)."""
    if _LIST_MARK.search(probe):  # pysbd numbers list items across the whole text: no cut before it
        return []
    abbreviations = _abbreviations(code)
    breaks: list[int] = []
    last = 0
    for m in _SURE.finditer(probe):
        if m.group(1) in abbreviations:
            continue
        if _OPENERS.search(probe, last, m.start()):
            continue
        last = m.end()
        breaks.append(last)
    return breaks


def _rule_cuts(text: str, code: str) -> list[int]:
    """pysbd's sentence starts in ``text`` (line breaks already spaces)."""
    pieces = _pysbd_segment(_segmenter(code), text)
    cuts: list[int] = []
    pos = 0
    for piece in pieces:
        core = piece.strip()
        if not core:
            continue
        at = text.find(core, pos)
        if at < 0:  # pysbd changed the text: keep the rest as one sentence
            break
        if at > 0:
            cuts.append(at)
        pos = at + len(core)
    return sorted(set(cuts))


def _pysbd_segment(seg, text: str) -> list[str]:
    """``seg.segment(text)`` (``clean=False``): pysbd's sentences with the white space after each.

    pysbd finds each sentence in the text again with a regular expression built from the
    sentence (``re.escape(sent) + r"\\s*"``): one compile per sentence, and those unique
    patterns push pysbd's own abbreviation patterns out of ``re``'s cache of 512, so they are
    compiled again for every paragraph (30,000 HTML paragraphs under the profiler: 76,650
    compiles, 22 s of 48 s).  The same search with ``str.find``: the first occurrence that ends (with the white
    space after it) past the previous sentence's end."""
    sents = seg.processor(text).process()
    if not all(sents):  # an empty sentence matches everywhere: leave it to pysbd's own search
        seg.original_text = text
        return [span.sent for span in seg.sentences_with_char_spans(sents)]
    out: list[str] = []
    prior = 0
    n = len(text)
    for sent in sents:
        pos = 0
        while True:
            at = text.find(sent, pos)
            if at < 0:
                break
            end = at + len(sent)
            while end < n and text[end].isspace():  # ``\s`` is ``str.isspace`` in ``re``
                end += 1
            if end > prior:
                out.append(text[at:end])
                prior = end
                break
            pos = end
    return out


def _after_trailing_codes(text: str, cut: int, closing: frozenset[int] = frozenset()) -> int:
    """Move a break that falls just before codes closing the previous sentence
    (``two.</b> Next``) to after those codes and the whitespace that follows.
    Codes known to be closing codes (``closing``: their numbers) move across
    white space too (``two. </b> Next``, ``two. </b>Next``): no sentence starts
    with a closing code.  Other codes after white space stay with the next
    sentence (a placeholder may start one: ``{0} files were copied.``)."""
    if cut <= 0:
        return cut
    j = cut
    while j < len(text) and tag_number(text[j]) is not None:
        j += 1
    if j == cut:
        return cut
    if text[cut - 1].isspace() or (j < len(text) and not text[j].isspace()):
        if not all(tag_number(c) in closing for c in text[cut:j]):
            return cut
    while j < len(text) and text[j].isspace():
        j += 1
    return j


def _pair_spans(text: str, tags: Sequence[Tag]) -> list[tuple[int, int]]:
    """(open, close) offsets of each opening code and the code that closes it,
    in one pass; a break at ``c`` with ``open < c <= close`` splits the pair."""
    by_n = {t.n: t for t in tags}
    opened: dict[str, int] = {}
    spans: list[tuple[int, int]] = []
    for i, ch in enumerate(text):
        n = tag_number(ch)
        t = by_n.get(n) if n is not None else None
        if t is None or not t.pair:
            continue
        if t.kind == "open":
            opened.setdefault(t.pair, i)
        elif t.kind == "close" and t.pair in opened:
            spans.append((opened.pop(t.pair), i))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for a, b in spans:
        if merged and a < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


def _inside(spans: list[tuple[int, int]], cut: int) -> bool:
    """True when ``cut`` falls between an opening code and its closing code."""
    k = bisect.bisect_left(spans, (cut, -1)) - 1
    return k >= 0 and spans[k][0] < cut <= spans[k][1]


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
