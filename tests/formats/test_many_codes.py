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


_BOLD_RUNS = "".join(f'<w:r>{"<w:rPr><w:b/></w:rPr>" if i % 2 else ""}<w:t xml:space="preserve">w{i} </w:t></w:r>'
                     for i in range(20_000))
_LINKS = "".join(f'<w:hyperlink r:id="rId{i}"><w:r><w:t>l{i}</w:t></w:r></w:hyperlink><w:r><w:t xml:space="preserve"> '
                 f'</w:t></w:r>' for i in range(4_000))


@pytest.mark.parametrize("body, element, count", [(_BOLD_RUNS, "b", 10_000), (_LINKS, "hyperlink", 4_000)],
                         ids=["20000-alternating-bold-runs", "4000-links"])
def test_a_paragraph_with_thousands_of_codes_imports_and_exports_every_one(tmp_path, body, element, count):
    path = make_docx(tmp_path / "in.docx", "<w:p><w:r><w:t>Fine.</w:t></w:r></w:p>" + f"<w:p>{body}</w:p>")
    doc = FORMAT.read(path, src_lang="en")
    segs = [s for s in doc.segments if s.key.startswith("word/document.xml:p2.")]
    assert len(segs) > 1 and all(len(s.source.tags) <= TAG_MAX for s in segs)
    assert all(len(s.source.text) <= 5_000 for s in segs)
    tr = {s.key: Translation(TaggedText(s.source.text.upper(), s.source.tags)) for s in segs}
    write_document(path, tmp_path / "out.docx", tr, format="docx", src_lang="en")
    root = etree.fromstring(zipfile.ZipFile(tmp_path / "out.docx").read("word/document.xml"))
    para = root.findall(f".//{W}p")[1]
    assert len(para.findall(f".//{W}{element}")) == count
    text = "".join(t.text or "" for t in para.iter(W + "t"))
    assert text.startswith(("W0 W1 ", "L0 L1 ")) and ("W19999" in text or "L3999" in text)


def test_a_paragraph_past_what_verso_can_number_is_refused_in_one_line_naming_file_and_paragraph():
    from engine.formats.codefold import PARAGRAPH_MAX, Codes
    codes = Codes()
    for i in range(PARAGRAPH_MAX // 2 + 1):
        codes.code("open", "<fmt>", "fmt", f"f{i}", {}, ("fmt", "b", "open"))
        codes.text(f"w{i}")
        codes.code("close", "</fmt>", "fmt", f"f{i}", {}, ("fmt", "b", "close"))
        codes.text(" ")
    with pytest.raises(FormatError) as e:
        codes.build("big.docx", "paragraph word/document.xml:p2")
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("big.docx, paragraph word/document.xml:p2:") and "6,399" in msg


def test_an_odt_paragraph_with_4000_links_imports_and_exports_them(tmp_path):
    from engine.formats.odf import FORMAT as ODF
    from formats.docfiles import make_odt
    links = "".join(f'<text:a xlink:href="http://x/{i}">l{i}</text:a> ' for i in range(4_000))
    path = make_odt(tmp_path / "in.odt", f"<text:p>Fine.</text:p><text:p>{links}</text:p>")
    doc = ODF.read(path, src_lang="en")
    tr = {s.key: Translation(TaggedText(s.source.text.upper(), s.source.tags)) for s in doc.segments}
    write_document(path, tmp_path / "out.odt", tr, format="odf", src_lang="en")
    content = zipfile.ZipFile(tmp_path / "out.odt").read("content.xml").decode()
    assert content.count("<text:a ") == 4_000 and ">L3999</text:a>" in content
