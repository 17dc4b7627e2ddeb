"""OpenDocument text with tracked changes (ODF 1.2 section 5.5): accepted (format ``odf``) or
refused (``odt-reject``) on import as the translator chooses, never mixed, and exported so.

The documents are written here in the shape LibreOffice writes them (a DOCX with the same
changes converted by ``soffice --convert-to odt`` gives this change list and these marks)."""
from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from lxml import etree

from engine.errors import FormatError
from engine.formats import by_name, detect, read_document, write_document
from engine.formats.base import Translation
from engine.formats.odf import has_tracked_changes, tracked_changes
from engine.formats.revmarks import TrackedChanges
from engine.inline import TaggedText
from formats.docfiles import ODF_NS, make_odt, soffice, soffice_convert

T = f"{{{ODF_NS['text']}}}"
INFO = "<office:change-info><dc:creator>A</dc:creator><dc:date>2024-01-01T10:00:00</dc:date></office:change-info>"
STYLES = ('<style:style style:name="B" style:family="text"><style:text-properties fo:font-weight="bold"/>'
          "</style:style>")


def region(cid: str, kind: str, content: str = "") -> str:
    return f'<text:changed-region text:id="{cid}"><text:{kind}>{INFO}{content}</text:{kind}></text:changed-region>'


def changes(*regions: str) -> str:
    return '<text:tracked-changes text:track-changes="false">' + "".join(regions) + "</text:tracked-changes>"


def start(cid):
    return f'<text:change-start text:change-id="{cid}"/>'


def end(cid):
    return f'<text:change-end text:change-id="{cid}"/>'


def point(cid):
    return f'<text:change text:change-id="{cid}"/>'


#: an insertion, a deletion inside a paragraph, a deletion across two paragraphs, a format change
BODY = (changes(region("ct1", "deletion", '<text:p text:style-name="Standard">old</text:p>'),
                region("ct2", "insertion"),
                region("ct3", "deletion", '<text:p text:style-name="Standard">Gone one.</text:p>'
                                          '<text:p text:style-name="Second">Gone two. </text:p>'),
                region("ct4", "format-change"))
        + f'<text:p text:style-name="Standard">The {point("ct1")}{start("ct2")}new{end("ct2")} text.</text:p>'
        + f'<text:p text:style-name="Standard">Keep this. {point("ct3")}Keep that.</text:p>'
        + f'<text:p>{start("ct4")}<text:span text:style-name="B">Bold now.</text:span>{end("ct4")}</text:p>'
        + "<text:p>Last.</text:p>")


def _doc(tmp_path: Path, body: str = BODY, name: str = "tc.odt") -> Path:
    return make_odt(tmp_path / name, body, auto_styles=STYLES)


def _sources(path: Path, fmt: str) -> list[str]:
    return [s.source.plain() for s in read_document(path, src_lang="en", format=fmt).segments]


def _upper(doc) -> dict[str, Translation]:
    return {s.key: Translation(TaggedText(s.source.text.upper(), s.source.tags)) for s in doc.segments}


def _paras(path: Path) -> list[tuple[str | None, str]]:
    root = etree.fromstring(zipfile.ZipFile(path).read("content.xml"))
    return [(p.get(T + "style-name"), "".join(p.itertext())) for p in root.iter(T + "p", T + "h")]


def _no_change_left(path: Path) -> None:
    xml = zipfile.ZipFile(path).read("content.xml").decode()
    for mark in ("tracked-changes", "changed-region", "<text:change ", "change-start", "change-end"):
        assert mark not in xml


def test_changes_are_counted_before_the_import(tmp_path, monkeypatch):
    path = _doc(tmp_path)
    assert tracked_changes(path) == TrackedChanges(insertions=1, deletions=2) and has_tracked_changes(path)
    # a format change reads the same text either way: nothing to ask
    only_fmt = _doc(tmp_path, changes(region("c", "format-change")) + f"<text:p>{start('c')}A.{end('c')}</text:p>",
                    "fmt.odt")
    assert not has_tracked_changes(only_fmt)
    # words that look like changes are not changes; a member without change marks is not parsed
    from engine.formats import package
    plain = _doc(tmp_path, "<text:p>No tracked-changes, no change-start here.</text:p>", "plain.odt")
    monkeypatch.setattr(package.Package, "xml", lambda *a: pytest.fail("parsed a member without changes"))
    assert tracked_changes(plain) == TrackedChanges() and not tracked_changes(plain)


def test_detection_by_content_still_finds_odf_and_odt_reject_is_chosen_by_name(tmp_path):
    path = _doc(tmp_path)
    other = tmp_path / "tc.bin"
    other.write_bytes(path.read_bytes())
    assert detect(path).name == "odf" and detect(other).name == "odf"
    assert by_name("odt-reject").reject and not by_name("odf").reject


def test_accepted_inserted_text_is_plain_text_and_deleted_text_left_out(tmp_path):
    path = _doc(tmp_path)
    assert _sources(path, "odf") == ["The new text.", "Keep this.", "Keep that.", "Bold now.", "Last."]
    doc = read_document(path, src_lang="en", format="odf")
    assert doc.meta["tracked_changes"] == "accept"
    write_document(path, tmp_path / "a.odt", _upper(doc), format="odf", src_lang="en")
    _no_change_left(tmp_path / "a.odt")
    assert [t for _, t in _paras(tmp_path / "a.odt")] == ["THE NEW TEXT.", "KEEP THIS. KEEP THAT.", "BOLD NOW.",
                                                         "LAST."]
    root = etree.fromstring(zipfile.ZipFile(tmp_path / "a.odt").read("content.xml"))
    assert [s.get(T + "style-name") for s in root.iter(T + "span")] == ["B"]  # the format change, accepted


def test_refused_inserted_text_goes_and_deleted_paragraphs_come_back_as_paragraphs(tmp_path):
    path = _doc(tmp_path)
    doc = read_document(path, src_lang="en", format="odt-reject")
    assert doc.meta["tracked_changes"] == "reject"
    assert [s.source.display() for s in doc.segments] == [
        "The old text.", "Keep this.", "Gone one.", "Gone two.", "Keep that.", "Bold now.", "Last."]
    write_document(path, tmp_path / "r.odt", _upper(doc), format="odt-reject", src_lang="en")
    _no_change_left(tmp_path / "r.odt")
    # the paragraph the deletion had joined is two again: the second in the last deleted one's style
    assert _paras(tmp_path / "r.odt") == [("Standard", "THE OLD TEXT."), ("Standard", "KEEP THIS. GONE ONE."),
                                         ("Second", "GONE TWO. KEEP THAT."), (None, "BOLD NOW."), (None, "LAST.")]
    again = read_document(tmp_path / "r.odt", src_lang="en")
    assert [s.source.text for s in again.segments] == [s.source.text.upper() for s in doc.segments]


def test_export_resolves_untranslated_paragraphs_too_and_keeps_every_other_member(tmp_path):
    path = _doc(tmp_path)
    for fmt in ("odf", "odt-reject"):
        out = tmp_path / f"{fmt}.odt"
        write_document(path, out, {}, format=fmt, src_lang="en")
        _no_change_left(out)
        assert _sources(out, "odf") == _sources(path, fmt)
        a, b = zipfile.ZipFile(path), zipfile.ZipFile(out)
        assert a.namelist() == b.namelist()
        assert all(a.read(n) == b.read(n) for n in a.namelist() if n != "content.xml")
        assert b.infolist()[0].filename == "mimetype" and b.infolist()[0].compress_type == zipfile.ZIP_STORED


def test_refused_insertion_across_paragraphs_joins_them_again(tmp_path):
    body = (changes(region("i1", "insertion"))
            + f'<text:p text:style-name="P1">Old <text:span text:style-name="B">bold{start("i1")} new</text:span>'
            + "</text:p><text:p text:style-name=\"P2\">Whole new paragraph.</text:p>"
            + f'<text:p text:style-name="P3">Also new.{end("i1")} Old end.</text:p>')
    path = _doc(tmp_path, body)
    assert _sources(path, "odf") == ["Old bold new", "Whole new paragraph.", "Also new.", "Old end."]
    assert _sources(path, "odt-reject") == ["Old bold Old end."]
    write_document(path, tmp_path / "r.odt", {}, format="odt-reject", src_lang="en")
    assert _paras(tmp_path / "r.odt") == [("P1", "Old bold Old end.")]


def test_deleted_paragraphs_between_paragraphs_and_a_deletion_in_a_span(tmp_path):
    body = (changes(region("d1", "deletion", "<text:p>A whole paragraph.</text:p><text:h>A heading.</text:h>"),
                    region("d2", "deletion", '<text:p>very <text:span text:style-name="B">very</text:span> </text:p>'))
            + "<text:p>Before.</text:p>" + point("d1")
            + f'<text:p>It is <text:span text:style-name="B">{point("d2")}good</text:span>.</text:p>')
    path = _doc(tmp_path, body)
    assert _sources(path, "odf") == ["Before.", "It is good."]
    assert _sources(path, "odt-reject") == ["Before.", "A whole paragraph.", "A heading.", "It is very very good."]
    write_document(path, tmp_path / "r.odt", {}, format="odt-reject", src_lang="en")
    assert [t for _, t in _paras(tmp_path / "r.odt")] == ["Before.", "A whole paragraph.", "A heading.",
                                                         "It is very very good."]


def test_refused_deletion_inside_inserted_then_restored_text(tmp_path):
    # the deleted content holds the marks of a change of its own: refused too
    body = (changes(region("d1", "deletion", f"<text:p>kept {start('i1')}added{end('i1')}</text:p>"),
                    region("i1", "insertion"))
            + f"<text:p>One {point('d1')}two.</text:p>")
    path = _doc(tmp_path, body)
    assert _sources(path, "odf") == ["One two."]
    assert _sources(path, "odt-reject") == ["One kept two."]


def test_a_deletion_across_paragraphs_that_cannot_be_put_back_is_refused_in_one_line(tmp_path):
    body = (changes(region("ct9", "deletion", "<text:p>Gone one.</text:p><text:p>Gone two.</text:p>"))
            + f'<text:p>Keep <text:span text:style-name="B">this{point("ct9")}</text:span> that.</text:p>')
    path = _doc(tmp_path, body)
    assert _sources(path, "odf") == ["Keep this that."]
    with pytest.raises(FormatError) as e:
        read_document(path, src_lang="en", format="odt-reject")
    msg = str(e.value)
    assert "\n" not in msg and str(path) in msg and "'ct9'" in msg
    with pytest.raises(FormatError, match="ct9"):
        write_document(path, tmp_path / "r.odt", {}, format="odt-reject", src_lang="en")
    assert not (tmp_path / "r.odt").exists()


def test_refusing_what_cannot_be_told_is_an_error_not_a_guess(tmp_path):
    # a list deleted from inside a paragraph; a mark whose change is not in the list of changes
    listed = (changes(region("l1", "deletion", "<text:list><text:list-item><text:p>Item.</text:p></text:list-item>"
                                               "</text:list><text:p>After.</text:p>"))
              + f"<text:p>Text {point('l1')}here.</text:p>")
    unknown = f"<text:p>Text {start('x7')}added{end('x7')} here.</text:p>"
    for name, body, cid in (("listed.odt", listed, "'l1'"), ("unknown.odt", unknown, "'x7'")):
        path = _doc(tmp_path, body, name)
        assert len(_sources(path, "odf")) == 1
        with pytest.raises(FormatError, match=cid):
            read_document(path, src_lang="en", format="odt-reject")


def test_a_document_without_changes_reads_the_same_both_ways_and_exports_byte_for_byte(tmp_path):
    path = _doc(tmp_path, "<text:p>One.</text:p><text:p>Two.</text:p>")
    assert _sources(path, "odf") == _sources(path, "odt-reject") == ["One.", "Two."]
    write_document(path, tmp_path / "same.odt", {}, format="odt-reject", src_lang="en")
    a, b = zipfile.ZipFile(path), zipfile.ZipFile(tmp_path / "same.odt")
    assert all(a.read(n) == b.read(n) for n in a.namelist())


@pytest.mark.slow
@pytest.mark.skipif(soffice() is None, reason="LibreOffice (soffice) not installed")
@pytest.mark.parametrize("fmt", ["odf", "odt-reject"])
def test_accepted_and_refused_exports_open_in_libreoffice(tmp_path, fmt):
    path = _doc(tmp_path)
    out = tmp_path / f"translated-{fmt}.odt"
    write_document(path, out, _upper(read_document(path, src_lang="en", format=fmt)), format=fmt, src_lang="en")
    soffice_convert(out, tmp_path, "pdf")


@pytest.mark.slow
@pytest.mark.skipif(soffice() is None, reason="LibreOffice (soffice) not installed")
def test_an_odt_written_by_libreoffice_reads_as_the_docx_it_came_from(tmp_path):
    """LibreOffice converts a DOCX with tracked changes to an ODT with the same changes: accepted
    and refused, the ODT reads the text the DOCX reads."""
    from formats.docfiles import make_docx

    def r(text):
        return f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>'

    d = 'w:author="A" w:date="2024-01-01T00:00:00Z"'
    body = (f'<w:p>{r("The ")}<w:del w:id="1" {d}><w:r><w:delText>old</w:delText></w:r></w:del>'
            f'<w:ins w:id="2" {d}>{r("new")}</w:ins>{r(" text.")}</w:p>'
            f'<w:p><w:pPr><w:rPr><w:del w:id="3" {d}/></w:rPr></w:pPr>{r("Keep this. ")}'
            f'<w:del w:id="4" {d}><w:r><w:delText>Gone one.</w:delText></w:r></w:del></w:p>'
            f'<w:p><w:del w:id="5" {d}><w:r><w:delText>Gone two</w:delText></w:r></w:del>{r(". Keep that.")}</w:p>'
            f'<w:p><w:ins w:id="6" {d}>{r("A new paragraph.")}</w:ins></w:p><w:p>{r("Last.")}</w:p>')
    docx = make_docx(tmp_path / "changed.docx", body)
    odt = soffice_convert(docx, tmp_path, "odt")
    assert has_tracked_changes(odt)

    def texts(path, fmt):
        return [" ".join(s.source.plain().split()) for s in read_document(path, src_lang="en", format=fmt).segments]

    assert texts(odt, "odf") == texts(docx, "docx")
    assert texts(odt, "odt-reject") == texts(docx, "docx-reject")
