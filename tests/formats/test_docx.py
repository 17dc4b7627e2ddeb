"""DOCX: runs -> tags, sentences -> segments, a faithful export, hostile packages refused."""
from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from lxml import etree

from datafiles import SHARED_DATA
from engine.errors import FormatError, UnsafeXMLError
from engine.formats import detect, read_document, write_document
from engine.formats.base import Translation
from engine.formats.docx import FORMAT
from engine.inline import TaggedText
from formats.docfiles import W_NS, convert_to_pdf, make_docx, soffice, wxml

W = f"{{{W_NS}}}"


def p(*runs: str, ppr: str = "") -> str:
    return f"<w:p>{ppr}{''.join(runs)}</w:p>"


def r(text: str, rpr: str = "", attrs: str = "") -> str:
    rp = f"<w:rPr>{rpr}</w:rPr>" if rpr else ""
    return f'<w:r{attrs}>{rp}<w:t xml:space="preserve">{text}</w:t></w:r>'


def _doc(tmp_path, body, **kw) -> Path:
    return make_docx(tmp_path / "in.docx", body, **kw)


def _upper(doc) -> dict[str, Translation]:
    return {s.key: Translation(TaggedText(s.source.text.upper(), s.source.tags)) for s in doc.segments}


def _paras(path: Path, part: str = "word/document.xml") -> list[str]:
    root = etree.fromstring(zipfile.ZipFile(path).read(part))
    return ["".join(t.text or "" for t in para.iter(W + "t")) for para in root.iter(W + "p")]


def _c14n(data: bytes) -> bytes:
    return etree.tostring(etree.fromstring(data), method="c14n")


# ----------------------------------------------------------------- reading
def test_sentences_of_a_paragraph_become_segments_with_their_spacing_kept(tmp_path):
    path = _doc(tmp_path, p(r("First one.  Second one? Third.")) + p(r("Next paragraph.")))
    doc = FORMAT.read(path, src_lang="en")
    assert [s.key for s in doc.segments] == [
        "word/document.xml:p1.s1", "word/document.xml:p1.s2", "word/document.xml:p1.s3",
        "word/document.xml:p2.s1"]
    assert doc.segments[1].source.text == "Second one?"
    tr = {doc.segments[1].key: Translation(TaggedText("Zweiter?"))}
    write_document(path, tmp_path / "out.docx", tr, format="docx", src_lang="en")
    assert _paras(tmp_path / "out.docx")[0] == "First one.  Zweiter? Third."


def test_run_splits_that_change_nothing_visible_make_no_tags(tmp_path):
    body = p(r("Spel", attrs=' w:rsidR="00AB12"'), '<w:proofErr w:type="spellStart"/>',
             r("ling", '<w:lang w:val="en-GB"/>'), '<w:proofErr w:type="spellEnd"/>',
             r(" mistakes", '<w:noProof/><w:rFonts w:hint="eastAsia"/>'), r(" here."))
    doc = FORMAT.read(_doc(tmp_path, body), src_lang="en")
    assert [(s.source.text, s.source.tags) for s in doc.segments] == [("Spelling mistakes here.", ())]


def test_different_formatting_inside_a_sentence_becomes_paired_tags(tmp_path):
    path = _doc(tmp_path, p(r("Click "), r("Save", "<w:b/>"), r(" now.")))
    doc = FORMAT.read(path, src_lang="en")
    seg = doc.segments[0]
    assert [t.kind for t in seg.source.tags] == ["open", "close"]
    assert seg.source.plain() == "Click Save now."
    o, c = (t.char for t in seg.source.tags)
    tr = {seg.key: Translation(TaggedText(f"Jetzt {o}speichern{c} klicken.", seg.source.tags))}
    write_document(path, tmp_path / "out.docx", tr, format="docx", src_lang="en")
    root = etree.fromstring(zipfile.ZipFile(tmp_path / "out.docx").read("word/document.xml"))
    bold = ["".join(t.text for t in run.iter(W + "t")) for run in root.iter(W + "r")
            if run.find(f"{W}rPr/{W}b") is not None]
    assert bold == ["speichern"]
    assert _paras(tmp_path / "out.docx") == ["Jetzt speichern klicken."]


def test_the_most_common_formatting_of_a_paragraph_makes_no_tags(tmp_path):
    doc = FORMAT.read(_doc(tmp_path, p(r("All bold ", "<w:b/>"), r("text.", "<w:b/><w:lang w:val='de'/>"))))
    assert doc.segments[0].source.tags == ()


def test_hyperlink_text_is_translated_and_its_target_kept(tmp_path):
    link = '<w:hyperlink r:id="rId9" w:history="1">' + r("the manual", "<w:rStyle w:val='Hyperlink'/>") + \
           "</w:hyperlink>"
    path = _doc(tmp_path, p(r("Read "), link, r(" first.")))
    seg = FORMAT.read(path, src_lang="en").segments[0]
    assert seg.source.display() == "Read <link>the manual</link> first."
    o, c = (t.char for t in seg.source.tags)
    tr = {seg.key: Translation(TaggedText(f"Lies zuerst {o}das Handbuch{c}.", seg.source.tags))}
    write_document(path, tmp_path / "out.docx", tr, format="docx", src_lang="en")
    root = etree.fromstring(zipfile.ZipFile(tmp_path / "out.docx").read("word/document.xml"))
    (h,) = root.iter(W + "hyperlink")
    assert h.get(f"{{{'http://schemas.openxmlformats.org/officeDocument/2006/relationships'}}}id") == "rId9"
    assert "".join(t.text for t in h.iter(W + "t")) == "das Handbuch"
    assert h.find(f"{W}r/{W}rPr/{W}rStyle") is not None


def test_fields_are_kept_as_tags_around_their_result(tmp_path):
    fld = ('<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r>'
           '<w:r><w:fldChar w:fldCharType="separate"/></w:r>' + r("3") +
           '<w:r><w:fldChar w:fldCharType="end"/></w:r>')
    simple = '<w:fldSimple w:instr=" NUMPAGES ">' + r("9") + "</w:fldSimple>"
    path = _doc(tmp_path, p(r("Page "), fld, r(" of "), simple, r(" pages.")))
    seg = FORMAT.read(path, src_lang="en").segments[0]
    assert seg.source.display() == "Page <field>3</field> of <field/> pages."
    tr = {seg.key: Translation(TaggedText(seg.source.text.replace("Page", "Seite"), seg.source.tags))}
    write_document(path, tmp_path / "out.docx", tr, format="docx", src_lang="en")
    xml = zipfile.ZipFile(tmp_path / "out.docx").read("word/document.xml").decode()
    assert "<w:instrText> PAGE </w:instrText>" in xml and 'w:instr=" NUMPAGES "' in xml
    assert xml.count("w:fldChar ") == 3
    assert _paras(tmp_path / "out.docx") == ["Seite 3 of 9 pages."]


def test_footnotes_headers_and_footers_are_read_and_written(tmp_path):
    body = p(r("Body text."), '<w:r><w:footnoteReference w:id="1"/></w:r>')
    parts = {"footnotes": '<w:footnote w:id="1">' + p(r("A footnote.")) + "</w:footnote>",
             "header1": p(r("The header.")), "footer1": p(r("The footer."))}
    path = _doc(tmp_path, body, parts=parts)
    doc = FORMAT.read(path, src_lang="en")
    assert {s.key: s.source.display() for s in doc.segments} == {
        "word/document.xml:p1.s1": "Body text.", "word/footer1.xml:p1.s1": "The footer.",
        "word/footnotes.xml:p1.s1": "A footnote.", "word/header1.xml:p1.s1": "The header."}
    write_document(path, tmp_path / "out.docx", _upper(doc), format="docx", src_lang="en")
    assert _paras(tmp_path / "out.docx", "word/footnotes.xml") == ["A FOOTNOTE."]
    assert _paras(tmp_path / "out.docx", "word/header1.xml") == ["THE HEADER."]
    assert b"footnoteReference" in zipfile.ZipFile(tmp_path / "out.docx").read("word/document.xml")


def test_comments_become_notes_and_are_not_segments(tmp_path):
    body = p('<w:commentRangeStart w:id="0"/>', r("Check this."), '<w:commentRangeEnd w:id="0"/>',
             '<w:r><w:commentReference w:id="0"/></w:r>')
    parts = {"comments": '<w:comment w:id="0" w:author="Ann">' + p(r("Is this right?")) + "</w:comment>"}
    doc = FORMAT.read(_doc(tmp_path, body, parts=parts), src_lang="en")
    assert [(s.source.text, s.note) for s in doc.segments] == [("Check this.", "Ann: Is this right?")]


def test_tracked_changes_are_accepted_or_refused_as_chosen(tmp_path):
    body = p(r("The "), '<w:del w:id="1" w:author="A"><w:r><w:delText>old</w:delText></w:r></w:del>',
             '<w:ins w:id="2" w:author="A">' + r("new") + "</w:ins>", r(" text."))
    path = _doc(tmp_path, body)
    accepted = read_document(path, src_lang="en")
    refused = read_document(path, src_lang="en", format="docx-reject")
    assert accepted.format == "docx" and accepted.segments[0].source.text == "The new text."
    assert refused.segments[0].source.text == "The old text."
    write_document(path, tmp_path / "a.docx", _upper(accepted), format="docx", src_lang="en")
    write_document(path, tmp_path / "r.docx", _upper(refused), format="docx-reject", src_lang="en")
    for out, want in (("a.docx", "THE NEW TEXT."), ("r.docx", "THE OLD TEXT.")):
        xml = zipfile.ZipFile(tmp_path / out).read("word/document.xml")
        assert b"w:del " not in xml and b"w:ins " not in xml  # resolved, never mixed
        assert _paras(tmp_path / out) == [want]


def test_tracked_changes_are_counted_before_the_import(tmp_path):
    from engine.formats.docx import has_tracked_changes, tracked_changes
    from engine.formats.revmarks import TrackedChanges

    changed = p(r("The "), '<w:del w:id="1" w:author="A"><w:r><w:delText>old</w:delText></w:r></w:del>',
                '<w:ins w:id="2" w:author="A">' + r("new") + "</w:ins>", r(" text."))
    path = _doc(tmp_path, p(r("Plain.")), parts={"footnotes": '<w:footnote w:id="1">' + changed + "</w:footnote>"})
    assert tracked_changes(path) == TrackedChanges(insertions=1, deletions=1) and has_tracked_changes(path)
    # a paragraph mark or a formatting change reads the same text either way: nothing to ask
    mark = p(r("Plain."), ppr='<w:pPr><w:rPr><w:ins w:id="3" w:author="A"/></w:rPr></w:pPr>')
    fmt = p(r("Bold.", '<w:b/><w:rPrChange w:id="4" w:author="A"><w:rPr/></w:rPrChange>'))
    (tmp_path / "in.docx").unlink()
    assert not has_tracked_changes(_doc(tmp_path, mark + fmt))
    (tmp_path / "in.docx").unlink()
    assert tracked_changes(_doc(tmp_path, p(r("No changes, but inserted and deleted words.")))) == TrackedChanges()


MC_NS = "http://schemas.openxmlformats.org/markup-compatibility/2006"


def _text_box(choice_paras: str, fallback_paras: str) -> str:
    """A paragraph with a text box as Word writes it: a DrawingML copy and a VML fallback."""
    return p(r("Body text. "), '<w:r>'
             f'<mc:AlternateContent xmlns:mc="{MC_NS}"><mc:Choice Requires="wps"><w:drawing>'
             f"<w:txbxContent>{choice_paras}</w:txbxContent></w:drawing></mc:Choice>"
             f"<mc:Fallback><w:pict><w:txbxContent>{fallback_paras}</w:txbxContent></w:pict></mc:Fallback>"
             "</mc:AlternateContent></w:r>", r("More body."))


def test_a_text_box_fallback_gets_the_translation_too(tmp_path):
    box = p(r("Box "), r("bold", "<w:b/>"), r(" text. Second box sentence."))
    path = _doc(tmp_path, _text_box(box, box))
    doc = FORMAT.read(path, src_lang="en")
    assert [s.source.plain() for s in doc.segments] == [
        "Body text.", "More body.", "Box bold text.", "Second box sentence."]  # the fallback is not read twice
    write_document(path, tmp_path / "out.docx", _upper(doc), format="docx", src_lang="en")
    root = etree.fromstring(zipfile.ZipFile(tmp_path / "out.docx").read("word/document.xml"))
    choice, fallback = root.find(f".//{{{MC_NS}}}Choice"), root.find(f".//{{{MC_NS}}}Fallback")
    for branch in (choice, fallback):
        paras = ["".join(t.text or "" for t in q.iter(W + "t")) for q in branch.iter(W + "p")]
        assert paras == ["BOX BOLD TEXT. SECOND BOX SENTENCE."]
        bold = [q for q in branch.iter(W + "r") if q.find(f"{W}rPr/{W}b") is not None]
        assert ["".join(t.text for t in q.iter(W + "t")) for q in bold] == ["BOLD"]
    outer = root.find(f".//{W}body/{W}p")
    assert "".join(t.text for q in outer.findall(W + "r") for t in q.findall(W + "t")) == "BODY TEXT. MORE BODY."
    again = FORMAT.read(tmp_path / "out.docx", src_lang="en")
    assert [s.source.plain() for s in again.segments] == [s.source.plain().upper() for s in doc.segments]


def test_a_fallback_that_differs_from_its_choice_is_left_as_it_was(tmp_path):
    path = _doc(tmp_path, _text_box(p(r("Box text.")), p(r("Older box text."))))
    doc = FORMAT.read(path, src_lang="en")
    write_document(path, tmp_path / "out.docx", _upper(doc), format="docx", src_lang="en")
    root = etree.fromstring(zipfile.ZipFile(tmp_path / "out.docx").read("word/document.xml"))
    assert "".join(t.text for t in root.find(f".//{{{MC_NS}}}Choice").iter(W + "t")) == "BOX TEXT."
    assert "".join(t.text for t in root.find(f".//{{{MC_NS}}}Fallback").iter(W + "t")) == "Older box text."


def test_hidden_text_is_skipped_but_kept(tmp_path):
    path = _doc(tmp_path, p(r("Visible"), r(" secret", "<w:vanish/>"), r(" text.")))
    seg = FORMAT.read(path, src_lang="en").segments[0]
    assert seg.source.plain() == "Visible text." and "secret" not in seg.source.display()
    write_document(path, tmp_path / "out.docx", {seg.key: Translation(TaggedText(seg.source.text.upper(),
                                                                                 seg.source.tags))},
                   format="docx", src_lang="en")
    assert _paras(tmp_path / "out.docx") == ["VISIBLE secret TEXT."]


def test_text_box_paragraphs_are_translated_inside_their_paragraph(tmp_path):
    box = ('<w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/'
           'wordprocessingDrawing"><w:txbxContent>' + p(r("Inside the box.")) +
           "</w:txbxContent></wp:inline></w:drawing></w:r>")
    path = _doc(tmp_path, p(r("Outside. "), box, r(" After.")))
    doc = FORMAT.read(path, src_lang="en")
    assert sorted(s.source.plain().strip() for s in doc.segments) == ["After.", "Inside the box.", "Outside."]
    write_document(path, tmp_path / "out.docx", _upper(doc), format="docx", src_lang="en")
    assert sorted(_paras(tmp_path / "out.docx")) == ["INSIDE THE BOX.", "OUTSIDE. INSIDE THE BOX. AFTER."]


def test_breaks_and_tabs_are_codes(tmp_path):
    doc = FORMAT.read(_doc(tmp_path, p('<w:r><w:t>One</w:t><w:tab/><w:t>two</w:t><w:br/><w:t>three</w:t></w:r>')))
    assert doc.segments[0].source.display() == "One<tab/>two<br/>three"


# ---------------------------------------------------------------- export
def test_untouched_export_is_the_same_package_byte_for_byte(tmp_path):
    path = _doc(tmp_path, p(r("One."), r(" Two.", "<w:i/>")), parts={"header1": p(r("Head."))})
    write_document(path, tmp_path / "out.docx", {}, format="docx", src_lang="en")
    a, b = zipfile.ZipFile(path), zipfile.ZipFile(tmp_path / "out.docx")
    assert a.namelist() == b.namelist()
    assert all(a.read(n) == b.read(n) for n in a.namelist())


def test_export_changes_only_the_translated_paragraph(tmp_path):
    path = _doc(tmp_path, p(r("Keep me.", attrs=' w:rsidR="001"'), '<w:proofErr w:type="spellStart"/>')
                + p(r("Translate me.")), parts={"header1": p(r("Head."))})
    doc = FORMAT.read(path, src_lang="en")
    key = "word/document.xml:p2.s1"
    write_document(path, tmp_path / "out.docx", {key: Translation(TaggedText("Übersetzt."))},
                   format="docx", src_lang="en")
    a, b = zipfile.ZipFile(path), zipfile.ZipFile(tmp_path / "out.docx")
    for n in a.namelist():
        if n != "word/document.xml":
            assert a.read(n) == b.read(n), n
    pa = etree.fromstring(a.read("word/document.xml")).findall(f".//{W}p")
    pb = etree.fromstring(b.read("word/document.xml")).findall(f".//{W}p")
    assert etree.tostring(pa[0], method="c14n") == etree.tostring(pb[0], method="c14n")
    assert _paras(tmp_path / "out.docx") == ["Keep me.", "Übersetzt."]
    assert len(doc.segments) == 3


def test_a_translation_for_an_unknown_key_is_refused(tmp_path):
    path = _doc(tmp_path, p(r("One.")))
    with pytest.raises(FormatError, match="does not have"):
        write_document(path, tmp_path / "out.docx", {"word/document.xml:p9.s1": Translation(TaggedText("x"))},
                       format="docx", src_lang="en")


def test_detected_by_content_not_only_by_extension(tmp_path):
    path = _doc(tmp_path, p(r("One.")))
    renamed = tmp_path / "upload.bin"
    renamed.write_bytes(path.read_bytes())
    assert detect(renamed).name == "docx"


# ---------------------------------------------------------- hostile input
def test_a_zip_bomb_is_refused_naming_the_member(tmp_path):
    path = _doc(tmp_path, p(r("One.")), parts={"word/media/bomb.xml": "<a>" + "A" * (60 << 20) + "</a>"})
    with pytest.raises(FormatError, match=r"word/media/bomb\.xml.*zip bomb") as e:
        FORMAT.read(path)
    assert "\n" not in str(e.value) and str(path) in str(e.value)


def test_a_member_outside_the_package_is_refused(tmp_path):
    path = _doc(tmp_path, p(r("One.")), parts={"../../evil.xml": "<a/>"})
    with pytest.raises(FormatError, match=r"path traversal") as e:
        FORMAT.read(path)
    assert "evil.xml" in str(e.value) and str(path) in str(e.value)


def test_entity_declarations_inside_the_package_are_refused(tmp_path):
    path = tmp_path / "x.docx"
    make_docx(path, p(r("One.")))
    with zipfile.ZipFile(path, "a") as z:
        z.writestr("word/header1.xml", '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]>'
                                       + wxml("hdr", p(r("&a;")))[len('<?xml version="1.0" encoding="UTF-8" '
                                                                       'standalone="yes"?>'):])
    with pytest.raises(UnsafeXMLError, match="header1"):
        FORMAT.read(path)


def test_a_file_that_is_not_a_zip_is_a_format_error(tmp_path):
    bad = tmp_path / "bad.docx"
    bad.write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(FormatError, match="bad.docx"):
        FORMAT.read(bad)


# ------------------------------------------------------------ real samples
def _samples() -> list[Path]:
    base = SHARED_DATA / "format-samples"
    return sorted(base.rglob("*.docx")) if base.is_dir() else []


@pytest.mark.data
@pytest.mark.parametrize("path", _samples(), ids=lambda q: q.name)
def test_every_sample_round_trips(path, tmp_path):
    doc = FORMAT.read(path, src_lang="en")
    FORMAT.write(path, tmp_path / "same.docx", {}, src_lang="en")
    a, b = zipfile.ZipFile(path), zipfile.ZipFile(tmp_path / "same.docx")
    assert a.namelist() == b.namelist() and all(a.read(n) == b.read(n) for n in a.namelist())
    # every segment passed back as read changes nothing either
    same = {s.key: Translation(s.source) for s in doc.segments}
    FORMAT.write(path, tmp_path / "same2.docx", same, src_lang="en")
    c = zipfile.ZipFile(tmp_path / "same2.docx")
    assert all(_c14n(a.read(n)) == _c14n(c.read(n)) if n.endswith(".xml") else a.read(n) == c.read(n)
               for n in a.namelist())
    FORMAT.write(path, tmp_path / "up.docx", _upper(doc), src_lang="en")
    again = FORMAT.read(tmp_path / "up.docx", src_lang="en")
    assert [s.source.text for s in again.segments] == [s.source.text.upper() for s in doc.segments]


@pytest.mark.slow
@pytest.mark.skipif(soffice() is None, reason="LibreOffice (soffice) not installed")
def test_translated_export_opens_in_libreoffice(tmp_path):
    fld = ('<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r>'
           '<w:r><w:fldChar w:fldCharType="separate"/></w:r>' + r("1") +
           '<w:r><w:fldChar w:fldCharType="end"/></w:r>')
    body = (p(r("Click "), r("Save", "<w:b/>"), r(" now. Page "), fld, r(".")) +
            "<w:tbl><w:tr><w:tc>" + p(r("In a cell.")) + "</w:tc></w:tr></w:tbl>" + p(r("Last.")))
    path = _doc(tmp_path, body, parts={"header1": p(r("Head."))})
    doc = FORMAT.read(path, src_lang="en")
    write_document(path, tmp_path / "translated.docx", _upper(doc), format="docx", src_lang="en")
    convert_to_pdf(tmp_path / "translated.docx", tmp_path)


def test_a_project_imports_and_exports_a_docx(tmp_path):
    from engine.store.project import Project

    path = _doc(tmp_path, p(r("Click "), r("Save", "<w:b/>"), r(" now. Then go.")))
    with Project.create(tmp_path / "proj", src_lang="en", tgt_lang="de") as proj:
        doc_id = proj.import_document(path)
        assert proj.document(doc_id).format == "docx"
        segs = proj.segments(doc_id)
        first = segs[0]
        proj.confirm(first.id, TaggedText(first.source.text.replace("Click", "Klicke"), first.source.tags))
        out = proj.export_document(doc_id, tmp_path / "out.docx")
    assert _paras(out) == ["Klicke Save now. Then go."]
