"""Sentences of one paragraph joined into one segment, and the joined target divided again for
the file's writer.

The sentence formats (TXT, DOCX/ODF/PPTX, HTML, Markdown, subtitles) key each sentence
``<paragraph>.s<n>`` and number its codes from 1.  A joined segment keeps the first sentence's
key; ``meta["joined_keys"]`` lists the sentences it took in: their key, the number its codes
were moved up by (``offset``) and where it starts in the joined source (``at``).  On export
:func:`divide` cuts the target back into one part per sentence -- at the white space nearest
where the sentence began, with each code in its own sentence's part -- and the writer puts
the source's own spacing between the parts, so the paragraph reads as the translator wrote it.
"""
from __future__ import annotations

import re
from dataclasses import replace

from engine.errors import ProjectError
from engine.inline import TaggedText, tag_char, tag_number

JOINED = "joined_keys"
_SENTENCE_KEY = re.compile(r"^(.*)\.s(\d+)$")
_SPACE_RUN = re.compile(r"\s+")


def last_key(seg) -> str:
    """The key of the last sentence a segment holds."""
    entries = seg.meta.get(JOINED) or []
    return entries[-1]["key"] if entries else seg.key


def next_sentence(key: str, following: str) -> bool:
    """Whether ``following`` is the sentence after ``key`` in the same paragraph."""
    a, b = _SENTENCE_KEY.match(key), _SENTENCE_KEY.match(following)
    return bool(a and b and a.group(1) == b.group(1) and int(b.group(2)) == int(a.group(2)) + 1)


def shift(tt: TaggedText, offset: int) -> TaggedText:
    """``tt`` with every code's number moved up by ``offset`` (text and table)."""
    if not offset or not tt.tags and not any(tag_number(c) for c in tt.text):
        return tt
    text = "".join(tag_char(n + offset) if (n := tag_number(c)) is not None else c for c in tt.text)
    return TaggedText(text, tuple(replace(t, n=t.n + offset) for t in tt.tags))


def top_code(*texts: TaggedText) -> int:
    """The highest code number of ``texts`` (0 without codes)."""
    return max([t.n for tt in texts for t in tt.tags] + [n for tt in texts for n in tt.tag_numbers()] + [0])


def joined_entries(a, b, offset: int, at: int) -> list[dict]:
    """``meta["joined_keys"]`` of ``a`` joined with ``b`` (whose codes moved up by ``offset``,
    starting at ``at`` in the joined source)."""
    own = [{"key": b.key, "offset": offset, "at": at}]
    theirs = [{"key": e["key"], "offset": e["offset"] + offset, "at": e["at"] + at}
              for e in b.meta.get(JOINED) or []]
    return list(a.meta.get(JOINED) or []) + own + theirs


def divide(seg_key: str, entries: list[dict], target: TaggedText, source_len: int, number: int) -> list:
    """(key, target part) per sentence of a joined segment; raises :class:`ProjectError` when
    its codes cannot be given back to their sentences in order."""
    keys = [seg_key] + [e["key"] for e in entries]
    offsets = [0] + [int(e["offset"]) for e in entries]
    text = target.text

    def owner(n: int) -> int:
        return max(i for i, o in enumerate(offsets) if n > o or i == 0)

    codes = [(i, owner(n)) for i, c in enumerate(text) if (n := tag_number(c)) is not None]
    cuts: list[tuple[int, int]] = []
    start = 0
    for k in range(1, len(keys)):
        lo = max([start + 1] + [p + 1 for p, o in codes if o < k])
        hi = min([len(text) - 1] + [p for p, o in codes if o >= k])
        want = entries[k - 1]["at"] * len(text) / max(source_len, 1)
        runs = [(m.start(), m.end()) for m in _SPACE_RUN.finditer(text) if lo <= m.start() and m.end() <= hi
                and text[start:m.start()].strip() and text[m.end():].strip()]
        runs = runs or [(c, c) for c in range(lo, hi + 1)]
        if not runs:
            raise ProjectError(f"segment {number}: its translation cannot be divided back into the file's "
                               "sentences (a code of one sentence stands among another's); undo the join or "
                               "move the code")
        cut = min(runs, key=lambda r: abs(r[0] - want))
        cuts.append(cut)
        start = cut[1]
    bounds = [0] + [c for cut in cuts for c in cut] + [len(text)]
    out = []
    for k, key in enumerate(keys):
        part = text[bounds[2 * k]:bounds[2 * k + 1]]
        present = {tag_number(c) for c in part} - {None}
        tt = TaggedText(part, tuple(t for t in target.tags if t.n in present))
        out.append((key, shift_down(tt, offsets[k])))
    return out


def shift_down(tt: TaggedText, offset: int) -> TaggedText:
    if not offset:
        return tt
    text = "".join(tag_char(n - offset) if (n := tag_number(c)) is not None else c for c in tt.text)
    return TaggedText(text, tuple(replace(t, n=t.n - offset) for t in tt.tags))


__all__ = ["JOINED", "divide", "joined_entries", "last_key", "next_sentence", "shift", "top_code"]
