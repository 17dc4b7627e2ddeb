"""XLSX: text cells, sheet names and comments; shared strings split for cells translated apart."""
from __future__ import annotations

import shutil
import time
import zipfile
from pathlib import Path

import openpyxl
import pytest
from lxml import etree

from engine.errors import FormatError
from engine.formats import detect, textutil, write_document
from engine.formats import xlsx as xlsx_mod
from engine.formats.base import Translation
from engine.formats.xlsx import FORMAT
from engine.formats.xlsxnames import rename_refs
from engine.inline import TaggedText
from formats.docfiles import soffice, soffice_convert

FIX = Path(__file__).parent / "fixtures" / "office"
BOOKS = ["book.xlsx", "book_lo.xlsx"]  # openpyxl's (inline strings), and LibreOffice's (shared strings)
SST = "xl/sharedStrings.xml"
S_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
TABLE_FORMULA = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}formula"


def _key(doc, context):
    return next(s.key for s in doc.segments if s.context == context)


def _export(src: Path, out: Path, tr: dict[str, str]) -> Path:
    doc = FORMAT.read(src, src_lang="en")
    by_ctx = {s.context: s for s in doc.segments}
    write_document(src, out, {by_ctx[c].key: Translation(TaggedText(v, by_ctx[c].source.tags))
                              for c, v in tr.items()}, format="xlsx", src_lang="en")
    return out


def _values(path: Path, sheet: str) -> dict[str, object]:
    ws = openpyxl.load_workbook(path)[sheet]
    return {c.coordinate: c.value for row in ws.iter_rows() for c in row if c.value is not None}


@pytest.mark.parametrize("name", BOOKS)
def test_text_cells_names_and_comments_are_read_in_sheet_order_not_numbers_dates_or_formulas(name):
    doc = FORMAT.read(FIX / name, src_lang="en")
    contexts = [s.context for s in doc.segments]
    assert contexts[:12] == ["name of sheet 1", "Prices!A1", "Prices!B1", "Prices!C1", "Prices!D1", "Prices!A2",
                             "Prices!D2", "Prices!D2", "Prices!A3", "Prices!D3", "Prices!A4", "comment, Prices!A2"]
    assert [s.source.plain() for s in doc.segments if s.context == "Prices!D2"] == ["Fresh.", "Picked daily."]
    assert not {"Prices!B2", "Prices!C2", "Prices!B4", "Summary!B1"} & set(contexts)  # number, date, formulas
    assert next(s for s in doc.segments if s.context.startswith("comment")).source.plain() == "Check the price."
    assert contexts[12:16] == ["name of sheet 2", "Summary!A1", "Summary!A2", "Summary!A3"]


@pytest.mark.parametrize("name", BOOKS)
def test_an_untouched_export_is_the_same_package_byte_for_byte(name, tmp_path):
    write_document(FIX / name, tmp_path / "out.xlsx", {}, format="xlsx")
    a, b = zipfile.ZipFile(FIX / name), zipfile.ZipFile(tmp_path / "out.xlsx")
    assert a.namelist() == b.namelist() and all(a.read(n) == b.read(n) for n in a.namelist())


@pytest.mark.parametrize("name", BOOKS)
def test_rich_text_runs_are_paired_tags_and_stay_bold(name, tmp_path):
    doc = FORMAT.read(FIX / name, src_lang="en")
    seg = next(s for s in doc.segments if s.context == "Summary!A3")
    o, c = (t.char for t in seg.source.tags)
    out = tmp_path / "out.xlsx"
    write_document(FIX / name, out, {seg.key: Translation(TaggedText(f"Garder au {o}frais{c} et au sec.",
                                                                     seg.source.tags))}, format="xlsx")
    rich = openpyxl.load_workbook(out, rich_text=True)["Summary"]["A3"].value
    assert str(rich) == "Garder au frais et au sec."
    bold = [b for b in rich if not isinstance(b, str) and b.font.b]
    assert [b.text for b in bold] == ["frais"]


def test_a_string_shared_by_a_translated_and_an_untranslated_cell_is_split(tmp_path):
    src = FIX / "book_lo.xlsx"  # "Product" is one shared string for Prices!A1, Prices!D3 and Summary!A2
    out = _export(src, tmp_path / "out.xlsx", {"Prices!A1": "Produit"})
    assert _values(out, "Prices")["A1"] == "Produit"
    assert _values(out, "Prices")["D3"] == "Product" and _values(out, "Summary")["A2"] == "Product"
    a, b = zipfile.ZipFile(src), zipfile.ZipFile(out)
    # the source string stays where it was, the translation is one new string at the end
    assert b.read(SST).count(b"<si>") == a.read(SST).count(b"<si>") + 1
    assert f'uniqueCount="{a.read(SST).count(b"<si>") + 1}"'.encode() in b.read(SST)
    assert a.read("xl/worksheets/sheet2.xml") == b.read("xl/worksheets/sheet2.xml")


def test_a_string_translated_alike_in_all_its_cells_is_rewritten_in_place(tmp_path):
    src = FIX / "book_lo.xlsx"
    out = _export(src, tmp_path / "out.xlsx", {c: "Produit" for c in ("Prices!A1", "Prices!D3", "Summary!A2")})
    a, b = zipfile.ZipFile(src), zipfile.ZipFile(out)
    assert b.read(SST).count(b"<si>") == a.read(SST).count(b"<si>")
    assert {n for n in a.namelist() if a.read(n) != b.read(n)} == {SST}
    assert _values(out, "Summary")["A2"] == "Produit" and _values(out, "Prices")["D3"] == "Produit"


def test_cells_translated_apart_get_a_string_each(tmp_path):
    out = _export(FIX / "book_lo.xlsx", tmp_path / "out.xlsx",
                  {"Prices!A1": "Produit", "Prices!D3": "Article", "Summary!A2": "Produit"})
    assert (_values(out, "Prices")["A1"], _values(out, "Prices")["D3"], _values(out, "Summary")["A2"]) == (
        "Produit", "Article", "Produit")
    # one string rewritten in place, one added
    assert zipfile.ZipFile(out).read(SST).count(b"<si>") == zipfile.ZipFile(FIX / "book_lo.xlsx").read(SST).count(
        b"<si>") + 1


def test_cells_of_a_very_hidden_sheet_are_not_read_and_keep_their_string(tmp_path):
    src = tmp_path / "hidden.xlsx"
    with zipfile.ZipFile(FIX / "book_lo.xlsx") as zin, zipfile.ZipFile(src, "w", zipfile.ZIP_DEFLATED) as z:
        for info in zin.infolist():
            body = zin.read(info.filename)
            if info.filename == "xl/workbook.xml":
                body = body.replace(b'state="hidden"', b'state="veryHidden"')
            z.writestr(info, body)
    doc = FORMAT.read(src, src_lang="en")
    assert not any(s.context.startswith("Lookup") or s.source.plain() == "Lookup" for s in doc.segments)
    out = _export(src, tmp_path / "out.xlsx", {"Prices!A4": "Total général", "Summary!A1": "Total général"})
    assert _values(out, "Lookup")["A1"] == "Total"
    assert _values(out, "Prices")["A4"] == "Total général" == _values(out, "Summary")["A1"]


@pytest.mark.parametrize("name", BOOKS)
def test_a_translated_sheet_name_is_written_into_the_formulas_that_name_it(name, tmp_path):
    out = _export(FIX / name, tmp_path / "out.xlsx", {"name of sheet 1": "Prix courants"})
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames[0] == "Prix courants"
    assert wb["Summary"]["B1"].value == "='Prix courants'!B4"


def test_a_chart_title_is_translated_and_its_references_follow_a_renamed_sheet(tmp_path):
    src = FIX / "book_lo.xlsx"  # a chart on Summary of Prices!B2:B3
    doc = FORMAT.read(src, src_lang="en")
    assert [s.source.plain() for s in doc.segments if s.context == "chart, Summary"] == ["Prices by product"]
    out = _export(src, tmp_path / "out.xlsx", {"chart, Summary": "Prix par produit", "name of sheet 1": "Prix"})
    chart = etree.fromstring(zipfile.ZipFile(out).read("xl/charts/chart1.xml"))
    c = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
    a = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
    assert "".join(t.text for t in chart.iter(a + "t")) == "Prix par produit"
    assert [f.text for f in chart.iter(c + "f")] == ["'Prix'!B1", "'Prix'!$B$2:$B$3"]


@pytest.mark.parametrize("name", BOOKS)
def test_a_translated_table_header_renames_its_column_and_the_formulas_naming_it(name, tmp_path):
    out = _export(FIX / name, tmp_path / "out.xlsx", {"Stock!B1": "Nombre", "Stock!A2": "Pomme"})
    z = zipfile.ZipFile(out)
    table = etree.fromstring(z.read("xl/tables/table1.xml"))
    assert [tc.get("name") for tc in table.iter(f"{{{S_NS}}}tableColumn")] == ["Item", "Nombre"]
    ws = openpyxl.load_workbook(out)["Stock"]
    assert (ws["B1"].value, ws["A2"].value) == ("Nombre", "Pomme")
    assert ws["D1"].value == "=SUM(Stock[Nombre])"
    assert ws["D2"].value == '=COUNTIF(Stock[Item],"[Count]")'  # a string literal is no reference


def test_two_headers_translated_alike_in_one_table_are_refused(tmp_path):
    with pytest.raises(FormatError) as e:
        _export(FIX / "book_lo.xlsx", tmp_path / "out.xlsx", {"Stock!A1": "Nombre", "Stock!B1": "Nombre"})
    assert "another column of the table 'Stock'" in str(e.value) and "table1.xml" in str(e.value)


def test_column_references_with_escaped_characters_are_renamed():
    from engine.formats.xlsxtables import rename_columns

    names = {"Price [EUR]": "Prix #1", "Qty": "Qté"}
    assert rename_columns("SUM(T[Price '[EUR']])+[@Qty]", names) == "SUM(T[Prix '#1])+[@Qté]"
    assert rename_columns("T[[#This Row],[Qty]]", names) == "T[[#This Row],[Qté]]"


def test_references_are_renamed_but_not_inside_string_literals():
    names = {"Prices": "Prix", "It's": "C'est"}
    assert rename_refs('SUM(Prices!A1:B2)&"Prices!x"', names) == 'SUM(\'Prix\'!A1:B2)&"Prices!x"'
    assert rename_refs("'It''s'!A1+MyPrices!A1", names) == "'C''est'!A1+MyPrices!A1"
    assert rename_refs("IFERROR(REF!A1,#REF!)", {"REF": "Réf"}) == "IFERROR('Réf'!A1,#REF!)"  # an error value


def test_a_sheet_name_excel_would_refuse_is_refused_naming_it(tmp_path):
    with pytest.raises(FormatError) as e:
        _export(FIX / "book_lo.xlsx", tmp_path / "out.xlsx", {"name of sheet 1": "Prix/TTC"})
    assert "'Prix/TTC' (translation of 'Prices')" in str(e.value) and "\n" not in str(e.value)
    assert not (tmp_path / "out.xlsx").exists()


def test_detected_by_content_whatever_the_extension(tmp_path):
    for name in BOOKS:
        p = tmp_path / (name + ".bin")
        shutil.copy(FIX / name, p)
        assert detect(p).name == "xlsx"


def _shared_bomb(path: Path, strings: int, cells: int) -> Path:
    """A workbook of ``cells`` cells all showing shared string 0, among ``strings`` strings."""
    with zipfile.ZipFile(FIX / "book_lo.xlsx") as zin, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for info in zin.infolist():
            body = zin.read(info.filename)
            if info.filename == SST:
                body = (b'<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/'
                        b'main">' + b"<si><t>Word</t></si>" * strings + b"</sst>")
            elif info.filename == "xl/worksheets/sheet1.xml":
                head, _, rest = body.partition(b"<sheetData>")
                _, _, tail = rest.partition(b"</sheetData>")
                body = head + b"<sheetData><row r=\"1\">" + b'<c t="s"><v>0</v></c>' * cells + b"</row></sheetData>" + tail
            z.writestr(info, body)
    return path


def test_a_shared_string_bomb_is_refused_before_it_is_parsed(tmp_path, monkeypatch):
    monkeypatch.setattr(xlsx_mod, "MAX_SHARED_STRINGS", 1000)
    p = _shared_bomb(tmp_path / "bomb.xlsx", strings=1001, cells=1)
    with pytest.raises(FormatError) as e:
        FORMAT.read(p, src_lang="en")
    assert "shared-string bomb" in str(e.value) and "sharedStrings.xml" in str(e.value)


def test_more_text_cells_than_a_document_may_have_segments_is_refused_naming_the_sheet(tmp_path, monkeypatch):
    monkeypatch.setattr(textutil, "MAX_SEGMENTS", 50)
    p = _shared_bomb(tmp_path / "cells.xlsx", strings=1, cells=60)
    t0 = time.thread_time()  # this thread's CPU: a busy machine's other processes do not count
    with pytest.raises(FormatError) as e:
        FORMAT.read(p, src_lang="en")
    assert "more than 50 text cells" in str(e.value) and "member 'xl/worksheets/sheet1.xml'" in str(e.value)
    assert time.thread_time() - t0 < 5


@pytest.mark.skipif(soffice() is None, reason="LibreOffice is not installed")
def test_a_translated_export_opens_in_libreoffice_with_the_translation(tmp_path):
    out = _export(FIX / "book_lo.xlsx", tmp_path / "fr.xlsx",
                  {"Prices!A1": "Produit", "name of sheet 1": "Prix courants", "Prices!A4": "Total général"})
    ods = soffice_convert(out, tmp_path, "ods")
    content = zipfile.ZipFile(ods).read("content.xml").decode()
    assert 'table:name="Prix courants"' in content and "Produit" in content and "Total général" in content
    formulas = [el.get(TABLE_FORMULA) for el in etree.fromstring(content.encode()).iter()
                if el.get(TABLE_FORMULA)]
    assert "of:=[$'Prix courants'.B4]" in formulas  # Summary!B1 follows the rename


def test_a_project_imports_and_exports_an_xlsx(tmp_path):
    from engine.store.project import Project

    with Project.create(tmp_path / "proj", src_lang="en", tgt_lang="fr") as proj:
        doc_id = proj.import_document(FIX / "book_lo.xlsx")
        assert proj.document(doc_id).format == "xlsx"
        pear = next(s for s in proj.segments(doc_id) if s.source.text == "Green pear")
        proj.confirm(pear.id, TaggedText("Poire verte"))
        out = proj.export_document(doc_id, tmp_path / "out.xlsx")
    assert _values(out, "Prices")["A3"] == "Poire verte" and _values(out, "Prices")["B3"] == 2
