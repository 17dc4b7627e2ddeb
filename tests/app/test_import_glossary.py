"""Glossary ▸ Import Glossary and Attach Glossary Folder, driven as a translator would: the file
typed and Enter for the dry run (entries, languages, skipped rows), Alt+I to import, Escape to
cancel; a glossary of another pair refused in one line; the new terms in the glossary panel of
the segment being translated; an Excel glossary given to Import Document offered as a glossary."""
from __future__ import annotations

from pathlib import Path

import openpyxl
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox

from engine.glossary import Glossary, GlossaryEntry
from engine.store import Project

from app.dialogs.import_glossary import ImportGlossaryDialog
from editor_helpers import make_project
from test_editor import open_window
from test_glossary_panel import wait_terms

SOURCES = ["Open the files.", "Close the window."]

TBX = """<?xml version="1.0" encoding="UTF-8"?>
<tbx type="TBX-Basic" style="dca" xml:lang="en" xmlns="urn:iso:std:iso:30042:ed-2">
  <tbxHeader><fileDesc><sourceDesc><p>v3</p></sourceDesc></fileDesc></tbxHeader>
  <text><body>
    <conceptEntry id="c1">
      <langSec xml:lang="en"><termSec><term>file</term></termSec></langSec>
      <langSec xml:lang="de"><termSec><term>Datei</term></termSec></langSec>
    </conceptEntry>
    <conceptEntry id="c2">
      <langSec xml:lang="en"><termSec><term>printer</term></termSec></langSec>
    </conceptEntry>
  </body></text>
</tbx>
"""


def menu_action(win, menu: str, text: str):
    bar = next(a.menu() for a in win.menuBar().actions() if a.text() == menu)
    return next(a for a in bar.actions() if a.text() == text)


def open_import(qtbot, win) -> ImportGlossaryDialog:
    menu_action(win, "&Glossary", "&Import Glossary…").trigger()
    dlg = win.glossaries.import_dialog
    assert isinstance(dlg, ImportGlossaryDialog) and dlg.isVisible()
    qtbot.waitExposed(dlg, timeout=30_000)
    return dlg


def dry_run(qtbot, dlg, path: Path) -> None:
    """Type the file's path and press Enter: the dry run reads it."""
    dlg.path.setFocus()
    qtbot.keyClicks(dlg.path, str(path))
    qtbot.keyClick(dlg.path, Qt.Key_Return)
    qtbot.waitUntil(lambda: not dlg.busy() and dlg.report is not None, timeout=30_000)


def test_a_tbx_imported_from_the_menu_becomes_the_project_glossary_and_its_terms_show_at_once(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", SOURCES, tm=False)
    tbx = tmp_path / "terms.tbx"
    tbx.write_text(TBX, encoding="utf-8")
    win = open_window(qtbot, folder)
    qtbot.waitUntil(lambda: win.memory.terms_ready or "no glossary" in win.glossary.text(), timeout=30_000)
    dlg = open_import(qtbot, win)
    assert dlg.folder() == folder / "glossary"                  # the project's own, made on import

    dry_run(qtbot, dlg, tbx)
    summary = dlg.summary.text()
    assert "1 entries can be imported (en -> de)" in summary and "1 rows would be skipped" in summary
    assert "en, de" in summary
    assert "'c2' has no de term" in dlg.problems.toPlainText()
    assert not Glossary.exists(folder / "glossary")             # a dry run writes nothing

    qtbot.keyClick(dlg, Qt.Key_I, Qt.AltModifier)
    qtbot.waitUntil(lambda: dlg.result is not None, timeout=30_000)
    assert "1 added, 0 updated" in dlg.summary.text()
    with Project.open(folder) as p:
        (ref,) = p.glossary_refs()
    assert ref.path == folder / "glossary" and ref.writable
    wait_terms(qtbot, win, 0)
    assert [e.source for e in win.glossary.entries] == ["file"]  # "files" in the current segment
    qtbot.keyClick(dlg, Qt.Key_Escape)
    assert not dlg.isVisible()


def test_a_glossary_of_another_pair_is_refused_in_one_line_and_nothing_is_made(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", SOURCES, tm=False)
    csv = tmp_path / "french.csv"
    csv.write_text("en,fr\nfile,fichier\nwindow,fenêtre\n", encoding="utf-8")
    win = open_window(qtbot, folder)
    dlg = open_import(qtbot, win)
    dry_run(qtbot, dlg, csv)
    assert dlg.summary.text().splitlines() == [
        "Cannot be imported: french.csv is a en -> fr glossary; this project is en -> de. Languages in the file: en, fr."]
    assert not dlg.import_button.isEnabled()
    qtbot.keyClick(dlg, Qt.Key_I, Qt.AltModifier)
    qtbot.wait(300)
    assert not dlg.busy() and not (folder / "glossary").exists()


def test_escape_during_the_import_leaves_no_glossary_behind(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", SOURCES, tm=False)
    csv = tmp_path / "big.tsv"
    csv.write_text("en\tde\n" + "".join(f"term {i}\tBegriff {i}\n" for i in range(20_000)), encoding="utf-8")
    win = open_window(qtbot, folder)
    dlg = open_import(qtbot, win)
    dry_run(qtbot, dlg, csv)
    assert "20000 entries can be imported" in dlg.summary.text()
    qtbot.keyClick(dlg, Qt.Key_I, Qt.AltModifier)
    qtbot.waitUntil(dlg.busy, timeout=30_000)                     # (a mnemonic clicks a moment later)
    qtbot.keyClick(dlg, Qt.Key_Escape)
    qtbot.waitUntil(lambda: not dlg.busy(), timeout=30_000)
    assert dlg.summary.text() == "Cancelled: the glossary is unchanged."
    assert dlg.isVisible() and dlg.result is None
    assert not (folder / "glossary").exists()
    with Project.open(folder) as p:
        assert p.glossary_refs() == []


def test_attach_glossary_folder_lists_it_read_only_and_refuses_another_pair(qtbot, tmp_path, monkeypatch):
    folder = make_project(tmp_path / "p", SOURCES, tm=False)
    with Glossary(tmp_path / "client", create=True) as g:
        g.add(GlossaryEntry("window", ("Fenster",), "en", "de"))
    with Glossary(tmp_path / "french", create=True) as g:
        g.add(GlossaryEntry("window", ("fenêtre",), "en", "fr"))
    warned = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: warned.append(text))
    win = open_window(qtbot, folder)
    win.nav.go_to(1)
    chosen = iter([str(tmp_path / "french"), str(tmp_path / "client")])
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: next(chosen))
    attach = menu_action(win, "&Glossary", "&Attach Glossary Folder…")

    attach.trigger()
    assert warned == ["french is a en -> fr glossary; this project is en -> de"]
    attach.trigger()
    with Project.open(folder) as p:
        (ref,) = p.glossary_refs()
    assert ref.path == (tmp_path / "client").resolve() and not ref.writable
    wait_terms(qtbot, win, 1)
    assert [e.target for e in win.glossary.entries] == ["Fenster"]


def _workbook(path: Path) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    for row in (["en", "de"], ["file", "Datei"], ["window", "Fenster"], ["main menu", "Hauptmenü"]):
        ws.append(row)
    wb.save(path)
    return path


def test_an_excel_glossary_given_as_a_document_is_offered_to_import_glossary(qtbot, tmp_path, monkeypatch):
    folder = make_project(tmp_path / "p", SOURCES, tm=False)
    book = _workbook(tmp_path / "terms.xlsx")
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda parent, title, text, *a: asked.append(text) or QMessageBox.Yes)
    win = open_window(qtbot, folder)
    docs = win.doc_combo.count()
    win.documents.import_document(book)
    qtbot.waitUntil(lambda: win.glossaries.import_dialog is not None, timeout=30_000)
    (text,) = asked
    assert text.startswith("terms.xlsx: the first sheet reads as a glossary") and "Import it as a glossary" in text
    dlg = win.glossaries.import_dialog
    qtbot.waitUntil(lambda: not dlg.busy() and dlg.report is not None, timeout=30_000)
    assert "3 entries can be imported (en -> de)" in dlg.summary.text()
    qtbot.keyClick(dlg, Qt.Key_I, Qt.AltModifier)
    qtbot.waitUntil(lambda: dlg.result is not None, timeout=30_000)
    wait_terms(qtbot, win, 0)
    assert [e.target for e in win.glossary.entries] == ["Datei"]
    assert win.doc_combo.count() == docs                       # not imported as a document too


def test_an_excel_glossary_answered_no_is_imported_as_a_document(qtbot, tmp_path, monkeypatch):
    folder = make_project(tmp_path / "p", SOURCES, tm=False)
    book = _workbook(tmp_path / "terms.xlsx")
    monkeypatch.setattr(QMessageBox, "question", lambda *a: QMessageBox.No)
    win = open_window(qtbot, folder)
    docs = win.doc_combo.count()
    win.documents.import_document(book)
    qtbot.waitUntil(lambda: win.doc_combo.count() == docs + 1, timeout=30_000)
    assert win.doc_combo.currentText() == "terms.xlsx" and win.glossaries.import_dialog is None
    assert "window" in [s.source.plain() for s in win.model.segments()]
