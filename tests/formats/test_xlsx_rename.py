"""Issue 45: a translated sheet name changes only the bytes that name the sheet -- its ``name`` in
workbook.xml and the references to it in defined names, formulas and charts -- and every other byte
of every member is as it was (the parts were serialised whole before)."""
from __future__ import annotations

import re
import zipfile
from pathlib import Path

import openpyxl
import pytest

from datafiles import SHARED_DATA
from engine.formats import write_document
from engine.formats.base import Translation
from engine.formats.xlsx import FORMAT
from engine.inline import TaggedText

FIX = Path(__file__).parent / "fixtures" / "office"


def _openpyxl_book(path: Path) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Prices"
    ws["A1"], ws["B1"] = "Apples", 3
    ws["A2"], ws["B2"] = "Prices by product", 4
    summary = wb.create_sheet("Summary")
    summary["A1"], summary["B1"], summary["B2"] = "Total", "=SUM(Prices!B1:B2)", '="Prices!"&Prices!A1'
    wb.defined_names["Total"] = openpyxl.workbook.defined_name.DefinedName("Total", attr_text="Prices!$B$1:$B$2")
    wb.save(path)
    return path


def _samples() -> list:
    real = sorted((SHARED_DATA / "format-samples").rglob("*.xlsx")) if (SHARED_DATA / "format-samples").is_dir() else []
    return [pytest.param(p, id=p.name) for p in [FIX / "book.xlsx", FIX / "book_lo.xlsx", *real[:3]]] + \
        [pytest.param(None, id="openpyxl")]


def _renamed(data: bytes, old: str, new: str) -> bytes:
    """``data`` with the sheet ``old`` named ``new`` where it names the sheet, and nowhere else."""
    o, n = re.escape(old.encode()), ("'" + new.replace("'", "''") + "'!").encode()
    data = re.sub(rb"'" + o + rb"'!|(?<![\w.'\"])" + o + rb"!(?=[$A-Z])", n, data)
    return data.replace(b'name="' + old.encode() + b'"', b'name="' + new.encode() + b'"')


@pytest.mark.parametrize("src", _samples())
def test_a_renamed_sheet_changes_only_the_bytes_that_name_it(src, tmp_path):
    src = src or _openpyxl_book(tmp_path / "made.xlsx")
    doc = FORMAT.read(src, src_lang="en")
    seg = next(s for s in doc.segments if s.context == "name of sheet 1")
    old = seg.source.plain()
    out = tmp_path / "out.xlsx"
    write_document(src, out, {seg.key: Translation(TaggedText("Prix courants"))}, format="xlsx", src_lang="en")
    before, after = zipfile.ZipFile(src), zipfile.ZipFile(out)
    assert after.namelist() == before.namelist()
    changed = []
    for name in before.namelist():
        a, b = before.read(name), after.read(name)
        assert b == _renamed(a, old, "Prix courants"), name
        changed += [name] if a != b else []
    assert "xl/workbook.xml" in changed
    assert openpyxl.load_workbook(out).sheetnames[0] == "Prix courants"
