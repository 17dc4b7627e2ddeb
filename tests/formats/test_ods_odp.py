"""OpenDocument spreadsheets (ODS) and presentations (ODP): import, untouched and translated round trips.

The packages are written here in the shape LibreOffice Calc and Impress save them (mimetype
first and stored, manifest, content.xml + styles.xml with master pages); no sample ODS/ODP is
in ../shared/data/format-samples and the LibreOffice of this machine has no Calc or Impress
to make or open one (Writer only: the ODT test opens its export there).
"""
from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from lxml import etree

from engine.formats import detect, read_document, write_document
from engine.formats.base import Translation
from engine.inline import TaggedText
from formats.docfiles import soffice, soffice_convert

NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "style": "urn:oasis:names:tc:opendocument:xmlns:style:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
    "presentation": "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0",
    "fo": "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0",
    "svg": "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0",
    "xlink": "http://www.w3.org/1999/xlink",
}
DECL = " ".join(f'xmlns:{k}="{v}"' for k, v in NS.items())
MIME = {"ods": "application/vnd.oasis.opendocument.spreadsheet",
        "odp": "application/vnd.oasis.opendocument.presentation"}


def _png() -> bytes:
    """A valid 1x1 grey PNG: the package's thumbnail, a binary part the round trip keeps byte for byte."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\x80")) + chunk(b"IEND", b""))


_PNG = _png()


def make_package(path: Path, kind: str, body: str, auto_styles: str = "", master: str = "") -> Path:
    content = (f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content {DECL} office:version="1.3">'
               f"<office:automatic-styles>{auto_styles}</office:automatic-styles>"
               f"<office:body>{body}</office:body></office:document-content>")
    styles = (f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document-styles {DECL} office:version="1.3">'
              f'<office:master-styles><style:master-page style:name="Default">{master}</style:master-page>'
              "</office:master-styles></office:document-styles>")
    manifest = ('<?xml version="1.0" encoding="UTF-8"?>\n<manifest:manifest xmlns:manifest='
                '"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">'
                f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{MIME[kind]}"/>'
                '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
                '<manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>'
                # every part is listed: LibreOffice refuses a package with an unlisted one ("could not be loaded")
                '<manifest:file-entry manifest:full-path="Thumbnails/thumbnail.png" manifest:media-type="image/png"/>'
                "</manifest:manifest>")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), MIME[kind])
        z.writestr("content.xml", content, zipfile.ZIP_DEFLATED)
        z.writestr("styles.xml", styles, zipfile.ZIP_DEFLATED)
        z.writestr("Thumbnails/thumbnail.png", _PNG, zipfile.ZIP_STORED)
        z.writestr("META-INF/manifest.xml", manifest, zipfile.ZIP_DEFLATED)
    return path


SHEET = (
    '<office:spreadsheet><table:table table:name="Prices">'
    '<table:table-column table:number-columns-repeated="3"/>'
    '<table:table-row><table:table-cell office:value-type="string"><text:p>Item</text:p></table:table-cell>'
    '<table:table-cell office:value-type="string"><text:p>Price</text:p></table:table-cell>'
    "<table:table-cell/></table:table-row>"
    '<table:table-row><table:table-cell office:value-type="string"><text:p>Open the file. Then save it.</text:p>'
    "</table:table-cell>"
    '<table:table-cell office:value-type="currency" office:currency="EUR" office:value="3.5">'
    "<text:p>3,50 €</text:p></table:table-cell>"
    '<table:table-cell office:value-type="date" office:date-value="2024-05-03"><text:p>3 May 2024</text:p>'
    "</table:table-cell></table:table-row>"
    '<table:table-row><table:table-cell table:number-columns-spanned="2" office:value-type="string">'
    '<text:p>Total <text:span text:style-name="T1">without</text:span> tax</text:p>'
    '<office:annotation><dc:creator xmlns:dc="http://purl.org/dc/elements/1.1/">Ann</dc:creator>'
    "<text:p>Check the total.</text:p></office:annotation></table:table-cell>"
    "<table:covered-table-cell/>"
    '<table:table-cell office:value-type="float" office:value="42"><text:p>42</text:p></table:table-cell>'
    "</table:table-row></table:table></office:spreadsheet>")

SLIDES = (
    '<office:presentation><draw:page draw:name="page1" draw:master-page-name="Default">'
    '<draw:frame presentation:class="title" svg:width="20cm" svg:height="3cm" svg:x="2cm" svg:y="1cm">'
    "<draw:text-box><text:p>Welcome to Verso</text:p></draw:text-box></draw:frame>"
    '<draw:frame presentation:class="outline" svg:width="20cm" svg:height="10cm" svg:x="2cm" svg:y="5cm">'
    "<draw:text-box><text:list><text:list-item><text:p>Translate faster. Keep the layout.</text:p>"
    "</text:list-item><text:list-item><text:p>Click <text:a xlink:href=\"https://example.org\">here</text:a>."
    "</text:p></text:list-item></text:list></draw:text-box></draw:frame>"
    '<draw:custom-shape svg:width="4cm" svg:height="2cm"><text:p>In a shape</text:p></draw:custom-shape>'
    "<presentation:notes><draw:page-thumbnail/>"
    '<draw:frame presentation:class="notes"><draw:text-box><text:p>Say hello first.</text:p></draw:text-box>'
    "</draw:frame></presentation:notes></draw:page>"
    '<draw:page draw:name="page2" draw:master-page-name="Default">'
    '<draw:frame presentation:class="title"><draw:text-box><text:p>Questions?</text:p></draw:text-box>'
    "</draw:frame></draw:page></office:presentation>")

MASTER = ('<draw:frame presentation:class="title" presentation:placeholder="true"><draw:text-box/></draw:frame>'
          '<draw:frame presentation:class="footer"><draw:text-box><text:p><presentation:footer/></text:p>'
          "</draw:text-box></draw:frame>"
          '<draw:frame><draw:text-box><text:p>Company confidential</text:p></draw:text-box></draw:frame>')


def _upper(doc) -> dict[str, Translation]:
    return {s.key: Translation(TaggedText(s.source.text.upper(), s.source.tags)) for s in doc.segments}


def _texts(path: Path, member: str = "content.xml") -> list[str]:
    root = etree.fromstring(zipfile.ZipFile(path).read(member))
    return ["".join(p.itertext()) for p in root.iter(f"{{{NS['text']}}}p")]


# -------------------------------------------------------------------- ODS
def test_ods_text_cells_are_segments_and_value_cells_are_not(tmp_path):
    path = make_package(tmp_path / "prices.ods", "ods", SHEET)
    assert detect(path).name == "odf"
    doc = read_document(path, src_lang="en")
    assert doc.meta["kind"] == "ods"
    assert [s.source.display() for s in doc.segments] == [
        "Item", "Price", "Open the file.", "Then save it.", "Total <fmt>without</fmt> tax"]
    assert doc.segments[-1].note == "Check the total."  # the comment is the note, not a segment


def test_ods_untouched_export_is_byte_for_byte(tmp_path):
    path = make_package(tmp_path / "prices.ods", "ods", SHEET)
    write_document(path, tmp_path / "out.ods", {}, format="odf", src_lang="en")
    a, b = zipfile.ZipFile(path), zipfile.ZipFile(tmp_path / "out.ods")
    assert a.namelist() == b.namelist() and b.infolist()[0].compress_type == zipfile.ZIP_STORED
    assert all(a.read(n) == b.read(n) for n in a.namelist())


def test_ods_translated_export_keeps_values_and_sheet(tmp_path):
    path = make_package(tmp_path / "prices.ods", "ods", SHEET)
    doc = read_document(path, src_lang="en")
    write_document(path, tmp_path / "out.ods", _upper(doc), format="odf", src_lang="en")
    out = tmp_path / "out.ods"
    assert _texts(out) == ["ITEM", "PRICE", "OPEN THE FILE. THEN SAVE IT.", "3,50 €", "3 May 2024",
                           "TOTAL WITHOUT TAX", "Check the total.", "42"]
    root = etree.fromstring(zipfile.ZipFile(out).read("content.xml"))
    assert root.find(".//table:table", NS).get(f"{{{NS['table']}}}name") == "Prices"
    span = root.find(".//text:span", NS)
    assert span.text == "WITHOUT" and span.get(f"{{{NS['text']}}}style-name") == "T1"
    again = read_document(out, src_lang="en")
    assert [s.source.plain() for s in again.segments] == [s.source.plain().upper() for s in doc.segments]
    assert zipfile.ZipFile(out).read("styles.xml") == zipfile.ZipFile(path).read("styles.xml")


# -------------------------------------------------------------------- ODP
def test_odp_slides_shapes_notes_and_master_text_are_segments(tmp_path):
    path = make_package(tmp_path / "talk.odp", "odp", SLIDES, master=MASTER)
    doc = read_document(path, src_lang="en")
    assert doc.meta["kind"] == "odp"
    assert [(s.source.display(), s.context) for s in doc.segments] == [
        ("Welcome to Verso", "content.xml"), ("Translate faster.", "content.xml"),
        ("Keep the layout.", "content.xml"), ("Click <link>here</link>.", "content.xml"),
        ("In a shape", "content.xml"), ("Say hello first.", "content.xml"), ("Questions?", "content.xml"),
        ("Company confidential", "styles.xml")]


def test_odp_round_trips(tmp_path):
    path = make_package(tmp_path / "talk.odp", "odp", SLIDES, master=MASTER)
    write_document(path, tmp_path / "same.odp", {}, format="odf", src_lang="en")
    assert all(zipfile.ZipFile(path).read(n) == zipfile.ZipFile(tmp_path / "same.odp").read(n)
               for n in zipfile.ZipFile(path).namelist())
    doc = read_document(path, src_lang="en")
    write_document(path, tmp_path / "out.odp", _upper(doc), format="odf", src_lang="en")
    out = tmp_path / "out.odp"
    assert _texts(out) == ["WELCOME TO VERSO", "TRANSLATE FASTER. KEEP THE LAYOUT.", "CLICK HERE.", "IN A SHAPE",
                           "SAY HELLO FIRST.", "QUESTIONS?"]
    assert _texts(out, "styles.xml") == ["", "COMPANY CONFIDENTIAL"]
    root = etree.fromstring(zipfile.ZipFile(out).read("content.xml"))
    assert root.find(".//text:a", NS).get(f"{{{NS['xlink']}}}href") == "https://example.org"
    frames = root.findall(".//draw:frame", NS)
    assert [f.get(f"{{{NS['presentation']}}}class") for f in frames] == ["title", "outline", "notes", "title"]
    assert frames[0].get(f"{{{NS['svg']}}}x") == "2cm"
    again = read_document(out, src_lang="en")
    assert [s.source.plain() for s in again.segments] == [s.source.plain().upper() for s in doc.segments]


# -------------------------------------------------------------------- LibreOffice opens the translations
def _calc_impress() -> bool:
    """LibreOffice with Calc and Impress (Debian: libreoffice-calc-nogui, libreoffice-impress-nogui)."""
    exe = soffice()
    if exe is None:
        return False
    program = Path(os.path.realpath(exe)).parent
    return any(program.glob("libsclo.so*")) and any(program.glob("libsdlo.so*"))


@pytest.mark.skipif(not _calc_impress(), reason="LibreOffice Calc and Impress not installed")
@pytest.mark.parametrize("kind, name", [("ods", "prices.ods"), ("odp", "talk.odp")])
def test_translated_spreadsheet_and_presentation_open_in_libreoffice(tmp_path, kind, name):
    path = (make_package(tmp_path / name, "ods", SHEET) if kind == "ods"
            else make_package(tmp_path / name, "odp", SLIDES, master=MASTER))
    doc = read_document(path, src_lang="en")
    out = tmp_path / "out" / name
    out.parent.mkdir()
    write_document(path, out, _upper(doc), format="odf", src_lang="en")
    soffice_convert(out, tmp_path, "pdf")
    # and what LibreOffice writes back from it still reads as the translation
    again = soffice_convert(out, tmp_path / "lo", kind)
    texts = [s.source.plain() for s in read_document(again, src_lang="en").segments]
    assert "OPEN THE FILE." in " ".join(texts) or "WELCOME TO VERSO" in texts
