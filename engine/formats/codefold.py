"""A paragraph's codes collected before they are numbered, and numbered past one segment's limit.

One segment numbers at most :data:`engine.inline.TAG_MAX` (6,399) codes.  A paragraph of the
zipped formats (DOCX, ODF, PPTX, IDML) can hold more: a highlighted code listing with a line break
and a colour change on every line, a tag cloud of 4,000 links.  Such a paragraph is read in two
steps, and any real one imports:

1. its codes that stand next to each other with no text between (``</b><br/><b>``) become one
   code that does all of their jobs on export, as Okapi and memoQ join formatting runs;
2. if it still holds more than TAG_MAX codes, the paragraph's own text numbers the codes past
   TAG_MAX with characters of the supplementary private use plane 15 (:func:`code_char`).  That
   text never leaves the format's reader and writer: each sentence is numbered from 1 again
   (:func:`renumber`), and the segmenter cuts a paragraph into pieces of at most 4,000 characters,
   so a segment never holds more than a segment can.

A paragraph within the limit is numbered as it always was, so the translations of earlier imports
keep their codes.  Past :data:`PARAGRAPH_MAX` codes (or with plane-15 characters of its own in a
paragraph that needs them) a paragraph is refused in one FormatError line naming the file and the
paragraph.
"""
from __future__ import annotations

import dataclasses
import re

import regex

from engine.errors import FormatError
from engine.formats.textutil import renumber as renumber_narrow
from engine.inline import (
    TAG_BASE, TAG_MAX, Tag, TaggedText, TaggedTextBuilder, new_tag, tag_char, tag_chars_in, tag_number,
)

WIDE = 0xF0000 - TAG_MAX   # code n > TAG_MAX of a paragraph's text is chr(WIDE + n): U+F0001 ...
PARAGRAPH_MAX = 0xFFFFD - WIDE
# The searches that mostly find nothing (a sentence or a paragraph with no code, or no wide one) scan the
# whole text: ``regex`` does so 3-4 times faster than ``re`` for a class of one range, and at once in a
# text whose characters are all below the range (``re``: 7 us for 600 characters; 3 MB of DOCX has
# 13,000 sentences and 4,700 paragraphs to look through).
_WIDE_RE = regex.compile("[\U000f0001-\U000ffffd]")
_NARROW_SEARCH = regex.compile("[\ue001-\uf8ff]")
_ANY_RE = re.compile("[\ue001-\uf8ff\U000f0001-\U000ffffd]")
_NARROW_SPLIT = regex.compile("([\ue001-\uf8ff])")


def code_char(n: int) -> str:
    """The character of paragraph-level code ``n`` (that of a segment's tag up to TAG_MAX)."""
    return tag_char(n) if n <= TAG_MAX else chr(WIDE + n)


def code_number(ch: str) -> int | None:
    n = tag_number(ch)
    if n is None and 0xF0001 <= ord(ch) <= 0xFFFFD:
        return ord(ch) - WIDE
    return n


def code_chars_in(text: str) -> list[str]:
    return _ANY_RE.findall(text) if _WIDE_RE.search(text) else tag_chars_in(text)


def has_code_chars(text: str) -> bool:
    """True when ``text`` holds a character a paragraph's text uses for a code (private use)."""
    return not text.isascii() and (_NARROW_SEARCH.search(text) is not None or _WIDE_RE.search(text) is not None)


def narrow(tags) -> tuple[Tag, ...]:
    """The codes a segmenter can see (it looks at the segment placeholders only)."""
    return tuple(t for t in tags if t.n <= TAG_MAX)


def renumber(text: str, by_n: dict[int, Tag], path=None, place: str | None = None) -> TaggedText:
    """A sentence of a paragraph's text with its codes numbered 1, 2, ... (textutil.renumber,
    knowing the plane-15 codes)."""
    if not _WIDE_RE.search(text):
        return renumber_narrow(text, by_n)
    chars = _ANY_RE.findall(text)
    if len(chars) > TAG_MAX:
        raise too_many(len(chars), path, place, "in one sentence")
    new: list[Tag] = []

    def number(m: re.Match) -> str:
        t = by_n.get(code_number(m.group()))
        if t is None:
            return m.group()
        new.append(dataclasses.replace(t, n=len(new) + 1))
        return new[-1].char

    return TaggedText(_ANY_RE.sub(number, text), tuple(new))


def para_sentence(text: str, by_n: dict[int, Tag], path=None, place: str | None = None) -> TaggedText:
    """A sentence of a paragraph's text with its codes numbered 1, 2, ..., each code's number in the
    paragraph in its ``attrs["p"]``.  One pass over the code characters making each Tag once
    (renumber, then a copy of each Tag with ``p``: 0.05 of 0.5 s CPU reading 3 MB of JRC-Acquis DOCX)."""
    if text.isascii():  # no code (isascii reads a flag): the sentences of a paragraph beside the one with its codes
        return TaggedText(text, ())
    if _WIDE_RE.search(text):
        s = renumber(text, by_n, path, place)
        para = [by_n[n] for n in map(code_number, _ANY_RE.findall(text)) if n in by_n]
        return TaggedText(s.text, tuple(Tag(t.n, t.kind, t.original, t.label, t.pair, {**t.attrs, "p": o.n})
                                        for t, o in zip(s.tags, para)))
    if not by_n:
        return TaggedText(text, ())
    new: list[Tag] = []
    parts = _NARROW_SPLIT.split(text)  # one split, each code renumbered in the list (re.sub calling back: 2x)
    for k in range(1, len(parts), 2):
        t = by_n.get(ord(parts[k]) - TAG_BASE)
        if t is not None:
            new.append(new_tag(len(new) + 1, t.kind, t.original, t.label, t.pair, {**t.attrs, "p": t.n}))
            parts[k] = tag_char(len(new))
    return TaggedText("".join(parts), tuple(new))


def too_many(count: int, path, place: str | None, where: str = "in one paragraph") -> FormatError:
    return FormatError(path, f"{count:,} inline codes {where}, more than Verso can number "
                             f"({TAG_MAX:,} a segment, {PARAGRAPH_MAX:,} a paragraph); split it", place)


class _WideBuilder(TaggedTextBuilder):
    def _add(self, kind, original: str, label: str, pair: str, attrs: dict | None) -> int:
        n = len(self._tags) + 1
        self._tags.append(Tag(n, kind, original, label, pair, attrs or {}))
        self._parts.append(code_char(n))
        return n


class Codes:
    """Collects a paragraph's text and codes in order; :meth:`build` numbers them.

    Each code carries its ``action`` (what the format's export does for it), returned by number."""

    def __init__(self) -> None:
        self.items: list = []   # str | (kind, original, label, pair, attrs, action)

    def text(self, s: str) -> None:
        if s:
            self.items.append(s)

    def code(self, kind: str, original: str, label: str, pair: str, attrs: dict, action: tuple) -> None:
        self.items.append((kind, original, label, pair, attrs, action))

    def build(self, path=None, place: str | None = None) -> tuple[TaggedText, dict[int, tuple]]:
        items = self.items
        b = TaggedTextBuilder()
        # a code a non-text item or one private-use character of a text: fewer than TAG_MAX without counting
        if sum(len(it) if isinstance(it, str) else 1 for it in items) > TAG_MAX and _count(items) > TAG_MAX:
            items = _joined(items)
            count = _count(items)
            if count > TAG_MAX:
                if count > PARAGRAPH_MAX or any(isinstance(it, str) and _WIDE_RE.search(it) for it in items):
                    raise too_many(count, path, place)
                b = _WideBuilder()
        actions: dict[int, tuple] = {}
        for it in items:
            before = len(b._tags)
            if isinstance(it, str):
                b.text(it)
                for k in range(before, len(b._tags)):  # private-use characters of the text
                    actions[k + 1] = ("char",)
                continue
            kind, original, label, pair, attrs, action = it
            if kind == "open":
                b.open(original, label, pair=pair, attrs=attrs)
            elif kind == "close":
                b.close(original, label, pair=pair, attrs=attrs)
            else:
                b.ph(original, label, attrs=attrs)
            actions[len(b._tags)] = action
        return b.build(), actions


def _count(items: list) -> int:
    return sum(1 if not isinstance(it, str) else len(tag_chars_in(it)) for it in items)


def _joined(items: list) -> list:
    """``items`` with each run of two or more codes that have no text between them as one code."""
    out: list = []
    run: list = []

    def end_run() -> None:
        if len(run) == 1:
            out.append(run[0])
        elif run:
            out.append(("ph", "<codes/>", "codes", "", {"codes": len(run)}, ("group", [c[5] for c in run])))
        run.clear()

    for it in items:
        if isinstance(it, str):
            end_run()
            out.append(it)
        else:
            run.append(it)
    end_run()
    return out
