"""Verso's tracked changes on export: each tracked segment's target is handed to the writer with its
deletions and insertions as *revision tags* (:func:`marked`), which the writers of formats that have
tracked changes write in their own way (SDLXLIFF ``x-sdl-deleted``/``x-sdl-added`` with
``sdl:rev-defs``, memoQ ``x-mq-tc``: :mod:`engine.formats.xliff_revisions`).  Other formats get the
target as it stands (the changes accepted) and the export says, in one line, that the changes stay
in the project (:func:`note`).

A revision tag is a code with ``attrs[REV] = "del"`` (a standalone code whose ``attrs["text"]`` is
the deleted text, tags removed: a deleted code is not written back) or ``"ins"`` (a pair around
the inserted text), with ``author`` and ``date`` (ISO UTC).  A document without tracked changes, or
whose changes are all accepted, goes to the writer untouched: it exports as if edited directly.
"""
from __future__ import annotations

import uuid

from engine.formats.base import Translation
from engine.inline import Tag, TaggedText, strip_tags, tag_char
from engine.review.changes import Tracked, TrackedChanges

REV = "verso-rev"
#: formats whose writer writes revision tags (the others drop codes they do not know)
WRITES_CHANGES = frozenset({"xliff12", "xliff20", "docx", "docx-reject", "odf", "odt-reject"})


def marked(t: Tracked) -> TaggedText:
    """``t``'s current target with its changes as revision tags (see the module doc)."""
    tags = list(t.tags)
    n = max((x.n for x in tags), default=0)
    out: list[str] = []
    attrs = {"author": t.author, "date": t.at}
    for seq, op in enumerate(t.ops):
        if op.kind == "equal":
            out.append(op.text)
        elif op.kind == "delete":
            text = strip_tags(op.text)
            if not text:
                continue
            n += 1
            tags.append(Tag(n, "ph", text, "deleted", attrs={"element": "mrk", REV: "del", "text": text,
                                                              "revid": str(uuid.uuid4()), **attrs}))
            out.append(tag_char(n))
        else:
            pair = f"verso-rev-{seq}"
            a = {"element": "mrk", REV: "ins", "revid": str(uuid.uuid4()), **attrs}
            tags.append(Tag(n + 1, "open", "", "inserted", pair, dict(a)))
            tags.append(Tag(n + 2, "close", "", "inserted", pair, dict(a)))
            out.append(tag_char(n + 1) + op.text + tag_char(n + 2))
            n += 2
    return TaggedText("".join(out), tuple(tags))


def with_changes(project, info, translations: dict[str, Translation]) -> dict[str, Translation]:
    """``translations`` with the tracked segments' targets marked, where ``info``'s format writes
    tracked changes (else as they are)."""
    if info.format not in WRITES_CHANGES:
        return translations
    tracked = TrackedChanges(project).in_document(info.id)
    if not tracked:
        return translations
    out = dict(translations)
    for sid, t in tracked.items():
        seg = project.segment(sid)
        tr = out.get(seg.key)
        if tr is None or tr.target.text != t.target.text:  # a split/joined segment: as it stands
            continue
        out[seg.key] = Translation(marked(t), tr.status)
    return out


def holds_changes(project, info) -> bool:
    """True when ``info``'s file can hold tracked changes: an XLIFF 1.2 only as SDLXLIFF or memoQ, an
    OpenDocument only as a text."""
    if info.format in ("odf", "odt-reject"):
        return info.meta.get("kind") in ("odt", "ott")  # a spreadsheet or presentation: accepted on export
    if info.format != "xliff12":
        return info.format in WRITES_CHANGES
    with open(project.folder / info.original, "rb") as f:
        head = f.read(8192)
    return b"http://sdl.com/FileTypes/SdlXliff/1.0" in head or b'"MQXliff"' in head


def note(project, info) -> str:
    """One line for the export when ``info`` has tracked changes its file cannot hold ("" else)."""
    if holds_changes(project, info):
        return ""
    n = len(TrackedChanges(project).in_document(info.id))
    if not n:
        return ""
    return (f"{info.name}: {n} segments have tracked changes; {info.format} has no tracked changes, so the file "
            "holds the edited text and the changes stay in the project (Review ▸ Segment Changes)")
