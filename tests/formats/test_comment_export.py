"""Open comments go into the exported file where the format has a place; nothing else changes."""
from __future__ import annotations

import difflib
import zipfile

import pytest
from lxml import etree

from engine.store.comments import Comments
from engine.store.project import Project
from formats.docfiles import make_docx, soffice, soffice_convert

X12 = "urn:oasis:names:tc:xliff:document:1.2"
X20 = "urn:oasis:names:tc:xliff:document:2.0"
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

XLF12 = f"""<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="{X12}">
  <file original="a.txt" source-language="en" target-language="de" datatype="plaintext">
    <body>
      <trans-unit id="u1">
        <source>Open the file.</source>
      </trans-unit>
      <trans-unit id="u2">
        <source>Save the file.</source>
        <target state="translated">Datei speichern.</target>
        <note>From the developer.</note>
      </trans-unit>
    </body>
  </file>
</xliff>
"""

XLF20 = f"""<?xml version="1.0" encoding="UTF-8"?>
<xliff version="2.0" xmlns="{X20}" srcLang="en" trgLang="de">
  <file id="f1">
    <unit id="u1">
      <segment>
        <source>Open the file.</source>
      </segment>
    </unit>
    <unit id="u2">
      <notes>
        <note>Keep it short.</note>
      </notes>
      <segment>
        <source>Save the file.</source>
      </segment>
    </unit>
  </file>
</xliff>
"""

PO = """# Translator note already there
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Language: de\\n"

#. Extracted by xgettext
#: src/main.c:10
msgid "Open the file."
msgstr ""

msgid "Save the file."
msgstr ""
"""


def _project(tmp_path, name: str, data: bytes | str):
    src = tmp_path / name
    src.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    p = Project.create(tmp_path / "P", src_lang="en", tgt_lang="de")
    doc = p.import_document(src)
    return p, doc, p.segments(doc), src


def _changed_lines(a: bytes, b: bytes) -> list[str]:
    return [line for line in difflib.ndiff(a.decode().splitlines(), b.decode().splitlines())
            if line[:1] in "+-"]


@pytest.mark.parametrize("name, data", [("a.xlf", XLF12), ("b.xlf", XLF20), ("c.po", PO)])
def test_a_document_without_open_comments_exports_byte_identical(tmp_path, name, data):
    p, doc, segs, src = _project(tmp_path, name, data)
    c = Comments(p).add(segs[0].id, "Check this later", author="Ana")
    Comments(p).resolve(c.id)
    out = p.export_document(doc, tmp_path / ("out-" + name))
    assert out.read_bytes() == src.read_bytes()


def test_xliff12_comment_is_a_note_from_its_author_in_that_trans_unit_only(tmp_path):
    p, doc, segs, src = _project(tmp_path, "a.xlf", XLF12)
    Comments(p).add(segs[0].id, "Is 'file' a document here?", author="Ana Lima")
    out = p.export_document(doc, tmp_path / "out.xlf")
    root = etree.parse(str(out)).getroot()
    notes = root.findall(f".//{{{X12}}}trans-unit[@id='u1']/{{{X12}}}note")
    assert [(n.get("from"), n.text) for n in notes] == [("Ana Lima", "Is 'file' a document here?")]
    assert [n.text for n in root.findall(f".//{{{X12}}}trans-unit[@id='u2']/{{{X12}}}note")] == [
        "From the developer."]
    assert _changed_lines(src.read_bytes(), out.read_bytes()) == [
        '+         <note from="Ana Lima">Is \'file\' a document here?</note>']


def test_xliff12_a_second_comment_goes_after_the_files_own_note(tmp_path):
    p, doc, segs, _ = _project(tmp_path, "a.xlf", XLF12)
    Comments(p).add(segs[1].id, "Client prefers 'sichern'", author="Ana")
    p.set_target(segs[1].id, "Datei sichern.")
    out = p.export_document(doc, tmp_path / "out.xlf")
    unit = etree.parse(str(out)).getroot().find(f".//{{{X12}}}trans-unit[@id='u2']")
    assert [etree.QName(e).localname for e in unit] == ["source", "target", "note", "note"]
    assert unit[1].text == "Datei sichern."
    assert unit[3].text == "Client prefers 'sichern'"


def test_xliff20_comment_is_a_note_in_the_units_notes(tmp_path):
    from engine.formats.xliff20_valid import check

    p, doc, segs, src = _project(tmp_path, "b.xlf", XLF20)
    Comments(p).add(segs[0].id, "Menu item or sentence?", author="Ana")
    Comments(p).add(segs[1].id, "Glossary says 'speichern'", author="Ana")
    out = p.export_document(doc, tmp_path / "out.xlf")
    root = etree.parse(str(out)).getroot()
    u1 = root.find(f".//{{{X20}}}unit[@id='u1']")
    assert [etree.QName(e).localname for e in u1] == ["notes", "segment"]
    assert [(n.get("category"), n.text) for n in u1.find(f"{{{X20}}}notes")] == [
        ("comment", "Menu item or sentence?")]
    u2 = root.find(f".//{{{X20}}}unit[@id='u2']/{{{X20}}}notes")
    assert [n.text for n in u2] == ["Keep it short.", "Glossary says 'speichern'"]
    check(out, root)
    # re-imported, the notes are the segments' notes
    again = Project.create(tmp_path / "Q", src_lang="en", tgt_lang="de")
    d2 = again.import_document(out)
    assert [s.note for s in again.segments(d2)] == ["Menu item or sentence?",
                                                     "Keep it short.\nGlossary says 'speichern'"]


def test_po_comment_is_a_translator_comment_before_the_entry(tmp_path):
    from translate.storage import pypo

    p, doc, segs, src = _project(tmp_path, "c.po", PO)
    Comments(p).add(segs[0].id, "Tone: formal (Sie)\nsee style guide", author="Ana")
    p.set_target(segs[1].id, "Datei speichern.")
    out = p.export_document(doc, tmp_path / "out.po")
    units = {u.source: u for u in pypo.pofile(out.read_bytes()).units if not u.isheader()}
    assert units["Open the file."].othercomments == ["# Tone: formal (Sie)\n", "# see style guide\n"]
    assert units["Open the file."].automaticcomments == ["#. Extracted by xgettext\n"]
    assert units["Save the file."].othercomments == []
    assert units["Save the file."].target == "Datei speichern."
    assert _changed_lines(src.read_bytes(), out.read_bytes()) == [
        "+ # Tone: formal (Sie)", "+ # see style guide", "+ #, fuzzy", '- msgstr ""', '+ msgstr "Datei speichern."']


def test_a_format_without_a_place_keeps_its_comments_in_the_project(tmp_path):
    from engine.formats.comments_export import has_place

    p, doc, segs, src = _project(tmp_path, "a.txt", "Open the file.\n")
    Comments(p).add(segs[0].id, "Kept here", author="Ana")
    out = p.export_document(doc, tmp_path / "out.txt")
    assert out.read_bytes() == src.read_bytes()
    assert not has_place("txt") and has_place("docx")


def _docx(tmp_path):
    body = ("<w:p><w:pPr><w:jc w:val=\"left\"/></w:pPr><w:r><w:t>Open the file.</w:t></w:r></w:p>"
            "<w:p><w:r><w:t>Save the file.</w:t></w:r></w:p>")
    return make_docx(tmp_path / "doc.docx", body)


def test_docx_comment_is_a_word_comment_anchored_on_its_paragraph(tmp_path):
    src = _docx(tmp_path)
    p = Project.create(tmp_path / "P", src_lang="en", tgt_lang="de")
    doc = p.import_document(src)
    segs = p.segments(doc)
    Comments(p).add(segs[1].id, "Which file?", author="Ana Lima")
    out = p.export_document(doc, tmp_path / "out.docx")
    with zipfile.ZipFile(out) as z:
        comments = etree.fromstring(z.read("word/comments.xml"))
        body = etree.fromstring(z.read("word/document.xml"))
        types = z.read("[Content_Types].xml").decode()
        rels = z.read("word/_rels/document.xml.rels").decode()
    c = comments.find(f"{{{W}}}comment")
    assert (c.get(f"{{{W}}}author"), c.get(f"{{{W}}}initials")) == ("Ana Lima", "AL")
    assert "".join(c.itertext()) == "Which file?"
    paras = body.findall(f".//{{{W}}}p")
    assert paras[0].find(f".//{{{W}}}commentRangeStart") is None
    assert [etree.QName(e).localname for e in paras[1]] == [
        "commentRangeStart", "r", "commentRangeEnd", "r"]
    assert paras[1][3][0].tag == f"{{{W}}}commentReference"
    assert "/word/comments.xml" in types and "relationships/comments" in rels and 'Target="comments.xml"' in rels
    again = Project.create(tmp_path / "Q", src_lang="en", tgt_lang="de")
    assert [s.note for s in again.segments(again.import_document(out))] == ["", "Ana Lima: Which file?"]
    if soffice():
        odt = soffice_convert(out, tmp_path, "odt")
        with zipfile.ZipFile(odt) as z:
            content = z.read("content.xml").decode()
        assert "office:annotation" in content and "Which file?" in content


def test_docx_with_its_own_comments_gets_the_next_comment_id(tmp_path):
    body = ('<w:p><w:commentRangeStart w:id="0"/><w:r><w:t>Open the file.</w:t></w:r><w:commentRangeEnd w:id="0"/>'
            '<w:r><w:commentReference w:id="0"/></w:r></w:p><w:p><w:r><w:t>Save the file.</w:t></w:r></w:p>')
    rels = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.'
            'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.'
            'openxmlformats.org/officeDocument/2006/relationships/comments" Target="comments.xml"/></Relationships>')
    src = make_docx(tmp_path / "c.docx", body, doc_rels=rels, parts={
        "comments": '<w:comment w:id="0" w:author="Client"><w:p><w:r><w:t>Theirs</w:t></w:r></w:p></w:comment>'})
    p = Project.create(tmp_path / "P", src_lang="en", tgt_lang="de")
    doc = p.import_document(src)
    segs = p.segments(doc)
    assert segs[0].note == "Client: Theirs"
    Comments(p).add(segs[0].id, "Mine", author="Ana")
    out = p.export_document(doc, tmp_path / "out.docx")
    with zipfile.ZipFile(out) as z:
        names = z.namelist()
        comments = etree.fromstring(z.read("word/comments.xml"))
        assert z.read("word/_rels/document.xml.rels") == rels.encode()
    assert names.count("word/comments.xml") == 1
    assert [(c.get(f"{{{W}}}id"), c.get(f"{{{W}}}author")) for c in comments] == [("0", "Client"), ("1", "Ana")]
    again = Project.create(tmp_path / "Q", src_lang="en", tgt_lang="de")
    assert again.segments(again.import_document(out))[0].note == "Ana: Mine\nClient: Theirs"


def test_docx_comment_export_changes_only_the_commented_paragraph_bytes(tmp_path):
    """Word's own bytes elsewhere in document.xml -- its single-quoted declaration, a character
    reference, attribute order -- stay as they were; only the commented paragraph changes."""
    keep = ("<w:p><w:pPr><w:jc w:val='left'/></w:pPr><w:r><w:t xml:space='preserve'>Open &#x201C;the&#x201D; "
            "file.</w:t></w:r></w:p>")
    commented = "<w:p><w:r><w:t>Save the file.</w:t></w:r></w:p>"
    xml = (f"<?xml version='1.0' encoding='UTF-8' standalone='yes'?>\r\n"
           f"<w:document xmlns:w='{W}' xmlns:r='http://schemas.openxmlformats.org/officeDocument/2006/"
           f"relationships'><w:body>{keep}{commented}</w:body></w:document>")
    src = make_docx(tmp_path / "doc.docx", "")
    with zipfile.ZipFile(src) as z:  # with Word's bytes in document.xml
        members = {n: z.read(n) for n in z.namelist()}
    with zipfile.ZipFile(src, "w") as z:
        for n, data in members.items():
            z.writestr(n, xml.encode() if n == "word/document.xml" else data)
    p = Project.create(tmp_path / "P", src_lang="en", tgt_lang="de")
    doc = p.import_document(src)
    Comments(p).add(p.segments(doc)[1].id, "Which file?", author="Ana Lima")
    out = p.export_document(doc, tmp_path / "out.docx")
    data = zipfile.ZipFile(out).read("word/document.xml").decode()
    head = xml[:xml.index(commented)]
    assert data.startswith(head)                        # declaration, root, first paragraph: same bytes
    assert data.endswith("</w:body></w:document>") and "commentReference" in data
