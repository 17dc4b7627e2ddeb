"""A reviewer's tracked changes through the package writers (DOCX, ODT): the revision tags of a target
(:mod:`engine.review.export`) as marked text the shared paragraph writer keeps.

The package writer (:func:`engine.formats.package.apply_translations`) keeps ordinary characters and
drops codes a paragraph does not have, so each change travels as text between two noncharacters
(which no document holds): the deleted text back in place between U+FDD0 .. U+FDD1, the inserted
text between U+FDD2 .. U+FDD3.  Once a paragraph is rebuilt, the format turns the marked pieces into
its own revisions (:mod:`engine.formats.docx_revisions`, :mod:`engine.formats.odf_revisions`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from engine.formats.base import Translation
from engine.inline import TaggedText, tag_number

DEL_START, DEL_END, INS_START, INS_END = "\ufdd0", "\ufdd1", "\ufdd2", "\ufdd3"
MARK = re.compile("([\ufdd0-\ufdd3])")
REV = "verso-rev"


def with_sentinels(translations: dict[str, Translation]) -> tuple[dict[str, Translation], dict]:
    """The translations with their revision tags as marked text, and (author, ISO UTC date) by
    paragraph (the key's part before ``.s``)."""
    out, marks = dict(translations), {}
    for key, tr in translations.items():
        revs = {t.n: t for t in tr.target.tags if t.attrs.get(REV)}
        if not revs:
            continue
        pieces = []
        for ch in tr.target.text:
            t = revs.get(tag_number(ch) or 0)
            if t is None:
                pieces.append(ch)
            elif t.attrs[REV] == "del":
                pieces.append(DEL_START + t.attrs["text"] + DEL_END)
            else:
                pieces.append(INS_START if t.kind == "open" else INS_END)
        marks[key.rpartition(".s")[0]] = (revs[min(revs)].attrs["author"], revs[min(revs)].attrs["date"])
        out[key] = Translation(TaggedText("".join(pieces), tuple(t for t in tr.target.tags if t.n not in revs)),
                               tr.status)
    return out, marks


@dataclass(frozen=True)
class TrackedChanges:
    """How many tracked insertions and deletions of text a document has: the editor asks whether to
    accept or refuse them before the import when there is any (true when there is)."""

    insertions: int = 0
    deletions: int = 0

    def __bool__(self) -> bool:
        return bool(self.insertions or self.deletions)
