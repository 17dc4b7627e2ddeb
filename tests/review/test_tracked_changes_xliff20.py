"""XLIFF 2.0: a reviewer's changes written with the Change Tracking module (ctr:) -- the previous target,
who replaced it and when -- in a file Verso's strict reader still opens; untouched units byte for byte."""
from __future__ import annotations

import re

from lxml import etree

from engine.formats import read_document
from engine.formats.xliff20_ctr import CTR
from engine.inline import accept_revisions, deleted_text, revision
from engine.review.changes import TrackedChanges, set_tracking
from engine.review.export import note
from engine.store import Project

XLF = """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="de">
  <file id="f1">
    <unit id="u1">
      <segment id="s1" state="final">
        <source>The red <pc id="1">house</pc> is big.</source>
        <target>Das rote <pc id="1">Haus</pc> ist gross.</target>
      </segment>
    </unit>
    <unit id="u2">
      <segment id="s2" state="final">
        <source>Close it.</source>
        <target>Schliessen.</target>
      </segment>
    </unit>
  </file>
</xliff>
"""


def _units(data: bytes) -> list[bytes]:
    return re.findall(rb"<unit.*?</unit>", data, re.S)


def test_xliff20_export_records_the_previous_target_with_change_tracking(tmp_path):
    src = tmp_path / "a.xlf"
    src.write_text(XLF, encoding="utf-8")
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        p.import_document(src)
        set_tracking(p, True)
        seg = p.segments(1)[0]
        with TrackedChanges(p).recording([seg.id], "Rita Reviewer"):
            p.confirm(seg.id, seg.target.with_text(seg.target.text.replace("rote", "blaue")))
        out = p.export_document(1, tmp_path / "out.xlf")
        assert note(p, p.document(1)) == ""
    data = out.read_bytes()
    root = etree.fromstring(data)
    unit = root.find(".//{urn:oasis:names:tc:xliff:document:2.0}unit")
    track = unit[0]
    assert track.tag == f"{{{CTR}}}changeTrack"
    rev = track.find(f"{{{CTR}}}revisions/{{{CTR}}}revision")
    assert rev.get("author") == "Rita Reviewer" and rev.get("datetime").endswith("Z")
    assert rev.find(f"{{{CTR}}}item").text == "Das rote Haus ist gross."
    assert _units(data)[1] == _units(src.read_bytes())[1]
    again = read_document(out)  # the strict reader (modules validated) opens it ...
    t = again.segments[0].target
    assert t.plain() == "Das blaue Haus ist gross."
    # ... and shows the reviewer's change as tracked changes: "rote" deleted, "blaue" inserted
    assert [deleted_text(x) for x in t.tags if revision(x) == "deleted"] == ["rote"]
    assert [x.attrs["author"] for x in t.tags if revision(x) == "inserted"] == ["Rita Reviewer"] * 2
    assert sum(1 for x in t.tags if not revision(x)) == 2  # the <pc> kept
    accepted = t.with_text(accept_revisions(t.text, t.tags))  # what editing the segment keeps
    assert accepted.plain() == "Das blaue Haus ist gross." and accepted.tag_count == 2
    assert again.segments[1].target.text == "Schliessen."  # no change tracking: as it is
