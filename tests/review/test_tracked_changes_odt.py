"""A reviewer's tracked changes in an ODT export are OpenDocument tracked changes (text:tracked-changes,
text:change / change-start / change-end, dc:creator, dc:date): accepting them all reads the edited
text, rejecting them all the translation as it was; the other paragraphs keep their bytes."""
from __future__ import annotations

import re
import zipfile

from formats.docfiles import make_odt

from engine.formats import read_document
from engine.review.changes import TrackedChanges, set_tracking
from engine.review.export import note
from engine.store import Project

BODY = ('<text:p>The red house is big. It has a <text:span text:style-name="T1">green</text:span> door.</text:p>'
        '<text:p>Untouched paragraph.</text:p>')


def _texts(path, fmt):
    return [s.source.plain() for s in read_document(path, format=fmt).segments]


def test_odt_export_writes_tracked_changes_that_accept_and_reject(tmp_path):
    src = make_odt(tmp_path / "in.odt", BODY)
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        p.import_document(src)
        segs = p.segments(1)
        for s in segs:
            if s.source.plain() == "The red house is big.":
                p.confirm(s.id, "Das rote Haus ist groß.")
        before = p.export_document(1, tmp_path / "before.odt")
        set_tracking(p, True)
        seg = next(s for s in p.segments(1) if s.target.text == "Das rote Haus ist groß.")
        with TrackedChanges(p).recording([seg.id], "Rita Reviewer"):
            p.confirm(seg.id, "Das blaue Haus ist sehr groß.")
        out = p.export_document(1, tmp_path / "out.odt")
        assert note(p, p.document(1)) == ""
    xml = zipfile.ZipFile(out).read("content.xml").decode("utf-8")
    assert re.search(r"<office:text><text:tracked-changes><text:changed-region text:id=\"(ct\w+)\"><text:deletion>"
                     r"<office:change-info><dc:creator>Rita Reviewer</dc:creator><dc:date>[\d-]+T[\d:]+Z</dc:date>"
                     r"</office:change-info><text:p>rote</text:p></text:deletion>", xml)
    assert re.search(r'<text:change text:change-id="ct\w+"/>', xml)
    assert re.search(r'<text:change-start text:change-id="(ct\w+)"/>blaue<text:change-end text:change-id="\1"/>', xml)
    assert "\ufdd0" not in xml and "\ufdd2" not in xml
    accepted, rejected = _texts(out, "odf"), _texts(out, "odt-reject")
    assert accepted[0] == "Das blaue Haus ist sehr groß." and rejected[0] == "Das rote Haus ist groß."
    assert rejected == _texts(before, "odf")
    assert "<text:p>Untouched paragraph.</text:p>" in xml
