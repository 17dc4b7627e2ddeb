"""A paragraph with more inline codes than one segment can number (6,399) still imports, or is
refused in one line naming the file and the paragraph -- never a traceback."""
from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from lxml import etree

from engine.errors import FormatError
from engine.formats import write_document
from engine.formats.base import Translation
from engine.formats.docx import FORMAT
from engine.inline import TAG_MAX, TaggedText
from formats.docfiles import W_NS, make_docx

W = f"{{{W_NS}}}"


def _listing(lines: int) -> str:
    """One paragraph as a highlighted code listing: per line a bold keyword, plain text, a break."""
    runs = "".join(f'<w:r><w:rPr><w:b/></w:rPr><w:t>def</w:t></w:r>'
                   f'<w:r><w:t xml:space="preserve"> f{i}()</w:t><w:br/></w:r>' for i in range(lines))
    return f"<w:p>{runs}</w:p>"


def test_a_code_listing_paragraph_with_9000_codes_imports_and_exports_its_bold_and_breaks(tmp_path):
    path = make_docx(tmp_path / "in.docx", _listing(3000) + "<w:p><w:r><w:t>After.</w:t></w:r></w:p>")
    doc = FORMAT.read(path, src_lang="en")
    text = "".join(s.source.plain() for s in doc.segments)
    assert text.startswith("def f0()def f1()") and "def f2999()" in text  # all the text, as segments
    assert all(len(s.source.tags) <= TAG_MAX for s in doc.segments)
    assert doc.segments[-1].source.text == "After."
    tr = {s.key: Translation(TaggedText(s.source.text.replace("def", "DEF"), s.source.tags))
          for s in doc.segments}
    write_document(path, tmp_path / "out.docx", tr, format="docx", src_lang="en")
    root = etree.fromstring(zipfile.ZipFile(tmp_path / "out.docx").read("word/document.xml"))
    para = root.findall(f".//{W}p")[0]
    bold = ["".join(t.text or "" for t in r.iter(W + "t")) for r in para.iter(W + "r")
            if r.find(f"{W}rPr/{W}b") is not None]
    assert bold.count("DEF") == 3000
    assert len(para.findall(f".//{W}br")) == 3000


def test_an_untouched_listing_exports_byte_for_byte(tmp_path):
    path = make_docx(tmp_path / "in.docx", _listing(3000))
    FORMAT.read(path, src_lang="en")
    write_document(path, tmp_path / "out.docx", {}, format="docx", src_lang="en")
    assert Path(tmp_path / "out.docx").read_bytes() == path.read_bytes() or all(
        zipfile.ZipFile(path).read(n) == zipfile.ZipFile(tmp_path / "out.docx").read(n)
        for n in zipfile.ZipFile(path).namelist())


@pytest.mark.parametrize("body", [
    "".join(f'<w:r>{"<w:rPr><w:b/></w:rPr>" if i % 2 else ""}<w:t xml:space="preserve">w{i} </w:t></w:r>'
            for i in range(20_000)),
    "".join(f'<w:hyperlink r:id="rId{i}"><w:r><w:t>l{i}</w:t></w:r></w:hyperlink><w:r><w:t xml:space="preserve"> '
            f'</w:t></w:r>' for i in range(4_000)),
], ids=["20000-alternating-bold-runs", "4000-links"])
def test_a_paragraph_past_the_code_limit_is_refused_in_one_line_naming_file_and_paragraph(tmp_path, body):
    path = make_docx(tmp_path / "in.docx", "<w:p><w:r><w:t>Fine.</w:t></w:r></w:p>" + f"<w:p>{body}</w:p>")
    with pytest.raises(FormatError) as e:
        FORMAT.read(path, src_lang="en")
    msg = str(e.value)
    assert "\n" not in msg and str(path) in msg and "p2" in msg and "6,399" in msg


def test_an_odt_paragraph_past_the_code_limit_is_refused_naming_file_and_paragraph(tmp_path):
    from engine.formats.odf import FORMAT as ODF
    from formats.docfiles import make_odt
    links = "".join(f'<text:a xlink:href="http://x/{i}">l{i}</text:a> ' for i in range(4_000))
    path = make_odt(tmp_path / "in.odt", f"<text:p>Fine.</text:p><text:p>{links}</text:p>")
    with pytest.raises(FormatError) as e:
        ODF.read(path, src_lang="en")
    assert "\n" not in str(e.value) and str(path) in str(e.value) and "content.xml:p2" in str(e.value)
