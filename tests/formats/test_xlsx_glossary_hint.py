"""An Excel glossary given to ``doc import`` says where glossaries go (issue 39): the workbook
is still read as a document -- a bilingual table is a job too -- but the import's problems
name ``verso glossary import``."""

from __future__ import annotations

import openpyxl
import pytest

from engine.formats import read_document


def _book(path, rows, sheet="Terms"):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = sheet
    for row in rows:
        ws.append(row)
    wb.save(path)
    return path


@pytest.mark.parametrize("header", [["English", "German"], ["en", "de"], ["Source term", "Target term"],
                                    ["Term", "Translation", "Note"]])
def test_a_glossary_workbook_points_at_glossary_import(tmp_path, header):
    rows = [header, ["Save As", "Speichern unter"], ["window", "Fenster"], ["main menu", "Hauptmenü"]]
    if header == ["English", "German"]:
        rows[0] = ["en-US", "de-DE"]
    doc = read_document(_book(tmp_path / "terms.xlsx", rows))
    assert any("verso glossary import" in p for p in doc.problems), doc.problems
    assert "window" in [s.source.plain() for s in doc.segments]  # still read as a document


def test_a_document_workbook_with_a_header_gets_no_pointer(tmp_path):
    rows = [["Product", "Description"],
            ["Kettle", "Boils a litre of water in under three minutes without fuss."],
            ["Toaster", "Two slots, six settings and a crumb tray that slides out."]]
    doc = read_document(_book(tmp_path / "catalogue.xlsx", rows))
    assert not any("glossary" in p for p in doc.problems), doc.problems


def test_long_cells_under_a_language_header_are_a_job_not_a_glossary(tmp_path):
    rows = [["en", "de"],
            ["Open the file menu and choose the export format you need for the client.", ""],
            ["The dialog closes itself once the export has finished writing the file.", ""]]
    doc = read_document(_book(tmp_path / "job.xlsx", rows))
    assert not any("glossary" in p for p in doc.problems), doc.problems
