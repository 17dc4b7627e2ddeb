"""PPTX: slides, notes, masters, charts, SmartArt and alt text in slide order; a faithful export."""
from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from engine.errors import FormatError
from engine.formats import detect, write_document
from engine.formats.base import Translation
from engine.formats.pptx import FORMAT
from engine.inline import TaggedText
from formats.docfiles import soffice, soffice_convert

FIX = Path(__file__).parent / "fixtures" / "office"
DECKS = ["deck.pptx", "deck_lo.pptx"]  # python-pptx's, and the same saved by LibreOffice
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"


def _seg(doc, text):
    return next(s for s in doc.segments if s.source.plain() == text)


def _texts(path: Path, part: str) -> list[str]:
    root = etree.fromstring(zipfile.ZipFile(path).read(part))
    return ["".join(t.text or "" for t in p.iter(A + "t")) for p in root.iter(A + "p")]


def _export(src: Path, out: Path, tr: dict[str, str], doc) -> Path:
    by_key = {s.key: s for s in doc.segments}
    write_document(src, out, {k: Translation(TaggedText(v, by_key[k].source.tags)) for k, v in tr.items()},
                   format="pptx", src_lang="en")
    return out


@pytest.mark.parametrize("name", DECKS)
def test_slides_notes_charts_alt_text_and_masters_are_read_in_slide_order(name):
    doc = FORMAT.read(FIX / name, src_lang="en")
    order = [s.source.plain() for s in doc.segments]
    expected = ["Quarterly report", "Prepared for the board of directors.", "Speak slowly.", "Mention the budget.",
                "Results", "Sales rose in every region.", "Costs fell.", "Margins grew.", "Region", "Growth",
                "North", "12", "A red square.", "Revenue", "Revenue by region"]
    assert order[:len(expected)] == expected
    assert _seg(doc, "Speak slowly.").context == "notes, slide 1"
    assert _seg(doc, "Revenue by region").context == "chart, slide 3"
    masters = [s for s in doc.segments[len(expected):]]
    assert masters and all(s.context.startswith(("master", "layout")) for s in masters)
    assert "Click to edit Master title style" in [s.source.plain() for s in masters]


def test_bold_becomes_paired_tags_and_a_language_split_merges():
    doc = FORMAT.read(FIX / "deck.pptx", src_lang="en")
    bold = _seg(doc, "Prepared for the board of directors.")
    assert [t.kind for t in bold.source.tags] == ["open", "close"]
    assert _seg(doc, "Sales rose in every region.").source.tags == ()


@pytest.mark.parametrize("name", DECKS)
def test_an_untouched_export_is_the_same_package_byte_for_byte(name, tmp_path):
    write_document(FIX / name, tmp_path / "out.pptx", {}, format="pptx")
    a, b = zipfile.ZipFile(FIX / name), zipfile.ZipFile(tmp_path / "out.pptx")
    assert a.namelist() == b.namelist()
    assert all(a.read(n) == b.read(n) for n in a.namelist())


def test_an_export_rewrites_only_the_translated_paragraphs(tmp_path):
    src = FIX / "deck.pptx"
    doc = FORMAT.read(src, src_lang="en")
    bold = _seg(doc, "Prepared for the board of directors.")
    o, c = (t.char for t in bold.source.tags)
    out = _export(src, tmp_path / "out.pptx", {
        bold.key: f"Préparé pour le {o}conseil{c} d'administration.",
        _seg(doc, "Costs fell.").key: "Les coûts ont baissé.",
        _seg(doc, "A red square.").key: "Un carré rouge.",
        _seg(doc, "Revenue by region").key: "Chiffre d'affaires par région",
        _seg(doc, "Mention the budget.").key: "Citez le budget."}, doc)
    assert _texts(out, "ppt/slides/slide1.xml") == ["Quarterly report", "Préparé pour le conseil d'administration."]
    assert _texts(out, "ppt/slides/slide2.xml")[:3] == ["Results", "Sales rose in every region.",
                                                        "Les coûts ont baissé. Margins grew."]
    assert _texts(out, "ppt/notesSlides/notesSlide1.xml")[0] == "Speak slowly. Citez le budget."
    assert "Chiffre d'affaires par région" in _texts(out, "ppt/charts/chart1.xml")
    assert b'descr="Un carr\xc3\xa9 rouge."' in zipfile.ZipFile(out).read("ppt/slides/slide2.xml")
    # the bold run is still bold, the others as they were
    root = etree.fromstring(zipfile.ZipFile(out).read("ppt/slides/slide1.xml"))
    runs = [(r.findtext(A + "t"), r.find(A + "rPr").get("b")) for r in root.iter(A + "r")
            if r.find(A + "rPr") is not None]
    assert ("conseil", "1") in runs
    a, b = zipfile.ZipFile(src), zipfile.ZipFile(out)
    changed = {n for n in a.namelist() if a.read(n) != b.read(n)}
    assert changed == {"ppt/slides/slide1.xml", "ppt/slides/slide2.xml", "ppt/notesSlides/notesSlide1.xml",
                       "ppt/charts/chart1.xml"}


_DGM = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
_DSP = "http://schemas.microsoft.com/office/drawing/2008/diagram"
_RNS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def _smartart_deck(tmp_path) -> Path:
    """deck.pptx with a SmartArt on slide 3: its data part and the drawing rendered from it."""
    src, out = FIX / "deck.pptx", tmp_path / "smart.pptx"
    para = f'<a:p xmlns:a="{A[1:-1]}"><a:r><a:rPr lang="en-US"/><a:t>Plan the work.</a:t></a:r></a:p>'
    data = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><dgm:dataModel xmlns:dgm="{_DGM}" '
            f'xmlns:a="{A[1:-1]}"><dgm:ptLst><dgm:pt modelId="{{1}}"><dgm:t><a:bodyPr/>{para}</dgm:t></dgm:pt>'
            f'</dgm:ptLst><dgm:extLst><a:ext uri="x"><dsp:dataModelExt xmlns:dsp="{_DSP}" relId="rId9"/>'
            f'</a:ext></dgm:extLst></dgm:dataModel>')
    drawing = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><dsp:drawing xmlns:dsp="{_DSP}" '
               f'xmlns:a="{A[1:-1]}"><dsp:spTree><dsp:sp modelId="{{2}}"><dsp:txBody><a:bodyPr/>'
               f'{para.replace("lang=", "sz=" + chr(34) + "1800" + chr(34) + " lang=")}</dsp:txBody></dsp:sp>'
               f'</dsp:spTree></dsp:drawing>')
    base = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in zin.infolist():
            body = zin.read(info.filename)
            if info.filename == "ppt/slides/_rels/slide3.xml.rels":
                body = body.replace(b"</Relationships>", (
                    f'<Relationship Id="rId8" Type="{base}diagramData" Target="../diagrams/data1.xml"/>'
                    f'<Relationship Id="rId9" Type="http://schemas.microsoft.com/office/2007/relationships/'
                    f'diagramDrawing" Target="../diagrams/drawing1.xml"/></Relationships>').encode())
            elif info.filename == "ppt/slides/slide3.xml":
                body = body.replace(b"</p:spTree>", (
                    f'<p:graphicFrame><a:graphic xmlns:a="{A[1:-1]}"><a:graphicData uri="{_DGM}">'
                    f'<dgm:relIds xmlns:dgm="{_DGM}" xmlns:r="{_RNS}" r:dm="rId8"/></a:graphicData></a:graphic>'
                    f'</p:graphicFrame></p:spTree>').encode())
            z.writestr(info, body)
        z.writestr("ppt/diagrams/data1.xml", data)
        z.writestr("ppt/diagrams/drawing1.xml", drawing)
    return out


def test_smartart_text_is_read_once_and_its_drawing_gets_the_translation(tmp_path):
    src = _smartart_deck(tmp_path)
    doc = FORMAT.read(src, src_lang="en")
    plan = [s for s in doc.segments if s.source.plain() == "Plan the work."]
    assert len(plan) == 1 and plan[0].context == "SmartArt, slide 3"
    assert doc.segments.index(plan[0]) == doc.segments.index(_seg(doc, "Revenue by region")) + 1  # after the chart
    out = _export(src, tmp_path / "out.pptx", {plan[0].key: "Planifier le travail."}, doc)
    assert _texts(out, "ppt/diagrams/data1.xml") == ["Planifier le travail."]
    assert _texts(out, "ppt/diagrams/drawing1.xml") == ["Planifier le travail."]
    drawn = etree.fromstring(zipfile.ZipFile(out).read("ppt/diagrams/drawing1.xml"))
    assert next(drawn.iter(A + "rPr")).get("sz") == "1800"  # the drawing's own formatting kept


def test_a_translation_for_an_unknown_key_is_refused(tmp_path):
    with pytest.raises(FormatError, match="does not have"):
        write_document(FIX / "deck.pptx", tmp_path / "o.pptx",
                       {"ppt/slides/slide9.xml:p1.s1": Translation(TaggedText("x"))}, format="pptx")


def test_detected_by_content_whatever_the_extension(tmp_path):
    p = tmp_path / "slides.bin"
    shutil.copy(FIX / "deck_lo.pptx", p)
    assert detect(p).name == "pptx"
    assert detect(FIX / "deck.pptx").name == "pptx"


def test_a_zip_bomb_member_is_refused_naming_it(tmp_path):
    p = tmp_path / "bomb.pptx"
    shutil.copy(FIX / "deck.pptx", p)
    with zipfile.ZipFile(p, "a", zipfile.ZIP_DEFLATED) as z:
        z.writestr("ppt/slides/slide9.xml", b"<a/>" + b" " * (8 << 20))
    with zipfile.ZipFile(p) as z:
        body = z.read("ppt/presentation.xml")
    assert body  # the package is otherwise whole
    with pytest.raises(FormatError) as e:
        FORMAT.read(p, src_lang="en")
    assert "zip bomb" in str(e.value) and "slide9.xml" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.skipif(soffice() is None, reason="LibreOffice is not installed")
def test_a_translated_export_opens_in_libreoffice_with_the_translation(tmp_path):
    src = FIX / "deck.pptx"
    doc = FORMAT.read(src, src_lang="en")
    out = _export(src, tmp_path / "fr.pptx", {_seg(doc, "Costs fell.").key: "Les coûts ont baissé.",
                                              _seg(doc, "Revenue by region").key: "Revenu par région"}, doc)
    odp = soffice_convert(out, tmp_path, "odp")
    content = zipfile.ZipFile(odp).read("content.xml").decode()
    assert "Les coûts ont baissé." in content and "Costs fell." not in content


def test_a_project_imports_and_exports_a_pptx(tmp_path):
    from engine.store.project import Project

    with Project.create(tmp_path / "proj", src_lang="en", tgt_lang="fr") as proj:
        doc_id = proj.import_document(FIX / "deck_lo.pptx")
        assert proj.document(doc_id).format == "pptx"
        title = next(s for s in proj.segments(doc_id) if s.source.text == "Quarterly report")
        proj.confirm(title.id, TaggedText("Rapport trimestriel"))
        out = proj.export_document(doc_id, tmp_path / "out.pptx")
    assert _texts(out, "ppt/slides/slide1.xml")[0] == "Rapport trimestriel"


def test_the_import_document_dialog_offers_pptx_xlsx_and_idml():
    pytest.importorskip("PySide6")
    from app.controllers.documents import DOCUMENT_FILTER

    for ext in ("pptx", "pptm", "xlsx", "xlsm", "idml"):
        assert f"*.{ext} " in DOCUMENT_FILTER, ext


def test_a_shape_written_for_newer_and_older_readers_is_read_once_and_both_copies_translated(tmp_path):
    mc = "http://schemas.openxmlformats.org/markup-compatibility/2006"
    shape = ('<p:sp><p:txBody><a:bodyPr/><a:p><a:r><a:rPr lang="en-US"/><a:t>Twice written.</a:t></a:r></a:p>'
             '</p:txBody></p:sp>')
    src = tmp_path / "mc.pptx"
    with zipfile.ZipFile(FIX / "deck.pptx") as zin, zipfile.ZipFile(src, "w", zipfile.ZIP_DEFLATED) as z:
        for info in zin.infolist():
            body = zin.read(info.filename)
            if info.filename == "ppt/slides/slide3.xml":
                body = body.replace(b"</p:spTree>", (
                    f'<mc:AlternateContent xmlns:mc="{mc}"><mc:Choice Requires="p14">{shape}</mc:Choice>'
                    f'<mc:Fallback>{shape}</mc:Fallback></mc:AlternateContent></p:spTree>').encode())
            z.writestr(info, body)
    doc = FORMAT.read(src, src_lang="en")
    twice = [s for s in doc.segments if s.source.plain() == "Twice written."]
    assert len(twice) == 1
    out = _export(src, tmp_path / "out.pptx", {twice[0].key: "Écrit deux fois."}, doc)
    assert _texts(out, "ppt/slides/slide3.xml")[-2:] == ["Écrit deux fois.", "Écrit deux fois."]


def test_a_hidden_slide_is_read_and_its_context_says_so(tmp_path):
    src = tmp_path / "hidden.pptx"
    with zipfile.ZipFile(FIX / "deck.pptx") as zin, zipfile.ZipFile(src, "w", zipfile.ZIP_DEFLATED) as z:
        for info in zin.infolist():
            body = zin.read(info.filename)
            if info.filename == "ppt/slides/slide2.xml":
                body = body.replace(b"<p:sld ", b'<p:sld show="0" ', 1)
            z.writestr(info, body)
    doc = FORMAT.read(src, src_lang="en")
    assert _seg(doc, "Results").context == "slide 2 (hidden)" and _seg(doc, "Revenue").context == "slide 3"
