"""Issue 49's goal, checked by LibreOffice itself: a DOCX or ODT revised in Verso with Track Changes
on comes back with revision marks LibreOffice shows as the reviewer's changes, signed with
Settings ▸ Your name; accept-all gives the edited text, reject-all the translation before the
review.  Skipped when ``soffice`` is not on PATH (see README, Tests)."""
from __future__ import annotations

import pytest
from formats.docfiles import make_docx, make_odt
from lo_helper import SKIP_WHY, SOFFICE, revise

from engine import identity
from engine.review.changes import TrackedChanges, set_tracking
from engine.store import Project

pytestmark = pytest.mark.skipif(SOFFICE is None, reason=SKIP_WHY)

DOCX_BODY = ('<w:p><w:r><w:t xml:space="preserve">The red house is big. </w:t></w:r>'
             '<w:r><w:rPr><w:b/></w:rPr><w:t>Bold</w:t></w:r><w:r><w:t xml:space="preserve"> words stay.</w:t></w:r></w:p>'
             '<w:p><w:r><w:t>Untouched paragraph.</w:t></w:r></w:p>')
ODT_BODY = ('<text:p>The red house is big. It has a <text:span text:style-name="T1">green</text:span> door.</text:p>'
            '<text:p>Untouched paragraph.</text:p>')


@pytest.fixture
def reviewer_name():
    before = identity.user_name()
    name = "Renée \"QA\" O'Brien & Co <r@x>"  # what Settings ▸ Your name hands the engine; XML's specials too
    identity.use(name)
    yield name
    identity.use(before)


def _revised(tmp_path, src, ext: str):
    """Translate, export (the translation before the review), then revise one segment with
    Track Changes on, signed by the editor's name, and export again."""
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        p.import_document(src)
        for s in p.segments(1):
            if s.source.plain() == "The red house is big.":
                p.confirm(s.id, "Das rote Haus ist groß.")
        before = p.export_document(1, tmp_path / f"before.{ext}")
        set_tracking(p, True)
        seg = next(s for s in p.segments(1) if s.target.text == "Das rote Haus ist groß.")
        with TrackedChanges(p).recording([seg.id]):  # no author given: Settings ▸ Your name
            p.confirm(seg.id, "Das blaue Haus ist sehr groß.")
        out = p.export_document(1, tmp_path / f"revised.{ext}")
    return before, out


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("ext", ["docx", "odt"])
def test_libreoffice_shows_the_reviewers_changes_and_accepts_or_rejects_them(tmp_path, reviewer_name, ext):
    src = (make_docx(tmp_path / "in.docx", DOCX_BODY) if ext == "docx"
           else make_odt(tmp_path / "in.odt", ODT_BODY))
    before, out = _revised(tmp_path, src, ext)
    as_is, changes = revise(out, "", tmp_path)
    assert changes, f"LibreOffice sees no tracked changes in the {ext} export"
    assert {kind for kind, _ in changes} == {"Delete", "Insert"}
    assert {who for _, who in changes} == {reviewer_name}
    accepted, _ = revise(out, "accept", tmp_path)
    rejected, _ = revise(out, "reject", tmp_path)
    original, none = revise(before, "", tmp_path)
    assert none == []
    assert _lines(accepted)[0].startswith("Das blaue Haus ist sehr groß.")
    assert _lines(rejected) == _lines(original)  # reject all: the translation before the review
    assert _lines(rejected)[0].startswith("Das rote Haus ist groß.")
    assert _lines(accepted)[1:] == _lines(rejected)[1:]
    assert "Untouched paragraph." in _lines(accepted)


@pytest.mark.parametrize("ext", ["docx", "odt"])
def test_libreoffice_accepts_and_rejects_revisions_inside_formatted_runs_and_next_to_each_other(
        tmp_path, reviewer_name, ext):
    src = (make_docx(tmp_path / "in.docx", DOCX_BODY) if ext == "docx"
           else make_odt(tmp_path / "in.odt", ODT_BODY))
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        p.import_document(src)
        segs = [s for s in p.segments(1) if s.source.plain() != "Untouched paragraph."]
        first = {s.id: s.source.text.replace("red", "rote").replace("Bold", "Fett").replace("green", "grüne")
                 for s in segs}
        for sid, text in first.items():
            p.confirm(sid, next(s for s in segs if s.id == sid).source.with_text(text))
        before = p.export_document(1, tmp_path / f"before.{ext}")
        set_tracking(p, True)
        with TrackedChanges(p).recording(list(first)):
            for sid, text in first.items():  # every sentence of the paragraph, formatted words too
                seg = next(s for s in segs if s.id == sid)
                p.confirm(sid, seg.source.with_text(text.replace("rote", "blaue").replace("Fett", "Kühn")
                                                    .replace("grüne", "gelbe").replace("big", "huge")))
        out = p.export_document(1, tmp_path / f"revised.{ext}")
    _, changes = revise(out, "", tmp_path)
    assert {who for _, who in changes} == {reviewer_name}
    accepted, _ = revise(out, "accept", tmp_path)
    rejected, _ = revise(out, "reject", tmp_path)
    original, _ = revise(before, "", tmp_path)
    assert _lines(rejected) == _lines(original)
    first_line = _lines(accepted)[0]
    assert "blaue" in first_line and "huge" in first_line and "rote" not in first_line
    assert ("Kühn" in first_line and "Fett" not in first_line) if ext == "docx" else \
        ("gelbe" in first_line and "grüne" not in first_line)
