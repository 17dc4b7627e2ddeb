"""A paragraph's codes collected before they are numbered, and joined when there are too many.

One segment numbers at most :data:`engine.inline.TAG_MAX` (6,399) codes.  A paragraph of the
zipped formats (DOCX, ODF, PPTX, IDML) can hold more: a highlighted code listing with a line
break and a colour change on every line.  Such a paragraph's codes that stand next to each other
with no text between (``</b><br/><b>``) become one code that does all of their jobs on export, as
Okapi and memoQ join formatting runs; a paragraph that still holds more codes than a segment can
number is refused in one FormatError line naming the file and the paragraph.  A paragraph within the limit is numbered as it always was, so
the translations of earlier imports keep their codes.
"""
from __future__ import annotations

from engine.errors import FormatError
from engine.inline import TAG_MAX, TaggedText, TaggedTextBuilder, tag_chars_in


def too_many(count: int, path, place: str | None) -> FormatError:
    return FormatError(path, f"{count:,} inline codes in one paragraph, more than a segment can hold "
                             f"({TAG_MAX:,}) even with adjacent codes joined; split the paragraph", place)


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
        if _count(items) > TAG_MAX:
            items = _joined(items)
            if _count(items) > TAG_MAX:
                raise too_many(_count(items), path, place)
        b = TaggedTextBuilder()
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
