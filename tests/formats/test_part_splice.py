"""Issue 45 items 7 and 10: an edit changes the bytes of its paragraph only, and an export reads
only the paragraphs it translates."""
from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from lxml import etree

from datafiles import SHARED_DATA
from engine.formats import write_document
from engine.formats.base import Translation
from engine.formats import odf
from engine.formats.docx import FORMAT
from engine.formats.odf import FORMAT as ODF
from engine.formats.xmlsplice import _decode, _tokenize
from engine.inline import TaggedText
from formats.docfiles import W_NS, make_docx

MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_SAMPLES = SHARED_DATA / "format-samples"
SAMPLES = sorted(p for ext in ("docx", "odt") for p in _SAMPLES.rglob(f"*.{ext}")) if _SAMPLES.is_dir() else []


def _docx_paragraphs(root, part: str) -> list:
    return [p for p in root.iter(f"{{{W_NS}}}p") if not any(a.tag == MC_FALLBACK for a in p.iterancestors())]


def _paragraph_span(data: bytes, part: str, n: int, paragraphs=_docx_paragraphs) -> tuple[int, int]:
    """Byte offsets of the start and end of the n-th paragraph (as the format's keys count them) of a part."""
    root = etree.fromstring(data)
    order = {e: i for i, e in enumerate(root.iter(etree.Element))}
    ps = list(paragraphs(root, part))
    bom, codec, text = _decode(data, "utf-8")
    sp = _tokenize(text)[order[ps[n - 1]]]
    return (len(bom) + len(text[:sp.start].encode(codec)), len(bom) + len(text[:sp.end].encode(codec)))


def _edit_one(path: Path, out: Path, fmt):
    doc = fmt.read(path, src_lang="en")
    if not doc.segments:
        return None
    seg = doc.segments[0]
    write_document(path, out, {seg.key: Translation(TaggedText("Übersetzt <&> " + seg.source.text, seg.source.tags))},
                   format=fmt.name, src_lang="en")
    return seg


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_an_edit_changes_only_the_bytes_of_its_paragraph(path, tmp_path):
    fmt, paragraphs = (FORMAT, _docx_paragraphs) if path.suffix == ".docx" else (ODF, odf._paragraphs)
    seg = _edit_one(path, tmp_path / "out.docx", fmt)
    if seg is None:
        pytest.skip("no segment")
    part, _, where = seg.key.rpartition(":")
    n = int(where.split(".")[0][1:])
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(tmp_path / "out.docx") as zout:
        assert zout.testzip() is None
        assert zin.namelist() == zout.namelist()
        for name in zin.namelist():
            if name != part:
                assert zin.read(name) == zout.read(name), name
        before, after = zin.read(part), zout.read(part)
    start, end = _paragraph_span(before, part, n, paragraphs)
    tail = len(before) - end
    assert after[:start] == before[:start]
    assert after[len(after) - tail:] == before[end:]
    assert after != before
    root = etree.fromstring(after)  # still well-formed, the translation in its paragraph
    assert "Übersetzt <&> " in "".join(root.itertext())


def test_declaration_and_character_references_outside_the_edit_are_kept(tmp_path):
    """An edit used to rewrite the part: ``'`` quotes, CRLF and ``&#xA;`` elsewhere changed."""
    body = ('<w:p><w:r><w:t>Edit me.</w:t></w:r></w:p>'
            '<w:p><w:r><w:t xml:space="preserve">Keep&#xA;me &quot;as&quot; I am.</w:t></w:r></w:p>')
    path = make_docx(tmp_path / "in.docx", body)
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    members["word/document.xml"] = ("\ufeff<?xml version='1.0' encoding='utf-8' standalone='yes'?>\r\n"
                                    + members["word/document.xml"].decode().split("?>", 1)[1]).encode()
    with zipfile.ZipFile(path, "w") as z:
        for n, data in members.items():
            z.writestr(n, data)
    seg = FORMAT.read(path, src_lang="en").segments[0]
    write_document(path, tmp_path / "out.docx", {seg.key: Translation(TaggedText("Edited."))},
                   format="docx", src_lang="en")
    out = zipfile.ZipFile(tmp_path / "out.docx").read("word/document.xml").decode("utf-8")
    assert out.startswith("\ufeff<?xml version='1.0' encoding='utf-8' standalone='yes'?>\r\n")
    assert "Keep&#xA;me &quot;as&quot; I am." in out
    assert "Edited." in out and "Edit me." not in out


def test_an_untouched_export_splits_no_paragraph_into_sentences(tmp_path, monkeypatch):
    """A large DOCX's untouched export took as long as its import: every paragraph was cut into
    sentences again.  An export reads only the paragraphs it translates."""
    from engine.formats import paragraphs

    body = "".join(f"<w:p><w:r><w:t>Paragraph {i}. It has two sentences.</w:t></w:r></w:p>" for i in range(50))
    path = make_docx(tmp_path / "in.docx", body)
    doc = FORMAT.read(path, src_lang="en")
    calls = []
    real = paragraphs.segment_text
    monkeypatch.setattr(paragraphs, "segment_text", lambda *a, **k: calls.append(1) or real(*a, **k))
    FORMAT.write(path, tmp_path / "same.docx", {}, src_lang="en")
    assert calls == []
    with zipfile.ZipFile(path) as a, zipfile.ZipFile(tmp_path / "same.docx") as b:
        assert all(a.read(n) == b.read(n) for n in a.namelist())
    seg = doc.segments[41]
    FORMAT.write(path, tmp_path / "one.docx", {seg.key: Translation(TaggedText("Eins."))}, src_lang="en")
    assert len(calls) == 1
    texts = ["".join(t.itertext()) for t in etree.fromstring(
        zipfile.ZipFile(tmp_path / "one.docx").read("word/document.xml")).iter(f"{{{W_NS}}}p")]
    assert texts[20] == "Paragraph 20. Eins."


OFFICE = Path(__file__).parent / "fixtures" / "office"
#: what an edit of one segment may change, by format: a paragraph's content (``a:p`` of DrawingML, a
#: comment's ``p:text``), an alt text's start tag (``p:cNvPr``), IDML's paragraph style range
_UNITS = {"pptx": {"p", "text", "cNvPr"}, "idml": {"ParagraphStyleRange"},
          # sst: its count of strings (a string split); sheetData: a table's column renamed in the formulas
          "xlsx": {"si", "is", "v", "text", "p", "sst", "sheetData"}}


def _changed_within(before: bytes, after: bytes) -> set[str]:
    """The local names of the elements of ``before`` that hold every byte ``after`` changed."""
    pre = 0
    while pre < min(len(before), len(after)) and before[pre] == after[pre]:
        pre += 1
    suf = 0
    while suf < min(len(before), len(after)) - pre and before[-1 - suf] == after[-1 - suf]:
        suf += 1
    a, b = pre, len(before) - suf
    bom, codec, text = _decode(before, "utf-8")
    a = len(before[len(bom):a].decode(codec, errors="ignore"))  # as offsets in the text
    b = len(text) - len(before[b:].decode(codec, errors="ignore"))
    return {sp.name.rsplit(":", 1)[-1] for sp in _tokenize(text) if sp.start <= a and b <= sp.end}


@pytest.mark.parametrize("fmt,name", [("pptx", "deck.pptx"), ("pptx", "deck_lo.pptx"), ("pptx", "deck_comments.pptx"),
                                      ("pptx", "deck_comments_lo.pptx"), ("idml", "story.idml"),
                                      ("xlsx", "book.xlsx"), ("xlsx", "book_lo.xlsx"), ("xlsx", "threads.xlsx")])
def test_an_edit_of_each_segment_changes_only_its_paragraph(fmt, name, tmp_path):
    from engine.formats import read_document

    src = OFFICE / name
    doc = read_document(src, format=fmt, src_lang="en")
    assert doc.segments
    kinds = {}  # the first segment of each kind of unit of each part (paragraph, alt text, comment)
    for seg in doc.segments:
        part, _, where = seg.key.rpartition(":")
        if not part.endswith("workbook.xml"):  # a sheet's name: in every formula naming it
            kinds.setdefault((part, where.rstrip("0123456789.s")[:3]), seg)
    for seg in kinds.values():
        out = tmp_path / f"out.{fmt}"
        write_document(src, out, {seg.key: Translation(TaggedText("Übersetzt & " + seg.source.text, seg.source.tags))},
                       format=fmt, src_lang="en")
        part = seg.key.rpartition(":")[0]
        with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out) as zout:
            changed = {n for n in zin.namelist() if zin.read(n) != zout.read(n)}
            assert part in changed or fmt == "xlsx" and changed, seg.key  # a cell's shared string: the strings' part
            for n in changed:  # the part, and the copies of a shape for older readers or a SmartArt's drawing
                if n.startswith("xl/tables/") or "threadedComment" in seg.key:
                    continue  # a table's columns and formulas (its root holds both); threaded comments: not spliced yet
                assert _changed_within(zin.read(n), zout.read(n)) & _UNITS[fmt], (seg.key, n)
                etree.fromstring(zout.read(n))
            assert any("Übersetzt &" in "".join(etree.fromstring(zout.read(n)).itertext()) + "".join(
                v for el in etree.fromstring(zout.read(n)).iter() for v in el.attrib.values()) for n in changed)


def test_an_edit_the_writer_did_not_name_still_reaches_the_file(tmp_path):
    """The splice is checked against the edited tree: a change made without naming it is not lost
    (the part is then serialised whole, as before)."""
    from engine.formats.package import Package
    from engine.formats.partsplice import PartSplice

    path = make_docx(tmp_path / "in.docx", "<w:p><w:r><w:t>One.</w:t></w:r></w:p><w:p><w:r><w:t>Two.</w:t></w:r></w:p>")
    with Package(path) as pkg:
        splice = PartSplice(pkg, "word/document.xml")
        t1, t2 = splice.tree.getroot().iter(f"{{{W_NS}}}t")
        splice.edit(t1)
        t1.text = "Eins."
        named = splice.data()
        t2.text = "Zwei."  # not named
        both = splice.data()
    assert b"Eins." in named and b"Two." in named
    assert b"Eins." in both and b"Zwei." in both
