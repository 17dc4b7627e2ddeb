"""Sentence breaks as pysbd made them, for documents imported before Verso's rules were SRX.

A writer segments the original again to put each translation in place by its key (``p1.s3``);
a document imported while pysbd made the breaks (its meta names no ``segmentation_srx``) is
exported with pysbd's breaks, so that no translation lands on another sentence
(:func:`engine.store.segrules.exporting`).  The code as it was, with its shortcuts (pysbd sees only
what needs its rules, ``str.find`` in place of a pattern compiled per sentence).
"""
from __future__ import annotations

import re
from functools import lru_cache

from engine.langs import primary

__all__ = ["pysbd_cuts", "pysbd_language"]


def pysbd_language(lang: str | None) -> str:
    """The pysbd rule set used for ``lang`` (its primary subtag, or ``en``)."""
    from pysbd.languages import LANGUAGE_CODES

    code = primary(lang)
    return code if code in LANGUAGE_CODES else "en"


def pysbd_cuts(text: str, lang: str) -> list[int]:
    """Offsets in ``text`` where pysbd starts a new sentence (first excluded)."""
    return _pysbd_cuts(text, pysbd_language(lang))


@lru_cache(maxsize=32)
def _segmenter(code: str):
    import pysbd

    return pysbd.Segmenter(language=code, clean=False)


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
