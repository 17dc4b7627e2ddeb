"""The row a document opens on, read without loading its rows (the editor asks the TM for it
while the document loads): the same row the editor's grid enters."""
from __future__ import annotations

from pathlib import Path

from engine.formats.base import ParsedDocument, ParsedSegment
from engine.inline import protect
from engine.store import Project
from engine.store.first_row import first_open_row
from engine.store.locks import SegmentLocks


def _project(folder: Path, sources: list[str]) -> Project:
    original = folder.parent / "doc.txt"
    original.write_text("\n\n".join(sources), encoding="utf-8")
    segs = [ParsedSegment(f"k{i}", protect(s)) for i, s in enumerate(sources)]
    p = Project.create(folder, src_lang="en", tgt_lang="de")
    p.import_parsed(ParsedDocument("doc.txt", "txt", "en", "de", segs), original)
    return p


def test_the_first_row_neither_confirmed_nor_locked_is_the_one_a_document_opens_on(tmp_path):
    p = _project(tmp_path / "p", ["One.", "Two.", "Three.", "Four."])
    doc = p.documents()[0].id
    segs = p.segments(doc)
    p.set_target(segs[0].id, "Eins.", status="confirmed")
    SegmentLocks(p).lock(segs[1].id)
    row, seg = first_open_row(p, doc)
    assert (row, seg.source.text) == (2, "Three.")
    p.set_target(segs[2].id, "Drei.", status="draft")  # a draft is not confirmed: still entered
    assert first_open_row(p, doc)[0] == 2
    p.close()


def test_a_document_all_confirmed_opens_on_its_first_row_and_an_empty_one_on_none(tmp_path):
    p = _project(tmp_path / "p", ["One.", "Two."])
    doc = p.documents()[0].id
    for s in p.segments(doc):
        p.set_target(s.id, "x", status="confirmed")
    row, seg = first_open_row(p, doc)
    assert (row, seg.source.text) == (0, "One.")
    assert first_open_row(p, doc + 1000) is None
    p.close()
