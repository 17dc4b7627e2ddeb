"""Importing a document from the editor happens in the background, and a bad file loses nothing."""
from __future__ import annotations

from PySide6.QtWidgets import QMessageBox

from app.main_window import MainWindow
from engine.store import Project

from editor_helpers import hold_jobs, make_project


def _window(qtbot, folder) -> MainWindow:
    w = MainWindow(Project.open(folder), nmt=False)
    qtbot.addWidget(w)
    w.show()
    return w


def test_import_runs_in_the_background_and_opens_the_document(qtbot, tmp_path):
    win = _window(qtbot, make_project(tmp_path / "p", ["First sentence."], tm=False))
    doc = tmp_path / "manual.txt"
    doc.write_text("Open the file. Save it.\n\nClose the window.\n", encoding="utf-8")
    win.documents.import_document(doc)
    qtbot.waitUntil(lambda: win.doc_combo.currentText() == "manual.txt", timeout=30_000)
    assert [win.model.segment(r).source.text for r in range(win.model.rowCount())] == [
        "Open the file.", "Save it.", "Close the window."]


def test_a_broken_file_is_reported_and_nothing_is_stored(qtbot, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *a, **k: shown.append(a[2]))
    folder = make_project(tmp_path / "p", ["First sentence."], tm=False)
    win = _window(qtbot, folder)
    bad = tmp_path / "broken.xlf"
    bad.write_text('<?xml version="1.0"?><xliff version="1.2"><file source-language="en"><body><trans-unit id="1">'
                   "<source>Hello", encoding="utf-8")
    win.documents.import_document(bad)
    qtbot.waitUntil(lambda: bool(shown), timeout=30_000)
    assert "broken.xlf" in shown[0]
    with Project.open(folder) as p:
        assert [d.name for d in p.documents()] == ["p-doc.txt"]


def test_a_long_import_shows_the_segments_read_so_far(qtbot, tmp_path, monkeypatch):
    from engine.formats import readprogress
    monkeypatch.setattr(readprogress, "EVERY", 0.01)   # "every few seconds", shrunk to fit a test
    win = _window(qtbot, make_project(tmp_path / "p", ["First sentence."], tm=False))
    doc = tmp_path / "long.txt"
    doc.write_text("".join(f"Paragraph number {i} says something.\n\n" for i in range(40_000)), "utf-8")
    said = []
    gate = hold_jobs(monkeypatch)   # its progress is said from the start, to a test that listens
    w = win.documents.import_document(doc)
    w.signals.progress.connect(lambda e: said.append(e.get("text", "")))
    gate.set()
    qtbot.waitUntil(lambda: win.doc_combo.currentText() == "long.txt", timeout=120_000)
    import re
    assert any(re.fullmatch(r"Reading long\.txt… (\d[\d,]* segments read|\(\d+ s\))", t) for t in said), said
