"""A reviewer's tracked changes in a DOCX export are Word revisions (w:del / w:ins with w:author and
w:date): accepting them all reads the edited text, rejecting them all the translation as it was."""
from __future__ import annotations

import re
import zipfile

from formats.docfiles import make_docx

from engine.formats import read_document
from engine.review.changes import TrackedChanges, set_tracking
from engine.store import Project

BODY = ('<w:p><w:r><w:t xml:space="preserve">The red house is big. </w:t></w:r>'
        '<w:r><w:rPr><w:b/></w:rPr><w:t>Bold</w:t></w:r><w:r><w:t xml:space="preserve"> words stay.</w:t></w:r></w:p>'
        '<w:p><w:r><w:t>Untouched paragraph.</w:t></w:r></w:p>')


def _texts(path, fmt):
    return [s.source.plain() for s in read_document(path, format=fmt).segments]


def test_docx_export_writes_word_revisions_that_accept_and_reject(tmp_path):
    src = make_docx(tmp_path / "in.docx", BODY)
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        p.import_document(src)
        segs = p.segments(1)
        for s in segs:
            if s.source.plain() == "The red house is big.":
                p.confirm(s.id, "Das rote Haus ist groß.")
            elif "words stay" in s.source.plain():
                p.confirm(s.id, s.source.with_text(s.source.text.replace("Bold", "Fett").replace(
                    "words stay", "Wörter bleiben")))
        before = p.export_document(1, tmp_path / "before.docx")
        set_tracking(p, True)
        seg = next(s for s in p.segments(1) if s.target.text == "Das rote Haus ist groß.")
        with TrackedChanges(p).recording([seg.id], "Rita Reviewer"):
            p.confirm(seg.id, "Das blaue Haus ist groß.")
        out = p.export_document(1, tmp_path / "out.docx")
    xml = zipfile.ZipFile(out).read("word/document.xml").decode("utf-8")
    assert re.search(r'<w:del w:id="\d+" w:author="Rita Reviewer" w:date="\d{4}-\d\d-\d\dT[\d:]+Z">'
                     r'<w:r><w:delText xml:space="preserve">rote</w:delText></w:r></w:del>', xml)
    assert re.search(r'<w:ins w:id="\d+" w:author="Rita Reviewer" w:date="[^"]+"><w:r><w:t xml:space="preserve">'
                     r'blaue</w:t></w:r></w:ins>', xml)
    assert "\ufdd0" not in xml and "\ufdd2" not in xml
    accepted, rejected = _texts(out, "docx"), _texts(out, "docx-reject")
    assert accepted[0] == "Das blaue Haus ist groß." and rejected[0] == "Das rote Haus ist groß."
    assert rejected == _texts(before, "docx")  # reject all: the translation before the review
    assert accepted[1:] == rejected[1:] and "Untouched paragraph." in accepted
    assert "<w:b/>" in xml  # the bold run of the paragraph kept
