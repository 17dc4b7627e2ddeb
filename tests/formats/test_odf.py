"""OpenDocument (ODT; ODS/ODP share the reader): spans -> tags, a faithful export."""
from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from lxml import etree

from datafiles import data_file
from engine.errors import FormatError
from engine.formats import detect, write_document
from engine.formats.base import Translation
from engine.formats.odf import FORMAT
from engine.inline import TaggedText
from formats.docfiles import ODF_NS, make_odt, soffice, soffice_convert

T = f"{{{ODF_NS['text']}}}"
STYLES = ('<style:style style:name="B" style:family="text"><style:text-properties fo:font-weight="bold"/>'
          "</style:style>")


def _upper(doc) -> dict[str, Translation]:
    return {s.key: Translation(TaggedText(s.source.text.upper(), s.source.tags)) for s in doc.segments}


def _paras(path: Path, member: str = "content.xml") -> list[str]:
    root = etree.fromstring(zipfile.ZipFile(path).read(member))
    return ["".join(p.itertext()) for p in root.iter(T + "p", T + "h")]


def test_paragraphs_headings_and_sentences_become_segments(tmp_path):
    path = make_odt(tmp_path / "a.odt", '<text:h text:outline-level="1">Title</text:h>'
                                        "<text:p>One here. Two there.</text:p>")
    doc = FORMAT.read(path, src_lang="en")
    assert [(s.key, s.source.text) for s in doc.segments] == [
        ("content.xml:p1.s1", "Title"), ("content.xml:p2.s1", "One here."), ("content.xml:p2.s2", "Two there.")]
    assert doc.meta["kind"] == "odt"


def test_a_span_in_another_style_becomes_paired_tags_and_moves_with_them(tmp_path):
    path = make_odt(tmp_path / "a.odt", '<text:p>Click <text:span text:style-name="B">Save</text:span> now.</text:p>',
                    auto_styles=STYLES)
    seg = FORMAT.read(path, src_lang="en").segments[0]
    assert seg.source.display() == "Click <fmt>Save</fmt> now."
    o, c = (t.char for t in seg.source.tags)
    write_document(path, tmp_path / "out.odt", {seg.key: Translation(TaggedText(f"Jetzt {o}speichern{c}.",
                                                                                seg.source.tags))},
                   format="odf", src_lang="en")
    root = etree.fromstring(zipfile.ZipFile(tmp_path / "out.odt").read("content.xml"))
    (span,) = root.iter(T + "span")
    assert span.get(T + "style-name") == "B" and span.text == "speichern"
    assert _paras(tmp_path / "out.odt") == ["Jetzt speichern."]


def test_links_notes_and_spaces(tmp_path):
    body = ('<text:p>See <text:s/><text:a xlink:type="simple" xlink:href="http://x.org/">the site</text:a>'
            '<text:note text:id="n1" text:note-class="footnote"><text:note-citation>1</text:note-citation>'
            "<text:note-body><text:p>A note.</text:p></text:note-body></text:note>.<text:tab/>End.</text:p>")
    path = make_odt(tmp_path / "a.odt", body)
    doc = FORMAT.read(path, src_lang="en")
    by_key = {s.key: s.source.display() for s in doc.segments}
    assert by_key["content.xml:p1.s1"].startswith("See  <link>the site</link><fn/>.")
    assert "A note." in by_key.values()
    write_document(path, tmp_path / "out.odt", _upper(doc), format="odf", src_lang="en")
    xml = zipfile.ZipFile(tmp_path / "out.odt").read("content.xml").decode()
    assert 'xlink:href="http://x.org/"' in xml and "<text:s/>" in xml and "A NOTE." in xml
    again = FORMAT.read(tmp_path / "out.odt", src_lang="en")
    assert [s.source.text for s in again.segments] == [s.source.text.upper() for s in doc.segments]


def test_comments_are_notes_not_segments(tmp_path):
    body = ('<text:p><office:annotation><dc:creator>Ann</dc:creator><text:p>Really?</text:p>'
            "</office:annotation>Check this.</text:p>")
    doc = FORMAT.read(make_odt(tmp_path / "a.odt", body), src_lang="en")
    assert [(s.source.text, s.note) for s in doc.segments] == [("Check this.", "Really?")]


def test_headers_and_footers_of_styles_xml_are_translated(tmp_path):
    path = make_odt(tmp_path / "a.odt", "<text:p>Body.</text:p>",
                    master="<style:header><text:p>Head.</text:p></style:header>")
    doc = FORMAT.read(path, src_lang="en")
    assert [s.key for s in doc.segments] == ["content.xml:p1.s1", "styles.xml:p1.s1"]
    write_document(path, tmp_path / "out.odt", _upper(doc), format="odf", src_lang="en")
    assert _paras(tmp_path / "out.odt", "styles.xml") == ["HEAD."]


def test_untouched_export_is_byte_for_byte_and_mimetype_stays_first_and_stored(tmp_path):
    path = make_odt(tmp_path / "a.odt", "<text:p>One.</text:p><text:p>Two.</text:p>")
    write_document(path, tmp_path / "same.odt", {}, format="odf", src_lang="en")
    a, b = zipfile.ZipFile(path), zipfile.ZipFile(tmp_path / "same.odt")
    assert all(a.read(n) == b.read(n) for n in a.namelist())
    write_document(path, tmp_path / "out.odt", {"content.xml:p2.s1": Translation(TaggedText("Zwei."))},
                   format="odf", src_lang="en")
    z = zipfile.ZipFile(tmp_path / "out.odt")
    assert z.infolist()[0].filename == "mimetype" and z.infolist()[0].compress_type == zipfile.ZIP_STORED
    assert _paras(tmp_path / "out.odt") == ["One.", "Zwei."]
    assert z.read("styles.xml") == a.read("styles.xml")


def test_detected_by_content(tmp_path):
    path = make_odt(tmp_path / "a.odt", "<text:p>One.</text:p>")
    other = tmp_path / "a.bin"
    other.write_bytes(path.read_bytes())
    assert detect(other).name == "odf"


def test_path_traversal_is_refused(tmp_path):
    path = make_odt(tmp_path / "a.odt", "<text:p>One.</text:p>")
    with zipfile.ZipFile(path, "a") as z:
        z.writestr("/etc/evil", "x")
    with pytest.raises(FormatError, match="path traversal"):
        FORMAT.read(path)


@pytest.mark.data
def test_omegat_sample_round_trips(tmp_path):
    path = data_file("format-samples", "omegat", "filters-documents", "openDoc", "file-OpenDocFilter.odt")
    doc = FORMAT.read(path, src_lang="en")
    assert [s.source.text for s in doc.segments] == ["This is first line.", "This is second line."]
    FORMAT.write(path, tmp_path / "same.odt", {}, src_lang="en")
    a, b = zipfile.ZipFile(path), zipfile.ZipFile(tmp_path / "same.odt")
    assert all(a.read(n) == b.read(n) for n in a.namelist())
    FORMAT.write(path, tmp_path / "up.odt", _upper(doc), src_lang="en")
    assert [s.source.text for s in FORMAT.read(tmp_path / "up.odt", src_lang="en").segments] == [
        "THIS IS FIRST LINE.", "THIS IS SECOND LINE."]


@pytest.mark.slow
@pytest.mark.skipif(soffice() is None, reason="LibreOffice (soffice) not installed")
def test_translated_odt_opens_in_libreoffice(tmp_path):
    path = make_odt(tmp_path / "doc.odt", '<text:p>Click <text:span text:style-name="B">Save</text:span> now. '
                                          "Then go.</text:p>", auto_styles=STYLES)
    doc = FORMAT.read(path, src_lang="en")
    write_document(path, tmp_path / "translated.odt", _upper(doc), format="odf", src_lang="en")
    soffice_convert(tmp_path / "translated.odt", tmp_path, "pdf")
