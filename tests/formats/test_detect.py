"""Format detection: XML that is no document format Verso reads is refused in one line (not read as
HTML or XLIFF), and packages LibreOffice opens (a compressed ODF ``mimetype``, a DOCX namespace URI
with a space) are read."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from engine.errors import UnsupportedFormatError
from engine.formats import detect, read_document, write_document
from engine.formats.base import Translation
from engine.inline import TaggedText
from formats.docfiles import W_NS, make_odt

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "data" / "format-samples"

_XSD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
        '<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" '
        'xmlns:xlf="urn:oasis:names:tc:xliff:document:1.2" '
        'targetNamespace="urn:oasis:names:tc:xliff:document:1.2" elementFormDefault="qualified">\n'
        '  <xsd:annotation><xsd:documentation>Example: &lt;xliff version="1.2"&gt; '
        '<xliff version="1.2"/></xsd:documentation></xsd:annotation>\n'
        '  <xsd:element name="xliff"/>\n</xsd:schema>\n')
_DITA = ('<?xml version="1.0" encoding="UTF-8"?>\n'
         '<!DOCTYPE concept PUBLIC "-//OASIS//DTD DITA Concept//EN" "concept.dtd">\n'
         '<concept id="c1"><title>Printing</title><conbody><p>Open the <b>File</b> menu.</p>'
         '<body>x</body></conbody></concept>\n')
_SRX = ('<?xml version="1.0" encoding="UTF-8"?>\n'
        '<srx xmlns="http://www.lisa.org/srx20" version="2.0"><header segmentsubflows="yes"/>'
        '<body><languagerules><languagerule languagerulename="Default"><rule break="yes">'
        '<beforebreak>\\.</beforebreak><afterbreak>\\s</afterbreak></rule></languagerule></languagerules>'
        '</body></srx>\n')
_GENERIC = ('<?xml version="1.0" encoding="UTF-8"?>\n<!-- strings of a product -->\n'
            '<catalog><head>x</head><string name="open">Open</string><body>y</body></catalog>\n')


@pytest.mark.parametrize("name,data,says", [
    ("schema.xsd", _XSD, "XML Schema"),
    ("topic.dita", _DITA, "DITA"),
    ("topic.xml", _DITA, "DITA"),
    ("rules.srx", _SRX, "SRX"),
    ("strings.xml", _GENERIC, "<catalog>"),
    ("strings.html", _GENERIC, "<catalog>"),
])
def test_xml_that_is_no_known_document_format_is_refused_naming_what_it_is(tmp_path, name, data, says):
    path = tmp_path / name
    path.write_text(data, encoding="utf-8")
    with pytest.raises(UnsupportedFormatError, match=says):
        detect(path)
    r = subprocess.run([sys.executable, "-m", "engine", "doc", "import", str(path), "--project",
                        str(tmp_path / "p"), "--src-lang", "en", "--tgt-lang", "de"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and name in r.stderr and says in r.stderr
    assert not (tmp_path / "p").exists()


@pytest.mark.parametrize("name,data,fmt", [
    ("page.xhtml", '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n'
                   '<html xmlns="http://www.w3.org/1999/xhtml"><body><p>Open it.</p></body></html>', "html"),
    ("page.xml", '<?xml version="1.0"?><html><body><p>Open it.</p></body></html>', "html"),
    ("guide.xlf", '<?xml version="1.0"?>\n<!-- a comment -->\n<xliff version="1.2" '
                  'xmlns="urn:oasis:names:tc:xliff:document:1.2"><file source-language="en" datatype="plaintext" '
                  'original="a"><body><trans-unit id="1"><source>Open</source></trans-unit></body></file></xliff>',
     "xliff12"),
    ("page.html", "<p>No declaration, a fragment.</p>", "html"),
])
def test_xml_documents_verso_reads_are_still_detected(tmp_path, name, data, fmt):
    path = tmp_path / name
    path.write_text(data, encoding="utf-8")
    assert detect(path).name == fmt


def _odt_with_compressed_mimetype(path: Path) -> Path:
    plain = make_odt(path.with_name("plain.odt"), "<text:p>Open the file.</text:p>")
    with zipfile.ZipFile(plain) as zin, zipfile.ZipFile(path, "w") as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, zin.read(info.filename), zipfile.ZIP_DEFLATED)
    return path


def test_an_odt_whose_mimetype_member_is_compressed_is_read_and_written(tmp_path):
    path = _odt_with_compressed_mimetype(tmp_path / "compressed.odt")
    with zipfile.ZipFile(path) as z:
        assert z.getinfo("mimetype").compress_type == zipfile.ZIP_DEFLATED
    assert detect(path).name == "odf"
    doc = read_document(path, src_lang="en", tgt_lang="de")
    assert [s.source.text for s in doc.segments] == ["Open the file."]
    out = tmp_path / "out.odt"
    write_document(path, out, {doc.segments[0].key: Translation(TaggedText("Datei öffnen."))},
                   format="odf", tgt_lang="de", src_lang="en")
    assert [s.source.text for s in read_document(out, src_lang="de").segments] == ["Datei öffnen."]


_VE = "http://schemas.openxmlformats.org/markup compatibility/2006"


def _docx_with_spaced_namespace(path: Path) -> Path:
    from formats.docfiles import make_docx

    plain = make_docx(path.with_name("plain.docx"), "<w:p><w:r><w:t>Open the file.</w:t></w:r></w:p>")
    with zipfile.ZipFile(plain) as zin, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "word/document.xml":
                data = data.replace(f'xmlns:w="{W_NS}"'.encode(), f'xmlns:ve="{_VE}" xmlns:w="{W_NS}"'.encode())
            zout.writestr(info.filename, data)
    return path


def test_a_docx_declaring_a_namespace_uri_with_a_space_is_read_and_keeps_it_on_export(tmp_path):
    path = _docx_with_spaced_namespace(tmp_path / "spaced.docx")
    assert detect(path).name == "docx"
    doc = read_document(path, src_lang="en", tgt_lang="de")
    assert [s.source.text for s in doc.segments] == ["Open the file."]
    out = tmp_path / "out.docx"
    write_document(path, out, {doc.segments[0].key: Translation(TaggedText("Datei öffnen."))},
                   format="docx", tgt_lang="de", src_lang="en")
    with zipfile.ZipFile(out) as z:
        assert f'xmlns:ve="{_VE}"'.encode() in z.read("word/document.xml")
    assert [s.source.text for s in read_document(out, src_lang="de").segments] == ["Datei öffnen."]


def test_the_sample_xml_files_are_refused_or_read_never_taken_for_html():
    if not SAMPLES.is_dir():
        pytest.skip(f"no format samples at {SAMPLES}")
    files = [p for p in SAMPLES.rglob("*") if p.is_file() and p.suffix.lower() in (".xml", ".xsd", ".dita",
                                                                                     ".ditamap", ".srx")]
    if not files:
        pytest.skip("no XML, XSD, DITA or SRX samples")
    for p in files:
        try:
            fmt = detect(p).name
        except UnsupportedFormatError:
            continue
        assert fmt not in ("html", "xliff12", "xliff20"), p
