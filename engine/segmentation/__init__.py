"""Sentence segmentation with SRX rules per language, loss-free.

The rules are SRX (the CAT tools' standard, :mod:`engine.segmentation.srx`): Verso's own
``default.srx`` (abbreviations such as ``Dr.``, ``z. B.``, ``Lic.``, ``M.``; ``No. 5``; ``3. Mai``;
list numbers; quotations in ``« ... »``), or a translator's SRX file for a project
(:func:`using_rules`, ``verso seg import-srx``).  A language no map names gets the rules the maps
give every language (``Default``).  The rules are compiled to a few regular expressions per
language: about 100 times faster than pysbd on real prose, which this module used before
(``benchmarks/segmentation.py``).

Segmentation never loses a character.  :func:`segment_text` returns the
sentences *and* the whitespace around them, so that::

    seg = segment_text(text, "en")
    seg.join() == text          # always

and a writer that replaces sentences by their translations keeps the original
spacing.  Protected inline codes (one private-use character each, see
:mod:`engine.inline`) are never lost; the rules read the text without them; a code right after
a sentence end (``two.</b> Next``) stays with the sentence it closes, and when the tag table
is given, a closing code never starts a sentence (``two. </b> Next``) and no
break falls between an opening code and its closing code.

A very long paragraph (over :data:`LONG_TEXT` characters: a whole file on
one line) is first cut at safe points -- a sentence end, else white space,
else anywhere -- into pieces of at most :data:`PIECE` characters, and each
piece is segmented on its own, so that a rule's look-behind never reads further
than a piece.  A break always falls at such a cut.

This module is pure Python (no torch, no Qt).
"""
from __future__ import annotations

import bisect
import re
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Iterator, Sequence

import regex

from engine.inline import TAG_BASE, Tag, tag_number
from engine.segmentation.srx import SRX, Segmenter, default_rules

__all__ = ["Segmentation", "safe_cuts", "segment_text", "split_sentences", "segmenter_language", "using_rules",
           "active_rules"]

#: A text longer than this (characters) is cut into pieces before the rules see it.
LONG_TEXT = 10_000
#: The longest piece the rules are given when a text is cut.
PIECE = 4_000

_SENTENCE_END = re.compile(r"[.!?\u2026][\"'\u00bb\u201d\u2019)\]]*\s+|[\u3002\uff01\uff1f][\u300d\u300f\u201d\u2019\uff09]*\s*")
_SPACE = re.compile(r"\s+")
# ``regex``, not ``re``: these scan every paragraph to its end (the codes of a paragraph; a paragraph with
# none) and ``regex`` does that 3-4 times faster for a class of one range, at once in a text whose
# characters are all below it (``re``: 7 us for 600 characters; and 13 us for ``[...]+``, which ``re``
# tries at every position)
_CODE = regex.compile("[\ue001-\uf8ff]")
_CODE_RUN = regex.compile("[\ue001-\uf8ff]+")
#: Segment as pysbd did (:mod:`engine.segmentation.pysbd_legacy`): the export of a document imported
#: before the rules were SRX.
PYSBD = "pysbd"
_RULES: ContextVar[SRX | str | None] = ContextVar("verso_segmentation_rules", default=None)


def active_rules() -> SRX:
    """The SRX rules in force: those :func:`using_rules` set, else Verso's default rules."""
    rules = _RULES.get()
    return rules if isinstance(rules, SRX) else default_rules()


@contextmanager
def using_rules(rules: SRX | str | None) -> Iterator[None]:
    """Segment with ``rules`` (a parsed SRX file; None: the default rules; :data:`PYSBD`) inside the
    block -- a project's own rules while its documents are read and written."""
    token = _RULES.set(rules)
    try:
        yield
    finally:
        _RULES.reset(token)


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
    """The names of the SRX rule sets used for ``lang``, joined by ``+`` (``English+Default``)."""
    if _RULES.get() == PYSBD:
        return PYSBD
    return "+".join(active_rules().names_for(lang or "")) or "none"


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
    rules = _RULES.get()
    if rules == PYSBD:
        from engine.segmentation.pysbd_legacy import pysbd_cuts as cut
    else:
        seg = (rules if isinstance(rules, SRX) else default_rules()).segmenter(lang or "")
        spaces = "".join([t.char for t in tags if t.label == "br" or (t.original and t.original.isspace())]) \
            if tags else ""
        if len(text) <= LONG_TEXT:  # one piece (most paragraphs): no pieces to cut and join
            cuts = _rule_cuts(text, seg, spaces)
            return _finished(text, tags, cuts) if cuts else _pieces(text, cuts)

        def cut(piece: str, lang: str) -> list[int]:
            return _rule_cuts(piece, seg, spaces)
    cuts = []
    start = 0
    for end in safe_cuts(text) + [len(text)]:
        cuts += [start + c for c in cut(text[start:end], lang)]
        if end < len(text):
            cuts.append(end)
        start = end
    return _finished(text, tags, cuts) if cuts else _pieces(text, cuts)


def _finished(text: str, tags: Sequence[Tag], cuts: list[int]) -> Segmentation:
    """The sentences of ``text`` cut at the rules' ``cuts``, moved past the codes that close the sentence
    before and dropped between a pair of codes."""
    closing = frozenset([t.n for t in tags if t.kind == "close"])
    n = len(text)  # most cuts stand before a letter, not a code: no call for them
    cuts = [_after_trailing_codes(text, c, closing) if c < n and "\ue000" < text[c] <= "\uf8ff" else c for c in cuts]
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


def _rule_cuts(text: str, seg: Segmenter, spaces: str = "") -> list[int]:
    """Offsets in ``text`` where the SRX rules start a new sentence (first excluded).

    A line break inside a paragraph is only layout (hard-wrapped text), so the rules see a space
    there; the rules read the text without its inline codes, as OmegaT's do (``word.</b> Next``
    ends a sentence as ``word. Next`` does).  A cut is moved past the white space it falls
    before, onto the next sentence's first character (a code there goes with it, or, when it
    closes, back with the sentence it closes: :func:`_after_trailing_codes`).  ``spaces``: the codes
    that stand for a line break (``<br/>``, a subtitle's line end), white space to the rules."""
    if not text or text.isspace():
        return []
    probe = text.replace("\r", " ").replace("\n", " ")
    for ch in spaces:
        probe = probe.replace(ch, " ")
    if _CODE.search(probe) is None:
        cuts = seg.cuts(probe)
    else:
        at_plain, at_probe, plain = _without_codes(probe)
        cuts = [_to_probe(at_plain, at_probe, c) for c in seg.cuts(plain) if c < len(plain)]
    out = []
    n = len(text)
    for c in cuts:
        while c < n and text[c].isspace():
            c += 1
        out.append(c)
    return out


def _without_codes(probe: str) -> tuple[list[int], list[int], str]:
    """``probe`` as the rules read it: a run of codes inside or at a word is left out (``word.</b> Next``,
    ``<b>Next``), a run that stands alone between white space is a word the rules cannot read, an ``X``
    (``Done. {0} files``).  With it, where each piece of it starts there and in ``probe``, for
    :func:`_to_probe` (a list of every character's offset cost 0.2 s for 3 MB of HTML prose)."""
    at_plain: list[int] = []
    at_probe: list[int] = []
    parts: list[str] = []
    size, pos, n = 0, 0, len(probe)
    for m in _CODE_RUN.finditer(probe):
        a, b = m.span()
        if a > pos:  # the text before the codes
            at_plain.append(size)
            at_probe.append(pos)
            parts.append(probe[pos:a])
            size += a - pos
        if (a == 0 or probe[a - 1].isspace()) and (b == n or probe[b].isspace()):
            at_plain.append(size)
            at_probe.append(a)
            parts.append("X")
            size += 1
        pos = b
    if pos < n:
        at_plain.append(size)
        at_probe.append(pos)
        parts.append(probe[pos:])
    return at_plain, at_probe, "".join(parts)


def _to_probe(at_plain: list[int], at_probe: list[int], c: int) -> int:
    k = bisect.bisect_right(at_plain, c) - 1
    return at_probe[k] + (c - at_plain[k])


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
    by_n = {t.n: t for t in tags if t.pair}
    if not by_n:
        return []
    opened: dict[str, int] = {}
    spans: list[tuple[int, int]] = []
    for m in _CODE.finditer(text):  # a walk over every character: 1.1 s for 3 MB of HTML prose
        i = m.start()
        t = by_n.get(ord(m.group()) - TAG_BASE)  # tag_number of a character _CODE matched
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
    n = len(text)
    lead = n - len(text.lstrip())
    bounds = sorted({c for c in cuts if lead < c < n}) if cuts else []
    bounds.append(n)
    sentences: list[str] = []
    gaps: list[str] = [text[:lead]]
    a = lead
    for b in bounds:
        piece = text[a:b]
        a = b
        core = piece.rstrip()
        if not core:  # whitespace only: belongs to the previous gap
            gaps[-1] += piece
            continue
        tail = piece[len(core):]
        if piece[0].isspace():  # cut before whitespace
            k = len(piece) - len(piece.lstrip())
            gaps[-1] += piece[:k]
            core = core[k:]
        sentences.append(core)
        gaps.append(tail)
    return Segmentation(tuple(sentences), tuple(gaps))
