"""A finished suggestion never fails silently: what the search wrote is mended where the alignment says how,
and marked where it does not.

:func:`finish` takes a finished :class:`~engine.nmt.results.TranslationResult` (or its words, as the editor's
panels hold them) and the source, and

1. joins glossary terms to their neighbours as the target language writes them, and drops glossary words
   written after the finished sentence (:mod:`engine.nmt.termjoin`);
2. puts back the source's menu separators (">" between menu items) and tags: by the tags or words beside
   them, else by the alignment (:mod:`engine.nmt.tagfix`);
3. never changes what the translator typed (``prefix``): a mend that would is not made;
4. names what is still left out -- a negation, number, code, menu separator or tag of the source -- with
   the source word the attention least covers (:mod:`engine.nmt.omissions`).

Per-word lists (words, alignment, links, gates, copy, memory) follow the mended text: a word split in two
keeps its row for both halves, a word dropped loses it.  Pure Python, no torch.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, is_dataclass, replace
from typing import Sequence

from engine.inline import TaggedText, tag_number
from engine.nmt.omissions import LeftOut, left_out
from engine.qa_omission import NUMBER
from engine.nmt.tagfix import word_starts, place_separators, repair, tags_beside_separators
from engine.nmt.termjoin import TermSpan, join_terms, trim_after_end

_PER_WORD = ("alignment", "links", "gates", "copy", "memory")
#: the least attention a target word gives its most-attended source word for that link to place a tag,
#: separator or number: weaker links put tags on unrelated words (the demo model on held-aside KDE manuals)
SURE_LINK = 0.35


@dataclass
class Finished:
    """The mended ``text``, its ``words`` with their per-word lists (``rows``: for each new word the index
    of the old word it came from), and what it leaves out (``marks``)."""

    text: str
    words: list[str]
    rows: list[int]
    marks: list[LeftOut] = field(default_factory=list)
    changed: bool = False


def mend(text: str, source: TaggedText | str, *, words: Sequence[str] = (), src_words: Sequence[str] = (),
         links: Sequence[int] = (), terms: Sequence[TermSpan] = (), prefix: str = "", every_tag: bool = False) -> str:
    """Steps 1-3 of the module doc on ``text``.  A tag neither its partner nor the alignment places is
    left out, to be named (at the start or end it cost the translator more than typing it: 17 of 28 mended
    suggestions of held-aside KDE manuals moved further from the reference), unless ``every_tag`` (a
    pre-translated draft holds every tag of its source)."""
    tt = source if isinstance(source, TaggedText) else TaggedText(source)
    out = text
    if terms:
        out = trim_after_end(join_terms(out, tt.text, terms), tt.text, terms, keep=len(prefix))
    w, sw, ln = list(words), list(src_words), list(links)
    out, _ = place_separators(out, tt.text, words=w, src_words=sw, links=ln)
    if tt.tags:
        out = repair(tags_beside_separators(out, tt), tt, words=w, src_words=sw, links=ln, fallback=every_tag)
    out = place_numbers(out, tt.text, words=w, src_words=sw, links=ln)
    if prefix and not out.startswith(prefix):   # the translator's own typing is never rewritten
        return text
    return out


def place_numbers(text: str, source: str, *, words: Sequence[str] = (), src_words: Sequence[str] = (),
                  links: Sequence[int] = ()) -> str:
    """``text`` with a number of the source it lacks put in place of the number the target word aligned to
    that source word holds instead ("15 files" -> "5 Dateien": the model's "5" becomes "15"); a number the
    alignment does not place is left to the marks."""
    src_numbers = [m.group(0) for m in NUMBER.finditer(source)]
    tgt_numbers = [m.group(0) for m in NUMBER.finditer(text)]
    missing = [n for n in src_numbers if src_numbers.count(n) > tgt_numbers.count(n)]
    if not missing or not words or len(links) < len(words):
        return text
    starts = word_starts(text, list(words))
    for n in dict.fromkeys(missing):
        k = next((j for j, w in enumerate(src_words) if n in NUMBER.findall(w)), None)
        for j, link in enumerate(links[:len(words)]):
            if k is None or link != k or starts[j] is None:
                continue
            m = NUMBER.search(words[j])
            if m and m.group(0) not in src_numbers:   # a number of its own where the source's stood
                at = starts[j] + m.start()
                text = text[:at] + n + text[at + len(m.group(0)):]
                starts = word_starts(text, [x if i != j else x.replace(m.group(0), n, 1)
                                             for i, x in enumerate(words)])
                break
    return text


def follow(old_text: str, words: Sequence[str], new_text: str) -> tuple[list[str], list[int]]:
    """The words of ``new_text`` and, per word, the index of the word of ``words`` (in ``old_text``) it
    comes from: a word still found keeps its place, one split by a space becomes its parts, one cut off
    is gone, a separator put in comes from the word before it."""
    out_words: list[str] = []
    rows: list[int] = []
    pos = 0
    for k, w in enumerate(words):
        if not w:
            continue
        i = new_text.find(w, pos)
        if i >= 0 and len(new_text[pos:i].strip()) <= 3:   # kept, maybe with a separator or tag put before it
            for extra in new_text[pos:i].split():
                out_words.append(extra)
                rows.append(max(0, k - 1))
            out_words.append(w)
            rows.append(k)
            pos = i + len(w)
            continue
        # split by inserted spaces (or given a tag): consume w's characters, skipping what was put in
        j, c, start = pos, 0, None
        while j < len(new_text) and c < len(w):
            if new_text[j] == w[c]:
                start = j if start is None else start
                c += 1
            elif not (new_text[j].isspace() or tag_number(new_text[j]) is not None) and start is not None:
                break
            j += 1
        if c == len(w) and start is not None:
            for part in new_text[start:j].split():
                out_words.append(part)
                rows.append(k)
            pos = j
    return out_words, rows


def finish(result, source: TaggedText | str, *, terms: Sequence[TermSpan] = (), prefix: str = "",
           src_lang: str = "", tgt_lang: str = "", every_tag: bool = False):
    """``result`` (a TranslationResult, or a view with its per-word lists) mended and marked: a new result (``result`` is not changed) and the
    list of :class:`~engine.nmt.omissions.LeftOut` it still leaves out."""
    tt = source if isinstance(source, TaggedText) else TaggedText(source)
    words, src_words = list(getattr(result, "words", ()) or ()), list(getattr(result, "src_words", ()) or ())
    links = getattr(result, "links", None)
    rows = list(getattr(result, "alignment", ()) or ())
    if links is None:   # a view without links: each word's most-attended source word
        links = [max(range(len(row)), key=row.__getitem__) if row else 0 for row in rows]
    if len(rows) == len(links):   # a link the attention barely holds places nothing (see SURE_LINK)
        links = [k if 0 <= k < len(row) and row[k] >= SURE_LINK else -1 for k, row in zip(links, rows)]
    text = mend(result.text, tt, words=words, src_words=src_words, links=links, terms=terms, prefix=prefix,
                every_tag=every_tag)
    out = result
    if text != result.text and is_dataclass(result):
        new_words, rows = follow(result.text, words, text)
        kw = {"text": text, "words": new_words}
        for name in _PER_WORD:
            per = getattr(result, name, None)
            if per is not None and len(per) == len(words):
                kw[name] = [per[r] for r in rows]
        out = replace(result, **kw)
    elif text != result.text:   # a result without words (a stand-in): the text alone
        out = copy.copy(result)
        out.text = text
    marks = left_out(out.text, tt.text, list(getattr(out, "src_words", ()) or ()),
                     list(getattr(out, "alignment", ()) or ()), src_lang=src_lang, tgt_lang=tgt_lang)
    return out, marks
